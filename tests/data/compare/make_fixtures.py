#!/usr/bin/env python3
"""Fixtures of `ptxgate compare` (tests/cases/compare_*): run from this folder,
python3 make_fixtures.py. Standard library only; scipy, when installed, cross-checks.

old.json      a real results.json of the bundled examples on an H200 (ptxgate's own output,
              6 submissions x 5 workloads), unchanged.
new.json      a deliberately degraded "model v2" derived from it:
                gemm_bf16_nt/tiled_mma  m257_n513_k1000: correctness pass -> fail (regression;
                                        performance then not run -> counts as fail too)
                                        m2048_n2048_k2048: correctness error (infrastructure:
                                        not comparable)
                                        others: speedup x (1 + 0.01 (i + 1)) noise
                gemm_fp16_nt/tiled_mma  every speedup x 0.85 (1 + 0.003 j) (slower)
                gemm_bf16_nt/handwritten every speedup x 1.10 (1 + 0.003 j) (faster)
                gemm_bf16_nt/naive      every speedup x 0.90 (1 + 0.003 j); m8192_n7168_k5120
                                        dropped (unpaired)
                gemm_bf16_nt/off_by_one m257_n513_k1000 fixed: correctness fail -> pass,
                                        performance pass at speedup 0.30
                gemm_bf16_nt/syntax_error unchanged (assembles in neither)
                gemm_bf16_nt/tiled_mma_v2 only in NEW (unpaired)
slower.json   every speedup x 0.80 x (1 + 0.005 i), no stage outcome changed.
expected.json what compare must report for (old, new) and (old, slower), computed here the
              plain way: outcomes walked stage by stage, McNemar from exact binomial sums
              (math.comb), Wilcoxon by enumerating all 2^n sign vectors of the midranks, fast_p
              and geometric means by their definitions.
"""
import copy
import itertools
import json
import math
from fractions import Fraction

old = json.load(open("old.json"))
RANK = {"fail": 3, "error": 2, "pass": 1, "skipped": 0}


def refold(r):
    counts = {"pass": 0, "fail": 0, "error": 0, "skipped": 0}
    any_fail = any_error = False
    for s in r["submissions"]:
        sv = "skipped"
        for st in s["stages"]:
            counts[st["status"]] += 1
            sv = st["status"] if RANK[st["status"]] > RANK[sv] else sv
        for w in s["workloads"]:
            wv = "skipped"
            for st in w["stages"]:
                counts[st["status"]] += 1
                wv = st["status"] if RANK[st["status"]] > RANK[wv] else wv
            w["verdict"] = wv
            sv = wv if RANK[wv] > RANK[sv] else sv
        s["verdict"] = sv
    any_error = counts["error"] > 0
    any_fail = counts["fail"] > 0
    code = 3 if any_error else 1 if any_fail else 0
    r["counts"] = counts
    r["verdict"] = ["pass", "fail", "", "error"][code]
    r["exit_code"] = code


def scale(w, f):
    w["speedup_factor"] *= f
    w["latency_ms"] /= f
    for st in w["stages"]:
        sp = st["details"].get("speedup")
        if st["stage"] == "performance" and sp:
            for k in ("estimate", "ci_low", "ci_high"):
                if sp.get(k) is not None:
                    sp[k] *= f


def find(r, task, name):
    return next(s for s in r["submissions"] if s["task"] == task and s["name"] == name)


def stage(w, name):
    return next(st for st in w["stages"] if st["stage"] == name)


def make_new():
    r = copy.deepcopy(old)
    r["started_utc"] = "2026-12-01T09:00:00Z"
    t = find(r, "gemm_bf16_nt", "tiled_mma")
    for i, w in enumerate(t["workloads"]):
        if w["name"] == "m257_n513_k1000":
            c = stage(w, "correctness")
            c["status"], c["message"] = "fail", "1/3 input sets outside tolerance (degraded fixture)"
            p = stage(w, "performance")
            p.update(status="skipped", message="not run: the correctness stage did not pass",
                     details={})
            w.update(status="INCORRECT_NUMERICAL", latency_ms=None, reference_latency_ms=None,
                     speedup_factor=None)
        elif w["name"] == "m2048_n2048_k2048":
            c = stage(w, "correctness")
            c.update(status="error", message="out of device memory (degraded fixture)", details={})
            p = stage(w, "performance")
            p.update(status="skipped", message="not run: the correctness stage did not pass",
                     details={})
            w.update(status="INFRA_ERROR", latency_ms=None, reference_latency_ms=None,
                     speedup_factor=None)
        else:
            scale(w, 1 + 0.01 * (i + 1))
    for j, w in enumerate(find(r, "gemm_fp16_nt", "tiled_mma")["workloads"]):
        scale(w, 0.85 * (1 + 0.003 * j))
    for j, w in enumerate(find(r, "gemm_bf16_nt", "handwritten")["workloads"]):
        scale(w, 1.10 * (1 + 0.003 * j))
    naive = find(r, "gemm_bf16_nt", "naive")
    naive["workloads"] = [w for w in naive["workloads"] if w["name"] != "m8192_n7168_k5120"]
    for j, w in enumerate(naive["workloads"]):
        scale(w, 0.90 * (1 + 0.003 * j))
    obo = find(r, "gemm_bf16_nt", "off_by_one")
    donor = next(w for w in find(old, "gemm_bf16_nt", "tiled_mma")["workloads"]
                 if w["name"] == "m257_n513_k1000")
    for w in obo["workloads"]:
        if w["name"] == "m257_n513_k1000":
            w["stages"] = copy.deepcopy(donor["stages"])
            w.update(status="PASSED", latency_ms=donor["latency_ms"],
                     reference_latency_ms=donor["reference_latency_ms"],
                     speedup_factor=donor["speedup_factor"])
            scale(w, 0.30 / donor["speedup_factor"])
    extra = copy.deepcopy(find(old, "gemm_bf16_nt", "tiled_mma"))
    extra["name"] = "tiled_mma_v2"
    extra["manifest"] = "tasks/gemm_bf16_nt/examples/tiled_mma_v2.json"
    r["submissions"].append(extra)
    refold(r)
    return r


def make_slower():
    r = copy.deepcopy(old)
    r["started_utc"] = "2026-12-02T09:00:00Z"
    i = 0
    for s in r["submissions"]:
        for w in s["workloads"]:
            if w["speedup_factor"] is not None:
                scale(w, 0.80 * (1 + 0.005 * i))
                i += 1
    refold(r)
    return r


# ---- the expected comparison, computed the plain way ----

CHAIN_STAGES = ["assemble", "correctness", "instructions", "performance"]


def outcomes(s, w):
    out, blocked = {}, None
    for st in s["stages"] + w["stages"]:
        o = st["status"]
        if o == "fail":
            blocked = "fail"
        elif o == "error" and blocked is None:
            blocked = "error"
        elif o == "skipped" and blocked:
            o = blocked
        out.setdefault(st["stage"], o)
    return {k: out.get(k, blocked or "skipped") for k in CHAIN_STAGES}


def midranks(a):
    order = sorted(range(len(a)), key=lambda i: a[i])
    r = [Fraction(0)] * len(a)
    i = 0
    while i < len(a):
        j = i
        while j + 1 < len(a) and a[order[j + 1]] == a[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = Fraction(i + j + 2, 2)
        i = j + 1
    return r


def wilcoxon(d):
    nz = [x for x in d if x != 0]
    n = len(nz)
    r = midranks([abs(x) for x in nz])
    wplus = sum(r[i] for i in range(n) if nz[i] > 0)
    # Distribution of W+ by counting subsets (a polynomial product), exact.
    dist = {Fraction(0): 1}
    for ri in r:
        nd = dict(dist)
        for s, c in dist.items():
            nd[s + ri] = nd.get(s + ri, 0) + c
        dist = nd
    le = sum(c for s, c in dist.items() if s <= wplus)
    ge = sum(c for s, c in dist.items() if s >= wplus)
    p = min(1.0, 2 * min(le, ge) / 2 ** n)
    return n, float(wplus), float(sum(r) - wplus), p


def mcnemar(b, c):
    n = b + c
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2 ** n)


def expect(a, b):
    pairs = []
    for s in a["submissions"]:
        t = next((x for x in b["submissions"] if x["task"] == s["task"] and x["name"] == s["name"]), None)
        if not t:
            continue
        for w in s["workloads"]:
            v = next((x for x in t["workloads"] if x["name"] == w["name"]), None)
            if v:
                pairs.append((outcomes(s, w), outcomes(t, v), w["speedup_factor"], v["speedup_factor"]))
    present = [k for k in CHAIN_STAGES
               if any(st["stage"] == k for r in (a, b) for s in r["submissions"]
                      for st in s["stages"] + [x for w in s["workloads"] for x in w["stages"]])]
    stages = {}
    for k in present:
        reg = sum(1 for oa, ob, _, _ in pairs if oa[k] == "pass" and ob[k] == "fail")
        fix = sum(1 for oa, ob, _, _ in pairs if oa[k] == "fail" and ob[k] == "pass")
        # a stage that did not run on a side (skipped) is not judged: no transition at all
        other = sum(1 for oa, ob, _, _ in pairs if oa[k] != ob[k]
                    and "skipped" not in (oa[k], ob[k])) - reg - fix
        stages[k] = {"regressions": reg, "fixes": fix, "not_comparable": other,
                     "old_pass": sum(oa[k] == "pass" for oa, _, _, _ in pairs),
                     "new_pass": sum(ob[k] == "pass" for _, ob, _, _ in pairs),
                     "mcnemar_p": mcnemar(reg, fix)}
    n = len(pairs)
    fast = {}
    # fast_p over the workloads whose speed was judged on that side (performance pass or fail)
    ja = [(oa, sa) for oa, _, sa, _ in pairs if oa["performance"] in ("pass", "fail")]
    jb = [(ob, sb) for _, ob, _, sb in pairs if ob["performance"] in ("pass", "fail")]
    for p in (0.5, 0.8, 1.0, 1.2):
        fast[str(p)] = [sum(1 for oa, sa in ja if oa["correctness"] == "pass" and sa and sa > p) / len(ja),
                        sum(1 for ob, sb in jb if ob["correctness"] == "pass" and sb and sb > p) / len(jb)]
    la = [math.log(sa) for _, _, sa, _ in pairs if sa]
    lb = [math.log(sb) for _, _, _, sb in pairs if sb]
    d = [math.log(sb) - math.log(sa) for _, _, sa, sb in pairs if sa and sb]
    wn, wp, wm, wpv = wilcoxon(d)
    geo = lambda xs: math.exp(sum(xs) / len(xs))
    return {"paired_workloads": n, "stages": stages, "fast_p": fast,
            "geomean_old": geo(la), "geomean_new": geo(lb), "geomean_ratio": geo(d),
            "n_ratio": len(d), "wilcoxon": {"n": wn, "w_plus": wp, "w_minus": wm, "p_value": wpv}}


new, slower = make_new(), make_slower()
for name, r in (("new.json", new), ("slower.json", slower)):
    with open(name, "w") as f:
        json.dump(r, f, indent=1)
        f.write("\n")
exp = {"new": expect(old, new), "slower": expect(old, slower)}
try:
    import scipy.stats as ss
    for key, other in (("new", new), ("slower", slower)):
        e = exp[key]
        pairs_d = []
        for s in old["submissions"]:
            t = next((x for x in other["submissions"] if x["task"] == s["task"] and x["name"] == s["name"]), None)
            for w in (s["workloads"] if t else []):
                v = next((x for x in t["workloads"] if x["name"] == w["name"]), None)
                if v and w["speedup_factor"] and v["speedup_factor"]:
                    pairs_d.append(math.log(v["speedup_factor"]) - math.log(w["speedup_factor"]))
        assert abs(ss.wilcoxon(pairs_d, method="exact").pvalue - e["wilcoxon"]["p_value"]) < 1e-12
    print("scipy cross-check: done")
except ImportError:
    print("scipy cross-check: skipped (scipy not installed)")
with open("expected.json", "w") as f:
    json.dump(exp, f, indent=1, sort_keys=True)
    f.write("\n")
