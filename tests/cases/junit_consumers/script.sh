#!/usr/bin/env bash
# Every junit.xml ptxgate writes, as the popular consumers read it: the golden files of
# tests/data/results/expected (every results fixture) and the reports of real offline runs
# (a PTX that ptxas rejects, run from another folder with absolute paths; the bundled .cu
# examples failing the instructions stage). Each is parsed with junitparser and xunitparser
# (pinned in the tools venv by scripts/lint-tools.sh), and the location rules of three GitHub
# reporters are replayed on it (check.py says where each rule comes from). Skips without the
# parsers, except under CI=true.
set -uo pipefail
source "$ROOT/tests/action/lib.sh"
mkdir -p "$OUT"
venv="${PTXGATE_TOOLS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxgate/tools-venv}"
py=""
for p in "$venv/bin/python3" python3; do
  if "$p" -c 'import junitparser, xunitparser' 2>/dev/null; then py=$p; break; fi
done
if [[ -z "$py" ]]; then
  echo "SKIP: no python3 with junitparser and xunitparser (scripts/lint-tools.sh installs them)"
  [[ "${CI:-}" == true ]] && exit 1
  exit 77
fi

# A PTX kernel that ptxas rejects at a known line, checked from another folder with absolute
# paths: the JUnit paths come out relative to the working directory.
mkdir -p "$OUT/repo/kernels"
cp "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json" "$OUT/repo/kernels/broken.json"
sed -i 's/"handwritten.ptx"/"broken.ptx"/' "$OUT/repo/kernels/broken.json"
line=$(grep -n "mov.u32" "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.ptx" | head -1 | cut -d: -f1)
sed "${line}s/mov.u32/mov.u99/" "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.ptx" >"$OUT/repo/kernels/broken.ptx"
(cd "$OUT/repo" && "$BIN" check --no-gpu --quiet --workloads m4096_n4096_k4096 --output "$OUT/broken" \
  "$OUT/repo/kernels/broken.json" >"$OUT/broken.stdout" 2>&1)
check "a rejected PTX: exit 1" [ $? = 1 ]
check "its testcase points at kernels/broken.ptx:$line" \
  grep -q "file=\"kernels/broken.ptx\" line=\"$line\"" "$OUT/broken/junit.xml"
# The .cu examples that miss the sm_90a targets, from the repository root.
"$BIN" check --no-gpu --quiet --workloads m4096_n4096_k4096 --output "$OUT/examples" \
  tasks/gemm_bf16_nt/examples >"$OUT/examples.stdout" 2>&1
check "the examples: exit 1" [ $? = 1 ]

"$py" "$CASE/check.py" "$OUT/repo:$OUT/broken/junit.xml" "$ROOT:$OUT/examples/junit.xml" \
  "$ROOT/tests/data/results/expected"/*.junit.xml || failures=$((failures + 1))
exit $((failures > 0))
