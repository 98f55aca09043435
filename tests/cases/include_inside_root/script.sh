#!/usr/bin/env bash
# Includes inside the submission root still work, and nvcc's errors name the file and line they
# belong to (include/tile.cuh:4, k.cu:N), never a line of the generated PTX as a source line; a
# signature error names the PTX line and the .cu it was generated from; the PTX of a .cu over
# --max-ptx-bytes is named by the manifest and the .cu, not a temporary file.
source "$ROOT/tests/e2e/root_case_lib.sh"
make_submission "$OUT/ok" "#include \"include/tile.cuh\"" "#include \"../shared/util.cuh\""
mkdir -p "$OUT/ok/include" "$OUT/shared"
printf '// tile\n#define TILE 16\n' >"$OUT/ok/include/tile.cuh"
printf '// util\n#define UTIL 1\n' >"$OUT/shared/util.cuh"
run_check "$OUT/r" "$OUT/ok/k.json"
check "a legit include assembles (exit 0)" test "$rc" = 0
check "assemble passed" grep -q "^  assemble     pass" "$OUT/r.stdout"
check "the checked includes are counted" python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["submissions"][0]["stages"][0]["details"]; sys.exit(0 if d["nvcc"]["includes_checked"] >= 4 and d["nvcc"]["dropped_diagnostics"] == 0 else 1)' "$OUT/r/results.json"

# An error in the header: named by the header's path and line.
printf '// tile\n#define TILE 16\n\nint oops = undefined_name;\n' >"$OUT/ok/include/tile.cuh"
run_check "$OUT/r2" "$OUT/ok/k.json"
check "a compile error: exit 1" test "$rc" = 1
msg=$(assemble_message "$OUT/r2")
echo "message: $msg"
check "the error names include/tile.cuh:4" grep -qE "ok/include/tile\.cuh:4: identifier \"undefined_name\" is undefined" <<<"$msg"
check "no 'source line' of the wrong file" bash -c '! grep -q "source line" "$1"/summary.md' _ "$OUT/r2"
printf '// tile\n#define TILE 16\n' >"$OUT/ok/include/tile.cuh"

# A binding that does not match the generated PTX: exit 2, PTX line named as such.
sed 's/"type": "u32"}/"type": "u64"}/' "$OUT/ok/k.json" >"$OUT/ok/wide.json"
run_check "$OUT/r3" "$OUT/ok/wide.json"
check "a signature mismatch: exit 2" test "$rc" = 2
check "the PTX line is named as one of the generated PTX" grep -qE "but PTX line [0-9]+ \(generated from [^)]*ok/k\.cu\) declares" "$OUT/r3.stderr"

# The PTX nvcc generates is over the limit while the .cu is not.
size=$(stat -c %s "$OUT/ok/k.cu")
run_check "$OUT/r4" --max-ptx-bytes $((size + 100)) "$OUT/ok/k.json"
check "PTX over the limit: exit 2" test "$rc" = 2
check "named by the manifest and the .cu" grep -qE "ok/k\.json: field 'source': the PTX nvcc generated from '[^']*ok/k\.cu' is [0-9]+ bytes, above the limit" "$OUT/r4.stderr"
check "no temporary file named" bash -c '! grep -q "submission0.ptx" "$1"' _ "$OUT/r4.stderr"
finish
