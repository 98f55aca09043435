#!/usr/bin/env bash
# A .cu that includes an absolute path outside the repository (a runner's file): nvcc used to
# copy its text into results.json and junit.xml through its diagnostics. Now nvcc -M lists the
# include first; the assemble stage fails naming the include and the line that asked for it,
# nvcc never compiles it, and no report holds a byte of the file.
source "$ROOT/tests/e2e/root_case_lib.sh"
make_submission "$OUT/sub" "// a submission" "#include \"$VICTIM\""
run_check "$OUT/r" "$OUT/sub/k.json"
check "exit 1 (an assemble failure, not an input error)" test "$rc" = 1
msg=$(assemble_message "$OUT/r")
echo "message: $msg"
check "the message names the includer and its line" grep -qF "sub/k.cu:2 includes '$VICTIM'" <<<"$msg"
check "the message says the file is outside the allowed folders" grep -qF "outside the submission root ($ROOT)" <<<"$msg"
check "nvcc did not compile it" grep -qF "nvcc was not run" <<<"$msg"
check "the dropped diagnostics are counted" grep -qE "[0-9]+ diagnostics? quoting files outside the allowed folders dropped" <<<"$msg"
check "the stage records the refusal" python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["submissions"][0]["stages"][0]["details"]; sys.exit(0 if d.get("include_refused") is True and d["nvcc"]["dropped_diagnostics"] >= 1 and "-M" in d["nvcc"]["command"] else 1)' "$OUT/r/results.json"
check "no report holds the secret" no_secret "$OUT/r"
check "the victim is unchanged" victim_unchanged
# Deeper: a header inside the root that includes the file (the includer named is the header).
make_submission "$OUT/deep" "#include \"inc/a.cuh\""
mkdir -p "$OUT/deep/inc"
printf '// header\n#define A 1\n#include "%s"\n' "$VICTIM" >"$OUT/deep/inc/a.cuh"
run_check "$OUT/r2" "$OUT/deep/k.json"
check "deep: exit 1" test "$rc" = 1
msg=$(assemble_message "$OUT/r2")
check "deep: the header and its line are named" grep -qF "deep/inc/a.cuh:3 includes '$VICTIM'" <<<"$msg"
check "deep: no report holds the secret" no_secret "$OUT/r2"
finish
