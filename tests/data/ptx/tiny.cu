// Fixture for nvcc -ptx: one extern "C" kernel (device code only; never run on the host).
extern "C" __global__ void axpy(float a, const float *x, float *y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
