// gemm_mma_tiles.cuh — the pieces the mma.sync GEMM examples of gemm_tf32_tn, gemm_bf16_nn_beta
// and gemm_bf16_nt_batched share: the grouped CTA rasterisation, the XOR-swizzled shared tile of
// 128 rows × 128 bytes, and the cp.async loader of such a tile from a K-major operand (a matrix
// whose rows run along K: A [M,K], or B [N,K]). The layout is the one of
// tasks/common/gemm_tiled_mma.cuh (gemm_bf16_nt's tiled_mma, measured correct on the H200),
// written for any element type of 2 or 4 bytes.
//
// Tile: 128 rows, each 128 bytes = 8 chunks of 16 bytes (64 bf16 or 32 fp32 along K). Chunk c of
// row r lives at byte r·128 + ((c ^ (r & 7)) · 16): the 8 row addresses of an ldmatrix 8×8
// matrix (8 consecutive rows, one logical chunk) fall in 8 different 16-byte bank groups.
//
// Loader: 256 threads; thread tid copies chunk (tid & 7) of rows (tid >> 3) + 32·i, i = 0..3,
// with one 16-byte cp.async.cg each. A chunk whose row is outside the operand or whose first K
// index is >= K is written as 16 zero bytes (src-size 0, nothing read; the address given is the
// operand's base, which is valid). Requires K % (16 / sizeof(T)) == 0: every row starts 16-byte
// aligned and every chunk is entirely inside [0, K) or entirely outside.
#ifndef PTXGATE_GEMM_MMA_TILES_CUH
#define PTXGATE_GEMM_MMA_TILES_CUH

#include <stddef.h>
#include <stdint.h>

#include "mma_sync_ptx.cuh"

namespace gmt {

constexpr uint32_t kThreads = 256;     // 8 warps: 2 (M) × 4 (N), warp tile 64 × 32
constexpr uint32_t kTileRows = 128;    // CTA tile: 128 (M) × 128 (N)
constexpr uint32_t kRowBytes = 128;    // one tile row along K
constexpr uint32_t kTileBytes = kTileRows * kRowBytes;   // 16384
constexpr uint32_t kGroupM = 8;        // tile rows that walk N together (L2 reuse of B)

// Byte offset of 16-byte chunk `chunk` (0..7) of row `row` inside a 128 × 128-byte tile.
__device__ __forceinline__ uint32_t swz(uint32_t row, uint32_t chunk)
{
    return row * kRowBytes + ((chunk ^ (row & 7u)) << 4);
}

// Grouped rasterisation: CTA (blockIdx.x, blockIdx.y) of a tiles_n × tiles_m grid → its tile.
// Groups of kGroupM tile rows are walked column by column; the last group may be shorter. A
// bijection of the grid onto the tiles for every grid size.
__device__ __forceinline__ void raster(uint32_t tiles_n, uint32_t tiles_m, uint32_t bx, uint32_t by,
                                       uint32_t &tile_m, uint32_t &tile_n)
{
    const uint32_t pid = by * tiles_n + bx;
    const uint32_t per_group = kGroupM * tiles_n;
    const uint32_t first_m = (pid / per_group) * kGroupM;
    const uint32_t group_m = min(tiles_m - first_m, kGroupM);
    tile_m = first_m + (pid % per_group) % group_m;
    tile_n = (pid % per_group) / group_m;
}

// The loader of one K-major operand X [rows, K] (row-major, K contiguous, K % kChunkElems == 0)
// for the tile whose first row is r0.
template <typename T> struct KMajorLoader {
    static constexpr uint32_t kChunkElems = 16u / sizeof(T);   // 8 bf16 or 4 fp32
    static constexpr uint32_t kTileK = kRowBytes / sizeof(T);  // 64 bf16 or 32 fp32

    const T *row0;         // start of this thread's first row (X itself when outside X)
    uint32_t row_stride;   // 32·K elements: from one of this thread's rows to the next
    uint32_t rows_ok;      // bit i: row row + 32·i lies inside X
    uint32_t chunk;        // 0..7
    uint32_t row;          // 0..31: rows row + 32·i of the tile

    __device__ __forceinline__ void init(const T *X, uint32_t rows, uint32_t K, uint32_t r0,
                                         uint32_t tid)
    {
        chunk = tid & 7u;
        row = tid >> 3;
        row_stride = 32u * K;
        rows_ok = 0;
#pragma unroll
        for (uint32_t i = 0; i < 4; ++i)
            rows_ok |= (r0 + row + 32u * i < rows ? 1u : 0u) << i;
        row0 = (rows_ok & 1u) ? X + (size_t)(r0 + row) * K : X;
    }

    // Issue the copies of K tile kt (K indices kt·kTileK ..) into the tile at shared address
    // `tile` (no commit). Row i's address row0 + i·32·K is formed only when that row is inside
    // X (then so is row 0, and row0 is its start).
    __device__ __forceinline__ void issue(uint32_t tile, const T *X, uint32_t K, uint32_t kt) const
    {
        const uint32_t k = kt * kTileK + chunk * kChunkElems;   // first K index of the chunk
        const bool k_ok = k < K;
#pragma unroll
        for (uint32_t i = 0; i < 4; ++i) {
            const bool ok = ((rows_ok >> i) & 1u) && k_ok;
            msp::cp_async_16(tile + swz(row + 32u * i, chunk),
                             ok ? (const void *)(row0 + (size_t)row_stride * i + k) : (const void *)X,
                             ok ? 16u : 0u);
        }
    }
};

}  // namespace gmt

#endif  // PTXGATE_GEMM_MMA_TILES_CUH
