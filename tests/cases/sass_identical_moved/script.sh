#!/usr/bin/env bash
# The task's accepted kernel copied to another folder is the same kernel: nvcc writes the
# source path into the PTX (.file, debug strings), so the cubins differ in bytes, but their code
# sections are equal, and the results say which test matched (accepted_kernel.identical_by);
# the unmodified example itself is byte-identical; another kernel is not identical.
set -uo pipefail
# As an installed copy is laid out: <elsewhere>/tasks/common and the example beside it.
mkdir -p "$OUT/moved/tasks/gemm_fp16_nt/examples"
cp -r tasks/common "$OUT/moved/tasks/"
cp tasks/gemm_fp16_nt/examples/tiled_mma.cu tasks/gemm_fp16_nt/examples/tiled_mma.json \
  "$OUT/moved/tasks/gemm_fp16_nt/examples/"
"$BIN" check --no-gpu --quiet --workloads m257_n513_k1000 --output "$OUT/r" \
  "$OUT/moved/tasks/gemm_fp16_nt/examples/tiled_mma.json" tasks/gemm_fp16_nt/examples/tiled_mma.json \
  tasks/gemm_bf16_nt/examples/tiled_mma.json >"$OUT.stdout" 2>&1
rc=$?
[[ $rc == 0 || $rc == 1 ]] || { echo "FAIL: exit $rc"; cat "$OUT.stdout"; exit 1; }
grep -q "assemble.*fail" "$OUT.stdout" && { echo "FAIL: a copy did not assemble"; cat "$OUT.stdout"; exit 1; }
python3 - "$OUT/r/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
acc = {(s["task"], "moved" if "/moved/" in s["manifest"] else "shipped"):
       s.get("accepted_kernel") for s in r["submissions"]}
want = {("gemm_fp16_nt", "moved"): (True, "code_sections"),
        ("gemm_fp16_nt", "shipped"): (True, "bytes"),
        ("gemm_bf16_nt", "shipped"): (False, None)}
ok = True
for k, (ident, by) in want.items():
    a = acc.get(k)
    got = (a.get("cubin_identical"), a.get("identical_by")) if a else None
    if got != (ident, by):
        print(f"FAIL: {k}: accepted_kernel {got}, expected {(ident, by)}"); ok = False
    else:
        print(f"ok: {k}: identical {ident} by {by}")
sys.exit(0 if ok else 1)
PY
