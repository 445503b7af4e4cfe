// vector_add and multiply: kernels/vector_add.duet and kernels/multiply.duet, one float4 (four
// elements) per work-item plus the n % 4 tail.
#include <algorithm>
#include <cstdint>

#include "duet/extension.hpp"
#include "duet/kernels.hpp"

namespace duet {
namespace {

// Work-items per group. Measured with device events on an H100, CUDA and NVIDIA's OpenCL, at 2^24
// to 2^28 elements: one float4 per work-item reached 98-102% of a device-to-device copy, groups of
// 1024 0.3-0.5% ahead of 256; two, four or eight float4 per work-item lost 1-3%, and grids of a
// few groups per compute unit that loop over the vectors lost 4-6%. On PoCL's CPU device the
// float4 kernel ran twice as fast as the one-element kernel it replaced.
// (Smaller groups for tiny launches were tried: the driver's own back-to-back launches of an empty
// kernel on the H100 were no faster with 32 threads than with 1024 in four of five runs, see
// bench/launch_floor, so every launch keeps the one group size.)
std::size_t group_for(const DeviceInfo& info) {
  const std::size_t want = info.kind == DeviceKind::cpu ? 256 : 1024;
  return std::max<std::size_t>(std::min(want, info.max_group_size), 1);
}

void elementwise(Queue& q, const char* name, const Buffer<float>& a, const Buffer<float>& b,
                 Buffer<float>& c) {
  extension::require_elements(name, "c", c, 0);
  extension::require_elements(name, "a", a, c.size());
  extension::require_elements(name, "b", b, c.size());
  const std::size_t n = c.size();
  if (n == 0) return;
  const std::size_t items = std::max(n / 4, n % 4);  // one per float4, and the tail's first items
  q.launch(extension::builtin_kernel(q.device(), name, name), Range(items), Range(group_for(q.device().info())),
           a, b, c, static_cast<std::uint64_t>(n));
}

}  // namespace

void vector_add(Queue& q, const Buffer<float>& a, const Buffer<float>& b, Buffer<float>& c) {
  elementwise(q, "vector_add", a, b, c);
}

void multiply(Queue& q, const Buffer<float>& a, const Buffer<float>& b, Buffer<float>& c) {
  elementwise(q, "multiply", a, b, c);
}

}  // namespace duet
