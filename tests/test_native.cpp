// Native sources: CUDA C++ on CUDA devices and OpenCL C on OpenCL devices, compiled as written with
// the caller's compiler options, launched through the same queue as dialect kernels.
#include <cstdint>
#include <string>
#include <vector>

#include "support.hpp"

namespace {

// The same kernel in each backend's own language; SCALE comes from the caller's -D option.
const char* const kCudaSource = R"(
extern "C" __global__ void scale_add(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = SCALE * a * x[i] + y[i];
}
)";

const char* const kOpenCLSource = R"(
__kernel void scale_add(__global const float* x, __global float* y, float a, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = SCALE * a * x[i] + y[i];
}
)";

const char* native_source(const duet::Device& dev) {
  return dev.info().backend == "cuda" ? kCudaSource : kOpenCLSource;
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("native sources compile with the caller's options and launch") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("native");
    duet::Queue q = dev.queue();
    const duet::Program p = dev.compile_native(native_source(dev), {"-DSCALE=3"}, "scale_add.native");
    const duet::Kernel k = p.kernel("scale_add");
    for (int n : {1, 17, 1000}) {
      CAPTURE(n);
      const auto x = random_floats(rng, static_cast<std::size_t>(n));
      const auto y0 = random_floats(rng, static_cast<std::size_t>(n));
      duet::Buffer<float> dx(dev, x.size()), dy(dev, y0.size());
      q.write(dx, x);
      q.write(dy, y0);
      q.launch(k, duet::Range(static_cast<std::size_t>(n)), duet::Range(64), dx, dy, 0.5f, n);
      const auto y = q.to_vector(dy);
      for (int i = 0; i < n; ++i) {
        const double want = 3.0 * 0.5 * static_cast<double>(x[i]) + y0[i];
        REQUIRE(std::abs(y[i] - want) <= 4 * kUnitRoundoff * (std::abs(want) + 2));
      }
    }
    // The kernel names of a native program are read from its source for messages.
    const auto e = EXPECT_ERROR(duet::KernelNotFoundError, p.kernel("missing"));
    if (e) CHECK_CONTAINS(e->what(), "scale_add");
  });
}

TEST_CASE("native sources: compile errors carry the log and line, argument counts are checked") {
  for_each_device([](const duet::Device& dev) {
    // Without -DSCALE the source does not compile, at line 4 of the caller's source.
    const auto e = EXPECT_ERROR(duet::CompileError, dev.compile_native(native_source(dev), {}, "noscale.native"));
    if (e) {
      CHECK(e->line() == 4);
      CHECK_CONTAINS(e->log(), "SCALE");
      CHECK(e->backend() == dev.info().backend);
    }
    duet::Queue q = dev.queue();
    const duet::Kernel k = dev.compile_native(native_source(dev), {"-DSCALE=1"}, "s1.native").kernel("scale_add");
    duet::Buffer<float> dx(dev, 4), dy(dev, 4);
    EXPECT_ERROR(duet::ArgumentError, q.launch(k, duet::Range(4), duet::Range(), dx, dy, 1.0f));
    EXPECT_ERROR(duet::ArgumentError, q.launch(k, duet::Range(4), duet::Range(), dx, dy, 1.0f, 4, 5));
    EXPECT_ERROR(duet::ArgumentError, dev.compile_native(native_source(dev), {"-DA=1\n-DB=2"}, "bad.native"));
  });
}

TEST_CASE("compiling the same source twice returns the same program") {
  for_each_device([](const duet::Device& dev) {
    const std::string src = "KERNEL void same(GLOBAL int* x) { x[0] = 7; }\n";
    const duet::CacheStats before = duet::cache_stats();
    dev.compile(src, {}, "same.duet");
    const duet::CacheStats middle = duet::cache_stats();
    dev.compile(src, {}, "same.duet");
    const duet::CacheStats after = duet::cache_stats();
    // The second compile is answered in process: the disk cache is not even consulted.
    CHECK(after.hits == middle.hits);
    CHECK(after.misses == middle.misses);
    CHECK(middle.hits + middle.misses >= before.hits + before.misses);
  });
}
