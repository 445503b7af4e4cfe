// Reads kernel signatures out of dialect source, so launches can be checked before the driver sees
// them on both backends (CUDA's driver cannot say whether a parameter is a pointer or a scalar).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "duet/device.hpp"
#include "duet/program.hpp"

namespace duet::detail {

// Every `KERNEL void name(...)` in `source`, with define names in parameter types replaced by their
// values, and the sizes of `KERNEL REQD_GROUP_SIZE(x, y, z) void name(...)`. Kernels whose
// parameters or required group size it cannot make sense of are left out.
std::map<std::string, KernelSignature> parse_kernel_signatures(const std::string& source,
                                                               const Defines& defines);

// Names of the kernels a native CUDA C++ or OpenCL C source defines (`__global__ void name`,
// `__kernel void name`, `kernel void name`), for messages.
std::vector<std::string> native_kernel_names(const std::string& source);

}  // namespace duet::detail
