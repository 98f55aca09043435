#!/usr/bin/env bash
# A .cu that climbs out of the repository with "../../..": refused like an absolute include,
# the include named as written, with the path it resolves to.
source "$ROOT/tests/e2e/root_case_lib.sh"
make_submission "$OUT/sub" "// a submission"
rel=$(python3 -c 'import os,sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$VICTIM" "$OUT/sub")
case "$rel" in ../*) ;; *) echo "FAIL: the victim is not above the case folder ($rel)"; exit 1 ;; esac
make_submission "$OUT/sub" "// a submission" "#include \"$rel\""
run_check "$OUT/r" "$OUT/sub/k.json"
check "exit 1" test "$rc" = 1
msg=$(assemble_message "$OUT/r")
echo "message: $msg"
check "the include is named, resolved" grep -qF "(resolved: $(realpath "$VICTIM"))" <<<"$msg"
check "the includer and its line are named" grep -qF "sub/k.cu:2 includes '" <<<"$msg"
check "nvcc did not compile it" grep -qF "nvcc was not run" <<<"$msg"
check "no report holds the secret" no_secret "$OUT/r"
check "the victim is unchanged" victim_unchanged
finish
