#!/usr/bin/env bash
# ptxgate publish against the fake GitHub API when GitHub answers with its secondary rate limit:
# a 403 whose body says "secondary rate limit", with no retry-after and no x-ratelimit-* header.
# The comment is retried (after 60 s, then 120 s: PTXGATE_GITHUB_WAIT_SCALE=0 makes the waits
# instant here) and lands; when the limit lasts, the step gives up within the budget and says
# why. And a plain-http API URL to a non-loopback host is refused with exit 2 before anything is
# written or sent.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
mkdir -p "$OUT"
cat >"$OUT/state.json" <<'JSON'
{"tokens": {"pat-SECRET-2": "octocat"},
 "rules": [{"method": "POST", "path": "/repos/o/r/issues/5/comments", "status": 403, "times": 2,
            "body": {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                     "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}},
           {"method": "PATCH", "status": 403, "times": 100,
            "body": {"message": "You have exceeded a secondary rate limit."}}]}
JSON
fake_github "$OUT/state.json"
results="$ROOT/tests/data/results/assemble_fail.json"
unset GITHUB_TOKEN GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_ACTIONS
export PG_TOK=pat-SECRET-2 PTXGATE_GITHUB_WAIT_SCALE=0
pub() { # pub NAME ARGS...
  mkdir -p "$OUT/$1"
  "$BIN" publish --repo o/r --summary-file "$OUT/$1/summary.md" --output-file "$OUT/$1/output" \
    --token-env PG_TOK "${@:2}" >"$OUT/$1/stdout" 2>"$OUT/$1/stderr"
  echo $? >"$OUT/$1/rc"
}
pub create --comment update --pr 5 --api-url "$FAKE_URL" "$results"
check "secondary limit: exit 0" [ "$(cat "$OUT/create/rc")" = 0 ]
check "secondary limit: the comment was created in the end" grep -q "created comment [0-9]* on #5" "$OUT/create/stdout"
check "secondary limit: the create was sent three times (two refusals, then the comment)" \
  [ "$(count_requests POST '/issues/5/comments$')" = 3 ]
check "secondary limit: no publishing error" grep -q "^publish-errors=0$" "$OUT/create/output"

pub update --comment update --pr 5 --api-url "$FAKE_URL" "$results"
check "a lasting limit: exit 0 (publishing does not change the verdict)" [ "$(cat "$OUT/update/rc")" = 0 ]
check "a lasting limit: gives up within the budget, saying why" \
  grep -q "comment: FAILED: .*gave up: waiting 240 s more would pass the 300 s budget (secondary rate limit (HTTP 403)" "$OUT/update/stderr"
check "a lasting limit: the update was tried three times" [ "$(count_requests PATCH '/issues/comments/')" = 3 ]
check "a lasting limit: counted as a publishing error" grep -q "^publish-errors=1$" "$OUT/update/output"

before=$(count_requests GET .)
pub plain --comment update --pr 5 --api-url "http://api.github.example" "$results"
check "plain http: exit 2" [ "$(cat "$OUT/plain/rc")" = 2 ]
check "plain http: says why" grep -qF "field 'api-url': refusing http://api.github.example: the token would be sent in clear; expected an https:// URL (http:// only to a loopback host: 127.0.0.0/8, [::1], localhost)" "$OUT/plain/stderr"
check "plain http: nothing written" [ ! -e "$OUT/plain/summary.md" -a ! -e "$OUT/plain/output" ]
check "plain http: nothing sent" [ "$(count_requests GET .)" = "$before" ]
pub userinfo --comment update --pr 5 --api-url "http://127.0.0.1@api.github.example/" "$results"
check "a loopback-looking user name: exit 2" [ "$(cat "$OUT/userinfo/rc")" = 2 ]
GITHUB_API_URL="http://10.0.0.1/api/v3" pub envurl --comment update --pr 5 "$results"
check "plain http from GITHUB_API_URL: exit 2" [ "$(cat "$OUT/envurl/rc")" = 2 ]
check "the token is in no output" bash -c "! grep -rq 'pat-SECRET' '$OUT'/*/"
exit $((failures > 0))
