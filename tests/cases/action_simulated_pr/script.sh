#!/usr/bin/env bash
# The composite action (action.yml) run as the runner would, on a simulated pull_request event
# against the fake GitHub API: a submission with a PTX syntax error and a passing example, twice.
# Checks: the job summary is the results' summary.md; the outputs match results.json; the
# annotations sit at the PTX lines of the assemble diagnostics; the log runs ptxgate check inside
# ::stop-commands::; exactly one comment is created and then updated; a check run per run with
# every annotation; the token appears nowhere; fail-on never passes the job.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
yaml_python
mkdir -p "$OUT"
token="ghs_fakeInstallationToken_SECRET_4242"
sha="1111111111111111111111111111111111111111"
cat >"$OUT/state.json" <<JSON
{"tokens": {"$token": null}, "pulls": {"12": {"head_sha": "$sha"}}}
JSON
fake_github "$OUT/state.json"
cat >"$OUT/event.json" <<JSON
{"number": 12, "pull_request": {"number": 12, "head": {"sha": "$sha",
 "repo": {"full_name": "kernels/gemm"}}}, "repository": {"full_name": "kernels/gemm"}}
JSON
export GITHUB_EVENT_NAME=pull_request GITHUB_REPOSITORY=kernels/gemm GITHUB_API_URL="$FAKE_URL" \
  GITHUB_SERVER_URL=https://github.example GITHUB_TOKEN="$token" GITHUB_EVENT_PATH="$OUT/event.json" \
  GITHUB_WORKSPACE="$ROOT" GITHUB_SHA=2222222222222222222222222222222222222222 GITHUB_RUN_ID=77 \
  RUNNER_ENVIRONMENT=self-hosted

run() { # run NAME [input=value...]
  run_action "$1" --input check-name=ptxgate --input "submissions=tests/fixtures/gemm_bf16_nt/syntax_error.json
tasks/gemm_bf16_nt/examples/naive.json" "${@:2}"
}
mkdir -p "$OUT/run1" "$OUT/run2" "$OUT/run3"
run run1 || { echo "FAIL: the simulator failed"; cat "$OUT/run1/log.txt"; exit 1; }
run run2 --input junit-path="$OUT/run2/junit/ptxgate.xml"
run run3 --input fail-on=never --input comment-mode=off --input check-name=

python3 - "$OUT" "$ROOT" <<'PY' || failures=$((failures + 1))
import json, os, sys
out, root = sys.argv[1], sys.argv[2]
bad = []
def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok: bad.append(what)

r1 = json.load(open(f"{out}/run1/result.json"))
res = json.load(open(f"{out}/run1/reports/results.json"))
o = r1["outputs"]
check(r1["conclusion"] == "failure", "fail-on gate fails the job on a gate failure")
check(o["conclusion"] == res["verdict"] == "fail", "conclusion output is the results verdict")
check(o["exit-code"] == str(res["exit_code"]) == "1", "exit-code output is 1")
verd = [s["verdict"] for s in res["submissions"]]
for k in ("passed", "failed", "errored", "skipped"):
    check(o[k] == str(verd.count({"passed": "pass", "failed": "fail", "errored": "error",
                                   "skipped": "skipped"}[k])), f"{k} output counts submissions")
check(o["comment-id"].isdigit(), "comment-id output is set")
check(o["check-run-url"].startswith("https://github.example/kernels/gemm/runs/"), "check-run-url output")
check(o["results-path"] == f"{out}/run1/reports/results.json", "results-path output")
check(o["summary-path"] == f"{out}/run1/reports/summary.md", "summary-path output")
summary = open(f"{out}/run1/summary.md").read()
check(summary == open(f"{out}/run1/reports/summary.md").read(),
      "the job summary is exactly the report's summary.md")
log = open(f"{out}/run1/log.txt").read()
# Annotations at the PTX lines of the assemble diagnostics.
sub = [s for s in res["submissions"] if s["name"] == "syntax_error"][0]
asm = [st for st in sub["stages"] if st["stage"] == "assemble"][0]
lines = [d["line"] for d in asm["details"]["diagnostics"] if d["severity"] == "error" and d["line"]]
check(len(lines) >= 1, "the fixture has located ptxas errors")
for ln in lines:
    want = f"::error file=tests/fixtures/gemm_bf16_nt/syntax_error.ptx,line={ln},endLine={ln},"
    check(want in log, f"annotation at PTX line {ln}")
stop = [l for l in log.splitlines() if l.startswith("::stop-commands::")]
check(len(stop) >= 2 and f"::{stop[0].split('::')[2]}::" in log, "ptxgate's own log runs inside ::stop-commands::")
# Second run: same comment updated; junit copied.
r2 = json.load(open(f"{out}/run2/result.json"))
check(r2["outputs"]["comment-id"] == o["comment-id"], "the second run updates the same comment")
check(os.path.isfile(f"{out}/run2/junit/ptxgate.xml") and
      r2["outputs"]["junit-path"] == f"{out}/run2/junit/ptxgate.xml", "junit-path copy and output")
r3 = json.load(open(f"{out}/run3/result.json"))
check(r3["conclusion"] == "success" and r3["outputs"]["conclusion"] == "fail",
      "fail-on never keeps the job green but reports the verdict")
check(r3["outputs"]["comment-id"] == "" and r3["outputs"]["check-run-url"] == "",
      "comment-mode off and no check-name publish nothing")
sys.exit(1 if bad else 0)
PY

check "exactly one comment created" [ "$(count_requests POST '/issues/12/comments$')" = 1 ]
check "and updated once by the second run" [ "$(count_requests PATCH '/issues/comments/[0-9]+$')" = 1 ]
check "one check run per publishing run" [ "$(count_requests POST '/check-runs$')" = 2 ]
check "check runs on the PR head, not GITHUB_SHA" grep -q "\"head_sha\": \"$sha\"" "$FAKE_LOG"
check "every request has a valid token" bash -c "! grep -q '\"auth\": \"\\(none\\|invalid\\)\"' '$FAKE_LOG'"
check "the token appears in no log, output, summary or report" \
  bash -c "! grep -rqF '$token' '$OUT/run1' '$OUT/run2' '$OUT/run3'"
((failures == 0)) || { echo "--- run1 log"; cat "$OUT/run1/log.txt"; exit 1; }
