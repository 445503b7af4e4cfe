// Views at any element offset as dialect kernel arguments, on devices whose kernels can only take
// a buffer from a coarse boundary (OpenCL: a sub-buffer's origin must be a multiple of
// CL_DEVICE_MEM_BASE_ADDR_ALIGN, often 128 to 4096 bytes). Such devices compile a rewritten source
// in which each buffer parameter `GLOBAL float* x` becomes the whole allocation, plus a byte offset
// added at the top of the body:
//
//   KERNEL void k(GLOBAL float* duet_view_x, const uint n, const ulong duet_view_offset_x) {
//     GLOBAL float* x = (GLOBAL float*)((GLOBAL char*)duet_view_x + duet_view_offset_x); ...
//
// The offsets follow the declared parameters, so the arguments users pass keep their positions,
// and the rewrite adds no line, so compiler messages keep the source's line numbers. Queue::launch
// passes each view as its allocation and the view's byte offset: no sub-buffer per launch either.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "duet/device.hpp"
#include "duet/program.hpp"

namespace duet::detail {

struct ViewOffsetSource {
  std::string source;
  // Per rewritten kernel, the indices of the buffer parameters that take an offset, in the order of
  // the offset parameters appended after the declared ones.
  std::map<std::string, std::vector<std::size_t>> offset_params;
};

// `source` (compiled with `defines`) rewritten for its kernels. A kernel is left as written when
// the rewrite could not be sure of it: declared more than once, parameters duet cannot read, a
// buffer parameter whose pointer or address space comes from a define, no body after the
// parameters. Those keep sub-buffers, and their views need aligned offsets as before.
ViewOffsetSource add_view_offsets(const std::string& source, const Defines& defines);

}  // namespace duet::detail
