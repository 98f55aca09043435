// Two copies of this file at two paths, compiled as ptxgate compiles submissions (nvcc -ptx
// -lineinfo, then ptxas -lineinfo), give cubins that differ only in what depends on the path;
// -DPG_VARIANT changes the code (tests/unit/test_cubin_code.c).
#ifndef PG_VARIANT
#define PG_SCALE 2.0f
#else
#define PG_SCALE 3.0f
#endif

extern "C" __global__ void scale_add(const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = PG_SCALE * x[i] + y[i];
}
