#!/usr/bin/env python3
"""Unit test of tests/gpu/honest_runs.py on synthetic results: what two honest runs must share,
and which verdict differences at a comparison's boundary are tolerated."""
import copy
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "gpu"))
import honest_runs  # noqa: E402

LN5 = math.log(5.0)


def comparison(name, verdict, lo, hi, lam=LN5):
    return {"name": name, "verdict": verdict, "lambda": lam, "ratio_estimate": (lo + hi) / 2,
            "ratio_ci_low": lo, "ratio_ci_high": hi}


def run(vendor=("PASS", 2.0, 2.2), accepted=("PASS", 0.99, 1.0), canary="PASS", err=1.0,
        executed=4587520, workloads=("m2048", "m257")):
    def workload(name):
        return {"name": name, "verdict": "pass", "stages": [
            {"stage": "correctness", "status": "pass",
             "details": {"deterministic": True, "max_absolute_error": err,
                         "relative_l2_error": 0.00166, "bad_elements": 0}},
            {"stage": "instructions", "status": "pass", "details": {"targets": [
                {"target": "wgmma.mma_async", "status": "pass", "reason": None,
                 "ptx": {"count": 64}, "sass": {"status": "checked", "count": 128},
                 "runtime": {"status": "measured", "executed_count": executed}}]}},
            {"stage": "performance", "status": "pass", "details": {"comparisons": [
                comparison("candidate_vs_cublaslt", *vendor),
                comparison("aa_canary", canary, 0.999, 1.001, math.log(1.01)),
                comparison("candidate_vs_accepted", *accepted, lam=math.log(1.01))]}},
            {"stage": "verify", "status": "pass"}]}
    return {"submissions": [{"task": "gemm_bf16_nt", "name": "wgmma_tma",
                             "manifest": "tasks/gemm_bf16_nt/examples/wgmma_tma.json",
                             "stages": [{"stage": "assemble", "status": "pass"},
                                        {"stage": "load", "status": "pass"}],
                             "workloads": [workload(w) for w in workloads]}]}


class HonestRuns(unittest.TestCase):
    def check(self, a, b, problems, tolerated=None):
        p, t = honest_runs.compare_runs(a, b)
        self.assertEqual(len(p), problems, p)
        if tolerated is not None:
            self.assertEqual(len(t), tolerated, t)
        return p, t

    def test_identical_runs_agree(self):
        self.check(run(), run(), 0, 0)

    def test_boundary_flip_is_tolerated(self):
        # The accepted-kernel comparison of the issue: PASS in one run, FAST in the other.
        self.check(run(accepted=("PASS", 0.995, 1.02)), run(accepted=("FAST", 0.97, 0.985)), 0, 2)
        # FAIL vs PASS where one run's interval holds the threshold exp(lambda) = 1.01.
        _, t = self.check(run(accepted=("FAIL", 1.005, 1.03)), run(accepted=("PASS", 1.0, 1.009)),
                          0, 2)
        self.assertTrue(any("boundary" in x for x in t), t)

    def test_clear_flip_is_a_problem(self):
        # Both intervals clear of exp(ln 5) = 5, on opposite sides: a real contradiction.
        p, _ = self.check(run(vendor=("FAIL", 5.5, 6.0)), run(vendor=("PASS", 3.0, 4.0)), 2)
        self.assertIn("both intervals clear of the threshold", p[0])

    def test_canary_compared_as_rejected_or_not(self):
        self.check(run(canary="PASS"), run(canary="INCONCLUSIVE"), 0)
        self.check(run(canary="PASS"), run(canary="FAIL"), 2)

    def test_correctness_and_instructions_must_be_identical(self):
        self.check(run(err=1.0), run(err=0.5), 2)
        self.check(run(executed=4587520), run(executed=4587519), 2)
        b = run()
        b["submissions"][0]["workloads"][1]["stages"][0]["status"] = "fail"
        self.check(run(), b, 1)
        # A nondeterministic kernel's figures may differ between runs; its status may not.
        a, b = run(err=1.0), run(err=0.5)
        for r in (a, b):
            for w in r["submissions"][0]["workloads"]:
                w["stages"][0]["details"]["deterministic"] = False
        self.check(a, b, 0)

    def test_same_submissions_and_workloads(self):
        self.check(run(), run(workloads=("m2048",)), 1)
        b = run()
        b["submissions"][0]["name"] = "other"
        self.check(run(), b, 1)
        b = run()
        b["submissions"][0]["stages"][0]["status"] = "fail"
        self.check(run(), b, 1)

    def test_comparison_present_in_one_run_only(self):
        b = run()
        del b["submissions"][0]["workloads"][0]["stages"][2]["details"]["comparisons"][2]
        self.check(run(), b, 1)
        b = run(accepted=("NOT_COMPARED", 0.99, 1.0))
        self.check(run(), b, 2)

    def test_command_line(self):
        import json
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            pa, pb = os.path.join(d, "a.json"), os.path.join(d, "b.json")
            json.dump(run(), open(pa, "w"))
            json.dump(run(vendor=("FAIL", 5.5, 6.0)), open(pb, "w"))
            self.assertEqual(honest_runs.main(["x", pa, pa]), 0)
            self.assertEqual(honest_runs.main(["x", pa, pb]), 1)
            self.assertEqual(honest_runs.main(["x", pa]), 2)


if __name__ == "__main__":
    unittest.main()
