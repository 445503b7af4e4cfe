// vector_add and multiply: core/kernels/vector_add.duet and core/kernels/multiply.duet, one float4 (four
// elements) per work-item plus the n % 4 tail.
#include <algorithm>
#include <cstdint>

#include "duet/extension.hpp"
#include "duet_embedded_kernels.hpp"
#include "duet/kernels.hpp"

namespace duet {
namespace {

// Work-items per group. One float4 per work-item in groups of 1024 was the fastest shape on an H100
// (both backends): more float4s per work-item, or a few groups per compute unit looping over the
// vectors, were slower, and smaller groups made tiny launches no faster (bench/launch_floor). On
// PoCL's CPU device groups of 256. The figures are in bench/RESULTS.md (vector_add, multiply, the
// launch floor).
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
  q.launch(embedded_kernels.kernel(q.device(), name, name), Range(items), Range(group_for(q.device().info())),
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
