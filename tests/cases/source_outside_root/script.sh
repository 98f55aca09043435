#!/usr/bin/env bash
# --root: a manifest whose source lies outside the submission root is exit 2 naming the
# manifest, the field and the resolved path (an absolute source, and a source inside the
# repository but outside a narrower --root); a --root that is not a folder is exit 2; the task
# folder's own accepted kernel and its examples (trusted configuration) still run under a narrow
# --root.
source "$ROOT/tests/e2e/root_case_lib.sh"
make_submission "$OUT/sub"
cp "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.ptx" "$VICTIM_DIR/k.ptx"
sed 's#"naive.cu"#"'"$VICTIM_DIR/k.ptx"'"#' "$ROOT/tasks/gemm_bf16_nt/examples/naive.json" >"$OUT/sub/abs.json"
run_check "$OUT/r" "$OUT/sub/abs.json"
check "an absolute source outside: exit 2" test "$rc" = 2
check "names manifest, field, resolved path" grep -qF "sub/abs.json: field 'source': source '$VICTIM_DIR/k.ptx' resolves to '$(realpath "$VICTIM_DIR/k.ptx")', outside the submission root '$ROOT' (--root)" "$OUT/r.stderr"
check "no report written" bash -c '[[ ! -e "$1" ]] || [[ -z "$(ls -A "$1")" ]]' _ "$OUT/r"

mkdir -p "$OUT/narrow"
run_check "$OUT/r2" --root "$OUT/narrow" "$OUT/sub/k.json"
check "outside a narrower --root: exit 2" test "$rc" = 2
check "names the root" grep -qF "outside the submission root '$(realpath "$OUT/narrow")' (--root)" "$OUT/r2.stderr"

run_check "$OUT/r3" --root "$OUT/sub" "$OUT/sub/k.json"
check "inside --root: exit 0" test "$rc" = 0

run_check "$OUT/r4" --root "$OUT/no-such-folder" "$OUT/sub/k.json"
check "a missing --root: exit 2" test "$rc" = 2
check "names --root" grep -qF "field '--root'" "$OUT/r4.stderr"

# The task's accepted kernel lies in the tasks folder, outside this --root: trusted, it runs.
"$BIN" check --no-gpu --instructions off --workloads m4096_n4096_k4096 --root "$OUT/sub" \
  --output "$OUT/r5" "$OUT/sub/k.json" >"$OUT/r5.stdout" 2>"$OUT/r5.stderr"
check "the task's accepted kernel under a narrow --root: exit 0" test "$?" = 0
check "it assembled" python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["submissions"][0]["accepted_kernel"]; sys.exit(0 if a["assemble"] == "pass" else 1)' "$OUT/r5/results.json"
# --accepted-kernel from the command line is repository content: its source is checked too.
"$BIN" check --no-gpu --instructions off --workloads m4096_n4096_k4096 --accepted-kernel "$OUT/sub/abs.json" \
  --output "$OUT/r6" "$OUT/sub/k.json" >"$OUT/r6.stdout" 2>"$OUT/r6.stderr"
check "--accepted-kernel with a source outside: exit 2" test "$?" = 2
check "it names the accepted kernel's source" grep -qF "resolves to '$(realpath "$VICTIM_DIR/k.ptx")'" "$OUT/r6.stderr"
# A shipped example (its source in the trusted tasks folder) checked under a narrow --root, as
# from an installed package's share/ptxgate/tasks: accepted.
"$BIN" check --no-gpu --instructions off --workloads m4096_n4096_k4096 --root "$OUT/narrow" \
  --output "$OUT/r7" "$ROOT/tasks/gemm_bf16_nt/examples/naive.json" >"$OUT/r7.stdout" 2>"$OUT/r7.stderr"
check "an example of the tasks folder under a narrow --root: exit 0" test "$?" = 0
check "check --help documents --root" bash -c '"$1" check --help | grep -q -- "--root DIR"' _ "$BIN"
check "baseline refresh --help documents --root" bash -c '"$1" baseline refresh --help | grep -q -- "--root DIR"' _ "$BIN"
finish
