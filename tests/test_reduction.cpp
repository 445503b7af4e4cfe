// duet::ReductionKernel on every device: sums, dot products, max/min, norms and counts at awkward
// lengths (0 gives the identity, 1, primes, around one group's share, around the one-launch limit,
// a large prime), the blocking and the asynchronous call, scratch memory per queue, compiling
// ahead, and every kind of bad input. Where the inputs allow it the check is exact: integer-valued floats sum exactly in
// any order, so a lost or doubled element cannot hide in a rounding tolerance. Test suite "nvrtc":
// the generated sources compile for sm_90.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <duet/duet.hpp>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::ArgKind;
constexpr ArgKind A = ArgKind::array;
constexpr ArgKind S = ArgKind::scalar;

// Awkward lengths (primes, none a multiple of a group or a vector width), plus the lengths around
// where one group stops covering the input, where a GPU's grid reaches max_groups, and where a
// reduction stops being one launch and takes a second.
std::vector<std::size_t> lengths_for(const duet::ReductionKernel& k) {
  const std::size_t one_group = k.elements_per_group();
  const std::size_t limit = k.single_pass_limit();
  std::vector<std::size_t> v = {0,     1,         2,         3,         7,         255,     256,
                                257,   4099,      one_group - 1, one_group, one_group + 1, 3 * one_group + 5,
                                limit - 1, limit, limit + 1, 1000003};
  if (k.max_groups() < limit / one_group) {
    const std::size_t all_groups = one_group * k.max_groups();
    v.insert(v.end(), {all_groups - 1, all_groups + 3});
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::vector<float> integer_floats(std::mt19937_64& rng, std::size_t n, int lo, int hi) {
  const std::vector<int> ints = random_ints(rng, n, lo, hi);
  return std::vector<float>(ints.begin(), ints.end());
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("ReductionKernel: sum is exact on integer-valued floats at every length, blocking and async") {
  for_each_device([](const duet::Device& dev) {
    duet::ReductionKernel sum(dev, "float", "float x", "x", "a + b", "0", "sum");
    CHECK(sum.result_type() == duet::ScalarType::f32);
    CHECK(sum.group_size() >= 1);
    CHECK((sum.group_size() & (sum.group_size() - 1)) == 0);
    duet::Queue q = dev.queue();
    duet::Buffer<float> result(dev, 1);
    for (std::size_t n : lengths_for(sum)) {
      CAPTURE(n);
      auto rng = make_rng("sum exact", n);
      // |sum| and every partial sum stay below 2^24, so float addition is exact in any order.
      const std::vector<float> x = integer_floats(rng, n, -8, 8);
      double want = 0;
      for (float v : x) want += v;
      duet::Buffer<float> dx(dev, n);
      q.write(dx, x);
      CHECK(sum.reduce<float>(q, dx) == want);
      q.fill(result, kNaN);
      sum.reduce_into(q, result, dx);
      CHECK(q.to_vector(result)[0] == want);
    }
  });
}

TEST_CASE("ReductionKernel: a float sum of random values is within the rounding bound") {
  for_each_device([](const duet::Device& dev) {
    duet::ReductionKernel sum(dev, "float", "float x", "x", "a + b", "0.0f", "sum_random");
    duet::Queue q = dev.queue();
    for (std::size_t n : {std::size_t{1000}, std::size_t{1000003}}) {
      CAPTURE(n);
      auto rng = make_rng("sum random", n);
      const std::vector<float> x = random_floats(rng, n);
      double want = 0, abs_sum = 0;
      for (float v : x) want += v, abs_sum += std::fabs(v);
      duet::Buffer<float> dx(dev, n);
      q.write(dx, x);
      const double got = sum.reduce<float>(q, dx);
      // No value is added into more than n / group_size + log2(n) roundings.
      const double depth = double(n) / double(sum.group_size()) + 64;
      CHECK(std::fabs(got - want) <= depth * kUnitRoundoff * abs_sum);
    }
  });
}

TEST_CASE("ReductionKernel: dot products with arrays and a broadcast weight") {
  for_each_device([](const duet::Device& dev) {
    duet::ReductionKernel dot(dev, "float", "float x, float y", "x * y", "a + b", "0", "dot");
    duet::ReductionKernel weighted(dev, "float", "float x, float w", "x * w", "a + b", "0", "weighted_sum");
    duet::Queue q = dev.queue();
    for (std::size_t n : lengths_for(dot)) {
      CAPTURE(n);
      auto rng = make_rng("dot", n);
      const std::vector<float> x = integer_floats(rng, n, -3, 3);
      const std::vector<float> y = integer_floats(rng, n, -2, 2);
      double want = 0, want_w = 0;
      for (std::size_t i = 0; i < n; ++i) want += double(x[i]) * y[i], want_w += 2.0 * x[i];
      duet::Buffer<float> dx(dev, n), dy(dev, n);
      q.write(dx, x);
      q.write(dy, y);
      CHECK(dot.reduce<float>(q, dx, dy) == want);
      CHECK(weighted.reduce<float>(q, dx, 2.0f) == want_w);
    }
  });
}

TEST_CASE("ReductionKernel: max and min of random floats, with INFINITY identities") {
  for_each_device([](const duet::Device& dev) {
    duet::ReductionKernel max(dev, "float", "float x", "x", "fmax(a, b)", "-INFINITY", "max_float");
    duet::ReductionKernel min(dev, "float", "float x", "x", "a < b ? a : b", "INFINITY", "min_float");
    duet::Queue q = dev.queue();
    for (std::size_t n : lengths_for(max)) {
      CAPTURE(n);
      auto rng = make_rng("max", n);
      const std::vector<float> x = random_floats(rng, n, -1000.0f, 1000.0f);
      duet::Buffer<float> dx(dev, n);
      q.write(dx, x);
      const float got_max = max.reduce<float>(q, dx), got_min = min.reduce<float>(q, dx);
      if (n == 0) {
        CHECK(got_max == -std::numeric_limits<float>::infinity());
        CHECK(got_min == std::numeric_limits<float>::infinity());
      } else {
        CHECK(got_max == *std::max_element(x.begin(), x.end()));
        CHECK(got_min == *std::min_element(x.begin(), x.end()));
      }
    }
  });
}

TEST_CASE("ReductionKernel: integer results, the index i, a scalar threshold") {
  for_each_device([](const duet::Device& dev) {
    // Every index counted exactly once: sum of i is n(n-1)/2.
    duet::ReductionKernel index_sum(dev, "ulong", "int x", "(ulong)i", "a + b", "0", "index_sum");
    duet::ReductionKernel int_sum(dev, "long", "int x", "(long)x * 1000003", "a + b", "0", "long_sum");
    duet::ReductionKernel count(dev, "uint", "int x, int t", "x > t ? 1u : 0u", "a + b", "0", "count_above");
    duet::ReductionKernel imax(dev, "int", "int x", "x", "a > b ? a : b", "-2147483647 - 1", "int_max");
    duet::Queue q = dev.queue();
    for (std::size_t n : lengths_for(index_sum)) {
      CAPTURE(n);
      auto rng = make_rng("int reductions", n);
      const std::vector<int> x = random_ints(rng, n, -2000000000, 2000000000);
      duet::Buffer<int> dx(dev, n);
      q.write(dx, x);
      std::int64_t want_sum = 0;
      std::uint32_t want_count = 0;
      int want_max = std::numeric_limits<int>::min();
      for (int v : x) {
        want_sum += static_cast<std::int64_t>(v) * 1000003;
        want_count += v > 12345 ? 1u : 0u;
        want_max = std::max(want_max, v);
      }
      CHECK(index_sum.reduce<std::uint64_t>(q, dx) == std::uint64_t(n) * (n ? n - 1 : 0) / 2);
      CHECK(int_sum.reduce<std::int64_t>(q, dx) == want_sum);
      CHECK(count.reduce<std::uint32_t>(q, dx, 12345) == want_count);
      CHECK(imax.reduce<int>(q, dx) == want_max);
    }
  });
}

TEST_CASE("ReductionKernel: L2 norm squared accumulated in double where supported") {
  for_each_device([](const duet::Device& dev) {
    if (!dev.info().supports_double) {
      MESSAGE("no double precision on " << device_label(dev) << ": skipped");
      return;
    }
    duet::ReductionKernel norm2(dev, "double", "float x", "(double)x * (double)x", "a + b", "0", "norm2");
    duet::ReductionKernel norm2_d(dev, "double", "double x", "x * x", "a + b", "0.0", "norm2_double");
    duet::Queue q = dev.queue();
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{257}, std::size_t{1000003}}) {
      CAPTURE(n);
      auto rng = make_rng("norm2", n);
      const std::vector<float> x = random_floats(rng, n);
      const std::vector<double> xd(x.begin(), x.end());
      long double want = 0;
      for (float v : x) want += static_cast<long double>(v) * v;
      duet::Buffer<float> dx(dev, n);
      duet::Buffer<double> dxd(dev, n);
      q.write(dx, x);
      q.write(dxd, xd);
      // Squares of floats are exact in double; the sum's rounding is at most n * 2^-53 relative.
      const double tol = (double(n) + 1) * std::ldexp(1.0, -53) * static_cast<double>(want) + 1e-300;
      CHECK(std::fabs(norm2.reduce<double>(q, dx) - static_cast<double>(want)) <= tol);
      CHECK(std::fabs(norm2_d.reduce<double>(q, dxd) - static_cast<double>(want)) <= tol);
    }
  });
}

TEST_CASE("ReductionKernel: async results on several queues, and more queues than scratch entries") {
  for_each_device([](const duet::Device& dev) {
    duet::ReductionKernel sum(dev, "int", "int x", "x", "a + b", "0", "int_sum_async");
    const std::size_t n = sum.single_pass_limit() + 17;  // two launches
    auto rng = make_rng("async", n);
    const std::vector<int> x = random_ints(rng, n, -1000, 1000);
    long long want = 0;
    for (int v : x) want += v;
    std::vector<duet::Queue> queues;
    for (int k = 0; k < 11; ++k) queues.push_back(dev.queue());
    duet::Buffer<int> dx(dev, n);
    queues[0].write(dx, x);
    queues[0].finish();
    // Eleven queues each enqueue three reductions before any of them is waited for.
    std::vector<duet::Buffer<int>> results;
    for (std::size_t k = 0; k < 3 * queues.size(); ++k) results.emplace_back(dev, 1);
    for (std::size_t k = 0; k < results.size(); ++k) {
      duet::Queue& q = queues[k % queues.size()];
      q.fill(results[k], -1);
      sum.reduce_into(q, results[k], dx);
    }
    for (std::size_t k = 0; k < results.size(); ++k) {
      CAPTURE(k);
      CHECK(queues[k % queues.size()].to_vector(results[k])[0] == want);
    }
    // A copy of the kernel shares its scratch and variants; a blocking call still agrees.
    const duet::ReductionKernel copy = sum;
    CHECK(copy.reduce<int>(queues[3], dx) == want);
  });
}

TEST_CASE("ReductionKernel: one launch and two give the same bits, call after call") {
  for_each_device([](const duet::Device& dev) {
    duet::ReductionKernel sum(dev, "float", "float x", "x", "a + b", "0", "sum_passes");
    duet::Queue q = dev.queue();
    const std::size_t limit = sum.single_pass_limit();
    auto rng = make_rng("passes");
    const std::vector<float> x = random_floats(rng, limit + 1);
    duet::Buffer<float> result(dev, 1);
    for (std::size_t n : {limit, limit + 1}) {
      CAPTURE(n);
      double want = 0, abs_sum = 0;
      for (std::size_t i = 0; i < n; ++i) want += x[i], abs_sum += std::fabs(x[i]);
      const std::vector<float> prefix(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n));
      duet::Buffer<float> dx(dev, n);
      q.write(dx, prefix);  // asynchronous: prefix outlives it
      // Within the bound of a pairwise sum over groups; the exact-sum test catches lost elements.
      const double depth = double(n) / double(sum.group_size()) + 64;
      std::vector<float> got;
      for (int call = 0; call < 5; ++call) {
        q.fill(result, kNaN);
        sum.reduce_into(q, result, dx);
        got.push_back(q.to_vector(result)[0]);
      }
      CHECK(std::fabs(got[0] - want) <= depth * kUnitRoundoff * abs_sum);
      // Whichever group finishes last, the partials are combined in one order.
      for (float g : got) CHECK(std::memcmp(&g, &got[0], sizeof g) == 0);
    }
  });
}

TEST_CASE("ReductionKernel: compile_ahead compiles the variants, and the first call compiles nothing") {
  for_each_device([](const duet::Device& dev) {
    duet::ReductionKernel dot(dev, "float", "float x, float w", "x * w", "a + b", "0", "dot_ahead");
    CHECK(dot.compiled_variants() == 0);
    dot.compile_ahead();  // both arrays
    CHECK(dot.compiled_variants() == 1);
    dot.compile_ahead({{A, A}, {A, S}});  // the first one again, and x an array, w a value
    CHECK(dot.compiled_variants() == 2);
    duet::Queue q = dev.queue();
    const std::size_t n = 4099;
    auto rng = make_rng("dot ahead", n);
    const std::vector<float> x = integer_floats(rng, n, -4, 4);
    duet::Buffer<float> dx(dev, n);
    q.write(dx, x);
    double want = 0;
    for (float v : x) want += 2.0 * v;
    CHECK(dot.reduce<float>(q, dx, 2.0f) == want);
    CHECK(dot.reduce<float>(q, dx, dx) >= 0.0f);
    CHECK(dot.compiled_variants() == 2);  // neither call compiled
    const duet::ReductionKernel copy = dot;
    CHECK(copy.compiled_variants() == 2);
    CHECK_THROWS_AS(dot.compile_ahead({S, S}), duet::ArgumentError);  // no array gives a length
    CHECK_THROWS_AS(dot.compile_ahead({A}), duet::ArgumentError);
    duet::ReductionKernel broken(dev, "float", "float x", "x + nope_17", "a + b", "0", "broken_ahead");
    CHECK_THROWS_AS(broken.compile_ahead(), duet::CompileError);
  });
}

TEST_CASE("ReductionKernel: bad calls are ArgumentError or BufferSizeError; bad expressions CompileError") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::ReductionKernel dot(dev, "float", "float x, float y", "x * y", "a + b", "0", "dot_checked");
    duet::Buffer<float> x(dev, 100), y(dev, 100), y99(dev, 99), empty_result(dev, 0), result(dev, 1);
    duet::Buffer<int> xi(dev, 100), int_result(dev, 1);
    q.fill(x, 1.0f);
    q.fill(y, 2.0f);

    const auto size = EXPECT_ERROR(duet::BufferSizeError, dot.reduce<float>(q, x, y99));
    if (size) {
      CHECK_CONTAINS(size->what(), "x has 100");
      CHECK_CONTAINS(size->what(), "y has 99");
    }
    CHECK_THROWS_AS(dot.reduce<float>(q, x), duet::ArgumentError);
    CHECK_THROWS_AS(dot.reduce<float>(q, xi, y), duet::ArgumentError);
    auto e = EXPECT_ERROR(duet::ArgumentError, dot.reduce<float>(q, 1.0f, 2.0f));  // no array: no length
    if (e) CHECK_CONTAINS(e->what(), "at least one");
    e = EXPECT_ERROR(duet::ArgumentError, dot.reduce<double>(q, x, y));
    if (e) CHECK_CONTAINS(e->what(), "reduce<float>");
    CHECK_THROWS_AS(dot.reduce_into(q, int_result, x, y), duet::ArgumentError);
    CHECK_THROWS_AS(dot.reduce_into(q, empty_result, x, y), duet::BufferSizeError);

    struct Case {
      const char* map;
      const char* reduce;
      const char* identity;
      const char* file;
      const char* in_log;
    };
    const Case cases[] = {
        {"x * undeclared_map_81", "a + b", "0", "bad_expr.map", "undeclared_map_81"},
        {"x", "a + undeclared_reduce_82", "0", "bad_expr.reduce", "undeclared_reduce_82"},
        {"x", "a + b", "undeclared_identity_83", "bad_expr.identity", "undeclared_identity_83"},
        {"(x + 1", "a + b", "0", "bad_expr.map", ""},
    };
    for (const Case& c : cases) {
      CAPTURE(std::string(c.map));
      CAPTURE(std::string(c.reduce));
      duet::ReductionKernel bad(dev, "float", "float x", c.map, c.reduce, c.identity, "bad_expr");
      const auto ce = EXPECT_ERROR(duet::CompileError, bad.reduce<float>(q, x));
      if (!ce) continue;
      CHECK(ce->source_name() == c.file);
      CHECK(ce->line() == 1);
      CHECK_CONTAINS(ce->log(), c.in_log);
    }
    // Still usable.
    CHECK(dot.reduce<float>(q, x, y) == 200.0f);
    dot.reduce_into(q, result, x, y);
    CHECK(q.to_vector(result)[0] == 200.0f);
  });
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("ReductionKernel: malformed definitions are ArgumentError") {
  struct Case {
    const char* result;
    const char* inputs;
    const char* map;
    const char* reduce;
    const char* identity;
    const char* message;
  };
  const Case cases[] = {
      {"float", "float x", "x", "a + b", "", "the identity"},
      {"float", "float x", "x", "a + b", "  ", "the identity"},
      {"float", "float x", "", "a + b", "0", "the map expression is empty"},
      {"float", "float x", "x", "", "0", "the reduce expression is empty"},
      {"", "float x", "x", "a + b", "0", "the result type is empty"},
      {"flaot", "float x", "x", "a + b", "0", "unknown type 'flaot' (did you mean 'float'?)"},
      {"float*", "float x", "x", "a + b", "0", "pointer"},
      {"float", "", "1", "a + b", "0", "inputs is empty"},
      {"float", "float x y", "x", "a + b", "0", "more than one name"},
      {"float", "float x, float x", "x", "a + b", "0", "more than one parameter"},
      {"float", "flaot x", "x", "a + b", "0", "unknown type"},
      {"float", "float i", "i", "a + b", "0", "reserved"},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.result));
    CAPTURE(std::string(c.inputs));
    const auto e = EXPECT_ERROR(duet::ArgumentError,
                                duet::ReductionKernel::generate_source(c.result, c.inputs, c.map, c.reduce,
                                                                       c.identity, "r", {A}, 256));
    if (e) CHECK_CONTAINS(std::string(e->what()), c.message);
  }
  CHECK_THROWS_AS(
      duet::ReductionKernel::generate_source("float", "float x", "x", "a + b", "0", "r", {S}, 256),
      duet::ArgumentError);  // no array input
  CHECK_THROWS_AS(duet::ReductionKernel::generate_source("float", "float x", "x", "a + b", "0", "r", {A}, 96),
                  duet::ArgumentError);  // group size not a power of two
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("ReductionKernel sources compile for sm_90 with NVRTC") {
  struct Case {
    const char* result;
    const char* inputs;
    const char* map;
    const char* reduce;
    const char* identity;
    std::vector<ArgKind> kinds;
  };
  const Case cases[] = {
      {"float", "float x", "x", "a + b", "0", {A}},
      {"float", "float x, float y", "x * y", "a + b", "0", {A, A}},
      {"float", "float x, float w", "x * w", "a + b", "0", {A, S}},
      {"float", "float x", "x", "fmax(a, b)", "-INFINITY", {A}},
      {"double", "float x", "(double)x * x", "a + b", "0", {A}},
      {"ulong", "int x", "(ulong)i", "a + b", "0", {A}},
      {"int", "int x, int t", "x > t ? 1 : 0", "a + b", "0", {A, S}},
      {"long", "long x", "x", "a > b ? a : b", "-9223372036854775807L - 1", {A}},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.result));
    CAPTURE(std::string(c.map));
    for (const auto& group_kind : {std::pair{std::size_t{64}, duet::DeviceKind::gpu},
                                   std::pair{std::size_t{256}, duet::DeviceKind::gpu},
                                   std::pair{std::size_t{1024}, duet::DeviceKind::cpu}}) {
      // Not bindings: CAPTURE's lambda takes them.
      const std::size_t group = group_kind.first;
      const duet::DeviceKind kind = group_kind.second;
      CAPTURE(group);
      CAPTURE(duet::to_string(kind));
      const std::string src = duet::ReductionKernel::generate_source(
          c.result, c.inputs, c.map, c.reduce, c.identity, "generated", c.kinds, group, {}, kind);
      try {
        CHECK(duet::compile_for_cuda_arch(src, {}, "sm_90", "generated.reduction") > 0);
      } catch (const duet::CompileError& e) {
        FAIL_CHECK("NVRTC rejected the generated source:\n" << src << "\n" << e.log());
      }
    }
  }
}

TEST_SUITE_END();
