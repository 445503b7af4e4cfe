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

TEST_CASE("native kernels: launches are checked by type, from the source or the driver") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Program p = dev.compile_native(native_source(dev), {"-DSCALE=2"}, "typed.native");
    const duet::Kernel k = p.kernel("scale_add");
    REQUIRE(k.signature());
    const auto& params = k.signature()->params;
    REQUIRE(params.size() == 4);
    CHECK(params[0].kind == duet::KernelParam::Kind::buffer);
    CHECK(params[0].type == duet::ScalarType::f32);
    CHECK(params[0].is_const);
    CHECK(params[1].kind == duet::KernelParam::Kind::buffer);
    CHECK(params[2].type == duet::ScalarType::f32);
    CHECK(params[3].type == duet::ScalarType::i32);
    duet::Buffer<float> dx(dev, 4), dy(dev, 4);
    duet::Buffer<int> di(dev, 4);
    auto wrong = EXPECT_ERROR(duet::ArgumentError, q.launch(k, duet::Range(4), duet::Range(), dx, dy, 0.5, 4));
    if (wrong) {
      CHECK_CONTAINS(wrong->what(), "argument 3");
      CHECK_CONTAINS(wrong->what(), "takes float");
    }
    auto unsigned_n = EXPECT_ERROR(duet::ArgumentError, q.launch(k, duet::Range(4), duet::Range(), dx, dy, 0.5f, 4u));
    if (unsigned_n) CHECK_CONTAINS(unsigned_n->what(), "takes int");
    auto ints = EXPECT_ERROR(duet::ArgumentError, q.launch(k, duet::Range(4), duet::Range(), di, dy, 0.5f, 4));
    if (ints) CHECK_CONTAINS(ints->what(), "float elements");
    auto value = EXPECT_ERROR(duet::ArgumentError, q.launch(k, duet::Range(4), duet::Range(), dx, 0.5f, 0.5f, 4));
    if (value) CHECK_CONTAINS(value->what(), "takes a buffer");

    // A pointer hidden behind a compiler option's define (CUDA) or a typedef (OpenCL) reads as a
    // value of an unknown type: duet then goes by what the driver tells (OpenCL: a float buffer;
    // CUDA: sizes only), and a launch with a buffer there is not refused.
    const bool cuda = dev.info().backend == "cuda";
    const char* hidden =
        cuda ? "extern \"C\" __global__ void fill(PTR x, int n) { if ((int)threadIdx.x < n) x[threadIdx.x] = 4.0f; }"
             : "typedef __global float* PTR;\n"
               "__kernel void fill(PTR x, int n) { if ((int)get_global_id(0) < n) x[get_global_id(0)] = 4.0f; }";
    const duet::Kernel fill =
        dev.compile_native(hidden, {cuda ? "-DPTR=float*" : "-DUNUSED=1"}, "hidden.native").kernel("fill");
    q.launch(fill, duet::Range(4), duet::Range(4), dx, 4);
    CHECK(q.to_vector(dx) == std::vector<float>(4, 4.0f));
  });
}

TEST_CASE("native kernels: declared parameters are checked against the compiled kernel") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Program p = dev.compile_native(native_source(dev), {"-DSCALE=2"}, "declared.native");
    const duet::Kernel k = p.kernel("scale_add", "const float* x, float* y, float a, int n");
    REQUIRE(k.signature());
    CHECK(k.signature()->params.size() == 4);
    duet::Buffer<float> dx(dev, 3), dy(dev, 3);
    const std::vector<float> x = {1, 2, 3}, y = {1, 1, 1};
    q.write(dx, x);
    q.write(dy, y);
    q.launch(k, duet::Range(3), duet::Range(), dx, dy, 0.5f, 3);
    CHECK(q.to_vector(dy) == std::vector<float>{2, 3, 4});
    auto e = EXPECT_ERROR(duet::ArgumentError, q.launch(k, duet::Range(3), duet::Range(), dx, dy, 0.5f, 3u));
    if (e) CHECK_CONTAINS(e->what(), "takes int");

    auto count = EXPECT_ERROR(duet::ArgumentError, p.kernel("scale_add", "const float* x, float* y, float a"));
    if (count) CHECK_CONTAINS(count->what(), "lists 3 parameters, but the compiled kernel has 4");
    // A double where the kernel has a float: CUDA tells by the size, OpenCL by the type.
    auto type = EXPECT_ERROR(duet::ArgumentError, p.kernel("scale_add", "const float* x, float* y, double a, int n"));
    if (type) CHECK_CONTAINS(type->what(), "parameter 3");
    auto value = EXPECT_ERROR(duet::ArgumentError, p.kernel("scale_add", "const float* x, float y, float a, int n"));
    if (value) CHECK_CONTAINS(value->what(), "parameter 2");
    auto unreadable = EXPECT_ERROR(duet::ArgumentError, p.kernel("scale_add", "float* x) {} void f(int n"));
    if (unreadable) CHECK_CONTAINS(unreadable->what(), "e.g.");
    EXPECT_ERROR(duet::ArgumentError, p.kernel("scale_add", "float, int"));
    EXPECT_ERROR(duet::KernelNotFoundError, p.kernel("missing", "int n"));

    const duet::Program dialect = dev.compile("KERNEL void one(GLOBAL int* x) { x[0] = 1; }\n", {}, "one.duet");
    auto own = EXPECT_ERROR(duet::ArgumentError, dialect.kernel("one", "int* x"));
    if (own) CHECK_CONTAINS(own->what(), "dialect source");
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
