// A launch as the driver takes it, for cuLaunchKernel (CudaQueue::launch) and for graph kernel
// nodes (CudaGraph) alike: the grid and block of a shape, checked against the device's per-dimension
// limits, and the parameter pointers of the arguments, checked against the kernel's parameter sizes.
// Both checks turn what the driver would report as a bare CUDA_ERROR_INVALID_VALUE (or, for a short
// argument, not report at all) into an ArgumentError naming the kernel.
#pragma once

#include <cuda.h>

#include <vector>

#include "backend.hpp"

namespace duet::backend::cuda {

class CudaDevice;
class CudaKernel;

struct LaunchDims {
  unsigned grid[3], block[3];
};
LaunchDims launch_dims(const CudaDevice& device, const CudaKernel& kernel, const LaunchShape& shape);

// Fills `params` with a pointer to each argument's bytes: buffers' device addresses (kept in
// `addresses`), scalars' bytes where core holds them. The driver copies them all when it takes them.
void kernel_params(const CudaKernel& kernel, const std::vector<LaunchArg>& args,
                   std::vector<CUdeviceptr>& addresses, std::vector<void*>& params);

}  // namespace duet::backend::cuda
