// duet::random on a device: one launch of a fill kernel of random/kernels/random.duet, one work-item
// per Philox block (4 words). The kernels are compiled once per device (embedded_kernels.kernel).
#include <string>

#include "duet/extension.hpp"
#include "duet_embedded_kernels.hpp"
#include "duet/random.hpp"

namespace duet::random {
namespace {

// Work-items for `n` values when each work-item writes `per_item` of them.
std::size_t items(std::size_t n, std::size_t per_item) { return (n + per_item - 1) / per_item; }

void require_double(const Queue& q, const char* call) {
  if (!q.device().info().supports_double)
    throw ArgumentError(std::string(call) + ": " + q.device().info().id() + " (" + q.device().info().name +
                        ") has no double precision; use float");
}

template <class T>
Event fill(Queue& q, Buffer<T>& out, const char* kernel, std::size_t per_item, std::uint64_t seed,
           std::uint64_t offset, T a, T b) {
  extension::require_elements(kernel, "out", out, 0);
  const std::uint64_t n = out.size();
  if (n == 0) return q.record();  // nothing to make; a launch of no work-items is refused
  const Kernel k = embedded_kernels.kernel(q.device(), "random", kernel);
  return q.launch(k, Range(items(n, per_item)), Range(), out, n, seed, offset, a, b);
}

}  // namespace

Event bits(Queue& q, Buffer<std::uint32_t>& out, std::uint64_t seed, std::uint64_t offset) {
  extension::require_elements("duet::random::bits", "out", out, 0);
  const std::uint64_t n = out.size();
  if (n == 0) return q.record();
  const Kernel k = embedded_kernels.kernel(q.device(), "random", "duet_random_bits");
  return q.launch(k, Range(items(n, 4)), Range(), out, n, seed, offset);
}

Event uniform(Queue& q, Buffer<float>& out, std::uint64_t seed, std::uint64_t offset, float low, float high) {
  return fill(q, out, "duet_random_uniform_float", 4, seed, offset, low, high);
}

Event uniform(Queue& q, Buffer<double>& out, std::uint64_t seed, std::uint64_t offset, double low, double high) {
  require_double(q, "duet::random::uniform");
  return fill(q, out, "duet_random_uniform_double", 2, seed, offset, low, high);
}

Event normal(Queue& q, Buffer<float>& out, std::uint64_t seed, std::uint64_t offset, float mean, float stddev) {
  return fill(q, out, "duet_random_normal_float", 4, seed, offset, mean, stddev);
}

Event normal(Queue& q, Buffer<double>& out, std::uint64_t seed, std::uint64_t offset, double mean, double stddev) {
  require_double(q, "duet::random::normal");
  return fill(q, out, "duet_random_normal_double", 2, seed, offset, mean, stddev);
}

const char* source() { return embedded_kernels.source("random"); }

}  // namespace duet::random
