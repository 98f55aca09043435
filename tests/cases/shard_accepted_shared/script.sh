#!/usr/bin/env bash
# A sharded batch shares each task's accepted kernel like an unsharded one: every shard prepares
# and assembles it once per task (one "assemble (accepted kernel)" progress line per task and
# shard), not once per submission, also where the submissions of a shard kept different
# workloads; a submission that is its task's accepted kernel stays its own accepted kernel
# (SASS-identical by bytes, no separate assembly); each shard's accepted_kernel records and the
# merged shards equal the unsharded run. (That the shared kernel's plans follow each
# submission's kept workloads: tests/unit/test_pipeline_shard_filter.c; on a GPU,
# tests/gpu/test_shard_merge_gpu.sh.)
set -uo pipefail
fail=0
check() { local what="$1"; shift; if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi; }
mkdir -p "$OUT/fp16"
# Two more submissions of gemm_fp16_nt: manifests of their own (not the accepted kernel's file)
# built from the accepted kernel's source.
src=$(python3 -c 'import os,sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' \
  "$ROOT/tasks/gemm_fp16_nt/examples/tiled_mma.cu" "$OUT/fp16")
for c in copy_a copy_b; do
  python3 - "$ROOT/tasks/gemm_fp16_nt/examples/tiled_mma.json" "$OUT/fp16/$c.json" "$src" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["source"] = sys.argv[3]
json.dump(m, open(sys.argv[2], "w"), indent=1)
PY
done
subs=("$ROOT/tasks/gemm_bf16_nt/examples/naive.json" "$ROOT/tasks/gemm_bf16_nt/examples/handwritten.json"
      "$ROOT/tests/cases/offline_noop/m.json" "$ROOT/tests/cases/workloads_cross_task/gemm.json"
      "$ROOT/tasks/gemm_bf16_nt/examples/wgmma_tma.json"
      "$OUT/fp16/copy_a.json" "$OUT/fp16/copy_b.json")
args=(check --no-gpu --instructions warn --workloads m257_n513_k1000,m2048_n2048_k2048,m4096_n4096_k4096)
"$BIN" "${args[@]}" --output "$OUT/full" "${subs[@]}" >"$OUT/full.stdout" 2>"$OUT/full.stderr"
full_rc=$?
check "unsharded: exit 0" [ $full_rc -eq 0 ]
for i in 1 2; do
  "$BIN" "${args[@]}" --shard $i/2 --output "$OUT/s$i" "${subs[@]}" >"$OUT/s$i.stdout" 2>"$OUT/s$i.stderr"
  check "shard $i/2: exit like the unsharded run" [ $? -eq $full_rc ]
  for t in gemm_bf16_nt gemm_fp16_nt; do
    check "shard $i/2: the accepted kernel of $t assembled once" \
      [ "$(grep -c "^\[$t/[a-z_]*\] assemble (accepted kernel) \.\.\.$" "$OUT/s$i.stderr")" == 1 ]
  done
done
"$BIN" merge --output "$OUT/merged" "$OUT/s1/results.json" "$OUT/s2/results.json" >"$OUT/merge.stdout" 2>&1
check "merge: exit like the unsharded run" [ $? -eq $full_rc ]
check "the records" python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
ok = True
def want(c, what):
    global ok
    if not c:
        print("  " + what); ok = False
full = json.load(open(f"{out}/full/results.json"))
merged = json.load(open(f"{out}/merged/results.json"))
shards = [json.load(open(f"{out}/s{i}/results.json")) for i in (1, 2)]
acc = {s["manifest"]: s["accepted_kernel"] for s in full["submissions"]}
for i, r in enumerate(shards, 1):
    # The case's point: some shard holds two submissions of a task that kept different workloads.
    kept = {}
    for s in r["submissions"]:
        kept.setdefault(s["task"], set()).add(tuple(w["name"] for w in s["workloads"]))
    want(any(len(v) > 1 for v in kept.values()), f"shard {i}: the submissions of a task kept different workloads")
    for s in r["submissions"]:
        want(s["accepted_kernel"] == acc[s["manifest"]], f"shard {i}: {s['name']}: the unsharded accepted_kernel record")
for r in [full] + shards:
    for s in r["submissions"]:
        a = s["accepted_kernel"]
        if s["manifest"].endswith("examples/wgmma_tma.json"):
            want(a["manifest"] == s["manifest"] and a["identical_by"] == "bytes", f"{s['name']}: its own accepted kernel")
        else:
            want(a["assemble"] == "pass", f"{s['name']}: the accepted kernel assembled")
        if s["task"] == "gemm_fp16_nt":
            want(a["cubin_identical"] is True, f"{s['name']}: SASS-identical to the accepted kernel")
def table(r):
    rows = []
    for s in r["submissions"]:
        rows.append((s["task"], s["name"], s["verdict"], [(x["stage"], x["status"]) for x in s["stages"]],
                     json.dumps(s["accepted_kernel"], sort_keys=True)))
        for w in s["workloads"]:
            rows.append((s["name"], w["name"], w["verdict"], w["status"], [(x["stage"], x["status"]) for x in w["stages"]]))
    return rows, r["verdict"], r["exit_code"], r["counts"], r["holm"]["m_planned"]
want(table(full) == table(merged), "the merged shards equal the unsharded run")
sys.exit(0 if ok else 1)
PY
exit $fail
