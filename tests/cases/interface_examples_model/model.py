"""CPU model of the gemm_bf16_nt interface examples (tasks/gemm_bf16_nt/examples/):
params_struct, tmap_global, persistent_cluster and tile_schedule; checked without a GPU.

What it checks (restatements of the kernels' formulas against a model of the hardware rule they
rely on, as tests/cases/wgmma_tma_model does for wgmma_tma, whose tile body the examples share):
  1. params_struct: the manifest's struct fields sit at the offsets the source's
     static_assert(offsetof(...)) lines state, do not overlap, fit the struct's size, and the
     tensor maps are 64-byte aligned; tmap_global: each device_struct is one 128-byte map;
  2. persistent_cluster: manifest <-> kernel constants (shared memory, boxes, rank-3 views,
     cluster, supports); every element a rank-3 view can address lies in its tensor and each box
     is the K slab the kernel expects; the persistent tile walk covers every tile of every
     supported shape exactly once for any number of clusters; the mbarrier pipeline over several
     tiles per CTA (3 stages, a release after each tile's last slice) under random interleavings
     never deadlocks, reads the right slice and never overwrites a stage being read; the staging
     writes put every accumulator where TMA's 128B-swizzled store reads that element of C;
  3. tile_schedule: the setup kernel's grouped order is a permutation of the tiles for every
     workload of the task and odd shapes, within the workspace size the manifest declares;
     tmap_global: its persistent walk covers every tile once for any number of SMs; the shared
     tile body's mbarrier ring over several tiles per CTA, with one producer thread or two
     (one per map), never deadlocks, reads the right slice and never overwrites a stage; its
     staged epilogue writes each accumulator once into the warp's buffer where the 16-byte and
     the bf16 reads find that element of C, with conflict-free banks, and the four examples on
     it request the shared memory it needs.
usage: model.py REPO_ROOT
"""
import json
import random
import re
import sys

root = sys.argv[1]
ex = f"{root}/tasks/gemm_bf16_nt/examples"
task = json.load(open(f"{root}/tasks/gemm_bf16_nt/task.json"))
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL", what)
    return ok


def ceil_div(a, b):
    return (a + b - 1) // b


shapes = [tuple(w["symbols"][k] for k in "MNK") for w in task["workloads"]]

# ---- 1. params_struct, tmap_global --------------------------------------------------------------
src = open(f"{ex}/params_struct.cu").read()
man = json.load(open(f"{ex}/params_struct.json"))
asserted = {f: int(o) for f, o in re.findall(r"offsetof\(GemmParams, (\w+)\) == (\d+)", src)}
size = int(re.search(r"sizeof\(GemmParams\) == (\d+)", src).group(1))
align = int(re.search(r"alignof\(GemmParams\) == (\d+)", src).group(1))
st = man["launches"][0]["params"][0]["struct"]
check(st["size"] == size and st["align"] == align, f"struct size/align {st['size']}/{st['align']} vs {size}/{align}")
SIZES = {"u32": 4, "s32": 4, "u64": 8, "s64": 8}
spans = []
for f in st["fields"]:
    n = 128 if "tensor_map" in f else 8 if "tensor" in f else SIZES[f["type"]]
    check(asserted.get(f["name"]) == f["offset"], f"field {f['name']} at {f['offset']}, source says {asserted.get(f['name'])}")
    check(f["offset"] % n == 0 if n <= 8 else f["offset"] % 64 == 0, f"field {f['name']} naturally aligned")
    spans.append((f["offset"], f["offset"] + n, f["name"]))
spans.sort()
check(all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), f"fields overlap: {spans}")
check(spans[-1][1] <= size, "fields fit the struct")
check(set(asserted) - {f["name"] for f in st["fields"]} == {"reserved"}, "every field but the padding is bound")
check(re.search(r"\.b8 params\[(\d+)\]", src).group(1) == str(size), "the documented PTX size")

tg = json.load(open(f"{ex}/tmap_global.json"))
for p in tg["launches"][0]["params"][:2]:
    ds = p["device_struct"]
    check(ds["size"] == 128 and ds["align"] >= 64 and len(ds["fields"]) == 1 and
          ds["fields"][0]["offset"] == 0 and "tensor_map" in ds["fields"][0], f"{p['name']}: one map at offset 0")

# ---- 2. persistent_cluster ------------------------------------------------------------------------
src = open(f"{ex}/persistent_cluster.cu").read()
man = json.load(open(f"{ex}/persistent_cluster.json"))
D = {k: int(v) for k, v in re.findall(r"#define PC_(\w+) \(?(\d+)\)?\s", src)}
BM, BN, BK, STAGES, THREADS = D["BM"], D["BN"], D["BK"], D["STAGES"], D["THREADS"]
TILE_A, TILE_B = BM * BK * 2, BN * BK * 2
STAGE = TILE_A + TILE_B
STAGING_OFF, STAGING = STAGES * STAGE, 64 * BN * 2
BAR_OFF = STAGING_OFF + 2 * STAGING
SMEM = BAR_OFF + 2 * STAGES * 8 + 1024
L = man["launches"][0]
check(L["dynamic_shared_bytes"] == SMEM and SMEM <= 232448, f"smem {L['dynamic_shared_bytes']} vs {SMEM}")
check(L["grid"][0].replace(" ", "") == "2*min(num_sms/2,max_active_clusters(2,214064))"
      and L["cluster"] == [2, 1, 1], "grid in whole 2-CTA clusters that fit at once")
check(L["block"] == [THREADS, 1, 1] and THREADS == 384, "3 warpgroups")
check(man["supports"] == f"M % {BM} == 0 && N % {BN} == 0 && K % {BK} == 0", f"supports {man['supports']}")
check(STAGING_OFF % 1024 == 0 and STAGING % 1024 == 0 and STAGE % 1024 == 0, "1024-aligned tiles")
ma, mb, mc = (p["tensor_map"] for p in L["params"][:3])
check(ma["box"] == [BK, BM, 1] and mb["box"] == [BK, BN, 1] and mc["box"] == [64, 64], "boxes")
check(all(m["swizzle"] == "128B" for m in (ma, mb, mc)), "128B swizzle everywhere")


def ev(e, env):
    return eval(str(e).replace("/", "//"), {}, dict(env))


def supported(M, N, K):
    return M % BM == 0 and N % BN == 0 and K % BK == 0


sup = [s for s in shapes if supported(*s)]
check(len(sup) >= 3 and shapes[0] in sup, f"supported workloads {sup} include the headline one")
for M, N, K in sup + [(128, 256, 64), (384, 512, 192)]:
    for m, rows in ((ma, M), (mb, N)):
        env = {"M": M, "N": N, "K": K}
        dims = [ev(x, env) for x in m["global_dims"]]
        strides = [2] + [ev(x, env) for x in m["global_strides_bytes"]]
        check(dims == [64, rows, K // 64], f"view dims {dims}")
        last = sum((d - 1) * s for d, s in zip(dims, strides)) + 2
        check(last <= rows * K * 2, f"view of {rows}x{K} ends at byte {last}, inside the tensor")
        # box (0, r0, kt): element (i, r, 0) = byte (r0 + r)*2K + kt*128 + 2i = element [r0+r][64 kt + i]
        for r0, kt, r, i in ((0, 0, 5, 7), (rows - (BM if m is ma else BN), K // 64 - 1, 3, 63)):
            b = (r0 + r) * strides[1] + kt * strides[2] + i * strides[0]
            check(b == ((r0 + r) * K + 64 * kt + i) * 2, "rank-3 box element is A[r][64 kt + i]")


def walk(M, N, cluster, clusters, rank):
    """The kernel's TileWalk.next sequence."""
    tiles_m, tiles_n = M // BM, N // BN
    pairs_m = (tiles_m + 1) // 2
    out = []
    for cur in range(cluster, pairs_m * tiles_n, clusters):
        per_group = 8 * tiles_n
        first = (cur // per_group) * 8
        gm = min(pairs_m - first, 8)
        pm, n_tile = first + (cur % per_group) % gm, (cur % per_group) // gm
        if 2 * pm + rank < tiles_m:
            out.append(((2 * pm + rank) * BM, n_tile * BN))
    return out


for M, N, K in sup + [(128, 256, 64), (384, 768, 64), (1152, 256, 64), (128 * 13, 256 * 5, 64)]:
    for clusters in (1, 2, 7, 60, 66, 1000):
        seen = [t for c in range(clusters) for r in range(2) for t in walk(M, N, c, clusters, r)]
        check(sorted(seen) == sorted((m * BM, n * BN) for m in range(M // BM) for n in range(N // BN)),
              f"tile walk {M}x{N} over {clusters} clusters covers every tile once")


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

    def test_wait(self, parity):
        return (self.phase & 1) != parity


def simulate(tiles, k_slices, rng, stages=None, producers=None):
    """The producer thread(s) and the two consumers of one CTA over `tiles` tiles of `k_slices`
    slices, on a ring of `stages` stages (default persistent_cluster's). `producers` lists per
    producer thread the byte counts of the TMA loads it issues per slice (each thread arrives
    once per slice with its own expect_tx); default persistent_cluster's one thread, A and B."""
    STAGES = stages or globals()["STAGES"]
    producers = producers or [(TILE_A, TILE_B)]
    total = tiles * k_slices
    full = [MBar(len(producers)) for _ in range(STAGES)]
    empty = [MBar(8) for _ in range(STAGES)]
    holds = [None] * STAGES
    tma, reading = [], {}
    prods = [0] * len(producers)
    cons = [{"it": 0, "groups": [], "state": "wait"} for _ in range(2)]
    while True:
        acts = []
        for p, prod in enumerate(prods):
            s = prod % STAGES
            if prod < total and (prod < STAGES or empty[s].test_wait(((prod // STAGES) - 1) & 1)):
                acts.append(("produce", p))
        acts += [("land", i) for i in range(len(tma))]
        for ci, c in enumerate(cons):
            if c["state"] == "wait" and c["it"] < total:
                if full[c["it"] % STAGES].test_wait((c["it"] // STAGES) & 1):
                    acts.append(("issue", ci))
            if c["groups"]:
                acts.append(("finish", ci))
            if c["state"] == "drain" and len(c["groups"]) <= 1:
                acts.append(("release", ci))
            if c["state"] == "tile_end" and not c["groups"]:
                acts.append(("release_last", ci))
        if not acts:
            return check(all(p == total for p in prods) and not tma and
                         all(c["it"] == total for c in cons),
                         f"{tiles} tiles x {k_slices}: deadlock at {prods}, {[c['it'] for c in cons]}")
        a = rng.choice(acts)
        if a[0] == "produce":
            p = a[1]
            s = prods[p] % STAGES
            full[s].arrive(1, expect_tx=sum(producers[p]))
            tma += [(s, prods[p], b) for b in producers[p]]
            prods[p] += 1
        elif a[0] == "land":
            s, it, b = tma.pop(a[1])
            if not check(s not in reading.values(), f"stage {s} overwritten while read"):
                return False
            holds[s] = it
            full[s].complete_tx(b)
        elif a[0] == "issue":
            c = cons[a[1]]
            s = c["it"] % STAGES
            if not check(holds[s] == c["it"], f"consumer reads slice {holds[s]} for {c['it']}"):
                return False
            reading[(a[1], c["it"])] = s
            c["groups"].append((a[1], c["it"]))
            c["state"] = "drain"
        elif a[0] == "finish":
            del reading[cons[a[1]]["groups"].pop(0)]
        elif a[0] == "release":  # after wgmma.wait_group 1
            c = cons[a[1]]
            if c["it"] % k_slices > 0:
                empty[(c["it"] - 1) % STAGES].arrive(4)
            c["it"] += 1
            c["state"] = "tile_end" if c["it"] % k_slices == 0 else "wait"
        elif a[0] == "release_last":  # after wgmma.wait_group 0 at the tile's end
            c = cons[a[1]]
            empty[(c["it"] - 1) % STAGES].arrive(4)
            c["state"] = "wait"


rng = random.Random(2026)
ok = all(simulate(t, k, rng) for t in (1, 2, 3, 5) for k in (1, 2, 3, 4, 7) for _ in range(25))
check(ok and simulate(4, 80, rng), "persistent pipeline: no deadlock, right slices, no overwrite")

# Staging: the kernel's store address for (thread t, register of row h, 8-column group j) versus
# the byte TMA's 128B swizzle reads for that element of the 64 x 64 box (box row r at r*128,
# 16-byte chunk c at position c ^ (r % 8) inside a 1024-byte aligned sub-tile).
def tma_store_reads(q, r, col):
    lin = q * 8192 + r * 128 + (col % 64) * 2
    return lin ^ (((lin >> 7) & 7) << 4)


where = {}
for t in range(128):
    w, l = t // 32, t % 32
    for h in range(2):
        r = 16 * w + l // 4 + 8 * h
        row_addr = r * 128 + 4 * (l % 4)
        for j in range(BN // 8):
            q, chunk = j // 8, j % 8
            addr = row_addr + q * 8192 + ((chunk ^ (r % 8)) << 4)
            col = 8 * j + 2 * (l % 4)          # d[4j + 2h] and d[4j + 2h + 1]
            for e in range(2):
                check(tma_store_reads(col // 64, r, col + e) == addr + 2 * e,
                      f"staging of ({r}, {col + e}) is where the store reads it")
                where[addr + 2 * e] = (r, col + e)
check(len(where) == 64 * BN and max(where) < STAGING, "staging written exactly once, inside its 32 KiB")
check(re.search(r"tma_store_2d\(tmap_c, \(int32_t\)\(n0 \+ 64u \* q\), \(int32_t\)\(m0 \+ 64u \* c\)", src),
      "store coordinates (n0 + 64 q, m0 + 64 c)")

# ---- 3. tile_schedule, tmap_global (tasks/common/gemm_wgmma_tile.cuh) -----------------------------
man = json.load(open(f"{ex}/tile_schedule.json"))
hdr = open(f"{root}/tasks/common/gemm_wgmma_tile.cuh").read()
G = {k: int(v) for k, v in re.findall(r"#define GWT2_(\w+) \(?(\d+)\)?\s", hdr)}


def grouped_tile(pid, tiles_m, tiles_n):
    """gwt2::grouped_tile."""
    per_group = 8 * tiles_n
    first_m = (pid // per_group) * 8
    group_m = min(tiles_m - first_m, 8)
    return first_m + (pid % per_group) % group_m, (pid % per_group) // group_m


tg_grid = tg["launches"][0]["grid"]
check(tg_grid[0].replace(" ", "") == "min(num_sms,ceil_div(M,128)*ceil_div(N,256))" and tg_grid[1:] == [1, 1],
      "tmap_global: a persistent grid of min(num_sms, T) CTAs")
for M, N, K in shapes + [(1, 1, 8), (128, 256, 64), (129, 257, 8), (100000, 3, 8), (3000, 40000, 8)]:
    tm, tn = ceil_div(M, G["BM"]), ceil_div(N, G["BN"])
    every = sorted((m << 16) | n for m in range(tm) for n in range(tn))
    # the setup launch's table (one entry per tile in the grouped order)
    table = [(m << 16) | n for m, n in (grouped_tile(i, tm, tn) for i in range(tm * tn))]
    check(sorted(table) == every, f"table of {M}x{N} is a permutation of its {tm * tn} tiles")
    ws = ev(man["workspaces"]["schedule"]["bytes"].replace("ceil_div", "cd"), {"M": M, "N": N, "cd": ceil_div})
    check(len(table) * 4 == ws and ev(man["launches"][0]["grid"][0].replace("ceil_div", "cd"),
                                      {"M": M, "N": N, "cd": ceil_div}) == len(table), "workspace and grid = T")
    # tmap_global: CTA b of a grid of min(num_sms, T) computes tiles b, b + grid, ... < T
    for num_sms in (1, 7, 132, 144, 100000):
        grid = ev(tg_grid[0].replace("ceil_div", "cd"), {"M": M, "N": N, "cd": ceil_div, "num_sms": num_sms})
        walked = sorted((m << 16) | n for b in range(grid) for i in range(b, tm * tn, grid)
                        for m, n in [grouped_tile(i, tm, tn)])
        check(walked == every, f"tmap_global's walk of {M}x{N} over {grid} CTAs covers every tile once")

# the ring of gemm_tiles_128x256 over several tiles per CTA: one producer thread loading A and B
# (maps in the parameter space), or two (maps in global memory: A by thread 0, B by thread 32)
ga, gb = G["BM"] * G["BK"] * 2, G["BN"] * G["BK"] * 2
check("mbar_init(full0 + 8u * s, kProducers)" in hdr and "kProducers = maps_in_global ? 2u : 1u" in hdr,
      "the full barriers count one arrival per producer thread")
rng = random.Random(2027)
for prods in ([(ga, gb)], [(ga,), (gb,)]):
    ok = all(simulate(t, k, rng, G["STAGES"], prods) for t in (1, 2, 3) for k in (1, 2, 4, 5, 9)
             for _ in range(20))
    check(ok, f"gemm_tiles ring with producers {prods}: no deadlock, right slices, no overwrite")

# the staged epilogue of gemm_tiles_128x256 (store_tile_bf16): per consumer warp, 16 rows x 128
# columns at a time through a 4 KiB buffer; the shared memory it adds to the manifests' request
check("((w ^ (4u * (r % 8u))) * 4u)" in hdr,
      "fragment writes at word w ^ (4 (r % 8)) of row r")
check("((chunk ^ (r % 8u)) * 16u)" in hdr and "(((cc / 2u) ^ (4u * (r % 8u))) * 4u) +" in hdr,
      "vector and scalar reads use the same swizzle")
STAGING = 8 * 16 * 128 * 2
gsmem = G["STAGES"] * (ga + gb) + STAGING + 2 * G["STAGES"] * 8 + 1024
for name in ("params_struct", "tmap_global", "tile_schedule", "flags_include"):
    Ls = json.load(open(f"{ex}/{name}.json"))["launches"]
    check(Ls[-1]["dynamic_shared_bytes"] == gsmem and gsmem <= 232448,
          f"{name}: dynamic_shared_bytes {Ls[-1]['dynamic_shared_bytes']} = 4 stages + staging + barriers + 1024 = {gsmem}")
for half in range(2):
    where = {}
    for jj in range(16):
        for h in range(2):
            banks = set()
            for lane in range(32):
                r, w = lane // 4 + 8 * h, 4 * jj + lane % 4
                addr = r * 256 + ((w ^ (4 * (r % 8))) * 4)
                banks.add((addr // 4) % 32)
                j = 16 * half + jj
                col = 8 * j + 2 * (lane % 4) - 128 * half   # d[4j + 2h + e], column within the half
                for e in range(2):
                    where[addr + 2 * e] = (r, col + e)
            check(len(banks) == 32, f"fragment write (half {half}, jj {jj}, h {h}) hits 32 banks")
    check(len(where) == 16 * 128 and min(where) >= 0 and max(where) < 4096, "staging written once, inside 4 KiB")
    for it in range(8):  # 16-byte reads: lane -> row 2 it + lane / 16, chunk lane % 16
        for quarter in range(4):
            banks = set()
            for lane in range(8 * quarter, 8 * quarter + 8):
                r, chunk = 2 * it + lane // 16, lane % 16
                addr = r * 256 + ((chunk ^ (r % 8)) * 16)
                banks |= {(addr // 4 + k) % 32 for k in range(4)}
                check(all(where[addr + 2 * k] == (r, 8 * chunk + k) for k in range(8)),
                      f"16-byte read of row {r} chunk {chunk} returns its 8 columns in order")
            check(len(banks) == 32, "a quarter warp's 16-byte reads hit 32 banks")
    for r in range(16):  # scalar reads (rows not 16-byte aligned): lane -> column 32 q + lane
        for cc in range(128):
            addr = r * 256 + (((cc // 2) ^ (4 * (r % 8))) * 4) + (cc % 2) * 2
            check(where[addr] == (r, cc), f"scalar read of ({r}, {cc})")

print(f"interface examples model: {'ok' if failures == 0 else str(failures) + ' failed checks'}")
sys.exit(1 if failures else 0)
