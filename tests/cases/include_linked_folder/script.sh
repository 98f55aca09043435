#!/usr/bin/env bash
# A folder committed inside the repository that is a symbolic link to a folder outside it: an
# include through it names a path inside the checkout but opens the runner's file. Refused.
source "$ROOT/tests/e2e/root_case_lib.sh"
make_submission "$OUT/sub" "#include \"inc/victim.txt\""
ln -s "$VICTIM_DIR" "$OUT/sub/inc"
run_check "$OUT/r" "$OUT/sub/k.json"
check "exit 1" test "$rc" = 1
msg=$(assemble_message "$OUT/r")
echo "message: $msg"
check "the include is named by its path in the checkout, and resolved" grep -qF "sub/inc/victim.txt' (resolved: $(realpath "$VICTIM"))" <<<"$msg"
check "the includer and its line are named" grep -qF "sub/k.cu:1 includes '" <<<"$msg"
check "nvcc did not compile it" grep -qF "nvcc was not run" <<<"$msg"
check "no report holds the secret" no_secret "$OUT/r"
check "the victim is unchanged" victim_unchanged
finish
