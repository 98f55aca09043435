// Fixture for nvcc -ptx: line 4 uses an undeclared identifier, so nvcc fails.
extern "C" __global__ void oops(float *y)
{
    y[threadIdx.x] = undeclared_value;
}
