extern "C" __global__ void cuda_kernel(float* x) {}
__kernel void opencl_kernel(__global float* x) {}
kernel void k2(global int* y) {}
