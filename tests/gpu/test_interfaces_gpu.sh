#!/usr/bin/env bash
# GPU test of the manifest features for real kernels' launch interfaces (tests/gpu/interfaces):
# a by-value struct and a device_struct reach the kernel with the bytes the manifest packs
# (their kernels trap otherwise, so a run that fails only on the numbers proves the bytes), a
# write past a device_struct is caught by its guard and named, a setup launch's workspace keeps
# its contents for every run, and a setup launch that faults fails the workload like the kernel
# (RUNTIME_ERROR, "(in the setup launches)"). Exits 77 (skipped) with the reason without a GPU.
# usage: test_interfaces_gpu.sh PTXGATE REPO_ROOT OUT_DIR
set -uo pipefail
bin="$1" root="$2" out="$3"
source "$(dirname "${BASH_SOURCE[0]}")/gpu_probe.sh"
pg_require_gpu "$bin"
cd "$root"
rm -rf "$out" && mkdir -p "$out"
dir=tests/gpu/interfaces
common=(check --if-no-gpu fail --instructions off --timeout 10 --workloads m257_n513_k1000)
"$bin" "${common[@]}" --output "$out/run" "$dir/struct_check.json" "$dir/dstruct_check.json" \
  "$dir/setup_keeps.json" "$dir/dstruct_overflow.json" >"$out/stdout" 2>"$out/stderr"
echo "run 1: exit $? (expected 1: no kernel here computes the GEMM)"
# The faulting setup alone: a sticky fault leaves the context unusable for what follows.
"$bin" "${common[@]}" --output "$out/trap" "$dir/setup_trap.json" >"$out/trap.stdout" 2>"$out/trap.stderr"
echo "run 2: exit $? (expected 1)"
python3 - "$out/run/results.json" "$out/trap/results.json" <<'PY'
import json, sys
fail = 0
def correctness(path, name):
    r = json.load(open(path))
    for s in r["submissions"]:
        if s["name"] == name:
            w = s["workloads"][0]
            st = [x for x in w["stages"] if x["stage"] == "correctness"][0]
            return st, w
    raise SystemExit(f"FAIL: {name} not in {path}")
def expect(ok, what):
    global fail
    print(("ok: " if ok else "FAIL: ") + what)
    fail |= not ok
for name in ["struct_check", "dstruct_check", "setup_keeps"]:
    st, w = correctness(sys.argv[1], name)
    expect(st["status"] == "fail" and "kernel failed at run time" not in st["message"],
           f"{name}: the kernel ran without trapping (bytes as packed): {st['status']}: {st['message'][:200]}")
st, w = correctness(sys.argv[1], "dstruct_overflow")
expect(st["status"] == "fail" and "device_struct launches[0].params[0]" in st["message"],
       f"dstruct_overflow: the guard names the device struct: {st['message'][:300]}")
st, w = correctness(sys.argv[2], "setup_trap")
expect(st["status"] == "fail" and "(in the setup launches)" in st["message"]
       and w["status"] == "RUNTIME_ERROR",
       f"setup_trap: fails like the kernel: {w['status']}: {st['message'][:300]}")
sys.exit(1 if fail else 0)
PY
