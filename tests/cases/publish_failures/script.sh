#!/usr/bin/env bash
# ptxgate publish when publishing goes wrong, against the fake GitHub API: each failed step is
# reported and the others still run; the exit code stays 0 unless --fail-on-publish-error (3);
# no token, an unreachable API (no waiting with --max-wait 0), a PR head that moved
# (--verify-head), a personal token that cannot create check runs. Also: GitHub Enterprise
# Server's /api/v3 prefix, the PR number from a workflow_run event, and hostile results whose
# comment carries no raw HTML, no @mention and no injected workflow command.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
mkdir -p "$OUT"
sha=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
cat >"$OUT/state.json" <<JSON
{"tokens": {"pat-SECRET-1": "octocat"}, "pulls": {"5": {"head_sha": "$sha"}},
 "rules": [{"method": "POST", "path": "/repos/o/r/check-runs", "status": 403, "times": 1,
            "body": {"message": "Resource not accessible by personal access token"}}]}
JSON
fake_github "$OUT/state.json" /api/v3
results="$ROOT/tests/data/results/assemble_fail.json"
unset GITHUB_TOKEN GITHUB_EVENT_PATH GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_ACTIONS
pub() { # pub NAME ARGS...: run publish with its own summary and output files
  mkdir -p "$OUT/$1"
  "$BIN" publish --repo o/r --summary-file "$OUT/$1/summary.md" --output-file "$OUT/$1/output" \
    "${@:2}" >"$OUT/$1/stdout" 2>"$OUT/$1/stderr"
  echo $? >"$OUT/$1/rc"
}
rc() { cat "$OUT/$1/rc"; }

pub notoken --comment update --pr 5 --check-name ptxgate --sha "$sha" --api-url "$FAKE_URL" "$results"
check "no token: exit 0" [ "$(rc notoken)" = 0 ]
check "no token: both API steps fail, saying why" [ "$(grep -c 'FAILED: no token' "$OUT/notoken/stderr")" = 2 ]
check "no token: summary and outputs still written" grep -q "^publish-errors=2$" "$OUT/notoken/output"
check "no token: the summary is there" grep -q "## ptxgate: FAIL" "$OUT/notoken/summary.md"
pub notoken3 --comment update --pr 5 --api-url "$FAKE_URL" --fail-on-publish-error "$results"
check "--fail-on-publish-error: exit 3" [ "$(rc notoken3)" = 3 ]

export PG_TOK=pat-SECRET-1
pub down --comment update --pr 5 --token-env PG_TOK --api-url http://127.0.0.1:1 --max-wait 0 "$results"
check "unreachable API: reported" grep -q "comment: FAILED: .*GitHub API: GET /user" "$OUT/down/stderr"
check "unreachable API: exit 0" [ "$(rc down)" = 0 ]

pub moved --comment update --pr 5 --sha bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb --verify-head \
  --check-name ptxgate --token-env PG_TOK --api-url "$FAKE_URL" "$results"
check "--verify-head: a moved head is refused" grep -q "refusing to publish: pull request #5's head is $sha" "$OUT/moved/stderr"
check "--verify-head: nothing was created" [ "$(count_requests POST .)" = 0 ]

pub pat --check-name ptxgate --sha "$sha" --token-env PG_TOK --api-url "$FAKE_URL" "$results"
check "personal token: the check run failure explains the token kind" grep -q "only GitHub App tokens" "$OUT/pat/stderr"

cat >"$OUT/run-event.json" <<JSON
{"workflow_run": {"head_sha": "$sha", "head_repository": {"full_name": "o/r"},
 "pull_requests": [{"number": 5}]}}
JSON
pub ghes --annotations --comment update --event "$OUT/run-event.json" --verify-head --check-name ptxgate \
  --token-env PG_TOK --api-url "$FAKE_URL" "$ROOT/tests/data/results/hostile.json"
check "GHES prefix and workflow_run event: comment created on #5" grep -q "created comment [0-9]* on #5" "$OUT/ghes/stdout"
check "workflow_run event: check run on its head SHA" grep -q "check-run: check run" "$OUT/ghes/stdout"
check "every request went to /api/v3" bash -c "! grep -v '\"path\": \"/api/v3/' '$FAKE_LOG' | grep -q ."
python3 - "$FAKE_LOG" <<'PY' || failures=$((failures + 1))
import json, sys
bodies = [json.loads(l)["body"] for l in open(sys.argv[1])]
comment = [b["body"] for b in bodies if isinstance(b, dict) and "body" in b][0]
ok = True
for bad in ("<script", "<b>", "<img", "@someone"):
    if bad in comment:
        print("FAIL: the comment carries", bad); ok = False
if not comment.startswith("<!-- ptxgate-comment: ptxgate -->\n"):
    print("FAIL: the marker is not the first line"); ok = False
print("ok: hostile text is inert in the comment" if ok else "")
sys.exit(0 if ok else 1)
PY
check "hostile results: one annotation per line, no injected command" \
  bash -c "! grep -v '^::\(error\|warning\|notice\) ' '$OUT/ghes/stdout' | grep -q '^::'"
check "the token is in no output" bash -c "! grep -rq 'pat-SECRET' '$OUT'/*/"
exit $((failures > 0))
