#!/usr/bin/env python3
"""Speed of the gate itself: GPU wall time of the PTXBench suite and of batches (issue 18).

Method (printed at the top of every run):
  * suite: one `ptxgate check --workloads @ptxbench` invocation over the accepted kernels of the
    five PTXBench tasks (gemm_bf16_nt, mha_fwd_d128, mha_fwd_d128_causal, mha_bwd_d128,
    mha_bwd_d128_causal) as submissions, default settings. Wall time is the whole invocation
    (offline stages included: on a GPU runner they are part of what a job pays).
  * batch (--copies N): N copies of each of those kernels (its examples folder copied, a comment
    naming the copy added to the source so the files and their hashes differ), all judged in
    one invocation; items per GPU-hour = judged (submission, workload) items / wall hours.
    A batch too long for one 10-minute device call runs as shards (--shard I/N, the check's own
    --shard), one call each; --combine adds their summaries: items and wall seconds summed, the
    rate over the sum.
  * per submission and workload the stage durations from results.json, the phases of every GPU
    stage (details.phases_s: where a stage's time went), the worker start, and the reference's
    effective rate (task FLOPs x reference runs / reference seconds).
Results are observations of one run on one machine, not guarantees.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

SUITE = [
    ("gemm_bf16_nt", "wgmma_tma.json"),
    ("mha_fwd_d128", "flash_fwd.json"),
    ("mha_fwd_d128_causal", "flash_fwd.json"),
    ("mha_bwd_d128", "flash_bwd.json"),
    ("mha_bwd_d128_causal", "flash_bwd.json"),
]
GPU_STAGES = ("correctness", "instructions", "performance", "verify")


def make_copies(root, dest, copies):
    """N copies of each suite kernel's examples folder under dest; returns the manifests."""
    manifests = []
    shutil.rmtree(dest, ignore_errors=True)
    # The examples include ../../common/*.cuh: the copies sit two levels below a copy of it.
    shutil.copytree(os.path.join(root, "tasks", "common"), os.path.join(dest, "common"))
    for task, manifest in SUITE:
        src_dir = os.path.join(root, "tasks", task, "examples")
        with open(os.path.join(src_dir, manifest)) as f:
            source = json.load(f)["source"]
        for i in range(copies):
            d = os.path.join(dest, "copies", f"{task}_{i:03d}")
            shutil.copytree(src_dir, d)
            path = os.path.join(d, source)
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(f"// batch copy {i} of {task} (bench/suite_speed.py)\n" + text)
            manifests.append(os.path.join(d, manifest))
    return manifests


def reference_runs(stage_name, details):
    if stage_name == "correctness":
        return len({s.get("seed") for s in details.get("sets", [])})
    if stage_name == "verify":
        return len(details.get("checks", []))
    return 0


def report(results, wall_s, label):
    rows, totals = [], {}
    items = 0
    for s in results["submissions"]:
        for w in s.get("workloads", []):
            items += 1
            stages = {x["stage"]: x for x in w.get("stages", [])}
            row = {"submission": s.get("name"), "task": s.get("task"), "workload": w["name"]}
            for name in GPU_STAGES:
                st = stages.get(name)
                row[name] = st["duration_s"] if st else 0.0
                totals[name] = totals.get(name, 0.0) + row[name]
            ref_s, ref_runs = 0.0, 0
            phases = {}
            for name in ("correctness", "performance", "verify"):
                det = (stages.get(name) or {}).get("details") or {}
                for k, v in (det.get("phases_s") or {}).items():
                    phases[f"{name}.{k}"] = v
                if name != "performance":
                    ref_s += (det.get("phases_s") or {}).get("reference", 0.0)
                    ref_runs += reference_runs(name, det)
            row["phases"] = phases
            flop = w.get("flop") or 0
            row["reference_tflops"] = (flop * ref_runs / ref_s / 1e12) if ref_s > 0 else None
            row["verdict"] = w.get("verdict")
            rows.append(row)
    print(f"\n== {label}: {len(results['submissions'])} submissions, {items} items, "
          f"wall {wall_s:.1f} s, ptxgate duration {results.get('duration_s', 0):.1f} s")
    hdr = f"{'task':<22}{'workload':<20}{'corr':>7}{'instr':>7}{'perf':>7}{'verify':>7}  ref TFLOP/s  verdict"
    print(hdr)
    for r in rows[:40]:
        tf = f"{r['reference_tflops']:.1f}" if r["reference_tflops"] else "-"
        print(f"{r['task']:<22}{r['workload']:<20}{r['correctness']:>7.2f}{r['instructions']:>7.2f}"
              f"{r['performance']:>7.2f}{r['verify']:>7.2f}  {tf:>11}  {r['verdict']}")
    if len(rows) > 40:
        print(f"... {len(rows) - 40} more rows")
    stage_sum = sum(totals.values())
    print(f"stage totals: " + ", ".join(f"{k} {v:.1f} s" for k, v in totals.items()) +
          f"; outside the GPU stages {wall_s - stage_sum:.1f} s")
    phase_tot = {}
    for r in rows:
        for k, v in r["phases"].items():
            phase_tot[k] = phase_tot.get(k, 0.0) + v
    print("phases (all items): " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(phase_tot.items())))
    print(f"items per GPU-hour: {items / (wall_s / 3600.0):.0f}")
    return {"label": label, "wall_s": wall_s, "items": items, "stage_totals_s": totals,
            "phase_totals_s": phase_tot, "rows": rows}


def timeline(results):
    """Where one submission's run went, outside and inside the stages (first submission)."""
    sub = (results.get("submissions") or [{}])[0]
    env = results.get("environment") or {}
    out = {"run duration_s": results.get("duration_s"), "heater_s": env.get("gpu_heater_s")}
    stages = {x["stage"]: x for x in sub.get("stages", [])}
    nvcc = ((stages.get("assemble") or {}).get("details") or {}).get("nvcc") or {}
    out["nvcc -M s"] = nvcc.get("includes_wall_s")
    out["nvcc -ptx s"] = nvcc.get("wall_s")
    out["assemble s"] = (stages.get("assemble") or {}).get("duration_s")
    for wk in (sub.get("isolation") or {}).get("workers", [])[:1]:
        out["worker startup_s"] = wk.get("startup_s")
        out["worker wall_s"] = wk.get("wall_s")
    for w in sub.get("workloads", [])[:1]:
        for st in w.get("stages", []):
            det = st.get("details") or {}
            if st["stage"] == "instructions":
                out["sass wall_s"] = (det.get("sass") or {}).get("wall_s")
                rt = det.get("runtime") or {}
                out["instructions runtime wall_s"] = rt.get("wall_s")
                for k, v in (rt.get("phases_s") or {}).items():
                    out[f"instructions runtime.{k}"] = v
            if st["stage"] == "performance":
                out["performance decision_s"] = det.get("decision_s")
                out["performance energy_s"] = det.get("energy_s")
    print("timeline: " + ", ".join(f"{k} {v:.3f}" if isinstance(v, (int, float)) else f"{k} -"
                                   for k, v in out.items()))
    return out


def run(ptxgate, args, out, extra):
    cmd = [ptxgate, "check", "--output", out] + extra + args
    print("$ " + " ".join(cmd), flush=True)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f), wall, p.returncode


def combine(paths):
    """One batch's rate from the summaries of its shards (each run in its own call)."""
    items, wall, totals = 0, 0.0, {}
    for p in paths:
        with open(p) as f:
            b = json.load(f).get("batch")
        if not b:
            print(f"{p}: no batch in this summary", file=sys.stderr)
            return 2
        print(f"{p}: {b['label']}: {b['items']} items, wall {b['wall_s']:.1f} s")
        items += b["items"]
        wall += b["wall_s"]
        for k, v in b["stage_totals_s"].items():
            totals[k] = totals.get(k, 0.0) + v
    print(f"combined: {items} items, wall {wall:.1f} s; stage totals: " +
          ", ".join(f"{k} {v:.1f} s" for k, v in totals.items()))
    print(f"items per GPU-hour: {items / (wall / 3600.0):.0f}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--ptxgate", default=os.path.join(here, "build", "ptxgate"))
    ap.add_argument("--root", default=here, help="the ptxgate source tree (tasks/)")
    ap.add_argument("--out", default=os.path.join(here, "build", "bench-speed"))
    ap.add_argument("--copies", type=int, default=0,
                    help="also judge a batch of N copies per PTXBench task (0: suite only)")
    ap.add_argument("--batch-workloads", default="@ptxbench",
                    help="--workloads of the batch run (default @ptxbench)")
    ap.add_argument("--skip-suite", action="store_true", help="neither the suite nor the GEMM")
    ap.add_argument("--gemm-only", action="store_true", help="only the GEMM headline alone")
    ap.add_argument("--extra", action="append", default=[], help="extra check argument")
    ap.add_argument("--shard", help="I/N: judge only shard I of N of the batch (with --copies)")
    ap.add_argument("--combine", nargs="+", metavar="SUMMARY_JSON",
                    help="add the batches of these summaries (shards of one batch) and stop")
    a = ap.parse_args()
    print(__doc__)
    if a.combine:
        return combine(a.combine)
    os.makedirs(a.out, exist_ok=True)
    summary = {}
    if not a.skip_suite and not a.gemm_only:
        manifests = [os.path.join(a.root, "tasks", t, "examples", m) for t, m in SUITE]
        res, wall, rc = run(a.ptxgate, ["--workloads", "@ptxbench"] + manifests,
                            os.path.join(a.out, "suite"), a.extra)
        summary["suite"] = report(res, wall, f"PTXBench suite (exit {rc})")
    if not a.skip_suite:
        res, wall, rc = run(a.ptxgate, ["--workloads", "m8192_n7168_k5120",
                                        os.path.join(a.root, "tasks", "gemm_bf16_nt", "examples",
                                                     "wgmma_tma.json")],
                            os.path.join(a.out, "gemm"), a.extra)
        summary["gemm"] = report(res, wall, f"GEMM headline, one submission (exit {rc})")
        summary["gemm"]["timeline"] = timeline(res)
    if a.copies > 0:
        manifests = make_copies(a.root, os.path.join(a.root, "build", "bench-copies"), a.copies)
        shard = ["--shard", a.shard] if a.shard else []
        label = f"batch of {len(manifests)} submissions" + (f", shard {a.shard}" if a.shard else "")
        res, wall, rc = run(a.ptxgate, shard + ["--workloads", a.batch_workloads] + manifests,
                            os.path.join(a.out, "batch"), a.extra)
        summary["batch"] = report(res, wall, f"{label} (exit {rc})")
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
