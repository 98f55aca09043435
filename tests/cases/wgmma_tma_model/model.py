"""CPU model of tasks/gemm_bf16_nt/examples/wgmma_tma.cu: the address, pipeline and index
arithmetic of the kernel, checked without a GPU.

What it checks (each a restatement of the kernel's formulas against a model of the hardware
rule it relies on; the hardware rules are the PTX ISA's and the CUDA driver API's, as the
comments in tasks/common/sm90_ptx.cuh state them):
  1. layout: every (row, k) element a wgmma m64nNk16 reads through the kernel's shared-memory
     descriptors (128B swizzle, SBO 1024, start + 32 bytes per k16 step) is the byte where TMA
     put that element of the box (128B swizzle = shared-address bits 4-6 XOR bits 7-9), for every
     stage, consumer, k16 step, and for dynamic shared windows at any 16-byte aligned address;
  2. pipeline: the producer / consumer mbarrier protocol (full/empty barriers, parities, 8
     arrivals per release, wgmma.wait_group 1) under random interleavings: no deadlock, every
     wgmma group reads the slice it expects, no stage is overwritten while a wgmma reads it;
  3. raster: the grouped rasterisation maps the grid onto the tiles one to one;
  4. epilogue: the accumulator layout covers the 64 x BN tile once per warpgroup, and over all
     CTAs every C element with row < M and col < N is written exactly once, nothing outside.
Constants come from the kernel source and its manifest, so a change there is checked here.
usage: model.py REPO_ROOT
"""
import json
import random
import re
import sys

root = sys.argv[1]
src = open(f"{root}/tasks/gemm_bf16_nt/examples/wgmma_tma.cu").read()
man = json.load(open(f"{root}/tasks/gemm_bf16_nt/examples/wgmma_tma.json"))
task = json.load(open(f"{root}/tasks/gemm_bf16_nt/task.json"))
D = {k: int(v) for k, v in re.findall(r"#define GWT_(\w+) (\d+)\b", src)}
BM, BK, STAGES, THREADS, GROUP_M = D["BM"], D["BK"], D["STAGES"], D["THREADS"], D["GROUP_M"]
launch = man["launches"][0]
maps = [p["tensor_map"] for p in launch["params"] if "tensor_map" in p]
BN = int(maps[1]["box"][1])
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL", what)
    return ok


# ---- manifest ↔ kernel constants --------------------------------------------------------------
TILE_A = BM * BK * 2
TILE_B = BN * BK * 2
STAGE = TILE_A + TILE_B
SMEM = STAGES * STAGE + 2 * STAGES * 8 + 1024
check(maps[0]["box"] == [BK, BM] and maps[1]["box"] == [BK, BN], f"boxes {maps} vs BK {BK} BM {BM} BN {BN}")
check(all(m["swizzle"] == "128B" and m.get("oob_fill", "none") == "none" for m in maps), "128B swizzle, zero fill")
check(BK * 2 == 128, "a box row is exactly one 128-byte swizzle row")
check(int(launch["dynamic_shared_bytes"]) == SMEM, f"dynamic_shared_bytes {launch['dynamic_shared_bytes']} = {SMEM}")
check(SMEM <= 232448, "fits the 227 KiB opt-in maximum of sm_90")
check(launch["block"] == [THREADS, 1, 1] and THREADS == 384, "3 warpgroups")
check(launch["grid"][:2] == [f"ceil_div(N, {BN})", f"ceil_div(M, {BM})"], f"grid {launch['grid']}")
check(STAGE % 1024 == 0 and TILE_A % 1024 == 0, "every tile starts 1024-byte aligned")
check(f"gemm_tile<{BN}>(&tmap_a" in src.split(launch["entry"] + "(")[1][:400], "entry instantiates BN")


# ---- 1. layout ----------------------------------------------------------------------------------
def swz128(addr):
    """128B swizzle on a shared address: bits 4-6 ^= bits 7-9."""
    return addr ^ (((addr >> 7) & 7) << 4)


def tma_addr(dst, r, k):
    """Where TMA (box inner extent 128 bytes, swizzle 128B) puts element (row r, k) of its box."""
    return swz128(dst + r * 128 + k * 2)


def desc(addr):
    """sm90::wgmma_desc_k128 (tasks/common/sm90_ptx.cuh)."""
    return ((addr & 0x3FFFF) >> 4) | (1 << 16) | ((1024 >> 4) << 32) | (1 << 62)


def wgmma_addr(d, i, k):
    """Element (row i, k) of a K-major operand read through descriptor d (swizzle mode 1 = 128B):
    start + (i / 8) * SBO + (i % 8) * 128 + 2 k, then the swizzle on the address bits."""
    assert d >> 62 == 1
    start, sbo = (d & 0x3FFF) << 4, ((d >> 32) & 0x3FFF) << 4
    return swz128(start + (i // 8) * sbo + (i % 8) * 128 + 2 * k)


layout_ok = True
for window in (0, 16, 400, 1024, 1040, 3056):  # the dynamic window's address: any 16-byte multiple
    base = (window + 1023) & ~1023
    check(base + SMEM - 1024 <= window + SMEM, "the aligned layout stays inside the allocation")
    for s in range(STAGES):
        tile = base + s * STAGE
        for c in range(2):
            da = desc(tile + c * (64 * 128))
            db = desc(tile + TILE_A)
            for k16 in range(BK // 16):
                for i in range(64):
                    for k in range(16):
                        layout_ok &= wgmma_addr(da + 2 * k16, i, k) == tma_addr(tile, 64 * c + i, 16 * k16 + k)
                for n in range(BN):
                    for k in range(16):
                        layout_ok &= wgmma_addr(db + 2 * k16, n, k) == tma_addr(tile + TILE_A, n, 16 * k16 + k)
check(layout_ok, "wgmma descriptor reads = TMA 128B-swizzled placement")
# The descriptor's start field must not overflow 14 bits across the k16 steps.
check(((0x3FFFF & (3056 + SMEM)) >> 4) + 6 < (1 << 14), "descriptor start field in range")


# ---- 2. pipeline --------------------------------------------------------------------------------
class MBar:
    def __init__(self, count):
        self.count, self.pending, self.tx, self.phase = count, count, 0, 0

    def _maybe_complete(self):
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.count

    def arrive(self, n=1, expect_tx=0):
        self.tx += expect_tx
        self.pending -= n
        assert self.pending >= 0, "too many arrivals"
        self._maybe_complete()

    def complete_tx(self, b):
        self.tx -= b
        assert self.tx >= 0
        self._maybe_complete()

    def test_wait(self, parity):  # the phase of that parity has completed
        return (self.phase & 1) != parity


def simulate(k_slices, rng):
    full = [MBar(1) for _ in range(STAGES)]
    empty = [MBar(8) for _ in range(STAGES)]
    stage_slice = [None] * STAGES  # which slice a stage holds, once its loads landed
    tma = []                       # in-flight loads: (stage, slice, bytes)
    reading = {}                   # (consumer, group index) -> stage read by an in-flight group
    prod = 0
    cons = [{"kt": 0, "groups": [], "state": "wait"} for _ in range(2)]
    while True:
        actions = []
        if prod < k_slices:
            s = prod % STAGES
            if prod < STAGES or empty[s].test_wait(((prod // STAGES) - 1) & 1):
                actions.append(("produce",))
        for i in range(len(tma)):
            actions.append(("land", i))
        for ci, c in enumerate(cons):
            if c["state"] == "wait" and c["kt"] < k_slices:
                s = c["kt"] % STAGES
                if full[s].test_wait((c["kt"] // STAGES) & 1):
                    actions.append(("issue", ci))
            if c["groups"]:
                actions.append(("finish", ci))  # the oldest wgmma group completes
            if c["state"] == "drain" and len(c["groups"]) <= 1:
                actions.append(("release", ci))
        if not actions:
            done = prod == k_slices and not tma and all(c["kt"] == k_slices for c in cons)
            return check(done, f"k_slices {k_slices}: deadlock (producer {prod}, consumers "
                               f"{[c['kt'] for c in cons]})")
        a = rng.choice(actions)
        if a[0] == "produce":
            s = prod % STAGES
            full[s].arrive(1, expect_tx=STAGE)
            tma.append((s, prod, TILE_A))
            tma.append((s, prod, TILE_B))
            prod += 1
        elif a[0] == "land":
            s, kt, b = tma.pop(a[1])
            if not check(s not in reading.values(), f"stage {s} overwritten while a wgmma reads it"):
                return False
            stage_slice[s] = kt
            full[s].complete_tx(b)
        elif a[0] == "issue":
            c = cons[a[1]]
            s = c["kt"] % STAGES
            if not check(stage_slice[s] == c["kt"], f"consumer reads slice {stage_slice[s]} for {c['kt']}"):
                return False
            key = (a[1], c["kt"])
            reading[key] = s
            c["groups"].append(key)
            c["state"] = "drain"  # wgmma.wait_group 1 next
        elif a[0] == "finish":
            key = cons[a[1]]["groups"].pop(0)
            del reading[key]
        elif a[0] == "release":
            c = cons[a[1]]
            if c["kt"] > 0:
                empty[(c["kt"] - 1) % STAGES].arrive(4)  # lane 0 of each of the 4 warps
            c["kt"] += 1
            c["state"] = "wait"
    

rng = random.Random(12345)
pipeline_ok = all(simulate(n, rng) for n in list(range(1, 14)) * 40 + [80, 157])
check(pipeline_ok, "pipeline: no deadlock, right slices, no overwrite while read")


# ---- 3. raster and 4. epilogue -------------------------------------------------------------------
def tile_of(bx, by, gx, gy):
    """The kernel's grouped rasterisation."""
    pid = by * gx + bx
    per_group = GROUP_M * gx
    first_m = (pid // per_group) * GROUP_M
    group_m = min(gy - first_m, GROUP_M)
    return first_m + (pid % per_group) % group_m, (pid % per_group) // group_m


def ceil_div(a, b):
    return (a + b - 1) // b


shapes = [tuple(w["symbols"][k] for k in "MNK") for w in task["workloads"]]
for M, N, _ in shapes + [(1, 1, 8), (129, 257, 8), (100000, 3, 8)]:
    gx, gy = ceil_div(N, BN), ceil_div(M, BM)
    tiles = {tile_of(bx, by, gx, gy) for by in range(gy) for bx in range(gx)}
    check(tiles == {(m, n) for m in range(gy) for n in range(gx)}, f"raster bijection for {M}x{N}")

# Accumulator layout (PTX ISA, wgmma D fragment): (thread, register) ↔ (row, col) of 64 x BN.
owner = {}
for t in range(128):
    w, l = t // 32, t % 32
    for j in range(BN // 8):
        for h in range(2):
            for e in range(2):
                owner.setdefault((16 * w + l // 4 + 8 * h, 8 * j + 2 * (l % 4) + e), []).append((t, 4 * j + 2 * h + e))
check(len(owner) == 64 * BN and all(len(v) == 1 for v in owner.values()), "accumulator layout is a bijection")

for M, N in [(257, 513), (130, 260), (128, 256), (1, 3), (300, 17)]:
    gx, gy = ceil_div(N, BN), ceil_div(M, BM)
    written = {}
    for by in range(gy):
        for bx in range(gx):
            tm, tn = tile_of(bx, by, gx, gy)
            m0, n0 = tm * BM, tn * BN
            for c in range(2):
                for t in range(128):
                    w, l = t // 32, t % 32
                    for h in range(2):  # the kernel's epilogue loops
                        row = m0 + 64 * c + 16 * w + l // 4 + 8 * h
                        if row >= M:
                            continue
                        for j in range(BN // 8):
                            col = n0 + 8 * j + 2 * (l % 4)
                            for e in range(2):
                                if col + e < N:
                                    reg = 4 * j + 2 * h + e
                                    local = (row - m0 - 64 * c, col + e - n0)
                                    check(owner[local] == [(t, reg)], "epilogue register matches the layout")
                                    written[(row, col + e)] = written.get((row, col + e), 0) + 1
    check(set(written) == {(r, q) for r in range(M) for q in range(N)} and
          all(v == 1 for v in written.values()), f"epilogue writes every C element of {M}x{N} once")

print(f"wgmma_tma model: BM {BM} BN {BN} BK {BK} stages {STAGES}, smem {SMEM} bytes: "
      f"{'ok' if failures == 0 else str(failures) + ' failed checks'}")
sys.exit(1 if failures else 0)
