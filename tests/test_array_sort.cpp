// sort, argsort and searchsorted of duet::Arrays on every device against std::stable_sort on the
// host: every key type, awkward lengths (0, 1, primes, one off each of the sort's tiles), many
// duplicates, NaN, +-inf and -0.0, both orders (stable descending too), along each axis of a matrix
// and of a transposed view, many short rows (the row passes), and the kernels through NVRTC.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::ScalarType;
using duet::Shape;

template <class T>
double value_of(T x) {
  if constexpr (std::is_same_v<T, duet::half>)
    return x.to_float();
  else
    return static_cast<double>(x);
}

// The order duet sorts in: NaN after everything, -0 == +0 (std::stable_sort with this is the
// reference); descending is the reverse order, still stable.
template <class T>
bool before(T a, T b, bool descending) {
  if constexpr (std::is_integral_v<T>) {
    return descending ? b < a : a < b;
  } else {
    double x = value_of(a), y = value_of(b);
    if (descending) std::swap(x, y);
    if (std::isnan(x)) return false;
    return std::isnan(y) || x < y;
  }
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return a == b;
  } else {
    const double x = value_of(a), y = value_of(b);
    return (std::isnan(x) && std::isnan(y)) || x == y;
  }
}

// n values of T with many duplicates (few distinct values) or spread, and for floats the special
// values mixed in.
template <class T>
std::vector<T> keys_of(std::mt19937_64& rng, std::size_t n, bool duplicates) {
  std::vector<T> v(n);
  std::uniform_int_distribution<int> small(-20, 20);
  std::uniform_int_distribution<std::uint64_t> bits;
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      if (duplicates) {
        v[i] = static_cast<T>(small(rng));
      } else {
        const std::uint64_t b = bits(rng);
        std::memcpy(&v[i], &b, sizeof(T));
      }
    } else {
      const double x =
          duplicates ? small(rng) * 0.5 : std::ldexp(double(std::int64_t(bits(rng) >> 11)), -40) - 4096.0;
      double special = x;
      switch (bits(rng) % 16) {
        case 0:
          special = std::numeric_limits<double>::quiet_NaN();
          break;
        case 1:
          special = -0.0;
          break;
        case 2:
          special = 0.0;
          break;
        case 3:
          special = std::numeric_limits<double>::infinity();
          break;
        case 4:
          special = -std::numeric_limits<double>::infinity();
          break;
        case 5:
          special = -std::numeric_limits<double>::quiet_NaN();
          break;
        default:
          break;
      }
      if constexpr (std::is_same_v<T, duet::half>)
        v[i] = duet::half::from_float(float(special));
      else
        v[i] = static_cast<T>(special);
    }
  }
  return v;
}

// sort and argsort of rows of length `run` (the last axis) of a 1-D or 2-D array against the host.
template <class T>
void check_rows(duet::Queue& q, const std::vector<T>& v, const Shape& shape, bool descending,
                const std::string& what) {
  INFO(what, ", ", duet::shape_text(shape), descending ? ", descending" : ", ascending");
  const Array a = duet::from_host<T>(q, v, shape);
  const std::vector<T> sorted = duet::sort(q, a, -1, descending).template to_vector<T>(q);
  const std::vector<std::int64_t> order =
      duet::argsort(q, a, -1, descending).template to_vector<std::int64_t>(q);
  const std::size_t run = shape.empty() ? 1 : shape.back();
  REQUIRE(sorted.size() == v.size());
  REQUIRE(order.size() == v.size());
  std::size_t wrong_values = 0, wrong_order = 0;
  for (std::size_t r = 0; run && r < v.size() / run; ++r) {
    std::vector<std::int64_t> want(run);
    std::iota(want.begin(), want.end(), 0);
    std::stable_sort(want.begin(), want.end(), [&](std::int64_t x, std::int64_t y) {
      return before(v[r * run + x], v[r * run + y], descending);
    });
    for (std::size_t i = 0; i < run; ++i) {
      wrong_order += order[r * run + i] != want[i];
      wrong_values += !same_value(sorted[r * run + i], v[r * run + want[i]]);
    }
  }
  CHECK(wrong_order == 0);
  CHECK(wrong_values == 0);
}

template <class T>
void check_type(duet::Queue& q, const char* name) {
  INFO(name);
  auto rng = make_rng(std::string("array sort ") + name);
  // Around each tile the sort uses (one launch a pass with the counting ranking: 1280, 1536, 2560
  // and 4096 elements, by key and index width; with the warp ranking: 2560, 3584 and 5120; three
  // launches: 1024, 1280, 2048 and 4096), and a prime over several tiles, where stability across
  // tiles shows in argsort's order. Each length takes two of the four kinds of input (duplicates or
  // spread, either order), the next length the other two.
  const std::size_t lengths[] = {0,    1,    2,    97,   1023, 1025, 1279, 1281, 1535, 1537,  2047, 2049,
                                 2559, 2561, 3583, 3585, 4095, 4096, 4097, 5119, 5121, 10007, 12289};
  for (std::size_t i = 0; i < std::size(lengths); ++i)
    for (bool duplicates : {true, false}) {
      const bool descending = duplicates == (i % 2 == 1);
      check_rows<T>(q, keys_of<T>(rng, lengths[i], duplicates), {lengths[i]}, descending,
                    duplicates ? "duplicates" : "spread");
    }
  // Rows: a few long ones over two tiles, and 300 short ones (three passes over the row's bits).
  check_rows<T>(q, keys_of<T>(rng, 3 * 5003, true), {3, 5003}, false, "3 rows");
  check_rows<T>(q, keys_of<T>(rng, 300 * 7, false), {300, 7}, true, "300 rows");
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("array sort and argsort: every key type against std::stable_sort") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    check_type<std::int8_t>(q, "int8");
    check_type<std::uint8_t>(q, "uint8");
    check_type<std::int16_t>(q, "int16");
    check_type<std::uint16_t>(q, "uint16");
    check_type<std::int32_t>(q, "int32");
    check_type<std::uint32_t>(q, "uint32");
    check_type<std::int64_t>(q, "int64");
    check_type<std::uint64_t>(q, "uint64");
    check_type<duet::half>(q, "float16");
    check_type<float>(q, "float32");
    check_type<double>(q, "float64");  // sorted as bits: no double arithmetic needed
  });
}

// A queue keeps the sort's temporary memory for its next sort: sorts and argsorts enqueued back to
// back on two queues, larger and smaller in turn, read only once all are enqueued.
TEST_CASE("array sort: sorts in a row on two queues, read after the last is enqueued") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q1 = dev.queue(), q2 = dev.queue();
    auto rng = make_rng("array sort in a row");
    const std::size_t lengths[] = {40009, 1, 5121, 65537, 3583, 40009};
    std::vector<std::vector<float>> inputs;
    std::vector<Array> sorted, order;
    for (std::size_t i = 0; i < std::size(lengths); ++i) {
      duet::Queue& q = i % 3 == 2 ? q2 : q1;
      inputs.push_back(keys_of<float>(rng, lengths[i], i % 2 == 0));
      const Array a = duet::from_host<float>(q, inputs.back(), {lengths[i]});
      sorted.push_back(duet::sort(q, a));
      order.push_back(duet::argsort(q, a));
    }
    for (std::size_t i = 0; i < std::size(lengths); ++i) {
      INFO("sort ", i, " of ", lengths[i], " elements");
      duet::Queue& q = i % 3 == 2 ? q2 : q1;
      const std::vector<float>& v = inputs[i];
      std::vector<std::int64_t> want(v.size());
      std::iota(want.begin(), want.end(), 0);
      std::stable_sort(want.begin(), want.end(),
                       [&](std::int64_t x, std::int64_t y) { return before(v[x], v[y], false); });
      const std::vector<float> got = sorted[i].to_vector<float>(q);
      const std::vector<std::int64_t> got_order = order[i].to_vector<std::int64_t>(q);
      std::size_t wrong_values = 0, wrong_order = 0;
      for (std::size_t k = 0; k < v.size(); ++k) {
        wrong_values += !same_value(got[k], v[want[k]]);
        wrong_order += got_order[k] != want[k];
      }
      CHECK(wrong_values == 0);
      CHECK(wrong_order == 0);
    }
  });
}

// Sets environment variable `name` to `value` (unset where null) for the object's life.
struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() { unsetenv(name); }
};

TEST_CASE("array sort: the three-launch scheme and small one-sweep tiles; the knobs' errors") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array sort schemes");
    // One kernel variant each (float32 argsort, descending), so that few compiles are added: the
    // three-launch scheme around its tile and over several, and one-sweep tiles of 256 elements,
    // where a prime makes 49 tiles whose look-back runs over many predecessors; -0, NaN included.
    for (const char* scheme : {"0", "1"}) {
      const ScopedEnv sweep("DUET_SORT_ONESWEEP", scheme);
      const ScopedEnv items("DUET_SORT_ITEMS", scheme[0] == '1' ? "1" : nullptr);
      CAPTURE(scheme);
      for (std::size_t n : {0, 1, 255, 257, 1279, 1281, 12289}) {
        const std::vector<float> v = keys_of<float>(rng, n, n % 2 == 1);
        const std::vector<std::int64_t> order =
            duet::argsort(q, duet::from_host<float>(q, v, {n}), -1, true).to_vector<std::int64_t>(q);
        std::vector<std::int64_t> want(n);
        std::iota(want.begin(), want.end(), 0);
        std::stable_sort(want.begin(), want.end(),
                         [&](std::int64_t x, std::int64_t y) { return before(v[x], v[y], true); });
        CHECK(order == want);
      }
    }
    {
      const ScopedEnv bad("DUET_SORT_ONESWEEP", "yes");
      const auto err = EXPECT_ERROR(duet::ArgumentError, duet::sort(q, duet::zeros(q, {4})));
      if (err) CHECK_CONTAINS(err->what(), "DUET_SORT_ONESWEEP is 'yes'");
    }
    {
      const ScopedEnv bad("DUET_SORT_RANK", "bitonic");
      CHECK_THROWS_AS(duet::sort(q, duet::zeros(q, {4})), duet::ArgumentError);
    }
    {
      const ScopedEnv bad("DUET_SORT_ITEMS", "200");
      const auto err = EXPECT_ERROR(duet::ArgumentError, duet::sort(q, duet::zeros(q, {4})));
      if (err) CHECK_CONTAINS(err->what(), "DUET_SORT_ITEMS is 200");
    }
  });
}

TEST_CASE("array sort: along each axis of a matrix and of views; errors") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array sort axes");
    const std::size_t R = 37, C = 53;
    const std::vector<float> m = keys_of<float>(rng, R * C, true);
    const Array M = duet::from_host<float>(q, m, {R, C});
    for (const Array& view : {M, M.T(), M.index({duet::Slice{std::nullopt, std::nullopt, -2}})}) {
      const std::vector<float> values = through_layout<float>(m, view.layout());
      for (std::int64_t axis : {0, 1, -1}) {
        const std::size_t k = axis < 0 ? 1 : std::size_t(axis);
        const Array s = duet::sort(q, view, axis);
        const Array o = duet::argsort(q, view, axis, true);
        CHECK(s.shape() == view.shape());
        CHECK(o.shape() == view.shape());
        const std::vector<float> got = s.to_vector<float>(q);
        const std::vector<std::int64_t> order = o.to_vector<std::int64_t>(q);
        const std::size_t rows = view.shape()[0], cols = view.shape()[1];
        const std::size_t lines = k == 0 ? cols : rows, len = k == 0 ? rows : cols;
        std::size_t wrong = 0;
        for (std::size_t l = 0; l < lines; ++l) {
          auto at = [&](std::size_t i) { return k == 0 ? i * cols + l : l * cols + i; };
          std::vector<std::int64_t> asc(len), desc(len);
          std::iota(asc.begin(), asc.end(), 0);
          std::iota(desc.begin(), desc.end(), 0);
          std::stable_sort(asc.begin(), asc.end(), [&](std::int64_t x, std::int64_t y) {
            return before(values[at(x)], values[at(y)], false);
          });
          std::stable_sort(desc.begin(), desc.end(), [&](std::int64_t x, std::int64_t y) {
            return before(values[at(x)], values[at(y)], true);
          });
          for (std::size_t i = 0; i < len; ++i) {
            wrong += !same_value(got[at(i)], values[at(asc[i])]);
            wrong += order[at(i)] != desc[i];
          }
        }
        CHECK(wrong == 0);
      }
    }
    const auto err = EXPECT_ERROR(duet::ArgumentError, duet::sort(q, M, 2));
    if (err) CHECK_CONTAINS(err->what(), "axis 2 is out of range");
    CHECK_THROWS_AS(duet::argsort(q, duet::full(q, {}, 1.0)), duet::ArgumentError);
    CHECK(duet::sort(q, duet::zeros(q, {0, 4}), 0).shape() == Shape{0, 4});
  });
}

TEST_CASE("array searchsorted: both sides against std::lower_bound and upper_bound") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array searchsorted");
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}}) {
      std::vector<float> hay = keys_of<float>(rng, n, true);
      std::stable_sort(hay.begin(), hay.end(), [](float x, float y) { return before(x, y, false); });
      const std::vector<float> needles = keys_of<float>(rng, 517, true);
      const Array H = duet::from_host<float>(q, hay, {n});
      const Array N = duet::from_host<float>(q, needles, {11, 47});
      for (bool right : {false, true}) {
        const Array p = duet::searchsorted(q, H, N, right);
        CHECK(p.shape() == Shape{11, 47});
        const std::vector<std::int64_t> got = p.to_vector<std::int64_t>(q);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < needles.size(); ++i) {
          const auto less = [](float x, float y) { return before(x, y, false); };
          const auto at = right ? std::upper_bound(hay.begin(), hay.end(), needles[i], less)
                                : std::lower_bound(hay.begin(), hay.end(), needles[i], less);
          wrong += got[i] != at - hay.begin();
        }
        CHECK(wrong == 0);
      }
    }
    const Array ints = duet::zeros(q, {4}, ScalarType::i32);
    CHECK_THROWS_AS(duet::searchsorted(q, ints, duet::zeros(q, {4})), duet::ArgumentError);
  });
}

TEST_SUITE_END();
TEST_SUITE_BEGIN("nvrtc");

TEST_CASE("array sort compiles for sm_90 for every key type") {
  // A key type changes the key's bit transform and a value array the payload's moves; each compile
  // takes NVRTC half a second, so the default scheme (the one sweep) compiles every type once, sort
  // and argsort in turn (float32 both ways), and the three launches one type of each width and kind.
  for (std::size_t i = 0; i < duet::scalar_types.size(); ++i) {
    const ScalarType t = duet::scalar_types[i];
    for (bool values : {false, true})
      if (values == (i % 2 == 1) || t == ScalarType::f32) {
        INFO(std::string(duet::to_string(t)), values ? " with values" : "");
        CHECK(duet::compile_for_cuda_arch(duet::sort_source(t, values, true), {}, "sm_90", "sort.duet") > 0);
      }
  }
  {
    const ScopedEnv three("DUET_SORT_ONESWEEP", "0");
    const ScalarType three_types[] = {ScalarType::b8,  ScalarType::i8,  ScalarType::f16, ScalarType::bf16,
                                      ScalarType::f32, ScalarType::i32, ScalarType::f64, ScalarType::u64};
    for (std::size_t i = 0; i < std::size(three_types); ++i) {
      INFO(std::string(duet::to_string(three_types[i])), i % 2 ? " with values" : "", ", three launches");
      CHECK(duet::compile_for_cuda_arch(duet::sort_source(three_types[i], i % 2 == 1, true), {}, "sm_90",
                                        "sort.duet") > 0);
    }
  }
  // The portable ranking, which DUET_SORT_RANK=counting selects on NVIDIA devices too.
  const ScopedEnv rank("DUET_SORT_RANK", "counting");
  CHECK(duet::compile_for_cuda_arch(duet::sort_source(ScalarType::f32, true, false), {}, "sm_90",
                                    "sort.duet") > 0);
}

TEST_SUITE_END();
