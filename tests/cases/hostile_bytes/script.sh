#!/usr/bin/env bash
# Hostile bytes never crash the gate or vanish from the reports: a manifest path that is not
# UTF-8, a PTX with a NUL byte, an empty --output.
set -uo pipefail
mkdir -p "$OUT/in"
cp "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.ptx" "$OUT/in/"
cp "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json" "$OUT/in/"$'\xff'.json
"$BIN" check --no-gpu --quiet --instructions off --output "$OUT/r1" "$OUT/in/"$'\xff'.json >"$OUT/s1" 2>&1
rc=$?
[[ $rc == 0 ]] || { echo "FAIL: non-UTF-8 manifest name: exit $rc"; cat "$OUT/s1"; exit 1; }
grep -q '\\ufffd.json\|�.json' "$OUT/r1/results.json" || { echo "FAIL: name not recorded with U+FFFD"; exit 1; }

mkdir -p "$OUT/nul"
python3 - "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.ptx" "$OUT/nul/handwritten.ptx" <<'PY'
import sys
t = open(sys.argv[1], 'rb').read()
open(sys.argv[2], 'wb').write(t.replace(b'.version', b'\0.version', 1))
PY
cp "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json" "$OUT/nul/"
"$BIN" check --no-gpu --quiet --output "$OUT/r2" "$OUT/nul/handwritten.json" >"$OUT/s2" 2>&1
rc=$?
[[ $rc == 1 ]] || { echo "FAIL: NUL byte in PTX: exit $rc, expected 1"; cat "$OUT/s2"; exit 1; }
grep -q "NUL byte at offset" "$OUT/s2" || { echo "FAIL: NUL byte not named"; cat "$OUT/s2"; exit 1; }

"$BIN" check --no-gpu --quiet --output "" "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json" >"$OUT/s3" 2>&1
rc=$?
[[ $rc == 2 ]] || { echo "FAIL: empty --output: exit $rc"; exit 1; }
grep -q "field '--output': expected a folder" "$OUT/s3" || { echo "FAIL: message"; cat "$OUT/s3"; exit 1; }
echo "ok: non-UTF-8 name, NUL byte, empty --output"
