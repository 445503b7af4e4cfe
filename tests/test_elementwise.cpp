// duet::ElementwiseKernel: results against double-precision CPU references on every device at
// awkward lengths (0, 1, primes, around a group of 256, none a multiple of a vector width, a large
// prime), arrays and broadcast scalars in every position, several outputs and types, caching of the
// compiled variants and compiling them ahead; the layout rule and kernel cache every generator
// shares (duet/generated.hpp); every kind of bad input as its own duet error; and (test suite
// "nvrtc") the generated source compiling for sm_90. Outputs are poisoned before each call, so an
// element the kernel never wrote fails the comparison.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <duet/duet.hpp>
#include <duet/generated.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::ArgKind;
constexpr ArgKind A = ArgKind::array;
constexpr ArgKind S = ArgKind::scalar;

const std::size_t kLengths[] = {0, 1, 2, 3, 7, 255, 256, 257, 4099, 65537, 1000003};

// One correctly rounded float operation from the exact double value: error at most u * |want|.
double one_rounding(double want) { return kUnitRoundoff * std::fabs(want) * 1.0001 + 1e-38; }

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("ElementwiseKernel: leaky ReLU with a broadcast and an array slope, at awkward lengths") {
  for_each_device([](const duet::Device& dev) {
    duet::ElementwiseKernel leaky(dev, "float x, float slope", "float y", "y = x > 0 ? x : slope * x",
                                  "leaky_relu");
    CHECK(leaky.name() == "leaky_relu");
    REQUIRE(leaky.inputs().size() == 2);
    CHECK(leaky.inputs()[1].name == "slope");
    CHECK(leaky.outputs()[0].type == duet::ScalarType::f32);
    duet::Queue q = dev.queue();
    for (std::size_t n : kLengths) {
      CAPTURE(n);
      auto rng = make_rng("leaky_relu", n);
      const std::vector<float> x = random_floats(rng, n, -4.0f, 4.0f);
      const std::vector<float> slopes = random_floats(rng, n, 0.0f, 1.0f);
      duet::Buffer<float> dx(dev, n), ds(dev, n), dy(dev, n);
      q.write(dx, x);
      q.write(ds, slopes);

      q.fill(dy, kNaN);
      leaky(q, dx, 0.1f, dy);  // slope broadcast
      const std::vector<float> y1 = q.to_vector(dy);
      std::vector<double> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = x[i] > 0 ? x[i] : double(0.1f) * x[i];
      check_close(
          y1, want, [&](std::size_t i) { return one_rounding(want[i]); }, "leaky_relu, scalar slope");

      q.fill(dy, kNaN);
      leaky(q, dx, ds, dy);  // slope per element
      const std::vector<float> y2 = q.to_vector(dy);
      for (std::size_t i = 0; i < n; ++i) want[i] = x[i] > 0 ? x[i] : double(slopes[i]) * x[i];
      check_close(
          y2, want, [&](std::size_t i) { return one_rounding(want[i]); }, "leaky_relu, array slope");
    }
  });
}

TEST_CASE("ElementwiseKernel: several outputs and integer types, a multi-statement body, i and n") {
  for_each_device([](const duet::Device& dev) {
    duet::ElementwiseKernel k(dev, "int a, uint b, long c", "long s, int sign, ulong rest",
                              "s = (long)a * c + (long)b;\n"
                              "sign = a > 0 ? 1 : (a < 0 ? -1 : 0);\n"
                              "rest = n - i",
                              "mixed_ints");
    duet::Queue q = dev.queue();
    for (std::size_t n : {std::size_t{1}, std::size_t{257}, std::size_t{100003}}) {
      CAPTURE(n);
      auto rng = make_rng("mixed_ints", n);
      const std::vector<int> a = random_ints(rng, n, -1000000, 1000000);
      const std::vector<int> braw = random_ints(rng, n, 0, 2000000000);
      const std::vector<std::uint32_t> b(braw.begin(), braw.end());
      std::vector<std::int64_t> c(n);
      for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<std::int64_t>(a[n - 1 - i]) * 4000;
      duet::Buffer<int> da(dev, n);
      duet::Buffer<std::uint32_t> db(dev, n);
      duet::Buffer<std::int64_t> dc(dev, n), ds(dev, n);
      duet::Buffer<int> dsign(dev, n);
      duet::Buffer<std::uint64_t> drest(dev, n);
      q.write(da, a);
      q.write(db, b);
      q.write(dc, c);
      q.fill(ds, std::int64_t{-7});
      q.fill(dsign, 99);
      q.fill(drest, std::uint64_t{12345});
      k(q, da, db, dc, ds, dsign, drest);
      std::vector<std::int64_t> want_s(n);
      std::vector<int> want_sign(n);
      std::vector<std::uint64_t> want_rest(n);
      for (std::size_t i = 0; i < n; ++i) {
        want_s[i] = static_cast<std::int64_t>(a[i]) * c[i] + static_cast<std::int64_t>(b[i]);
        want_sign[i] = a[i] > 0 ? 1 : (a[i] < 0 ? -1 : 0);
        want_rest[i] = n - i;
      }
      check_equal(q.to_vector(ds), want_s, "s");
      check_equal(q.to_vector(dsign), want_sign, "sign");
      check_equal(q.to_vector(drest), want_rest, "rest = n - i");
    }
  });
}

TEST_CASE("ElementwiseKernel: every input broadcast; plain values converted to the parameter types") {
  for_each_device([](const duet::Device& dev) {
    duet::ElementwiseKernel fill(dev, "float a, int k, uchar c", "float y",
                                 "y = a * (float)k + (float)c + (float)i", "affine_fill");
    duet::Queue q = dev.queue();
    const std::size_t n = 1000003;
    duet::Buffer<float> dy(dev, n);
    q.fill(dy, kNaN);
    fill(q, 0.5, 3.0, 7, dy);  // double -> float, a whole double -> int, int -> uchar
    const std::vector<float> y = q.to_vector(dy);
    std::vector<double> want(n);
    // 1.5 + 7 + i is exact in double; the float result has at most two roundings.
    for (std::size_t i = 0; i < n; ++i) want[i] = 8.5 + double(i);
    check_close(
        y, want, [&](std::size_t i) { return 2 * one_rounding(want[i]); }, "affine_fill");
  });
}

TEST_CASE("ElementwiseKernel: in place, break, a preamble, double where supported") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::size_t n = 4099;
    auto rng = make_rng("elementwise misc", n);
    const std::vector<float> x = random_floats(rng, n, -2.0f, 2.0f);

    // The same buffer as input and output.
    duet::ElementwiseKernel twice(dev, "float x", "float y", "y = 2.0f * x", "twice");
    duet::Buffer<float> dx(dev, n);
    q.write(dx, x);
    twice(q, dx, dx);
    std::vector<float> want_twice(n);
    for (std::size_t i = 0; i < n; ++i) want_twice[i] = 2.0f * x[i];
    check_equal(q.to_vector(dx), want_twice, "in place");

    // break leaves the body early and the outputs are still stored.
    duet::ElementwiseKernel early(dev, "float x", "int y", "y = 1; if (x < 0) break; y = 2", "early");
    duet::Buffer<int> dy(dev, n);
    q.write(dx, x);
    q.fill(dy, -1);
    early(q, dx, dy);
    std::vector<int> want_early(n);
    for (std::size_t i = 0; i < n; ++i) want_early[i] = x[i] < 0 ? 1 : 2;
    check_equal(q.to_vector(dy), want_early, "break");

    // A helper function from the preamble.
    duet::ElementwiseKernel clamp(dev, "float x, float lo, float hi", "float y", "y = clamp_to(x, lo, hi)",
                                  "clamped",
                                  "DEVICE float clamp_to(float v, float a, float b) {\n"
                                  "  return v < a ? a : (v > b ? b : v);\n}\n");
    duet::Buffer<float> dz(dev, n);
    q.fill(dz, kNaN);
    clamp(q, dx, -0.5f, 1.0f, dz);
    std::vector<float> want_clamp(n);
    for (std::size_t i = 0; i < n; ++i) want_clamp[i] = x[i] < -0.5f ? -0.5f : (x[i] > 1.0f ? 1.0f : x[i]);
    check_equal(q.to_vector(dz), want_clamp, "preamble");

    if (!dev.info().supports_double) {
      MESSAGE("no double precision on " << device_label(dev) << ": double cases skipped");
      return;
    }
    duet::ElementwiseKernel poly(dev, "double x, double c", "double y", "y = x * x + c", "poly_double");
    std::vector<double> xd(x.begin(), x.end());
    for (double& v : xd) v += 1.0 / 3.0;  // not representable in float
    duet::Buffer<double> dxd(dev, n), dyd(dev, n);
    q.write(dxd, xd);
    q.fill(dyd, std::nan(""));
    poly(q, dxd, 1.0 / 7.0, dyd);
    const std::vector<double> y = q.to_vector(dyd);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double want = xd[i] * xd[i] + 1.0 / 7.0;
      if (!(std::fabs(y[i] - want) <= 4e-16 * (xd[i] * xd[i] + 1.0))) ++bad;
    }
    CHECK_MESSAGE(bad == 0, bad << " double results out of tolerance");
  });
}

TEST_CASE("ElementwiseKernel: variants are compiled once per kind combination and shared by copies") {
  for_each_device([](const duet::Device& dev) {
    duet::ElementwiseKernel k(dev, "float x, float s", "float y", "y = x * s", "scale_variants");
    const duet::Kernel aa = k.kernel({A, A, A});
    const duet::Kernel as = k.kernel({A, S, A});
    CHECK(aa == k.kernel({A, A, A}));
    CHECK(aa != as);
    const duet::ElementwiseKernel copy = k;
    CHECK(copy.kernel({A, S, A}) == as);
    // The same definition in another object shares the program through the device's cache.
    duet::ElementwiseKernel again(dev, "float x, float s", "float y", "y = x * s", "scale_variants");
    CHECK(again.kernel({A, S, A}) == as);
    const std::string src = k.source({A, S, A});
    CHECK_CONTAINS(src, "KERNEL void duet_scale_variants(");
    CHECK_CONTAINS(src, "const float s");
    CHECK_THROWS_AS(k.kernel({A, A, S}), duet::ArgumentError);  // an output must be an array
    CHECK_THROWS_AS(k.kernel({A, A}), duet::ArgumentError);
  });
}

TEST_CASE("ElementwiseKernel: compile_ahead compiles the variants, and the first call compiles nothing") {
  for_each_device([](const duet::Device& dev) {
    duet::ElementwiseKernel axpy(dev, "float a, float x, float y", "float z", "z = a * x + y", "axpy_ahead");
    CHECK(axpy.compiled_variants() == 0);
    axpy.compile_ahead({S, A, A, A});
    CHECK(axpy.compiled_variants() == 1);
    axpy.compile_ahead({{S, A, A, A}, {A, A, A, A}, {S, A, S, A}});
    CHECK(axpy.compiled_variants() == 3);
    axpy.compile_ahead();  // every argument an array: compiled already
    CHECK(axpy.compiled_variants() == 3);
    duet::Queue q = dev.queue();
    const std::size_t n = 65537;
    auto rng = make_rng("axpy ahead", n);
    const std::vector<float> x = random_floats(rng, n), y = random_floats(rng, n);
    duet::Buffer<float> dx(dev, n), dy(dev, n), dz(dev, n);
    q.write(dx, x);
    q.write(dy, y);
    q.fill(dz, kNaN);
    axpy(q, 3.0f, dx, dy, dz);
    const std::vector<float> z = q.to_vector(dz);
    std::vector<double> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = 3.0 * x[i] + y[i];
    // Two roundings (a fused multiply-add has one), each at most u * (|3x| + |y|) <= 4u.
    check_close(
        z, want, [](std::size_t) { return 8 * kUnitRoundoff; }, "axpy");
    CHECK(axpy.compiled_variants() == 3);  // the call compiled nothing
    const duet::ElementwiseKernel copy = axpy;
    CHECK(copy.compiled_variants() == 3);
    CHECK_THROWS_AS(axpy.compile_ahead({S, A, A, S}), duet::ArgumentError);  // an output must be an array
    CHECK_THROWS_AS(axpy.compile_ahead({{A, A, A, A}, {A}}), duet::ArgumentError);
    duet::ElementwiseKernel broken(dev, "float x", "float y", "y = x + nope_5", "broken_ahead");
    CHECK_THROWS_AS(broken.compile_ahead(), duet::CompileError);
    CHECK(broken.compiled_variants() == 0);
  });
}

TEST_CASE("ElementwiseKernel: a body that does not compile is a CompileError at the body's line") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<float> x(dev, 10), y(dev, 10);
    q.fill(x, 1.0f);
    struct Case {
      const char* body;
      const char* preamble;
      const char* file;
      int line;
      const char* in_log;
    };
    const Case cases[] = {
        {"y = x * undeclared_thing_77", "", "bad_body.body", 1, "undeclared_thing_77"},
        {"float t = x;\ny = t + also_undeclared_78;", "", "bad_body.body", 2, "also_undeclared_78"},
        {"y = (x + 1", "", "bad_body.body", 1, ""},  // reported after the body: put on its last line
        {"y = helper(x)", "DEVICE float helper(float v) {\n  return v * missing_in_preamble_79;\n}",
         "bad_body.preamble", 2, "missing_in_preamble_79"},
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.body));
      duet::ElementwiseKernel k(dev, "float x", "float y", c.body, "bad_body", c.preamble);
      const auto e = EXPECT_ERROR(duet::CompileError, k(q, x, y));
      if (!e) continue;
      CHECK(e->source_name() == c.file);
      CHECK(e->line() == c.line);
      CHECK(e->backend() == dev.info().backend);
      CHECK_FALSE(e->log().empty());
      CHECK_CONTAINS(e->log(), c.in_log);
      CHECK_CONTAINS(std::string(e->what()), c.file);
    }
    // The queue and the device still work.
    duet::ElementwiseKernel good(dev, "float x", "float y", "y = x + 1", "good_after_bad");
    good(q, x, y);
    check_equal(q.to_vector(y), std::vector<float>(10, 2.0f), "after compile errors");
  });
}

TEST_CASE("ElementwiseKernel: wrong arguments are ArgumentError, BufferSizeError or ReleasedError") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::ElementwiseKernel k(dev, "float x, int k", "float y", "y = x * k", "args_checked");
    duet::Buffer<float> x(dev, 100), y(dev, 100), short_y(dev, 99);
    duet::Buffer<int> xi(dev, 100);

    auto e = EXPECT_ERROR(duet::ArgumentError, k(q, x, 2));
    if (e) {
      CHECK_CONTAINS(e->what(), "takes 3 arguments");
      CHECK_CONTAINS(e->what(), "outputs: y");
    }
    CHECK_THROWS_AS(k(q, x, 2, y, y), duet::ArgumentError);
    e = EXPECT_ERROR(duet::ArgumentError, k(q, xi, 2, y));  // Buffer<int> for float x
    if (e) {
      CHECK_CONTAINS(e->what(), "'float x'");
      CHECK_CONTAINS(e->what(), "Buffer<int>");
    }
    e = EXPECT_ERROR(duet::ArgumentError, k(q, x, 2, 1.0f));  // output as a value
    if (e) CHECK_CONTAINS(e->what(), "output");
    e = EXPECT_ERROR(duet::ArgumentError, k(q, x, 2.5, y));  // not a whole number for int k
    if (e) CHECK_CONTAINS(e->what(), "2.5");
    CHECK_THROWS_AS(k(q, x, 5000000000LL, y), duet::ArgumentError);  // out of int's range
    CHECK_THROWS_AS(k(q, x, true, y), duet::ArgumentError);          // bool is not a kernel type
    const auto size = EXPECT_ERROR(duet::BufferSizeError, k(q, x, 2, short_y));
    if (size) {
      CHECK_CONTAINS(size->what(), "x has 100");
      CHECK_CONTAINS(size->what(), "y has 99");
    }
    duet::Buffer<float> gone(dev, 100);
    gone.release();
    CHECK_THROWS_AS(k(q, gone, 2, y), duet::ReleasedError);
    CHECK_THROWS_AS(duet::ElementwiseKernel()(q, x, 2, y), duet::ReleasedError);

    // Still usable.
    q.fill(x, 1.5f);
    k(q, x, 2, y);
    check_equal(q.to_vector(y), std::vector<float>(100, 3.0f), "after argument errors");
  });
}

TEST_CASE("ElementwiseKernel and ReductionKernel refuse a queue of another device") {
  const std::vector<duet::Device> two = two_devices();
  if (two.size() < 2) {
    MESSAGE("skipped: this process sees fewer than two devices (POCL_DEVICES=\"pthread pthread\" gives two)");
    return;
  }
  duet::Queue q1 = two[1].queue();
  duet::Buffer<float> x(two[1], 4), y(two[1], 4);
  duet::ElementwiseKernel k(two[0], "float x", "float y", "y = x", "copy_on_device0");
  auto e = EXPECT_ERROR(duet::DeviceMismatchError, k(q1, x, y));
  if (e) CHECK_CONTAINS(e->what(), two[0].info().id());
  duet::ReductionKernel sum(two[0], "float", "float x", "x", "a + b", "0", "sum_on_device0");
  CHECK_THROWS_AS(sum.reduce<float>(q1, x), duet::DeviceMismatchError);
}

// The vector4 layout (GPUs pick it by themselves; forced here so that every device runs it): four
// elements per work-item through 16-byte vectors, the n % 4 left over one each, and views whose
// start is not 16 bytes aligned falling back to the one-element kernel. Float, int and uint
// arrays and a scalar in one kernel; outputs poisoned before each call.
TEST_CASE("ElementwiseKernel: the vector4 layout at every length, aligned and unaligned views") {
  for_each_device([](const duet::Device& dev) {
    std::optional<duet::ElementwiseKernel> k;
    {
      EnvGuard layout("DUET_ELEMENTWISE_LAYOUT", "vector4");
      k.emplace(dev, "float a, float x, int m", "float y, uint u",
                "y = a * x + m; u = (uint)i * 3u + (uint)m", "vector4_mix");
    }
    duet::Queue q = dev.queue();
    for (const std::size_t n : kLengths) {
      for (const std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{4}, std::size_t{5}}) {
        CAPTURE(n);
        CAPTURE(offset);
        auto rng = make_rng("vector4", n + offset);
        const std::vector<float> x = random_floats(rng, n);
        std::vector<int> m(n);
        for (std::size_t i = 0; i < n; ++i) m[i] = static_cast<int>(rng() % 2001) - 1000;
        duet::Buffer<float> dx(dev, n + offset + 1), dy(dev, n + offset + 1);
        duet::Buffer<int> dm(dev, n + offset + 1);
        duet::Buffer<std::uint32_t> du(dev, n + offset + 1);
        const duet::BufferView<float> vx = dx.view(offset, n), vy = dy.view(offset, n);
        const duet::BufferView<int> vm = dm.view(offset, n);
        const duet::BufferView<std::uint32_t> vu = du.view(offset, n);
        q.write(vx, x);
        q.write(vm, m);
        q.fill(dy, kNaN);
        q.fill(du, std::uint32_t{0xDEADBEEF});
        (*k)(q, 0.75f, vx, vm, vy, vu);
        std::vector<double> want(n);
        std::vector<std::uint32_t> want_u(n);
        for (std::size_t i = 0; i < n; ++i) {
          want[i] = 0.75 * x[i] + m[i];
          want_u[i] = static_cast<std::uint32_t>(i) * 3u + static_cast<std::uint32_t>(m[i]);
        }
        check_close(
            q.to_vector(vy), want,
            [&](std::size_t i) { return 4 * kUnitRoundoff * (1 + std::fabs(want[i])); }, "y");
        check_equal(q.to_vector(vu), want_u, "u");
        // The element past the view stays poisoned.
        CHECK(q.to_vector(du)[offset + n] == 0xDEADBEEF);
      }
    }
  });
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("ElementwiseKernel: malformed definitions are ArgumentError with a useful message") {
  struct Case {
    const char* inputs;
    const char* outputs;
    const char* body;
    const char* name;
    const char* message;
  };
  const Case cases[] = {
      {"float x", "", "y = x", "k", "outputs is empty"},
      {"float x", "   ", "y = x", "k", "outputs is empty"},
      {"float", "float y", "y = 1", "k", "has a type but no name"},
      {"x", "float y", "y = 1", "k", "has no type"},
      {"float x y", "float z", "z = x", "k", "more than one name"},
      {"float x", "float x", "x = 1", "k", "'x' is used by more than one parameter"},
      {"float x, int x", "float y", "y = x", "k", "more than one parameter"},
      {"flaot x", "float y", "y = x", "k", "unknown type 'flaot' (did you mean 'float'?)"},
      {"vec3 v", "float y", "y = 1", "k", "unknown type 'vec3'"},
      {"float* x", "float y", "y = 1", "k", "pointer"},
      {"float x[4]", "float y", "y = 1", "k", "pointer or array"},
      {"float x,", "float y", "y = x", "k", "stray comma"},
      {", float x", "float y", "y = x", "k", "stray comma"},
      {"float x; float z", "float y", "y = x", "k", "unexpected ';'"},
      {"float i", "float y", "y = i", "k", "reserved"},
      {"float n", "float y", "y = n", "k", "reserved"},
      {"float duet_x", "float y", "y = 1", "k", "reserved"},
      {"float int", "float y", "y = 1", "k", "keyword"},
      {"float GLOBAL", "float y", "y = 1", "k", "keyword, type or dialect name"},
      {"float x", "float y", "", "k", "the body is empty"},
      {"float x", "float y", "  \n ", "k", "the body is empty"},
      {"float x", "float y", "if (x < 0) return; y = x", "k", "uses 'return'"},
      {"float x", "float y", "y = x", "", "not an identifier"},
      {"float x", "float y", "y = x", "2fast", "not an identifier"},
      {"float x", "float y", "y = x", "my kernel", "not an identifier"},
      {"float x", "float y", "y = x", "float", "kernel name"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.inputs));
    CAPTURE(std::string(c.outputs));
    CAPTURE(std::string(c.body));
    CAPTURE(std::string(c.name));
    const auto e = EXPECT_ERROR(duet::ArgumentError, duet::ElementwiseKernel::generate_source(
                                                         c.inputs, c.outputs, c.body, c.name, {A, A}));
    if (e) CHECK_CONTAINS(std::string(e->what()), c.message);
  }
  // half only as an array: a single value is passed as float.
  const auto h = EXPECT_ERROR(duet::ArgumentError, duet::ElementwiseKernel::generate_source(
                                                       "half h", "float y", "y = h", "k", {S, A}));
  if (h) CHECK_CONTAINS(std::string(h->what()), "Buffer<duet::half>");
  CHECK_NOTHROW(
      duet::ElementwiseKernel::generate_source("half h, float a", "half y", "y = a * h", "k", {A, S, A}));
  // Accepted: C spellings of the types, const, an empty input list, return inside a comment.
  CHECK_NOTHROW(duet::ElementwiseKernel::generate_source("const unsigned int a, long long b", "double y",
                                                         "y = a + b; // no return here", "ok", {A, S, A}));
  CHECK_NOTHROW(duet::ElementwiseKernel::generate_source("", "uint y", "y = (uint)i", "iota", {A}));
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("ElementwiseKernel sources compile for sm_90 with NVRTC") {
  struct Case {
    const char* inputs;
    const char* outputs;
    const char* body;
    std::vector<ArgKind> kinds;
  };
  const Case cases[] = {
      {"float x, float slope", "float y", "y = x > 0 ? x : slope * x", {A, S, A}},
      {"float x, float slope", "float y", "y = x > 0 ? x : slope * x", {A, A, A}},
      {"double x, long k, uchar c, short s",
       "double y, ulong z",
       "y = x * k + c - s; z = (ulong)i + n",
       {S, A, A, S, A, A}},
      {"", "uint y", "y = (uint)i", {A}},
      {"float x",
       "float y, int flag",
       "y = fmax(x, -INFINITY); flag = isnan(x) ? 1 : 0; if (x > 1) break",
       {A, A, A}},
  };
  for (const Case& c : cases)
    for (duet::DeviceKind kind : {duet::DeviceKind::gpu, duet::DeviceKind::cpu}) {
      CAPTURE(std::string(c.body));
      CAPTURE(duet::to_string(kind));
      const std::string src = duet::ElementwiseKernel::generate_source(c.inputs, c.outputs, c.body,
                                                                       "generated", c.kinds, {}, kind);
      try {
        CHECK(duet::compile_for_cuda_arch(src, {}, "sm_90", "generated.elementwise") > 0);
      } catch (const duet::CompileError& e) {
        FAIL_CHECK("NVRTC rejected the generated source:\n" << src << "\n" << e.log());
      }
    }
  // A broken body: NVRTC's log names the body's own line.
  const std::string bad = duet::ElementwiseKernel::generate_source("float x", "float y",
                                                                   "y = x;\ny = y * nope_80", "oops", {A, A});
  const auto e =
      EXPECT_ERROR(duet::CompileError, duet::compile_for_cuda_arch(bad, {}, "sm_90", "oops.elementwise"));
  if (e) CHECK_CONTAINS(e->log(), "oops.body(2)");
}

TEST_SUITE_END();

// The one layout rule every generator follows (ElementwiseKernel, fused array expressions, array
// copies): what each device kind takes, and what each value of DUET_ELEMENTWISE_LAYOUT forces.
TEST_CASE("generated kernels' forms: per device kind and under DUET_ELEMENTWISE_LAYOUT") {
  using duet::generated::Layout;
  struct Row {
    const char* forced;
    duet::DeviceKind kind;
    Layout loop;
    bool vector4, gpu_rows;
  };
  const duet::DeviceKind gpu = duet::DeviceKind::gpu, cpu = duet::DeviceKind::cpu;
  const Row rows[] = {
      {"", gpu, Layout::grid_stride, true, true},          {"", cpu, Layout::blocked, true, false},
      {"vector4", gpu, Layout::grid_stride, true, true},   {"vector4", cpu, Layout::blocked, true, true},
      {"grid_stride", cpu, Layout::grid_stride, false, false}, {"blocked", gpu, Layout::blocked, false, true},
  };
  for (const Row& r : rows) {
    CAPTURE(r.forced);
    CAPTURE(static_cast<int>(r.kind));
    EnvGuard layout("DUET_ELEMENTWISE_LAYOUT", r.forced);
    const duet::generated::Forms f = duet::generated::forms_for(r.kind);
    CHECK(f.loop == r.loop);
    CHECK(f.vector4 == r.vector4);
    CHECK(f.gpu_rows == r.gpu_rows);
    CHECK(duet::generated::layout_for(r.kind) == (r.kind == cpu ? Layout::blocked : Layout::grid_stride));
  }
  EnvGuard layout("DUET_ELEMENTWISE_LAYOUT", "vector8");
  auto e = EXPECT_ERROR(duet::ArgumentError, duet::generated::forms_for(gpu));
  if (e) CHECK_CONTAINS(e->what(), "DUET_ELEMENTWISE_LAYOUT=vector8 names no layout");
}

// The cache of generated kernels makes each value once, even for threads racing on a new key,
// and keeps nothing when making fails, so the next call tries again.
TEST_CASE("generated kernels' cache: one make per key across threads, none kept on failure") {
  duet::generated::OnceTable<int> table;
  std::atomic<int> made{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      const std::string key = t % 2 ? "odd" : "even";
      const int v = *table.get(key, [&] {
        ++made;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return key == "odd" ? 1 : 2;
      });
      CHECK(v == (t % 2 ? 1 : 2));
    });
  for (std::thread& t : threads) t.join();
  CHECK(made.load() == 2);
  CHECK(table.size() == 2);
  CHECK_THROWS_AS(table.get("bad", []() -> int { throw std::runtime_error("no"); }), std::runtime_error);
  CHECK(table.size() == 2);
  CHECK(*table.get("bad", [] { return 3; }) == 3);
  CHECK(table.size() == 3);
}
