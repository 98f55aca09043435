#!/usr/bin/env bash
# ptxgate doctor with the data folders pointed at nothing and no ptxas: each missing piece is
# listed with its fix and the exit code is 3; --gpu adds what a GPU run needs; a stray argument
# is a usage error (2).
set -uo pipefail
mkdir -p "$OUT/work"
cd "$OUT/work" || exit 1
PTXGATE_TASKS="$OUT/none" PTXGATE_ARCH_DATA="$OUT/none" PTXGATE_PTXAS="$OUT/none/ptxas" \
  "$BIN" doctor >"$OUT.stdout" 2>&1
rc=$?
cat "$OUT.stdout"
fail=0
[[ $rc == 3 ]] || { echo "FAIL: exit $rc, expected 3"; fail=1; }
grep -q "^  tasks  *missing  $OUT/none is not a folder (environment)" "$OUT.stdout" || { echo "FAIL: tasks not reported missing"; fail=1; }
grep -q "fix: set PTXGATE_ARCH_DATA" "$OUT.stdout" || { echo "FAIL: no fix for the tables"; fail=1; }
grep -q "^  ptxas  *missing  fix: install the CUDA toolkit" "$OUT.stdout" || { echo "FAIL: ptxas not reported missing"; fail=1; }
grep -q "^missing for offline checks: tasks, arch, ptxas$" "$OUT.stdout" || { echo "FAIL: no summary of what is missing"; fail=1; }
"$BIN" doctor extra >/dev/null 2>&1
[[ $? == 2 ]] || { echo "FAIL: a stray argument is not a usage error"; fail=1; }
# Installed-style layout check: the metric lists follow PTXGATE_ARCH_DATA (../metrics).
mkdir -p "$OUT/data/arch" "$OUT/data/metrics"
PTXGATE_ARCH_DATA="$OUT/data/arch" "$BIN" doctor >"$OUT.stdout2" 2>&1
grep -q "^  metrics  *ok  *$OUT/data/arch/../metrics (next to \$PTXGATE_ARCH_DATA" "$OUT.stdout2" ||
  { echo "FAIL: metrics not found next to the tables"; cat "$OUT.stdout2"; fail=1; }
exit $fail
