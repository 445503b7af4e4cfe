// Reads kernel signatures out of dialect source, so launches can be checked before the driver sees
// them on both backends (CUDA's driver cannot say whether a parameter is a pointer or a scalar).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "dialect_tokens.hpp"
#include "duet/device.hpp"
#include "duet/program.hpp"

namespace duet::detail {

// One kernel declaration as read from the tokens of a source (dialect_tokens.hpp).
struct KernelDeclaration {
  KernelSignature signature;
  bool readable = false;  // every parameter read (unreadable ones are in `signature` as defaults)
  std::vector<std::pair<std::size_t, std::size_t>> params;  // each parameter's tokens [first, end)
  std::size_t close = 0;                                    // the token index of the parameter list's ')'
  std::size_t brace = 0;  // the token index of the body's '{', 0 when none follows
};

// Every declaration `marker [REQD_GROUP_SIZE(x, y, z)] void name(...)` in `tokens` (of `text`, whose
// comments are blanked), in order; `defines` as the caller passes them, the source's own added.
std::vector<KernelDeclaration> kernel_declarations(const std::vector<Token>& tokens, const std::string& text,
                                                   const Defines& defines,
                                                   const std::set<std::string>& markers);

// Every `KERNEL void name(...)` in `source`, with define names in parameter types replaced by their
// values, and the sizes of `KERNEL REQD_GROUP_SIZE(x, y, z) void name(...)`. Kernels whose
// parameters or required group size it cannot make sense of are left out.
std::map<std::string, KernelSignature> parse_kernel_signatures(const std::string& source,
                                                               const Defines& defines);

// The kernels of a native source declared with one of `markers` (the backend's: `__global__ void
// name(...)` in CUDA C++, `__kernel` or `kernel void name(...)` in OpenCL C) whose parameters read
// as dialect parameters do (pointers are buffers, with or without an address space); others are
// left out. The source's own object-like
// #defines are substituted, the compiler options' are not: check the result against the driver.
std::map<std::string, KernelSignature> parse_native_signatures(const std::string& source,
                                                               const std::vector<std::string>& markers);

// Names of the kernels a native CUDA C++ or OpenCL C source defines (`__global__ void name`,
// `__kernel void name`, `kernel void name`), for messages.
std::vector<std::string> native_kernel_names(const std::string& source);

}  // namespace duet::detail
