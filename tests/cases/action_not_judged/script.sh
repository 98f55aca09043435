#!/usr/bin/env bash
# A missing GPU never turns the action green: with if-no-gpu skip on this GPU-less machine, a
# submission whose offline stages pass (wgmma_tma) exits 0, but the summary's title says "not
# judged on a GPU: <reason>", the not-judged-on-gpu output counts it, the Conclude step fails the
# job with that error, and the check run concludes action_required with a NOT JUDGED ON A GPU
# title. fail-on never keeps the job green, the check run still action_required.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
yaml_python
mkdir -p "$OUT"
token="ghs_fakeInstallationToken_SECRET_77"
sha="3333333333333333333333333333333333333333"
cat >"$OUT/state.json" <<JSON
{"tokens": {"$token": null}, "pulls": {"5": {"head_sha": "$sha"}}}
JSON
fake_github "$OUT/state.json"
cat >"$OUT/event.json" <<JSON
{"number": 5, "pull_request": {"number": 5, "head": {"sha": "$sha",
 "repo": {"full_name": "kernels/gemm"}}}, "repository": {"full_name": "kernels/gemm"}}
JSON
export GITHUB_EVENT_NAME=pull_request GITHUB_REPOSITORY=kernels/gemm GITHUB_API_URL="$FAKE_URL" \
  GITHUB_SERVER_URL=https://github.example GITHUB_TOKEN="$token" GITHUB_EVENT_PATH="$OUT/event.json" \
  GITHUB_WORKSPACE="$ROOT" GITHUB_SHA=4444444444444444444444444444444444444444 GITHUB_RUN_ID=9 \
  RUNNER_ENVIRONMENT=self-hosted
run() {
  run_action "$1" --input check-name=ptxgate --input comment-mode=off \
    --input submissions=tasks/gemm_bf16_nt/examples/wgmma_tma.json \
    --input workloads=m2048_n2048_k2048 "${@:2}"
}
run gate || { echo "FAIL: the simulator failed"; cat "$OUT/gate/log.txt"; exit 1; }
run never --input fail-on=never
python3 - "$OUT" "$FAKE_LOG" <<'PY' || exit 1
import json, sys
out, fake_log = sys.argv[1], sys.argv[2]
bad = []
def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok: bad.append(what)
g = json.load(open(f"{out}/gate/result.json"))
res = json.load(open(f"{out}/gate/reports/results.json"))
check(res["exit_code"] == 0 and res["verdict"] == "pass", "check exits 0: the offline stages pass")
check(g["outputs"]["exit-code"] == "0", "exit-code output 0")
check(g["outputs"]["not-judged-on-gpu"] == "1", "not-judged-on-gpu output counts the submission")
check(g["conclusion"] == "failure", "fail-on gate: the job is not green")
log = open(f"{out}/gate/log.txt").read()
check("::error title=ptxgate::not judged on a GPU: 1 submission(s) passed only the offline stages" in log,
      "the Conclude step says why")
summary = open(f"{out}/gate/summary.md").read()
check(summary.startswith("## ptxgate: PASS · not judged on a GPU: "), "the summary's title says so")
check("PASS offline, not judged on a GPU" in summary, "the submission's verdict says so")
n = json.load(open(f"{out}/never/result.json"))
check(n["conclusion"] == "success", "fail-on never: the job passes")
runs = [json.loads(l) for l in open(fake_log)]
posts = [r for r in runs if r.get("method") == "POST" and r.get("path", "").endswith("/check-runs")]
check(len(posts) == 2, "a check run per run")
for p in posts:
    body = p.get("body") or {}
    check(body.get("conclusion") == "action_required", "check run concludes action_required")
    check(body.get("output", {}).get("title", "").startswith("NOT JUDGED ON A GPU: "),
          "check run title: NOT JUDGED ON A GPU")
sys.exit(1 if bad else 0)
PY
