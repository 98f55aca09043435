"""Assert the outcome of the "gemm" tasks' examples in a results.json from a GPU run, and
print per workload the measured errors against the task's tolerance and the speedup against its
min_speedup (the numbers tasks/<task>/README.md asks to confirm on a GPU).

usage: expect_gemm_tasks.py results.json
Prints one line per check and exits 1 when any check fails.
"""
import json
import sys

EXAMPLES = {  # task: (example, its targets on sm_90a, whether they are tensor-core math)
    "gemm_fp32_nn": ("simt_sgemm", ["cp.async"], False),
    "gemm_tf32_tn": ("mma_tf32", ["mma.sync.aligned"], True),
    "gemm_bf16_nn_beta": ("mma_bf16_nn", ["mma.sync.aligned", "ldmatrix.trans"], True),
    "gemm_bf16_nt_batched": ("tiled_mma_batched", ["mma.sync.aligned", "ldmatrix"], True),
    "gemm_e4m3_tn": ("wgmma_fp8", ["wgmma.mma_async", "cp.async.bulk.tensor"], True),
    "gemm_e4m3_tn_block": ("wgmma_fp8_block", ["wgmma.mma_async", "cp.async.bulk.tensor"], True),
}

results = json.load(open(sys.argv[1]))
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += 0 if ok else 1


def stage(w, name):
    return next((s for s in w["stages"] if s["stage"] == name), None)


subs = {(s["task"], s["name"]): s for s in results["submissions"]}
rows = []
for task, (name, targets, tensor) in EXAMPLES.items():
    s = subs.get((task, name))
    check(s is not None, f"{task}/{name} present")
    if not s:
        continue
    t = json.load(open(f"tasks/{task}/task.json"))
    tol = next(iter(t["tolerances"].values()))
    check(len(s["workloads"]) == len(t["workloads"]), f"{task}/{name}: every workload judged")
    for w in s["workloads"]:
        c, i, p, v = (stage(w, n) for n in ("correctness", "instructions", "performance", "verify"))
        check(c is not None and c["status"] == "pass",
              f"{task}/{name} {w['name']} correct: {c and c['message']}")
        ts = {x["target"]: x for x in (i["details"].get("targets", []) if i else [])}
        rt = {k: x.get("runtime", {}) for k, x in ts.items()}
        check(i is not None and i["status"] == "pass" and sorted(ts) == sorted(targets)
              and all((r.get("executed_count") or 0) > 0 for r in rt.values()),
              f"{task}/{name} {w['name']} instructions pass, executed "
              f"{ {k: r.get('executed_count') for k, r in rt.items()} }: {i and i['message'][:160]}")
        cov = (rt.get("mma.sync.aligned") or rt.get("wgmma.mma_async") or {}).get("coverage")
        if tensor:
            check(cov is not None and cov >= 0.99, f"{task}/{name} {w['name']} work coverage {cov}")
        check(p is not None and p["status"] == "pass",
              f"{task}/{name} {w['name']} passes the speed gate: {p and p['message'][:200]}")
        check(v is not None and v["status"] == "pass", f"{task}/{name} {w['name']} verify: {v and v['message']}")
        d = c["details"] if c else {}
        pd = p["details"] if p else {}
        sp = pd.get("speedup", {})
        rows.append((task, w["name"], d.get("relative_l2_error"), tol["max_rel_l2"],
                     d.get("max_absolute_error"), tol["atol"], d.get("max_relative_error"),
                     pd.get("candidate", {}).get("tflops"), pd.get("baseline", {}).get("tflops"),
                     sp.get("estimate"), sp.get("ci_low"), t["gate"]["min_speedup"], cov))


def f(v, spec):
    return format(v, spec) if isinstance(v, (int, float)) else "-"


print()
print(f"{'task':<22}{'workload':<24}{'rel L2':>9}{'limit':>8}{'max|err|':>10}{'atol':>7}"
      f"{'max rel':>9}{'cand TF/s':>10}{'vendor':>8}{'speedup':>9}{'ci low':>8}{'min':>6}{'cov':>7}")
for r in rows:
    print(f"{r[0]:<22}{r[1]:<24}{f(r[2], '.2e'):>9}{f(r[3], '.0e'):>8}{f(r[4], '.2e'):>10}"
          f"{f(r[5], 'g'):>7}{f(r[6], '.2e'):>9}{f(r[7], '.1f'):>10}{f(r[8], '.1f'):>8}"
          f"{f(r[9], '.3f'):>9}{f(r[10], '.3f'):>8}{f(r[11], 'g'):>6}{f(r[12], '.3f'):>7}")
print(f"{failures} failed checks")
sys.exit(1 if failures else 0)
