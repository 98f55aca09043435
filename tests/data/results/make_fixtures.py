#!/usr/bin/env python3
"""Writes the results fixtures of this folder (see README.md). Run it after changing it; then
rewrite the expected reports with PG_UPDATE_GOLDEN=1 (README.md) and review both diffs."""
import json, copy, os
OUT = os.path.dirname(os.path.abspath(__file__))
os.makedirs(OUT, exist_ok=True)

GPU = {"name": "NVIDIA H200", "uuid": "GPU-3f2a9c4e-1b7d-4e0a-9c55-0d1e2f3a4b5c",
       "pci_bus_id": "0000:19:00.0", "ordinal": 0, "compute_capability": "9.0", "sm_count": 132,
       "sm_clock_mhz": 1980, "max_sm_clock_mhz": 1980, "memory_clock_mhz": 3201,
       "l2_bytes": 62914560, "memory_bytes": 150754820096}
SETTINGS = {"correctness_sets": 3, "seed": 20261129, "warmup": 10, "repetitions": 50,
            "flush_l2_bytes": 268435456, "confidence": 0.95, "min_speedup_override": None,
            "timeout_s": 60}

def env(gpu=True, host="runner-1"):
    e = {"hostname": host}
    if gpu:
        e.update({"gpu": GPU, "gpu_skip_reason": None, "driver_version": "580.159.04",
                  "cuda_driver_api_version": 13000, "ptxas_version": "13.0.88",
                  "cublaslt_version": 130100})
    return e

def top(verdict, exit_code, subs, environment, duration=41.2):
    counts = {"pass": 0, "fail": 0, "error": 0, "skipped": 0}
    for s in subs:
        for st in s["stages"]:
            counts[st["status"]] += 1
        for w in s["workloads"]:
            for st in w["stages"]:
                counts[st["status"]] += 1
    return {"schema_version": 1, "tool": {"name": "ptxgate", "version": "0.1.0"},
            "started_utc": "2026-11-29T10:00:00Z", "duration_s": duration, "verdict": verdict,
            "exit_code": exit_code, "environment": environment, "settings": SETTINGS,
            "submissions": subs, "counts": counts}

def stage(name, status, message, dur, details=None):
    return {"stage": name, "status": status, "message": message, "duration_s": dur,
            "details": details if details is not None else {}}

def assemble_pass(arch="sm_90a", regs=168, dur=0.412, src="tiled.ptx"):
    return stage("assemble", "pass", "ptxas: 1 entry, %d registers, no spills" % regs, dur, {
        "tool": "ptxas", "tool_path": "/usr/local/cuda/bin/ptxas", "arch": arch,
        "command": "ptxas -arch=%s -v -o /dev/null %s" % (arch, src), "registers": regs,
        "shared_bytes": 0, "spill_store_bytes": 0, "spill_load_bytes": 0, "stack_frame_bytes": 0,
        "diagnostics": [],
        "log": "ptxas info    : Compiling entry function 'gemm_kernel' for '%s'\nptxas info    : Used %d registers" % (arch, regs)})

def assemble_entries(entries, arch="sm_90a", dur=0.398, src="tiled.ptx"):
    """The form the pipeline writes: per-entry usage only, no module-level numbers."""
    return stage("assemble", "pass", "ptxas: %d entr%s assembled" % (len(entries), "y" if len(entries) == 1 else "ies"), dur, {
        "tool_path": "/usr/local/cuda/bin/ptxas", "arch": arch,
        "command": "ptxas -arch=%s -v -o out.cubin %s" % (arch, src), "diagnostics": [],
        "entries": [{"name": n, "registers": r, "shared_bytes": 0, "constant0_bytes": 412,
                     "stack_frame_bytes": 0, "spill_store_bytes": sp, "spill_load_bytes": sp}
                    for n, r, sp in entries],
        "log": "\n".join("ptxas info    : Used %d registers, 412 bytes cmem[0]" % r for _, r, _ in entries)})

def load_pass(dur=0.011):
    return stage("load", "pass", "module loaded (cuModuleLoadData), entry gemm_kernel found", dur, {"log": ""})

def correctness(status, mae, mre, l2, bad, n, dur=1.8, msg=None):
    sets = []
    for i in range(3):
        sets.append({"seed": i + 1, "output": "C", "elements": n, "max_absolute_error": mae,
                     "max_relative_error": mre, "relative_l2_error": l2,
                     "bad_elements": bad // 3 if i < 2 else bad - 2 * (bad // 3),
                     "nan_or_inf_elements": 0, "unwritten_elements": 0,
                     "first_bad_index": [17, 4093] if bad else None})
    if msg is None:
        msg = ("3/3 input sets within tolerance; max |err| %g, rel L2 %.1e" % (mae, l2)) if status == "pass" \
            else "%d of %d elements outside tolerance in 3/3 input sets; max |err| %g" % (bad, 3 * n, mae)
    return stage("correctness", status, msg, dur, {
        "tolerance": {"atol": 0.01, "rtol": 0.01, "max_rel_l2": 0.01}, "sets": sets,
        "max_absolute_error": mae, "max_relative_error": mre, "relative_l2_error": l2,
        "bad_elements": bad})

def performance(status, cand_ms, base_ms, flop, est, lo, hi, dur=6.3, msg=None, min_speedup=0.2):
    def arm(ms, extra=None):
        a = {"median_ms": ms, "ci_low_ms": round(ms * 0.995, 4), "ci_high_ms": round(ms * 1.004, 4),
             "min_ms": round(ms * 0.99, 4), "max_ms": round(ms * 1.03, 4), "samples": 50,
             "tflops": round(flop / (ms * 1e-3) / 1e12, 3)}
        if extra:
            e = dict(extra); e.update(a); a = e
        return a
    if msg is None:
        msg = "speedup %.3f× [%.3f, %.3f] (95%% CI) vs cuBLASLt; minimum %g" % (est, lo, hi, min_speedup)
    return stage("performance", status, msg, dur, {
        "method": "CUDA events around each launch, L2 flushed before every sample, 10 warm-up, 50 timed, randomized blocks",
        "candidate": arm(cand_ms),
        "baseline": arm(base_ms, {"library": "cublaslt", "algorithm": "algo 21 tile 256x128 stages 4",
                                  "candidates_returned": 16, "candidates_timed": 16,
                                  "workspace_bytes": 33554432}),
        "speedup": {"estimate": est, "ci_low": lo, "ci_high": hi, "confidence": 0.95},
        "min_speedup": min_speedup, "rule": "fail when ci_high < min_speedup"})

def workload(name, symbols, verdict, stages, aliases=None, status="PASSED", mae=None, mre=None,
             lat=None, ref=None, sp=None):
    M, N, K = symbols["M"], symbols["N"], symbols["K"]
    return {"name": name, "aliases": aliases or [], "symbols": symbols, "flop": float(2 * M * N * K),
            "verdict": verdict, "stages": stages, "status": status,
            "max_absolute_error": mae, "max_relative_error": mre, "latency_ms": lat,
            "reference_latency_ms": ref, "speedup_factor": sp}

def submission(name, task, verdict, stages, workloads, source=None, arch="sm_90a"):
    return {"manifest": "tasks/%s/examples/%s.json" % (task, name), "name": name,
            "source": source or "tasks/%s/examples/%s.ptx" % (task, name), "task": task,
            "arch": arch, "verdict": verdict, "stages": stages, "workloads": workloads}

def flop(M, N, K): return 2 * M * N * K

def write(name, obj):
    with open(os.path.join(OUT, name), 'w') as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write('\n')

# 1. all pass
W1 = {"M": 8192, "N": 7168, "K": 5120}
W2 = {"M": 4096, "N": 4096, "K": 4096}
w1 = workload("m8192_n7168_k5120", W1, "pass", [
    correctness("pass", 0.0625, 0.0039, 0.0021, 0, 8192 * 7168),
    performance("pass", 1.019, 0.7593, flop(**W1), 0.745, 0.741, 0.750)],
    aliases=["gemm_n7168_k5120"], mae=0.0625, mre=0.0039, lat=1.019, ref=0.7593, sp=0.745)
w2 = workload("m4096_n4096_k4096", W2, "pass", [
    correctness("pass", 0.03125, 0.0021, 0.00184, 0, 4096 * 4096, dur=0.9),
    performance("pass", 0.2461, 0.2049, flop(**W2), 0.8326, 0.8281, 0.8372, dur=3.1)],
    mae=0.03125, mre=0.0021, lat=0.2461, ref=0.2049, sp=0.8326)
all_pass = top("pass", 0, [submission("tiled", "gemm_bf16_nt", "pass", [assemble_pass(), load_pass()], [w1, w2],
                                      source="tasks/gemm_bf16_nt/examples/tiled_mma.cu")], env())
write("all_pass.json", all_pass)

# 2. assemble failure with diagnostics
asm_fail = stage("assemble", "fail", "ptxas failed: 2 errors, 1 warning", 0.087, {
    "tool": "ptxas", "tool_path": "/usr/local/cuda/bin/ptxas", "arch": "sm_90a",
    "command": "ptxas -arch=sm_90a -v -o /dev/null tasks/gemm_bf16_nt/examples/broken.ptx",
    "diagnostics": [
        {"severity": "error", "line": 8, "message": "Unknown symbol 'r9'"},
        {"severity": "error", "line": 41, "message": "Arguments mismatch for instruction 'mma'"},
        {"severity": "warning", "line": 3, "message": "Unused parameter 'ldc'"},
        {"severity": "error", "line": 0, "message": "Ptx assembly aborted due to errors"}],
    "log": "ptxas /tmp/broken.ptx, line 8; error   : Unknown symbol 'r9'\nptxas /tmp/broken.ptx, line 41; error   : Arguments mismatch for instruction 'mma'\nptxas /tmp/broken.ptx, line 3; warning : Unused parameter 'ldc'\nptxas fatal   : Ptx assembly aborted due to errors"})
skip_asm = "assemble failed"
wa = workload("m4096_n4096_k4096", W2, "skipped", [
    stage("correctness", "skipped", "not run: assemble failed", 0.0),
    stage("performance", "skipped", "not run: assemble failed", 0.0)], status="COMPILE_ERROR")
write("assemble_fail.json", top("fail", 1, [submission("broken", "gemm_bf16_nt", "fail",
      [asm_fail, stage("load", "skipped", "not run: assemble failed", 0.0)], [wa])], env(), duration=0.6))

# 3. correctness failure
wc1 = workload("m8192_n7168_k5120", W1, "fail", [
    correctness("fail", 3.5, 1.0, 0.0871, 1234, 8192 * 7168),
    stage("performance", "skipped", "not run: correctness failed", 0.0)],
    status="INCORRECT_NUMERICAL", mae=3.5, mre=1.0)
wc2 = workload("m4096_n4096_k4096", W2, "pass", [
    correctness("pass", 0.03125, 0.0021, 0.00184, 0, 4096 * 4096, dur=0.9),
    performance("pass", 0.2461, 0.2049, flop(**W2), 0.8326, 0.8281, 0.8372, dur=3.1)],
    mae=0.03125, mre=0.0021, lat=0.2461, ref=0.2049, sp=0.8326)
write("correctness_fail.json", top("fail", 1, [submission("swizzle_bug", "gemm_bf16_nt", "fail",
      [assemble_pass(regs=154), load_pass()], [wc1, wc2])], env(), duration=17.9))

# 4. performance failure
wp1 = workload("m8192_n7168_k5120", W1, "fail", [
    correctness("pass", 0.0625, 0.0039, 0.0021, 0, 8192 * 7168),
    performance("fail", 5.062, 0.7593, flop(**W1), 0.150, 0.141, 0.160, msg="speedup 0.150× [0.141, 0.160] (95% CI): upper bound below the minimum 0.2")],
    mae=0.0625, mre=0.0039, lat=5.062, ref=0.7593, sp=0.150)
write("performance_fail.json", top("fail", 1, [submission("naive", "gemm_bf16_nt", "fail",
      [assemble_pass(regs=40), load_pass()], [wp1])], env(), duration=12.4))

# 5. GPU skipped (no GPU, no ptxas: every stage skipped, as the pipeline writes it)
e = {"hostname": "ci-cpu-7", "gpu": None,
     "gpu_skip_reason": "no CUDA device: cuInit returned CUDA_ERROR_NO_DEVICE (100)",
     "driver_version": None, "cuda_driver_api_version": None, "ptxas_version": None,
     "cublaslt_version": None}
reason = "GPU unavailable: no CUDA device: cuInit returned CUDA_ERROR_NO_DEVICE (100)"
wg = [workload(n, s_, "skipped", [stage("correctness", "skipped", reason, 0.0),
                                   stage("performance", "skipped", reason, 0.0)], status="SKIPPED")
      for n, s_ in [("m8192_n7168_k5120", W1), ("m4096_n4096_k4096", W2)]]
write("gpu_skipped.json", top("pass", 0, [submission("tiled", "gemm_bf16_nt", "skipped",
      [stage("assemble", "skipped", "ptxas not found: the driver JIT compiles the PTX at load instead (no resource usage, diagnostics only from the driver)", 0.002, {"fallback": "driver JIT"}),
       stage("load", "skipped", reason, 0.0)], wg,
      source="tasks/gemm_bf16_nt/examples/tiled_mma.cu")], e, duration=0.9))

# 6. infrastructure error
wi = workload("m8192_n7168_k5120", W1, "error", [
    correctness("pass", 0.0625, 0.0039, 0.0021, 0, 8192 * 7168),
    stage("performance", "error",
          "cuBLASLt returned no algorithm for this problem (cublasLtMatmulAlgoGetHeuristic: CUBLAS_STATUS_NOT_SUPPORTED)",
          0.214, {"method": "CUDA events around each launch, L2 flushed before every sample",
                  "candidate": {"median_ms": 1.019, "ci_low_ms": 1.014, "ci_high_ms": 1.023,
                                "min_ms": 1.009, "max_ms": 1.05, "samples": 50, "tflops": 590.081},
                  "baseline": {"library": "cublaslt", "algorithm": None, "candidates_returned": 0,
                               "candidates_timed": 0, "workspace_bytes": 33554432}})],
    status="INFRA_ERROR", mae=0.0625, mre=0.0039, lat=1.019)
write("infra_error.json", top("error", 3, [submission("tiled", "gemm_bf16_nt", "error",
      [assemble_pass(), load_pass()], [wi])], env(host="runner-2"), duration=9.7))

# 7. hostile text
hw = "m4096|n4096`k4096`<b>bold</b>"
hostile_sub = submission("<script>alert(1)</script>", "gemm_bf16_nt", "fail", [
    stage("assemble", "fail", "ptxas failed: @someone please look <img src=x onerror=alert(1)> & ping @org/team\nsecond line | pipe",
          0.05, {"tool": "ptxas", "diagnostics": [
              {"severity": "error", "line": 12, "message": "Unknown symbol '<script>' | cc @someone `rm -rf /` [link](http://evil.example)"},
              {"severity": "error", "line": 13, "message": "line\nbreak\r\nand\ttab \u0001ctl \u001b[31mred\u001b[0m \u202eevil"}],
              "log": "<script>alert('log')</script>\n@someone\n]]> -- & done"}),
    stage("load", "skipped", "not run: assemble failed <b>@someone</b>", 0.0)],
    [workload(hw, W2, "fail", [
        stage("correctness", "fail", "bad & worse <script>x</script> @someone |a|b| *bold* _it_ ~~s~~ $x$ \\\\", 0.3,
              {"tolerance": {"atol": 0.01, "rtol": 0.01, "max_rel_l2": 0.01},
               "max_absolute_error": 0.5, "max_relative_error": 0.25, "relative_l2_error": 0.015,
               "bad_elements": 7, "note\nkey<&>": "value with <tags> & \"quotes\"\nand a newline"}),
        stage("performance", "skipped", "not run: correctness failed @someone", 0.0)],
        status="INCORRECT_NUMERICAL"),
     workload(hw, W2, "fail", [
        stage("correctness", "skipped", "duplicate workload name @someone", 0.0),
        stage("correctness", "skipped", "duplicate stage @someone", 0.0)])],
    source="tasks/gemm_bf16_nt/examples/`evil`|<x>.ptx")
hostile_sub["manifest"] = "tasks/gemm_bf16_nt/examples/evil.json"
dup = copy.deepcopy(hostile_sub)
dup["manifest"] = "other/<script>alert(1)</script>.json"
env7 = env(host="host<&>\"@someone")
env7["gpu"] = dict(GPU, name="NVIDIA H200 <b>@someone</b> | x")
write("hostile.json", top("fail", 1, [hostile_sub, dup], env7, duration=1.25))

# 8. several tasks, interleaved
def simple_sub(name, task, W, asm=None):
    wl = workload("m%d_n%d_k%d" % (W["M"], W["N"], W["K"]), W, "pass", [
        correctness("pass", 0.03125, 0.0021, 0.00184, 0, W["M"] * W["N"], dur=0.5),
        performance("pass", 0.2461, 0.2049, flop(**W), 0.8326, 0.8281, 0.8372, dur=2.0)],
        mae=0.03125, mre=0.0021, lat=0.2461, ref=0.2049, sp=0.8326)
    return submission(name, task, "pass", [asm or assemble_pass(), load_pass()], [wl])
W3 = {"M": 1024, "N": 2048, "K": 512}
write("multi_task.json", top("pass", 0, [simple_sub("tiled", "gemm_bf16_nt", W2),
      simple_sub("tiled", "gemm_fp16_nt", W3), simple_sub("wgmma", "gemm_bf16_nt", W2,
      asm=assemble_entries([("gemm_wgmma_main", 232, 0), ("gemm_wgmma_tail", 96, 16)]))], env(), duration=20.5))

# 9. attention: per-output correctness (no common tolerance), a cuDNN baseline
def mha_workload(name, S, verdict, stages, status="PASSED", mae=None, bwd=False):
    B, H, D = 4, 48, 128
    w = {"name": name, "aliases": [], "symbols": {"B": B, "H": H, "S": S, "D": D},
         "flop": float((10 if bwd else 4) * B * H * S * S * D), "verdict": verdict, "stages": stages,
         "status": status, "max_absolute_error": mae, "max_relative_error": None,
         "latency_ms": None, "reference_latency_ms": None, "speedup_factor": None}
    return w

def mha_correctness(status, outs, n, msg):
    tol = {"dQ": (0.01, 0.02, 0.02), "dK": (0.01, 0.02, 0.02), "dV": (0.01, 0.02, 0.02),
           "O": (0.004, 0.01, 0.01), "LSE": (0.001, 0.0001, 0.0001)}
    sets, per = [], {}
    for name, (mae, l2, bad) in outs.items():
        a, r, m = tol[name]
        for i in range(3):
            sets.append({"seed": i + 1, "output": name, "elements": n, "max_absolute_error": mae,
                         "max_relative_error": 0.5, "relative_l2_error": l2,
                         "bad_elements": bad if i == 1 else 0, "nan_or_inf_elements": 0,
                         "unwritten_elements": 0,
                         "first_bad_index": [2, 17, 999, 5] if bad and i == 1 else None,
                         "pass": not (bad and i == 1)})
        per[name] = {"tolerance": {"atol": a, "rtol": r, "max_rel_l2": m}, "max_absolute_error": mae,
                     "max_relative_error": 0.5, "relative_l2_error": l2, "bad_elements": bad,
                     "nan_or_inf_elements": 0, "unwritten_elements": 0,
                     "passed_sets": 2 if bad else 3}
    return stage("correctness", status, msg, 2.4, {
        "outputs": per, "sets": sets, "max_absolute_error": max(v[0] for v in outs.values()),
        "max_relative_error": 0.5, "relative_l2_error": max(v[1] for v in outs.values()),
        "bad_elements": sum(v[2] for v in outs.values()), "nan_or_inf_elements": 0,
        "unwritten_elements": 0})

fwd_perf = performance("pass", 3.1, 2.71, 4 * 4 * 48 * 4096 * 4096 * 128, 0.874, 0.871, 0.877,
                       msg="speedup 0.874x [0.871, 0.877] vs cuDNN; minimum 0.2")
fwd_perf["details"]["baseline"] = dict(fwd_perf["details"]["baseline"], library="cudnn",
    algorithm="fused SDPA_FWD (1 operation); engine 8; TILE_M=2", cudnn_version="9.14.0",
    cudnn_header_version="9.19.0", graph="fused SDPA_FWD (1 operation)", engine_id=8,
    knobs="TILE_M=2", heuristics="mode A", candidates_returned=3, chosen_rank=0,
    configs_tried=1, plan_cached=False, workspace_bytes=0, scratch_bytes=0)
del fwd_perf["details"]["baseline"]["candidates_timed"]
wf = mha_workload("b4_h48_s4096_d128", 4096, "pass", [
    mha_correctness("pass", {"O": (0.0011, 0.0016, 0), "LSE": (2.1e-06, 1.2e-07, 0)},
                    4 * 48 * 4096 * 128,
                    "3/3 input sets within tolerance; O max |err| 0.0011, rel L2 0.0016; LSE max |err| 2.1e-06, rel L2 1.2e-07"),
    fwd_perf], mae=0.0011)
wb = mha_workload("b2_h16_s1000_d128", 1000, "fail", [
    mha_correctness("fail", {"dQ": (0.009, 0.003, 0), "dK": (0.008, 0.003, 0), "dV": (0.91, 1.4, 40960)},
                    2 * 16 * 1000 * 128,
                    "1/3 input sets failed: dQ: bad elements per set 0, 0, 0 of 4096000 (0 NaN/Inf, 0 unwritten), max |err| 0.009, max rel L2 0.003 (limit 0.02); dK: bad elements per set 0, 0, 0 of 4096000 (0 NaN/Inf, 0 unwritten), max |err| 0.008, max rel L2 0.003 (limit 0.02); dV: bad elements per set 0, 40960, 0 of 4096000 (0 NaN/Inf, 0 unwritten), max |err| 0.91, max rel L2 1.4 (limit 0.02)"),
    stage("performance", "skipped", "not run: the correctness stage did not pass", 0.0)],
    status="INCORRECT_NUMERICAL", mae=0.91, bwd=True)
write("attention.json", top("fail", 1, [
    submission("flash", "mha_fwd_d128", "pass", [assemble_pass(), load_pass()], [wf]),
    submission("wrong_dv", "mha_bwd_d128", "fail", [assemble_pass(), load_pass()], [wb])],
    env(), duration=30.5))

# 10. the instructions stage failing (tiled mma.sync kernel on the sm_90a set), the form the
# pipeline writes: one static result recorded in every workload, SASS checked, runtime not measured
def instr_target(name, fams, status, reason, summary, ptx_count, lines, nearest, sass_status,
                 sass_count, opcodes, runtime=None):
    return {"target": name, "family": name, "sass_families": fams, "status": status,
            "reason": reason, "summary": summary,
            "ptx": {"count": ptx_count, "lines": lines, "mnemonics": [], "nearest": nearest},
            "sass": {"status": sass_status, "count": sass_count,
                     "opcodes": [{"opcode": o, "count": c} for o, c in opcodes]},
            "runtime": runtime or {"status": "not measured", "executed_count": None,
                                   "coverage": None, "min_coverage": None, "reason": None}}

def instructions(status, message, targets, policy="require", dur=0.183):
    return stage("instructions", status, message, dur, {
        "policy": policy, "arch": "sm_90a", "table": "/usr/local/share/ptxgate/arch/sm_90a.json",
        "ptx": {"file": "nvcc -ptx output", "instructions": 1874, "uses_preprocessor": False},
        "sass": {"tool": "nvdisasm", "tool_path": "/usr/local/cuda/bin/nvdisasm",
                 "command": "/usr/local/cuda/bin/nvdisasm --print-code /tmp/ptxgate.x/submission0.cubin",
                 "status": "checked", "reason": None, "wall_s": 0.061, "instructions": 2304,
                 "functions": 1, "families": {"HMMA": 512, "LDSM": 96, "LDGSTS": 48}},
        "targets": targets,
        "rule": "each target must be in the PTX (opcode and modifier set, never a substring) and, as one of its SASS families, in the disassembled cubin; then executed and covering the required work"})

near_mma = [{"mnemonic": "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "count": 64,
             "lines": [876, 880, 884, 888, 892, 896, 900, 904]}]
near_cp = [{"mnemonic": "cp.async.cg.shared.global", "count": 24,
            "lines": [191, 203, 218, 228, 243, 253, 268, 278]}]
s_w = "wgmma.mma_async absent in PTX; nearest: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 ×64 at lines 876, 880, 884, 888, …"
s_t = "cp.async.bulk.tensor absent in PTX; nearest: cp.async.cg.shared.global ×24 at lines 191, 203, 218, 228, …"
msg_fail = "2 of 2 targets fail on sm_90a: " + s_w + "; " + s_t
def fail_targets():
    return [instr_target("wgmma.mma_async", ["HGMMA"], "fail", "absent_in_ptx", s_w, 0, [], near_mma, "checked", 0, []),
            instr_target("cp.async.bulk.tensor", ["UTMALDG"], "fail", "absent_in_ptx", s_t, 0, [], near_cp, "checked", 0, [])]
wi1 = workload("m8192_n7168_k5120", W1, "fail", [
    correctness("pass", 0.0625, 0.0039, 0.0021, 0, 8192 * 7168),
    instructions("fail", msg_fail, fail_targets()),
    performance("pass", 1.46, 0.7593, flop(**W1), 0.52, 0.516, 0.524)],
    aliases=["gemm_n7168_k5120"], mae=0.0625, mre=0.0039, lat=1.46, ref=0.7593, sp=0.52)
wi2 = workload("m4096_n4096_k4096", W2, "fail", [
    correctness("pass", 0.03125, 0.0021, 0.00184, 0, 4096 * 4096, dur=0.9),
    instructions("fail", msg_fail, fail_targets(), dur=0.0),
    performance("pass", 0.346, 0.2049, flop(**W2), 0.592, 0.588, 0.597, dur=3.1)],
    mae=0.03125, mre=0.0021, lat=0.346, ref=0.2049, sp=0.592)
write("instructions_fail.json", top("fail", 1, [submission("tiled_mma", "gemm_bf16_nt", "fail",
      [assemble_pass(regs=128), load_pass()], [wi1, wi2],
      source="tasks/gemm_bf16_nt/examples/tiled_mma.cu")], env(), duration=31.0))

# 11. policy warn with runtime fields filled (as the runtime half records them): one workload
# covers its work, the other runs a token wgmma (coverage too low): different messages
s_ok_w = "wgmma.mma_async: PTX ×8 (lines 120, 131, 142, 153, …), SASS HGMMA.64x128x16.F32.BF16 ×16"
s_ok_t = "cp.async.bulk.tensor: PTX ×2 (lines 88, 97), SASS UTMALDG.2D ×4"
def rt(executed, coverage, reason=None):
    return {"status": "measured", "executed_count": executed, "coverage": coverage,
            "min_coverage": 0.99, "reason": reason}
ok_targets = [instr_target("wgmma.mma_async", ["HGMMA"], "pass", None, s_ok_w, 8, [120, 131, 142, 153, 164, 175, 186, 197], [], "checked", 16,
                           [("HGMMA.64x128x16.F32.BF16", 16)], rt(2097152.0, 1.0)),
              instr_target("cp.async.bulk.tensor", ["UTMALDG"], "pass", None, s_ok_t, 2, [88, 97], [], "checked", 4,
                           [("UTMALDG.2D", 4)], rt(65536.0, None))]
token = [instr_target("wgmma.mma_async", ["HGMMA"], "fail", "coverage_too_low", s_ok_w, 8, [120, 131, 142, 153, 164, 175, 186, 197], [], "checked", 16,
                      [("HGMMA.64x128x16.F32.BF16", 16)], rt(4096.0, 0.0039, "coverage_too_low")),
         instr_target("cp.async.bulk.tensor", ["UTMALDG"], "pass", None, s_ok_t, 2, [88, 97], [], "checked", 4,
                      [("UTMALDG.2D", 4)], rt(2048.0, None))]
wr1 = workload("m4096_n4096_k4096", W2, "pass", [
    correctness("pass", 0.03125, 0.0021, 0.00184, 0, 4096 * 4096, dur=0.9),
    instructions("pass", "2/2 targets in the PTX and the SASS on sm_90a: wgmma.mma_async (PTX ×8, SASS ×16, executed 2097152, coverage 1.000), cp.async.bulk.tensor (PTX ×2, SASS ×4, executed 65536)",
                 ok_targets, policy="warn"),
    performance("pass", 0.2461, 0.2049, flop(**W2), 0.8326, 0.8281, 0.8372, dur=3.1)],
    mae=0.03125, mre=0.0021, lat=0.2461, ref=0.2049, sp=0.8326)
wr2 = workload("m2048_n2048_k2048", {"M": 2048, "N": 2048, "K": 2048}, "pass", [
    correctness("pass", 0.03125, 0.0021, 0.00184, 0, 2048 * 2048, dur=0.4),
    instructions("pass", "warning (instructions policy warn: not failing the submission): 1 of 2 targets fails on sm_90a: " + s_ok_w +
                 " — executed 4096 times but covering 0.0039 of the required work (minimum 0.99)", token, policy="warn", dur=0.0),
    performance("pass", 0.0612, 0.0261, flop(M=2048, N=2048, K=2048), 0.4265, 0.4201, 0.4330, dur=1.1)],
    mae=0.03125, mre=0.0021, lat=0.0612, ref=0.0261, sp=0.4265)
write("instructions_runtime.json", top("pass", 0, [submission("wgmma_token", "gemm_bf16_nt", "pass",
      [assemble_pass(regs=168), load_pass()], [wr1, wr2],
      source="kernels/wgmma_token.ptx")], env(), duration=14.2))

# 12. stored baselines: a changed driver noted, one workload pinned without drift (a warning-free
# pass), one with runner drift under --on-drift=fail (an infrastructure error)
def with_stored(perf_stage, drift, source="pinned"):
    det = perf_stage["details"]
    det["mode"] = "cold"
    det["stored_baseline"] = {"file": "baselines/h200-sxm/gemm_bf16_nt.json", "status": "found",
                              "algorithm_source": source, "note": "",
                              "algorithm_config": {"algo_id": 66, "tile": 20, "stages": 35, "splitk": 1,
                                                   "reduction": 0, "swizzle": 0, "custom": 0,
                                                   "inner_shape": 0, "cluster_shape": 2},
                              "algorithm_reproducible": True}
    det["baseline_drift"] = drift
    return perf_stage
drift_none = {"verdict": "none", "policy": "fail", "tolerance": 0.05, "stored_median_ms": 0.7571,
              "stored_ci_low_ms": 0.7555, "stored_ci_high_ms": 0.7589, "live_median_ms": 0.7593,
              "live_ci_low_ms": 0.7555, "live_ci_high_ms": 0.7623, "ratio": 1.0029,
              "ratio_low": 0.9955, "ratio_high": 1.009, "stored_confidence": 0.95}
drift_msg = ("runner drift: cuBLASLt 0.2049 ms [0.2039, 0.2057] here vs 0.1844 ms [0.1840, 0.1848] "
             "stored in baselines/h200-sxm/gemm_bf16_nt.json (+11.1 %, slower beyond the 5.0 % tolerance)")
drift_slow = {"verdict": "slower", "policy": "fail", "tolerance": 0.05, "stored_median_ms": 0.1844,
              "stored_ci_low_ms": 0.184, "stored_ci_high_ms": 0.1848, "live_median_ms": 0.2049,
              "live_ci_low_ms": 0.2039, "live_ci_high_ms": 0.2057, "ratio": 1.1112,
              "ratio_low": 1.1033, "ratio_high": 1.1179, "stored_confidence": 0.95}
wb1 = workload("m8192_n7168_k5120", W1, "pass", [
    correctness("pass", 0.0625, 0.0039, 0.0021, 0, 8192 * 7168),
    with_stored(performance("pass", 1.019, 0.7593, flop(**W1), 0.745, 0.741, 0.750), drift_none)],
    aliases=["gemm_n7168_k5120"], mae=0.0625, mre=0.0039, lat=1.019, ref=0.7593, sp=0.745)
wb2 = workload("m4096_n4096_k4096", W2, "error", [
    correctness("pass", 0.03125, 0.0021, 0.00184, 0, 4096 * 4096, dur=0.9),
    with_stored(performance("error", 0.2461, 0.2049, flop(**W2), 0.8326, 0.8281, 0.8372, dur=3.1,
                            msg="INFRASTRUCTURE: " + drift_msg + " (--on-drift=fail); the live measurement said: PASS: speedup 0.833x [0.828, 0.837] vs min_speedup 0.2"),
                drift_slow)],
    status="INFRA_ERROR", mae=0.03125, mre=0.0021, lat=0.2461, ref=0.2049, sp=0.8326)
bl_env = env()
bl_env["gpu"] = dict(GPU, max_memory_clock_mhz=3201, power_limit_w=700.0, ecc=True)
bl_env["driver_version"] = "580.200.01"
baseline_drift = top("error", 3, [submission("tiled", "gemm_bf16_nt", "error", [assemble_pass(), load_pass()],
                                             [wb1, wb2], source="tasks/gemm_bf16_nt/examples/tiled_mma.cu")],
                     bl_env, duration=38.0)
baseline_drift["baselines"] = {
    "dir": "baselines", "gpu_key": "h200-sxm", "gpu_key_source": "from the device name 'NVIDIA H200'",
    "on_missing_baseline": "measure", "on_drift": "fail", "drift_tolerance": 0.05,
    "tasks": [{"task": "gemm_bf16_nt", "file": "baselines/h200-sxm/gemm_bf16_nt.json", "status": "found",
               "measured_utc": "2026-11-30T09:12:44Z",
               "fingerprint_changes": [{"field": "driver_version", "stored": "580.159.04",
                                        "live": "580.200.01", "gpu": False}],
               "algorithm_pinning": True, "accepted_kernel_note": None,
               "events": ["m4096_n4096_k4096: " + drift_msg]}],
    "notes": ["gemm_bf16_nt: environment differs from the baseline measured 2026-11-30T09:12:44Z: driver_version 580.159.04 → 580.200.01",
              "gemm_bf16_nt/m4096_n4096_k4096: " + drift_msg]}
write("baseline_drift.json", baseline_drift)
