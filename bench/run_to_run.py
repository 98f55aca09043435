#!/usr/bin/env python3
"""Run-to-run reproducibility of ptxgate's timing comparisons (a benchmark, not a test).

Method: the same `ptxgate check` (default settings, the given manifests and --workloads) is run
RUNS times, each in its own process (so each has its own worker, allocations and module loads),
alternating between the given ptxgate binaries when several are given (A B A B ...). Per run and
per (submission, workload) it reads from results.json the medians of the candidate, the vendor
baseline and the accepted-kernel arm, and the estimate and 95 % interval of the
candidate_vs_accepted and candidate_vs_<vendor> time ratios. It prints one row per run and,
per binary and comparison, the spread of the estimates across runs (max/min) next to the mean
width of the within-run intervals (high/low): a spread well above the interval width means the
runs disagree by more than their intervals admit (a between-run effect the blocks do not see).
"""
import argparse
import json
import os
import subprocess
import sys
import time


def comparisons(results):
    out = {}
    for s in results.get("submissions", []):
        for w in s.get("workloads", []):
            for st in w.get("stages", []):
                if st.get("stage") != "performance":
                    continue
                det = st.get("details") or {}
                row = {k: (det.get(k) or {}).get("median_ms")
                       for k in ("candidate", "baseline", "accepted")}
                for c in det.get("comparisons", []):
                    if c.get("name", "").startswith("candidate_vs_"):
                        row[c["name"]] = (c.get("ratio_estimate"), c.get("ratio_ci_low"),
                                          c.get("ratio_ci_high"), c.get("verdict"))
                out[f"{s.get('name')}[{w.get('name')}]"] = row
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxgate", action="append", required=True,
                    help="a ptxgate binary (give two to alternate A/B)")
    ap.add_argument("--runs", type=int, default=3, help="runs per binary")
    ap.add_argument("--workloads", default="m2048_n2048_k2048,m257_n513_k1000")
    ap.add_argument("--out", default="build/run-to-run")
    ap.add_argument("manifests", nargs="+")
    a = ap.parse_args()
    print(__doc__)
    runs = []
    for r in range(a.runs):
        for b, exe in enumerate(a.ptxgate):
            out = os.path.join(a.out, f"b{b}_r{r}")
            cmd = [exe, "check", "--quiet", "--output", out, "--workloads", a.workloads] + a.manifests
            t0 = time.monotonic()
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            wall = time.monotonic() - t0
            try:
                with open(os.path.join(out, "results.json")) as f:
                    res = comparisons(json.load(f))
            except (OSError, ValueError) as e:
                print(f"binary {b} run {r}: exit {p.returncode}, no results ({e}): {p.stderr[-400:]}")
                continue
            runs.append((b, r, res))
            print(f"binary {b} run {r}: exit {p.returncode}, {wall:.1f} s")
            for key, row in res.items():
                cells = [f"{k} {v:.5f} ms" for k, v in row.items()
                         if k in ("candidate", "baseline", "accepted") and v]
                for k, v in row.items():
                    if isinstance(v, tuple) and v[0]:
                        cells.append(f"{k} {v[0]:.4f} [{v[1]:.4f}, {v[2]:.4f}] {v[3]}")
                print(f"  {key}: " + "; ".join(cells))
    print("\nspread across runs (max/min of the estimates) against the mean interval width "
          "(high/low):")
    for b in range(len(a.ptxgate)):
        mine = [res for bb, _, res in runs if bb == b]
        keys = sorted({k for res in mine for k in res})
        for key in keys:
            names = sorted({n for res in mine for n, v in res.get(key, {}).items()
                            if isinstance(v, tuple)})
            for n in names:
                vals = [res[key][n] for res in mine if key in res and n in res[key] and res[key][n][0]]
                if len(vals) < 2:
                    continue
                est = [v[0] for v in vals]
                width = sum(v[2] / v[1] for v in vals) / len(vals)
                print(f"  binary {b} {key} {n}: spread {max(est) / min(est):.4f}, "
                      f"interval {width:.4f}, verdicts {[v[3] for v in vals]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
