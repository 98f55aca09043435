#!/usr/bin/env bash
# action.yml on a pull request from a fork: refused on a self-hosted runner (nothing installed,
# checked or published; the job fails), allowed with allow-forks: true, allowed on a
# GitHub-hosted runner, and always refused under pull_request_target.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
yaml_python
mkdir -p "$OUT"
echo '{"tokens": {"t-SECRET": "bot"}}' >"$OUT/state.json"
fake_github "$OUT/state.json"
cat >"$OUT/event.json" <<'JSON'
{"pull_request": {"number": 3, "head": {"sha": "3333333333333333333333333333333333333333",
 "repo": {"full_name": "mallory/gemm"}}}, "repository": {"full_name": "kernels/gemm"}}
JSON
export GITHUB_REPOSITORY=kernels/gemm GITHUB_API_URL="$FAKE_URL" GITHUB_TOKEN=t-SECRET \
  GITHUB_EVENT_PATH="$OUT/event.json" GITHUB_WORKSPACE="$ROOT"
run() { # run NAME EVENT RUNNER [input=value...]
  GITHUB_EVENT_NAME="$2" RUNNER_ENVIRONMENT="$3" run_action "$1" \
    --input submissions=tests/fixtures/gemm_bf16_nt/syntax_error.json "${@:4}"
}
steps() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["conclusion"], " ".join(s["outcome"] for s in r["steps"]))' "$OUT/$1/result.json"; }
run refused pull_request self-hosted
check "fork refused on self-hosted: only the guard ran, and failed" \
  [ "$(steps refused)" = "failure failure skipped skipped skipped skipped" ]
check "the refusal says why" grep -q "::error title=ptxgate::refusing a pull request from a fork on a self-hosted runner" "$OUT/refused/log.txt"
check "no report was written" [ ! -e "$OUT/refused/reports" ]
check "the fake API saw no request from the refused run" [ ! -s "$FAKE_LOG" ]
run allowed pull_request self-hosted --input allow-forks=true
check "allow-forks: true runs it, with a warning" grep -q "::warning title=ptxgate::running a pull request from a fork" "$OUT/allowed/log.txt"
check "allow-forks: true: check and publish ran" [ "$(steps allowed)" = "failure success success success success failure" ]
run hosted pull_request github-hosted
check "a GitHub-hosted runner runs a fork's PR" [ "$(steps hosted)" = "failure success success success success failure" ]
run target pull_request_target github-hosted --input allow-forks=true
check "pull_request_target with a fork is always refused" [ "$(steps target)" = "failure failure skipped skipped skipped skipped" ]
run badflag pull_request self-hosted --input allow-forks=yes
check "allow-forks must be true or false" grep -q "allow-forks must be true or false" "$OUT/badflag/log.txt"
exit $((failures > 0))
