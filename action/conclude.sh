#!/usr/bin/env bash
# Step 5 of action.yml: pass or fail the job from ptxgate check's exit code and fail-on
# (gate: any failure; error: input and infrastructure errors only; never), and from publishing
# when publish-failure is fail. A run that passed without judging some submission on a GPU
# (if-no-gpu skip on a runner without a usable GPU) is not a pass: it fails the job like an
# infrastructure error (fail-on gate or error), so a missing GPU never turns a kernel change green.
# Inputs (env): PG_EXIT_CODE, PG_FAIL_ON, PG_PUBLISH_EXIT, PG_NOT_JUDGED (publish's
# not-judged-on-gpu output: a count, empty when publishing did not run).
set -euo pipefail

rc="${PG_EXIT_CODE:-}"
fail_on="${PG_FAIL_ON:-gate}"
case "$fail_on" in
  gate | error | never) ;;
  *) echo "::error title=ptxgate::fail-on must be gate, error or never"; exit 1 ;;
esac
if [[ ! "$rc" =~ ^[0-9]+$ ]]; then
  echo "::error title=ptxgate::ptxgate check did not run (see the steps above)"
  exit 1
fi
status=0
not_judged="${PG_NOT_JUDGED:-0}"
[[ "$not_judged" =~ ^[0-9]+$ ]] || not_judged=0
case "$rc" in
  0) if ((not_judged > 0)); then
       echo "::error title=ptxgate::not judged on a GPU: $not_judged submission(s) passed only the offline stages (no usable GPU; see the job summary)"
       [[ "$fail_on" != never ]] && status=1
     else
       echo "ptxgate: pass"
     fi ;;
  1) echo "ptxgate: gate failure (exit 1)"; [[ "$fail_on" == gate ]] && status=1 ;;
  *) echo "ptxgate: input or infrastructure error (exit $rc)"; [[ "$fail_on" != never ]] && status=1 ;;
esac
case "${PG_PUBLISH_EXIT:-0}" in
  0) ;;
  3) echo "::error title=ptxgate::publishing failed and publish-failure is fail"; status=1 ;;
  *) echo "ptxgate: nothing was published (exit ${PG_PUBLISH_EXIT})"; [[ "$fail_on" != never ]] && status=1 ;;
esac
exit "$status"
