// cuda_bf16.h for the CPU model (tests/cases/gemm_examples_model): the bf16 type and the
// conversions the examples use, on the host. Round to nearest even, as the CUDA intrinsics.
#pragma once
#include <cstdint>
#include <cstring>

struct __nv_bfloat16 {
    uint16_t bits;
};
struct alignas(4) __nv_bfloat162 {
    __nv_bfloat16 x, y;
};

inline __nv_bfloat16 __float2bfloat16_rn(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    __nv_bfloat16 h;
    if ((u & 0x7fffffffu) > 0x7f800000u) {   // NaN: keep it a quiet NaN
        h.bits = (uint16_t)((u >> 16) | 0x40u);
        return h;
    }
    u += 0x7fffu + ((u >> 16) & 1u);
    h.bits = (uint16_t)(u >> 16);
    return h;
}

inline float __bfloat162float(__nv_bfloat16 h)
{
    const uint32_t u = (uint32_t)h.bits << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

inline __nv_bfloat162 __floats2bfloat162_rn(float lo, float hi)
{
    return __nv_bfloat162{__float2bfloat16_rn(lo), __float2bfloat16_rn(hi)};
}
