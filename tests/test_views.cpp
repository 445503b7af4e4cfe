// Views (Buffer<T>::view): bounds checked at creation, transfers at any offset, kernel arguments
// (dialect kernels: any offset on every backend; native OpenCL kernels: multiples of
// CL_DEVICE_MEM_BASE_ADDR_ALIGN, a clear ArgumentError otherwise), argument type checks, and
// memory shared with the buffer they come from.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <duet/duet.hpp>
#include <limits>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

const char* const kScale = R"(
KERNEL void scale(GLOBAL float* x, const float factor, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) x[i] = x[i] * factor;
}
KERNEL void add_into(GLOBAL const float* RESTRICT a, GLOBAL float* RESTRICT out, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) out[i] = out[i] + a[i];
}
)";

// The smallest element offset a view passed to a kernel may start at on this device.
std::size_t kernel_view_step(const duet::Device& dev, std::size_t element_size) {
  const std::size_t align = dev.info().view_alignment;
  return align <= element_size ? 1 : align / element_size;
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("views are bounds checked when they are made") {
  for_each_device([](const duet::Device& dev) {
    duet::Buffer<float> b(dev, 100);
    CHECK(b.view(0, 100).size() == 100);
    CHECK(b.view(100, 0).size() == 0);  // an empty view at the very end
    const duet::BufferView<float> v = b.view(10, 50);
    CHECK(v.size() == 50);
    CHECK(v.offset() == 10);
    CHECK(v.bytes() == 50 * sizeof(float));
    CHECK(v.device() == dev);
    CHECK(v.view(5, 45).offset() == 15);

    auto e = EXPECT_ERROR(duet::BufferSizeError, b.view(99, 2));
    if (e) {
      CHECK_CONTAINS(e->what(), "past the end");
      CHECK_CONTAINS(e->what(), "100");
    }
    EXPECT_ERROR(duet::BufferSizeError, b.view(101, 0));
    EXPECT_ERROR(duet::BufferSizeError, b.view(0, 101));
    EXPECT_ERROR(duet::BufferSizeError, b.view(50, static_cast<std::size_t>(-1)));  // no wrap-around
    EXPECT_ERROR(duet::BufferSizeError, v.view(40, 11));                            // past the view's end
    CHECK(v.view(40, 10).size() == 10);

    duet::Buffer<float> released(dev, 4);
    released.release();
    EXPECT_ERROR(duet::ReleasedError, released.view(0, 1));
  });
}

// starts_aligned answers for the device address, which vector loads need: a view's offset on an
// allocation, and on CUDA the pointer itself for memory wrapped at any address.
TEST_CASE("starts_aligned: views at every offset, and memory wrapped at an odd address") {
  for_each_device([](const duet::Device& dev) {
    duet::Buffer<float> b(dev, 64);
    for (std::size_t off = 0; off < 9; ++off) {
      CAPTURE(off);
      CHECK(b.view(off, 4).raw().starts_aligned(16) == (off % 4 == 0));
      CHECK(b.view(off, 4).raw().starts_aligned(4));
    }
    if (dev.info().backend == "cuda") {
      // The same memory adopted from its address plus 4 bytes: offset 0, yet not 16-byte aligned.
      const duet::RawBuffer adopted = duet::RawBuffer::wrap(dev, b.raw().native_handle() + 4, 16);
      CHECK(adopted.offset() == 0);
      CHECK_FALSE(adopted.starts_aligned(16));
      CHECK(adopted.starts_aligned(4));
    }
  });
}

TEST_CASE("write, read, copy and fill through views at any offset") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("views transfers");
    duet::Queue q = dev.queue();
    const std::size_t n = 1000;
    // Poisoned with a value check_equal can compare (NaN never equals itself).
    const float poison = -12345.0f;
    duet::Buffer<float> b(dev, n), c(dev, n);
    q.fill(b, poison);
    q.fill(c, poison);
    std::vector<float> want(n, poison), want_c(n, poison);

    // Odd offsets on purpose: transfers take views anywhere.
    const duet::BufferView<float> v = b.view(3, 501);
    const std::vector<float> data = random_floats(rng, 501);
    q.write(v, data);
    std::copy(data.begin(), data.end(), want.begin() + 3);
    const std::vector<float> part = random_floats(rng, 20);
    q.write(v, part, 7);  // offset within the view
    std::copy(part.begin(), part.end(), want.begin() + 10);

    std::vector<float> back(501, poison);
    q.read(v, back);
    q.finish();
    check_equal(back, std::vector<float>(want.begin() + 3, want.begin() + 504), "read of the view");
    check_equal(q.to_vector(v.view(100, 17)), std::vector<float>(want.begin() + 103, want.begin() + 120),
                "to_vector of a view of a view");

    q.fill(b.view(900, 33), 2.5f);
    std::fill(want.begin() + 900, want.begin() + 933, 2.5f);

    // Every mix of buffers and views in copies, and between views of one buffer.
    q.copy(b.view(3, 100), c.view(17, 100));
    std::copy(want.begin() + 3, want.begin() + 103, want_c.begin() + 17);
    q.copy(b.view(0, 50), c);  // view into a buffer: lands at c's start
    std::copy(want.begin(), want.begin() + 50, want_c.begin());
    duet::Buffer<float> small(dev, 30);
    q.fill(small, -1.0f);
    q.copy(small, c.view(960, 40));  // buffer into a view
    std::fill(want_c.begin() + 960, want_c.begin() + 990, -1.0f);
    q.copy(b.view(900, 33), b.view(600, 33));  // disjoint views of one buffer
    std::copy(want.begin() + 900, want.begin() + 933, want.begin() + 600);

    check_equal(q.to_vector(b), want, "b after view writes, fill and copy");
    check_equal(q.to_vector(c), want_c, "c after copies into views");

    // Overlapping views of one buffer are refused, as overlapping ranges of one buffer are.
    auto e = EXPECT_ERROR(duet::ArgumentError, q.copy(b.view(10, 20), b.view(25, 20)));
    if (e) CHECK_CONTAINS(e->what(), "overlap");
    EXPECT_ERROR(duet::BufferSizeError, q.copy(b.view(0, 20), c.view(0, 19)));
    std::vector<float> too_much(11);
    EXPECT_ERROR(duet::BufferSizeError, q.write(b.view(990, 10), too_much));
    EXPECT_ERROR(duet::BufferSizeError, q.read(b.view(990, 10), duet::Span<float>(too_much)));
  });
}

TEST_CASE("views as kernel arguments") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("views kernels");
    duet::Queue q = dev.queue();
    const duet::Program p = dev.compile(kScale, {}, "views.duet");
    const duet::Kernel scale = p.kernel("scale");
    const duet::Kernel add_into = p.kernel("add_into");
    const std::size_t step = kernel_view_step(dev, sizeof(float));
    const std::size_t n = 4 * step + 300;
    const std::vector<float> x = random_floats(rng, n);
    duet::Buffer<float> b(dev, n);
    q.write(b, x);

    // Scale only [2*step, 2*step + 200): the elements around it must stay as they were.
    const std::size_t first = 2 * step, count = 200;
    const duet::BufferView<float> v = b.view(first, count);
    q.launch(scale, duet::Range(count), duet::Range(), v, 3.0f, static_cast<std::uint32_t>(count));
    std::vector<double> want(x.begin(), x.end());
    for (std::size_t i = first; i < first + count; ++i) want[i] = 3.0 * static_cast<double>(x[i]);
    const auto tol = [&want](std::size_t i) { return 4 * kFloatEps * (1.0 + std::fabs(want[i])); };
    check_close(q.to_vector(b), want, tol, "scale of a view");

    // Two disjoint views of one buffer in one launch: out[second..] += a[0..].
    const std::size_t m = 100, second = (m + step - 1) / step * step;
    q.launch(add_into, duet::Range(m), duet::Range(), b.view(0, m), b.view(second, m),
             static_cast<std::uint32_t>(m));
    for (std::size_t i = 0; i < m; ++i) want[second + i] += want[i];
    check_close(q.to_vector(b), want, tol, "add_into between views");

    // Views at any element offset, on every backend: OpenCL compiles dialect kernels with a byte
    // offset per buffer parameter, so no sub-buffer (and no alignment) is needed.
    for (std::size_t offset : {std::size_t{1}, std::size_t{3}, step + 5, 2 * step + 7}) {
      CAPTURE(offset);
      const std::size_t len = 10 + offset % 7;
      q.launch(scale, duet::Range(len), duet::Range(), b.view(offset, len), 2.0f,
               static_cast<std::uint32_t>(len));
      for (std::size_t i = offset; i < offset + len; ++i) want[i] *= 2.0;
      check_close(q.to_vector(b), want, tol, "scale of an unaligned view");
    }
    // Two views at different odd offsets in one launch, one of them a view of a view.
    q.launch(add_into, duet::Range(13), duet::Range(), b.view(1, 13), b.view(30, 40).view(7, 13), 13u);
    for (std::size_t i = 0; i < 13; ++i) want[37 + i] += want[1 + i];
    check_close(q.to_vector(b), want, tol, "add_into between unaligned views");
    q.launch(scale, duet::Range(1), duet::Range(), b.view(n - 1, 1), -1.0f, 1u);  // the very last element
    want[n - 1] = -want[n - 1];
    check_close(q.to_vector(b), want, tol, "scale of the last element");
  });
}

// Every form a buffer parameter may take: CONSTANT, RESTRICT, a const pointer, a parameter over
// two lines with a comment inside, each view at its own odd offset. A buffer whose pointer comes
// from a define is left as written (the rewrite cannot see its type): aligned views only, as native.
TEST_CASE("views at odd offsets reach every form of buffer parameter") {
  for_each_device([](const duet::Device& dev) {
    const char* const source = R"(
KERNEL void forms(CONSTANT float* scale, GLOBAL const float* RESTRICT a, GLOBAL float* const out,
                  GLOBAL /* the counts */ const
                  int* counts, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) out[i] = a[i] * scale[0] + (float)counts[i];
}
KERNEL void from_define(OUT_POINTER out, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) out[i] = 7.0f;
}
)";
    auto rng = make_rng("views forms");
    duet::Queue q = dev.queue();
    const duet::Program p = dev.compile(source, {{"OUT_POINTER", "GLOBAL float*"}}, "forms.duet");
    const std::size_t n = 29;
    const std::vector<float> a = random_floats(rng, n + 5);
    std::vector<int> counts(n + 11);
    for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = static_cast<int>(i % 13) - 6;
    duet::Buffer<float> scale(dev, 4), da(dev, a.size()), out(dev, n + 3);
    duet::Buffer<int> dc(dev, counts.size());
    const std::vector<float> scales = {0.f, 0.f, 0.f, 1.75f};
    q.write(scale, scales);
    q.write(da, a);
    q.write(dc, counts);
    q.fill(out, std::numeric_limits<float>::quiet_NaN());
    q.launch(p.kernel("forms"), duet::Range(n), duet::Range(), scale.view(3, 1), da.view(5, n),
             out.view(3, n), dc.view(11, n), static_cast<std::uint32_t>(n));
    const std::vector<float> got = q.to_vector(out);
    for (std::size_t i = 0; i < 3; ++i) CHECK(std::isnan(got[i]));
    std::vector<double> want(n);
    std::vector<float> have(n);
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = static_cast<double>(a[5 + i]) * 1.75 + counts[11 + i];
      have[i] = got[3 + i];
    }
    check_close(
        have, want, [&](std::size_t i) { return 4 * kFloatEps * (1.0 + std::fabs(want[i])); }, "forms");

    const duet::Kernel from_define = p.kernel("from_define");
    const std::size_t step = kernel_view_step(dev, sizeof(float));
    duet::Buffer<float> wide(dev, step + 8);
    q.launch(from_define, duet::Range(8), duet::Range(), wide.view(step, 8), 8u);
    const std::vector<float> sevens = q.to_vector(wide);
    CHECK(std::count(sevens.begin() + static_cast<std::ptrdiff_t>(step), sevens.end(), 7.0f) == 8);
    if (step > 1) {
      auto e = EXPECT_ERROR(duet::ArgumentError,
                            q.launch(from_define, duet::Range(8), duet::Range(), wide.view(1, 8), 8u));
      if (e) CHECK_CONTAINS(e->what(), "CL_DEVICE_MEM_BASE_ADDR_ALIGN");
    }
  });
}

// Native OpenCL C is compiled as written, so there a view is a sub-buffer, whose origin must be
// aligned: anything else is a clear ArgumentError at launch.
TEST_CASE("native OpenCL kernels take views at aligned offsets only") {
  for_each_device([](const duet::Device& dev) {
    if (dev.info().backend != "opencl" || dev.info().view_alignment <= sizeof(float)) {
      MESSAGE("skipped: not an OpenCL device with a view alignment");
      return;
    }
    const char* const native = R"(
__kernel void negate(__global float* x, const uint n) {
  const size_t i = get_global_id(0);
  if (i < n) x[i] = -x[i];
})";
    duet::Queue q = dev.queue();
    const duet::Kernel negate = dev.compile_native(native, {}, "negate.cl").kernel("negate");
    const std::size_t step = kernel_view_step(dev, sizeof(float));
    duet::Buffer<float> b(dev, 2 * step + 10);
    q.fill(b, 1.5f);
    q.launch(negate, duet::Range(10), duet::Range(), b.view(step, 10), 10u);
    std::vector<float> want(b.size(), 1.5f);
    for (std::size_t i = step; i < step + 10; ++i) want[i] = -1.5f;
    check_equal(q.to_vector(b), want, "negate of an aligned view");
    auto e = EXPECT_ERROR(duet::ArgumentError,
                          q.launch(negate, duet::Range(10), duet::Range(), b.view(1, 10), 10u));
    if (e) {
      CHECK_CONTAINS(e->what(), "CL_DEVICE_MEM_BASE_ADDR_ALIGN");
      CHECK_CONTAINS(e->what(), std::to_string(dev.info().view_alignment));
      CHECK_CONTAINS(e->what(), "argument 1");
    }
  });
}

TEST_CASE("views keep the argument type checks") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Kernel scale = dev.compile(kScale, {}, "views.duet").kernel("scale");
    duet::Buffer<int> ints(dev, 64);
    auto e = EXPECT_ERROR(duet::ArgumentError,
                          q.launch(scale, duet::Range(8), duet::Range(), ints.view(0, 8), 1.0f, 8u));
    if (e) {
      CHECK_CONTAINS(e->what(), "float");
      CHECK_CONTAINS(e->what(), "int");
    }
    duet::Buffer<float> f(dev, 64);
    EXPECT_ERROR(duet::ArgumentError, q.launch(scale, duet::Range(8), duet::Range(), 1.0f, f.view(0, 8), 8u));
    duet::BufferView<float> empty;
    EXPECT_ERROR(duet::ReleasedError, q.launch(scale, duet::Range(8), duet::Range(), empty, 1.0f, 8u));
  });
}

TEST_CASE("views share the buffer's memory and keep it alive") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<int> b(dev, 50);
    q.fill(b, 7);
    duet::BufferView<int> v = b.view(10, 20);
    duet::BufferView<int> copy = v;  // copies of a view are views of the same memory
    CHECK(copy.offset() == 10);
    auto e = EXPECT_ERROR(duet::ArgumentError, b.free_now());
    if (e) CHECK_CONTAINS(e->what(), "still use");
    CHECK(b.valid());

    b.release();  // drops the buffer's handle; the views still hold the memory
    CHECK_FALSE(b.valid());
    q.fill(v, 9);
    check_equal(q.to_vector(copy), std::vector<int>(20, 9), "through a view after its buffer was released");

    duet::Buffer<int> owned(dev, 8);
    q.fill(owned, 1);
    q.finish();
    owned.free_now();  // no views: freed at once
    CHECK_FALSE(owned.valid());
    EXPECT_ERROR(duet::ReleasedError, q.fill(owned, 2));
  });
}

TEST_SUITE_END();
