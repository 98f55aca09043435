#!/usr/bin/env bash
# The main job without a GPU: every bundled example passes the offline stages (nvcc -ptx,
# ptxas), GPU stages are listed as skipped with the reason, and every example but the wgmma + TMA
# kernels (gemm_bf16_nt's wgmma_tma and its interface examples params_struct, tmap_global,
# persistent_cluster, tile_schedule, flags_include; mha_fwd_d128's flags_include, a TMA + wgmma
# flash-attention forward) fails the instructions stage of its task's sm_90a target set (only
# they use wgmma.mma_async and cp.async.bulk.tensor): exit 1. tiled_mma's failure names the
# missing targets and the nearest instructions it does use (mma.sync, cp.async). The examples of
# the "gemm" tasks (gemm_fp32_nn, gemm_tf32_tn, gemm_bf16_nn_beta, gemm_bf16_nt_batched,
# gemm_e4m3_tn, gemm_e4m3_tn_block) meet their own tasks' targets (cp.async; mma.sync, ldmatrix; fp8 wgmma and TMA).
set -uo pipefail
"$BIN" check --no-gpu --output "$OUT" tasks/*/examples >"$OUT.stdout" 2>"$OUT.stderr"
rc=$?
cat "$OUT.stdout"
[[ $rc == 1 ]] || { echo "FAIL: exit $rc, expected 1 (the instructions stage)"; cat "$OUT.stderr"; exit 1; }
grep -q "GPU stages not run: GPU stages disabled by --no-gpu" "$OUT.stdout" || { echo "FAIL: no skip reason"; exit 1; }
n=$(grep -c "^  assemble     pass" "$OUT.stdout")
[[ $n -ge 4 ]] || { echo "FAIL: only $n submissions assembled"; exit 1; }
grep -q "skipped  no GPU (reason below)" "$OUT.stdout" || { echo "FAIL: skipped stages not listed"; exit 1; }
for f in results.json junit.xml summary.md; do [[ -s "$OUT/$f" ]] || { echo "FAIL: $f missing"; exit 1; }; done
grep -q "progress\|\[gemm_bf16_nt/" "$OUT.stderr" || { echo "FAIL: no progress on stderr"; exit 1; }
python3 - "$OUT/results.json" <<'PY' || exit 1
import json, os, sys
r = json.load(open(sys.argv[1]))
bad = []
# The sm_90a targets of the "gemm" tasks, which their examples meet.
GEMM_TASK_TARGETS = {"gemm_fp32_nn": ["cp.async"], "gemm_tf32_tn": ["mma.sync.aligned"],
                     "gemm_bf16_nn_beta": ["mma.sync.aligned", "ldmatrix.trans"],
                     "gemm_bf16_nt_batched": ["mma.sync.aligned", "ldmatrix"],
                     "gemm_e4m3_tn": ["wgmma.mma_async", "cp.async.bulk.tensor"],
                     "gemm_e4m3_tn_block": ["wgmma.mma_async", "cp.async.bulk.tensor"]}
def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok: bad.append(what)
for t in GEMM_TASK_TARGETS:
    expect(any(s["task"] == t for s in r["submissions"]), f"an example of {t} was checked")
for s in r["submissions"]:
    for w in s["workloads"]:
        names = [st["stage"] for st in w["stages"]]
        if w.get("status") == "NOT_APPLICABLE":  # declined by the manifest's "supports"
            expect(names == ["supports"] and w["stages"][0]["status"] == "skipped",
                   f"{s['task']}/{s['name']} {w['name']}: declined, stages {names}")
            continue
        expect(names == ["correctness", "instructions", "performance"],
               f"{s['task']}/{s['name']} {w['name']}: stages {names}")
        ins = w["stages"][1]
        own = GEMM_TASK_TARGETS.get(s["task"])
        uses_targets = own is not None or (s["task"] == "gemm_bf16_nt" and s["name"] in (
            "wgmma_tma", "params_struct", "tmap_global", "persistent_cluster", "tile_schedule",
            "flags_include")) or (s["task"] == "mha_fwd_d128" and s["name"] == "flags_include")
        want_status = ("pass", "skipped") if uses_targets else ("fail",)
        expect(ins["status"] in want_status, f"{s['task']}/{s['name']} {w['name']}: instructions {ins['status']}")
        reasons = {t["target"]: t["reason"] for t in ins["details"].get("targets", [])}
        want = ({t: None for t in own} if own is not None else
                {"wgmma.mma_async": None, "cp.async.bulk.tensor": None} if uses_targets else
                {"wgmma.mma_async": "absent_in_ptx", "cp.async.bulk.tensor": "absent_in_ptx"})
        expect(reasons == want, f"{s['task']}/{s['name']}: reasons {reasons}")
        for t in ins["details"]["targets"]:
            expect(t["runtime"] == {"status": "not measured", "executed_count": None, "coverage": None,
                                    "min_coverage": None, "reason": None}, "runtime fields left empty")
            sass = t["sass"]["status"]
            expect(sass in ("skipped", "checked"), f"SASS part {sass}")
            if os.environ.get("CI") == "true":  # setup installs a disassembler there
                expect(sass == "checked", f"CI=true: SASS part {sass}, expected checked")
            if sass == "checked" and not uses_targets:  # a machine with nvdisasm or cuobjdump
                expect(t["sass"]["count"] == 0, f"{t['target']}: no {t['sass_families']} in the SASS")
tiled = next(s for s in r["submissions"] if s["task"] == "gemm_bf16_nt" and s["name"] == "tiled_mma")
msg = tiled["workloads"][0]["stages"][1]["message"]
for part in ["wgmma.mma_async absent in PTX; nearest: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 ×64 at lines",
             "cp.async.bulk.tensor absent in PTX; nearest: cp.async.cg.shared.global ×24 at lines"]:
    expect(part in msg, f"tiled_mma names: {part}")
# mha_fwd_d128/flags_include: the TMA + wgmma attention forward. Its two head-dimension
# instantiations issue 16 (D = 128: 8 for S = Q·Kᵀ, 8 for O += P·V) and 12 (D = 64: 4 + 8)
# wgmma and 6 + 3 rank-4 TMA loads; compiled with its compile options and the register cap, no
# spills.
fi = next(s for s in r["submissions"] if s["task"] == "mha_fwd_d128" and s["name"] == "flags_include")
asm = next(st for st in fi["stages"] if st["stage"] == "assemble")
expect(asm["status"] == "pass" and "168 registers" in asm["message"] and "0 B spill stores" in asm["message"],
       f"mha_fwd_d128/flags_include assembles: {asm['message']}")
expect("-maxrregcount=168" in asm["details"]["command"] and "-DATTN_BLOCK_M=128" in asm["details"]["nvcc"]["command"],
       "mha_fwd_d128/flags_include compiled with its manifest's options")
ts = {t["target"]: t for t in fi["workloads"][0]["stages"][1]["details"]["targets"]}
expect(ts["wgmma.mma_async"]["ptx"]["count"] == 28 and ts["cp.async.bulk.tensor"]["ptx"]["count"] == 9,
       f"mha_fwd_d128/flags_include PTX counts: wgmma {ts['wgmma.mma_async']['ptx']['count']}, "
       f"TMA {ts['cp.async.bulk.tensor']['ptx']['count']}")
muls = {m["mnemonic"]: m["count"] for m in ts["wgmma.mma_async"]["ptx"]["mnemonics"]}
expect(muls == {"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16": 20,
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16": 8},
       f"mha_fwd_d128/flags_include wgmma shapes {muls}")
sys.exit(1 if bad else 0)
PY
grep -q "| wgmma.mma_async | FAIL (absent_in_ptx) | wgmma.mma_async absent in PTX; nearest: mma.sync" "$OUT/summary.md" || { echo "FAIL: summary.md lacks the target table"; exit 1; }
grep -q 'type="instructions"' "$OUT/junit.xml" || { echo "FAIL: junit.xml lacks an instructions failure"; exit 1; }
