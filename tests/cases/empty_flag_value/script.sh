#!/usr/bin/env bash
# An empty flag value is an input error naming the flag (it must never quietly select all
# workloads, disable the accepted kernel, or pick an empty GPU key); no report is written.
set -uo pipefail
fail=0
for flag in --workloads --accepted-kernel --gpu-key --watchdog; do
  rm -rf "$OUT"
  "$BIN" check --no-gpu "$flag" '' --output "$OUT" tasks/gemm_bf16_nt/examples/naive.json \
    >"$OUT.stdout" 2>"$OUT.stderr"
  rc=$?
  if [[ $rc == 2 ]] && grep -q -- "$flag: expected a value, got an empty string" "$OUT.stderr" &&
     [[ ! -e "$OUT/results.json" ]]; then
    echo "ok: $flag ''"
  else
    echo "FAIL: $flag '' gave exit $rc: $(cat "$OUT.stderr")"; fail=1
  fi
done
exit $fail
