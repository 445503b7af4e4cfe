// launch_dims and kernel_params (see launch_params.hpp).
#include "launch_params.hpp"

#include <string>

#include "buffer.hpp"
#include "device.hpp"
#include "kernel.hpp"

namespace duet::backend::cuda {

LaunchDims launch_dims(const CudaDevice& device, const CudaKernel& kernel, const LaunchShape& shape) {
  static const char* const axis[3] = {"x", "y", "z"};
  LaunchDims dims;
  for (int d = 0; d < 3; ++d) {
    const std::size_t groups = shape.global[d] / shape.local[d];
    // Core checks the group's total size; CUDA also limits each dimension (z: 64 threads, grid
    // y and z: 65535 groups).
    if (shape.local[d] > device.max_block(d))
      throw ArgumentError("kernel '" + kernel.name() + "': a local size of " +
                          std::to_string(shape.local[d]) + " in dimension " + axis[d] + " exceeds the " +
                          std::to_string(device.max_block(d)) + " that " + device.info().name + " allows");
    if (groups > device.max_grid(d))
      throw ArgumentError("kernel '" + kernel.name() + "': " + std::to_string(groups) +
                          " work-groups in dimension " + axis[d] + " exceed the " +
                          std::to_string(device.max_grid(d)) + " that " + device.info().name +
                          " allows; use larger work-groups or another dimension");
    dims.grid[d] = static_cast<unsigned>(groups);
    dims.block[d] = static_cast<unsigned>(shape.local[d]);
  }
  return dims;
}

void kernel_params(const CudaKernel& kernel, const std::vector<LaunchArg>& args,
                   std::vector<CUdeviceptr>& addresses, std::vector<void*>& params) {
  addresses.assign(args.size(), 0);
  params.assign(args.size(), nullptr);
  const std::vector<std::size_t>* sizes = kernel.param_sizes();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const LaunchArg& a = args[i];
    const std::size_t given = a.buffer ? sizeof(CUdeviceptr) : a.scalar_size;
    // The driver copies as many bytes as the kernel declares; a smaller argument would send
    // whatever follows it in memory.
    if (sizes && i < sizes->size() && (*sizes)[i] != given)
      throw ArgumentError(
          "kernel '" + kernel.name() + "': argument " + std::to_string(i + 1) + " is " +
          std::to_string(given) + " bytes but the kernel's parameter is " + std::to_string((*sizes)[i]) +
          " bytes; pass a value of the parameter's type (declare the "
          "parameters with Program::kernel(name, parameters) to have launches checked by type)");
    if (a.buffer) {
      addresses[i] = static_cast<const CudaBuffer&>(*a.buffer).handle() + a.offset;
      params[i] = &addresses[i];
    } else {
      params[i] = const_cast<void*>(a.scalar);
    }
  }
}

}  // namespace duet::backend::cuda
