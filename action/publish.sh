#!/usr/bin/env bash
# Step 4 of action.yml: `ptxgate publish` the results (job summary, annotations, sticky comment,
# check run, outputs). The token reaches ptxgate as the environment variable PG_GITHUB_TOKEN,
# never on a command line. Output: publish-exit (0 done, 2 no readable results, 3 a publishing
# step failed with publish-failure: fail).
# Inputs (env): PG_BINARY, PG_RESULTS, PG_SUMMARY, PG_ANNOTATIONS, PG_COMMENT_MODE,
# PG_COMMENT_KEY, PG_COMMENT_AUTHOR, PG_CHECK_NAME, PG_GITHUB_TOKEN, PG_API_URL,
# PG_PUBLISH_FAILURE; GITHUB_OUTPUT and the other GITHUB_* variables of the runner.
set -uo pipefail

out="${GITHUB_OUTPUT:?}"
bad() { echo "::error title=ptxgate publish::$*"; echo "publish-exit=2" >>"$out"; exit 0; }
bool() { [[ "$1" == true || "$1" == false ]]; }
bool "${PG_SUMMARY:-true}" || bad "summary must be true or false"
bool "${PG_ANNOTATIONS:-true}" || bad "annotations must be true or false"
case "${PG_PUBLISH_FAILURE:-warn}" in warn | fail) ;; *) bad "publish-failure must be warn or fail" ;; esac
[[ -n "${PG_BINARY:-}" ]] || bad "no ptxgate binary (the install step failed)"
if [[ -z "${PG_RESULTS:-}" || ! -f "$PG_RESULTS" ]]; then
  bad "no results.json to publish: ptxgate check wrote none (see its step)"
fi

args=(publish --token-env PG_GITHUB_TOKEN --comment "${PG_COMMENT_MODE:-update}"
      --comment-key "${PG_COMMENT_KEY:-ptxgate}")
[[ "${PG_SUMMARY:-true}" == true ]] || args+=(--summary-file "")
[[ "${PG_ANNOTATIONS:-true}" == true ]] && args+=(--annotations)
[[ -n "${PG_COMMENT_AUTHOR:-}" ]] && args+=(--comment-author "$PG_COMMENT_AUTHOR")
[[ -n "${PG_CHECK_NAME:-}" ]] && args+=(--check-name "$PG_CHECK_NAME")
[[ -n "${PG_API_URL:-}" ]] && args+=(--api-url "$PG_API_URL")
[[ "${PG_PUBLISH_FAILURE:-warn}" == fail ]] && args+=(--fail-on-publish-error)

"$PG_BINARY" "${args[@]}" -- "$PG_RESULTS"
rc=$?
echo "publish-exit=$rc" >>"$out"
exit 0
