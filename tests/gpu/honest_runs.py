#!/usr/bin/env python3
"""What two honest runs of the same submissions must share (issue 20), for
tests/gpu/test_shard_merge_gpu.sh: an unsharded run and the merge of its shards measure
independently, so verdicts at a comparison's boundary may differ; everything else may not.

Required equal:
  - the submissions (task, name, manifest) and, per submission, the workloads (names, order);
  - the offline and correctness results: assemble/load stage statuses, and per workload the
    correctness, instructions and verify stage statuses; the correctness figures (max absolute
    and relative L2 error, bad elements) when both runs found the kernel deterministic (set 1
    run twice and bitwise equal; the inputs come from recorded seeds); the instructions stage's
    per-target status, reason, PTX and SASS counts, runtime status and executed count;
  - per performance comparison: its presence, and its verdict, except that
      * PASS <-> FAST (and INCONCLUSIVE <-> PASS/FAST) is noise in how far from the threshold
        the candidate is, never a flip between failing and passing;
      * FAIL <-> PASS/FAST/INCONCLUSIVE is tolerated only when at least one run's ratio interval
        [ratio_ci_low, ratio_ci_high] contains the threshold exp(lambda), i.e. that run sits at
        the boundary; two intervals both clear of the threshold that disagree are a real flip;
      * the A/A canary is compared as rejected (FAIL) / not rejected: it only acts when it
        rejects.
usage: honest_runs.py A.json B.json  -> prints the problems and tolerated differences; exit 1 on
a problem, 0 otherwise.
"""
import json
import math
import sys

GPU_STAGES = ("correctness", "instructions", "verify")
FIGURES = ("max_absolute_error", "relative_l2_error", "bad_elements")


def _stage(stages, name):
    return next((x for x in stages if x.get("stage") == name), None)


def _status(stages, name):
    s = _stage(stages, name)
    return s.get("status") if s else None


def _clear(c):
    """Whether the comparison's ratio interval is clear of its threshold exp(lambda)."""
    try:
        thr = math.exp(c["lambda"])
        return not (c["ratio_ci_low"] <= thr <= c["ratio_ci_high"])
    except (KeyError, TypeError, OverflowError):
        return False  # no interval: cannot be shown clear


def _failing(v):
    return v == "FAIL"


def compare_comparison(where, a, b):
    """Problems (list) and tolerated notes (list) for one comparison in two runs."""
    va, vb = a.get("verdict"), b.get("verdict")
    if a.get("name") == "aa_canary":
        return ([] if _failing(va) == _failing(vb)
                else [f"{where}: A/A canary rejected in one run only ({va} vs {vb})"]), []
    if va == vb:
        return [], []
    if "NOT_COMPARED" in (va, vb):
        return [f"{where}: compared in one run only ({va} vs {vb})"], []
    if _failing(va) != _failing(vb):
        if _clear(a) and _clear(b):
            return [f"{where}: {va} vs {vb} with both intervals clear of the threshold "
                    f"(exp(lambda) = {math.exp(a['lambda']):.4g}; "
                    f"[{a['ratio_ci_low']:.4g}, {a['ratio_ci_high']:.4g}] vs "
                    f"[{b['ratio_ci_low']:.4g}, {b['ratio_ci_high']:.4g}])"], []
        return [], [f"{where}: {va} vs {vb} at the boundary (an interval holds the threshold)"]
    return [], [f"{where}: {va} vs {vb} (both not failing)"]


def _figures(stage):
    d = (stage or {}).get("details") or {}
    return {k: d.get(k) for k in FIGURES}


def _deterministic(stage):
    d = (stage or {}).get("details") or {}
    return d.get("deterministic") is True


def _targets(stage):
    d = (stage or {}).get("details") or {}
    out = []
    for t in d.get("targets") or []:
        rt, sass, ptx = t.get("runtime") or {}, t.get("sass") or {}, t.get("ptx") or {}
        out.append((t.get("target"), t.get("status"), t.get("reason"), ptx.get("count"),
                    sass.get("status"), sass.get("count"), rt.get("status"),
                    rt.get("executed_count")))
    return out


def compare_runs(a, b):
    """(problems, tolerated) for two results documents (parsed results.json)."""
    problems, tolerated = [], []
    key = lambda s: (s.get("task"), s.get("name"), s.get("manifest"))
    sa = {key(s): s for s in a.get("submissions", [])}
    sb = {key(s): s for s in b.get("submissions", [])}
    if set(sa) != set(sb):
        problems.append(f"different submissions: only in A {sorted(set(sa) - set(sb))}, "
                        f"only in B {sorted(set(sb) - set(sa))}")
    for k in sorted(set(sa) & set(sb), key=str):
        x, y = sa[k], sb[k]
        sub = f"{k[0]}/{k[1]}"
        for st in ("assemble", "load"):
            if _status(x.get("stages", []), st) != _status(y.get("stages", []), st):
                problems.append(f"{sub}: {st} {_status(x.get('stages', []), st)} vs "
                                f"{_status(y.get('stages', []), st)}")
        wx = [w.get("name") for w in x.get("workloads", [])]
        wy = [w.get("name") for w in y.get("workloads", [])]
        if wx != wy:
            problems.append(f"{sub}: different workloads {wx} vs {wy}")
            continue
        for u, v in zip(x.get("workloads", []), y.get("workloads", [])):
            where = f"{sub}[{u.get('name')}]"
            us, vs = u.get("stages", []), v.get("stages", [])
            for st in GPU_STAGES:
                if _status(us, st) != _status(vs, st):
                    problems.append(f"{where}: {st} {_status(us, st)} vs {_status(vs, st)}")
            cu, cv = _stage(us, "correctness"), _stage(vs, "correctness")
            if _deterministic(cu) and _deterministic(cv) and _figures(cu) != _figures(cv):
                problems.append(f"{where}: correctness figures differ for a deterministic "
                                f"kernel: {_figures(cu)} vs {_figures(cv)}")
            if _targets(_stage(us, "instructions")) != _targets(_stage(vs, "instructions")):
                problems.append(f"{where}: instruction results differ: "
                                f"{_targets(_stage(us, 'instructions'))} vs "
                                f"{_targets(_stage(vs, 'instructions'))}")
            pu, pv = _stage(us, "performance"), _stage(vs, "performance")
            ca = {c.get("name"): c for c in ((pu or {}).get("details") or {}).get("comparisons", [])}
            cb = {c.get("name"): c for c in ((pv or {}).get("details") or {}).get("comparisons", [])}
            if set(ca) != set(cb):
                problems.append(f"{where}: comparisons {sorted(ca)} vs {sorted(cb)}")
            for name in sorted(set(ca) & set(cb)):
                p, t = compare_comparison(f"{where} {name}", ca[name], cb[name])
                problems += p
                tolerated += t
    return problems, tolerated


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    a, b = (json.load(open(p)) for p in argv[1:])
    problems, tolerated = compare_runs(a, b)
    for t in tolerated:
        print("tolerated:", t)
    for p in problems:
        print("PROBLEM:", p)
    n = sum(len(s.get("workloads", [])) for s in a.get("submissions", []))
    print(f"honest runs: {len(problems)} problems, {len(tolerated)} tolerated differences "
          f"over {len(a.get('submissions', []))} submissions, {n} workloads")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
