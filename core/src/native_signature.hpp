// Signatures for native kernels (Device::compile_native), whose source duet does not read: from
// what the driver tells of each parameter (OpenCL's kernel argument info), or declared by the user
// (Program::kernel(name, parameters)) where the driver tells too little (CUDA: sizes only). Either
// way the launches are then checked as dialect launches are, with errors that name the type.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend.hpp"
#include "duet/program.hpp"

namespace duet::detail {

// The signature the driver's parameter info amounts to, when it names every one of the kernel's
// `count` parameters' address space and type and each is a buffer (a global or constant pointer)
// or a value; else nothing.
std::optional<KernelSignature> signature_from_driver(const std::string& kernel,
                                                     const std::vector<backend::ParamInfo>& params,
                                                     int count);

// What differs between `sig` and what the driver tells of the compiled kernel, if anything.
std::optional<std::string> driver_disagreement(const KernelSignature& sig,
                                               const std::vector<backend::ParamInfo>& driver,
                                               int driver_count);

// The signature a native kernel's launches are checked against: `parsed` from its source
// (parse_native_signatures; null when it could not be read) where the driver agrees with it, else
// what the driver alone tells (OpenCL's argument info; nothing on a program loaded from a binary,
// which keeps no argument info).
std::optional<KernelSignature> native_signature(const std::string& kernel, const KernelSignature* parsed,
                                                const std::vector<backend::ParamInfo>& driver,
                                                int driver_count);

// `parameters` as written in a declaration ("int n, const float* x, GLOBAL float* y"), read as
// dialect parameters are, and checked against what the driver tells: as many parameters, the same
// sizes, address spaces and types where it tells them. ArgumentError saying what differs.
KernelSignature declared_signature(const std::string& kernel, const std::string& parameters,
                                   const std::vector<backend::ParamInfo>& driver, int driver_count);

}  // namespace duet::detail
