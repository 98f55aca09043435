#!/usr/bin/env bash
# A kernel source committed as a symbolic link to a file outside the repository: exit 2 naming
# the manifest, the field and the resolved path; the file is never read into a report. A link
# to a file inside the repository is fine.
source "$ROOT/tests/e2e/root_case_lib.sh"
make_submission "$OUT/sub"
cp "$OUT/sub/k.cu" "$VICTIM_DIR/k.cu"
printf '// %s\n' "$SECRET" >>"$VICTIM_DIR/k.cu"
rm "$OUT/sub/k.cu"
ln -s "$VICTIM_DIR/k.cu" "$OUT/sub/k.cu"
run_check "$OUT/r" "$OUT/sub/k.json"
check "exit 2" test "$rc" = 2
check "the message names the manifest, the field and the resolved path" grep -qF "sub/k.json: field 'source': source 'k.cu' resolves to '$(realpath "$VICTIM_DIR/k.cu")', outside the submission root '$ROOT' (--root)" "$OUT/r.stderr"
check "no report written" bash -c '[[ ! -e "$1" ]] || [[ -z "$(ls -A "$1")" ]]' _ "$OUT/r"
check "no output holds the secret" no_secret "$OUT/r"
ln -s "$ROOT/tasks/gemm_bf16_nt/examples/naive.cu" "$OUT/sub/inside.cu"
sed 's#"k.cu"#"inside.cu"#' "$OUT/sub/k.json" >"$OUT/sub/inside.json"
run_check "$OUT/r3" "$OUT/sub/inside.json"
check "a link to a file inside the repository assembles (exit 0)" test "$rc" = 0
finish
