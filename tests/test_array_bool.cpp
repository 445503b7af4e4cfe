// The bool dtype (ScalarType::b8) of duet::Array on every device, against host references on random
// inputs of awkward shapes (0-d, empty, one element, prime extents, broadcast rows, reversed and
// stepped views): creation and reading back, conversion to and from every type (x != 0, NaN true;
// 0 and 1 back), comparisons and logical functions giving bool, & | ^ ~ on bools as logical
// operations, promotion (bool yields to every other type, a plain int makes a bool array int64),
// where, reductions (any and all give bool, sum counts), scans, nonzero, take and put, sort, and the
// errors. The generated kernels compile for sm_90 through NVRTC where NVRTC is present.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::Expr;
using duet::ScalarType;
using duet::Slice;
constexpr std::nullopt_t none = std::nullopt;

std::vector<bool> random_bools(std::mt19937_64& rng, std::size_t n) {
  std::vector<bool> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = (rng() & 1) != 0;
  return v;
}

// A bool array from the host (from_host takes contiguous memory, which std::vector<bool> is not).
Array bools(duet::Queue& q, const std::vector<bool>& v, const duet::Shape& shape) {
  const std::unique_ptr<bool[]> bytes(new bool[std::max<std::size_t>(v.size(), 1)]);
  std::copy(v.begin(), v.end(), bytes.get());
  return duet::from_host<bool>(q, duet::Span<const bool>(bytes.get(), v.size()), shape);
}

// The kernel of `e` writing `out` compiles for CUDA, where NVRTC can be loaded (it needs no GPU).
void compiles_for_cuda(const Expr& e, ScalarType out) {
  if (!offline_nvrtc_checks()) return;
  std::size_t bytes = 0;
  try {
    bytes =
        std::min(duet::compile_for_cuda_arch(duet::fused_source(e, out, true), {}, "sm_90", "fused.duet"),
                 duet::compile_for_cuda_arch(duet::fused_source(e, out, false), {}, "sm_90", "fused.duet"));
  } catch (const duet::BackendUnavailableError&) {
    return;
  }
  CHECK(bytes > 0);
}

// The bools of a random (7, 2 * 13) matrix's reversed, stepped view and of a (7, 13) matrix, with
// their host copies in C order: the operands of the elementwise checks.
struct Operands {
  Array a, b;
  std::vector<bool> ha, hb;
};
Operands strided_operands(duet::Queue& q, std::mt19937_64& rng) {
  const std::size_t rows = 7, cols = 13;
  const std::vector<bool> wide = random_bools(rng, rows * 2 * cols), m = random_bools(rng, rows * cols);
  Operands o;
  o.a = bools(q, wide, {rows, 2 * cols}).index({Slice{none, none, -1}, Slice{none, none, 2}});
  o.b = bools(q, m, {rows, cols});
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) o.ha.push_back(wide[(rows - 1 - r) * 2 * cols + 2 * c]);
  o.hb = m;
  return o;
}

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("bool arrays: promotion with bool") {
  using T = ScalarType;
  CHECK(duet::promote_types(T::b8, T::b8) == T::b8);
  for (T t : duet::scalar_types) {
    CHECK(duet::promote_types(T::b8, t) == t);
    CHECK(duet::promote_types(t, T::b8) == t);
  }
  // Plain numbers: a bool keeps bool, an int makes int64, a float float64.
  const Expr t = Expr::scalar(true), one = Expr::scalar(1), half = Expr::scalar(0.5);
  CHECK(t.dtype() == T::b8);
  CHECK((t & Expr::scalar(false)).dtype() == T::b8);
  CHECK((t + one).dtype() == T::i64);
  CHECK((t + half).dtype() == T::f64);
  CHECK((one < half).dtype() == T::b8);
  CHECK(duet::logical_not(one).dtype() == T::b8);
  CHECK(duet::isfinite(half).dtype() == T::b8);
}

TEST_SUITE_END();
TEST_SUITE_BEGIN("device");

TEST_CASE("bool arrays: creation and reading back, at awkward shapes") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("bool create");
    for (const duet::Shape& shape : awkward_shapes()) {
      CAPTURE(duet::shape_text(shape));
      const std::size_t n = duet::element_count(shape);
      const std::vector<bool> v = random_bools(rng, n);
      const Array B = bools(q, v, shape);
      CHECK(B.dtype() == ScalarType::b8);
      CHECK(B.itemsize() == 1);
      CHECK(B.to_vector<bool>(q) == v);
      CHECK(duet::zeros(q, shape, ScalarType::b8).to_vector<bool>(q) == std::vector<bool>(n, false));
      CHECK(duet::ones(q, shape, ScalarType::b8).to_vector<bool>(q) == std::vector<bool>(n, true));
      // full takes the value's truth, NaN true.
      CHECK(duet::full(q, shape, -0.25, ScalarType::b8).to_vector<bool>(q) == std::vector<bool>(n, true));
      CHECK(duet::full(q, shape, std::nan(""), ScalarType::b8).to_vector<bool>(q) ==
            std::vector<bool>(n, true));
      // Stored as bytes 0 and 1.
      std::vector<std::uint8_t> bytes(n);
      B.read_into(q, bytes.data());
      q.finish();
      for (std::size_t i = 0; i < n; ++i) CHECK(bytes[i] == (v[i] ? 1 : 0));
    }
    CHECK_THROWS_AS(duet::arange(q, 0, 3, 1, ScalarType::b8), duet::ArgumentError);
    CHECK_THROWS_AS(duet::linspace(q, 0, 1, 3, true, ScalarType::b8), duet::ArgumentError);
    CHECK_THROWS_AS(bools(q, {true}, {1}).to_vector<std::uint8_t>(q), duet::ArgumentError);
  });
}

TEST_CASE("bool arrays: astype to and from every type") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("bool astype");
    const bool fp64 = dev.info().supports_double;
    // Small whole numbers, many zeros, so every type holds them exactly; a reversed view.
    const std::vector<int> ints = random_ints(rng, 2 * 31, -3, 3);
    const Array I =
        duet::from_host<std::int32_t>(q, std::vector<std::int32_t>(ints.begin(), ints.end()), {2, 31})
            .index({Slice{none, none, -1}, Slice{none, none, -1}});
    std::vector<bool> want;
    for (std::size_t k = ints.size(); k-- > 0;) want.push_back(ints[k] != 0);
    for (ScalarType t : duet::scalar_types) {
      if (t == ScalarType::f64 && !fp64) continue;
      CAPTURE(std::string(duet::to_string(t)));
      const Array X = duet::evaluate(q, duet::astype(I, t));
      const Expr to_bool = duet::astype(X, ScalarType::b8);
      CHECK(to_bool.dtype() == ScalarType::b8);
      const Array B = duet::evaluate(q, to_bool);
      CHECK(B.to_vector<bool>(q) == want);
      // And back: 0 and 1 of t.
      const Array back = duet::evaluate(q, duet::astype(duet::astype(B, t), ScalarType::f32));
      const std::vector<float> got = back.to_vector<float>(q);
      for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == (want[i] ? 1.0f : 0.0f));
      compiles_for_cuda(duet::astype(X, ScalarType::b8), ScalarType::b8);
      compiles_for_cuda(duet::astype(B, t), t);
    }
    // Floats: the truth, not a truncation (0.25 is true), NaN and the infinities true, -0 false.
    const std::vector<float> f = {0.25f, -0.0f, 0.0f, kNaN, INFINITY, -INFINITY, -1e-30f};
    const Array F = duet::from_host<float>(q, f, {f.size()});
    CHECK(duet::evaluate(q, duet::astype(F, ScalarType::b8)).to_vector<bool>(q) ==
          std::vector<bool>{true, false, false, true, true, true, true});
    // Assigning into a bool array converts the same way.
    const Array out = duet::zeros(q, {f.size()}, ScalarType::b8);
    duet::assign(q, out, F * 2.0f);
    CHECK(out.to_vector<bool>(q) == std::vector<bool>{true, false, false, true, true, true, true});
  });
}

TEST_CASE("bool arrays: comparisons, logical and bitwise operations on views and broadcast rows") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("bool logic");
    const Operands o = strided_operands(q, rng);
    const std::size_t n = o.ha.size(), cols = 13;
    struct Case {
      const char* name;
      Expr e;
      bool (*host)(bool, bool);
    };
    const Array row = o.b[3];  // broadcast over the rows
    const Case cases[] = {
        {"&", o.a & o.b, [](bool x, bool y) { return x && y; }},
        {"|", o.a | o.b, [](bool x, bool y) { return x || y; }},
        {"^", o.a ^ o.b, [](bool x, bool y) { return x != y; }},
        {"~", ~Expr(o.a), [](bool x, bool) { return !x; }},
        {"logical_and", duet::logical_and(o.a, o.b), [](bool x, bool y) { return x && y; }},
        {"logical_or", duet::logical_or(o.a, o.b), [](bool x, bool y) { return x || y; }},
        {"logical_xor", duet::logical_xor(o.a, o.b), [](bool x, bool y) { return x != y; }},
        {"logical_not", duet::logical_not(o.a), [](bool x, bool) { return !x; }},
        {"==", o.a == o.b, [](bool x, bool y) { return x == y; }},
        {"!=", o.a != o.b, [](bool x, bool y) { return x != y; }},
        {"<", o.a < o.b, [](bool x, bool y) { return x < y; }},
        {">=", o.a >= o.b, [](bool x, bool y) { return x >= y; }},
        // numpy's + and * on bools: or and and, so a sum of two trues is still true (1), not 2.
        {"+", o.a + o.b, [](bool x, bool y) { return x || y; }},
        {"*", o.a * o.b, [](bool x, bool y) { return x && y; }},
        {"(+) == 1", (o.a + o.b) == 1, [](bool x, bool y) { return x || y; }},
        {"maximum", duet::maximum(o.a, o.b), [](bool x, bool y) { return x || y; }},
        {"minimum", duet::minimum(o.a, o.b), [](bool x, bool y) { return x && y; }},
        {"& true", o.a & true, [](bool x, bool) { return x; }},
        {"^ true", o.a ^ true, [](bool x, bool) { return !x; }},
        {"isnan", duet::isnan(o.a), [](bool, bool) { return false; }},
        {"isfinite", duet::isfinite(o.a), [](bool, bool) { return true; }},
        {"signbit", duet::signbit(o.a), [](bool, bool) { return false; }},
    };
    for (const Case& c : cases) {
      CAPTURE(c.name);
      CHECK(c.e.dtype() == ScalarType::b8);
      const Array out = duet::full(q, c.e.shape(), 1, ScalarType::b8);
      duet::assign(q, out, c.e);
      const std::vector<bool> got = out.to_vector<bool>(q);
      REQUIRE(got.size() == n);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < n; ++i) bad += got[i] != c.host(o.ha[i], o.hb[i]);
      CHECK(bad == 0);
      // The bytes are 0 and 1, never another truth value.
      std::vector<std::uint8_t> bytes(n);
      out.read_into(q, bytes.data());
      q.finish();
      CHECK(std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b <= 1; }));
      compiles_for_cuda(c.e, ScalarType::b8);
    }
    // A broadcast row.
    const std::vector<bool> got = duet::evaluate(q, o.a ^ row).to_vector<bool>(q);
    for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == (o.ha[i] != o.hb[3 * cols + i % cols]));
    // numpy refuses - on bools.
    CHECK_THROWS_AS(o.a - o.b, duet::ArgumentError);
    CHECK_THROWS_AS(-Expr(o.a), duet::ArgumentError);
  });
}

TEST_CASE("bool arrays: promotion and arithmetic with other types, where") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("bool promote");
    const std::size_t n = 61;
    const std::vector<bool> hb = random_bools(rng, n);
    const std::vector<int> hi = random_ints(rng, n, -50, 50);
    const std::vector<float> hf = random_floats(rng, n);
    const Array B = bools(q, hb, {n});
    const Array I = duet::from_host<std::int32_t>(q, std::vector<std::int32_t>(hi.begin(), hi.end()), {n});
    const Array F = duet::from_host<float>(q, hf, {n});
    const Array U = duet::evaluate(q, duet::astype(I, ScalarType::u8));
    CHECK((B + I).dtype() == ScalarType::i32);
    CHECK((B * F).dtype() == ScalarType::f32);
    CHECK((B + U).dtype() == ScalarType::u8);
    CHECK((B + 1).dtype() == ScalarType::i64);  // as numpy's: a plain int makes a bool array int64
    CHECK((B | true).dtype() == ScalarType::b8);
    CHECK((B & I).dtype() == ScalarType::i32);
    CHECK(duet::floor_divide(B, B).dtype() == ScalarType::i8);
    CHECK(duet::sqrt(B).dtype() == ScalarType::f16);
    const std::vector<std::int32_t> sum = duet::evaluate(q, B + I).to_vector<std::int32_t>(q);
    const std::vector<float> prod = duet::evaluate(q, B * F).to_vector<float>(q);
    const std::vector<std::int64_t> plus = duet::evaluate(q, B + 1).to_vector<std::int64_t>(q);
    const std::vector<std::int32_t> masked = duet::evaluate(q, B & I).to_vector<std::int32_t>(q);
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(sum[i] == hi[i] + (hb[i] ? 1 : 0));
      CHECK(prod[i] == (hb[i] ? hf[i] : 0.0f));
      CHECK(plus[i] == (hb[i] ? 2 : 1));
      CHECK(masked[i] == (hi[i] & (hb[i] ? 1 : 0)));
    }
    // where with a bool condition, broadcast against a column.
    const Array C = bools(q, std::vector<bool>(hb.begin(), hb.begin() + 5), {5, 1});
    const Expr w = duet::where(C, I, F);
    CHECK(w.dtype() == ScalarType::f64);  // int32 with float32, as numpy
    if (dev.info().supports_double) {
      const std::vector<double> got = duet::evaluate(q, w).to_vector<double>(q);
      for (std::size_t r = 0; r < 5; ++r)
        for (std::size_t i = 0; i < n; ++i) CHECK(got[r * n + i] == (hb[r] ? double(hi[i]) : double(hf[i])));
    }
    const std::vector<float> picked = duet::evaluate(q, duet::where(B > I, F, 2.0f)).to_vector<float>(q);
    for (std::size_t i = 0; i < n; ++i) CHECK(picked[i] == ((hb[i] ? 1 : 0) > hi[i] ? hf[i] : 2.0f));
  });
}

TEST_CASE("bool arrays: reductions, scans, nonzero, take, put and sort") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("bool reduce");
    for (const duet::Shape& shape :
         {duet::Shape{1, 1}, duet::Shape{3, 0}, duet::Shape{5, 97}, duet::Shape{31, 7}}) {
      CAPTURE(duet::shape_text(shape));
      const std::size_t rows = shape[0], cols = shape[1], n = rows * cols;
      const std::vector<bool> v = random_bools(rng, n);
      const Array B = bools(q, v, shape);
      const Array T = B.T();  // a transposed view
      std::size_t count = 0;
      for (bool x : v) count += x;
      CHECK(duet::any(q, B).dtype() == ScalarType::b8);
      CHECK(duet::all(q, B).dtype() == ScalarType::b8);
      CHECK(duet::any(q, B).to_vector<bool>(q)[0] == (count > 0));
      CHECK(duet::all(q, B).to_vector<bool>(q)[0] == (count == n));
      const Array s = duet::sum(q, B);
      CHECK(s.dtype() == ScalarType::i64);
      CHECK(s.to_vector<std::int64_t>(q)[0] == std::int64_t(count));
      CHECK(duet::prod(q, B).to_vector<std::int64_t>(q)[0] == (count == n ? 1 : 0));
      // Along an axis of the transposed view: the column counts and truths.
      const std::vector<std::int64_t> per_col = duet::sum(q, T, std::int64_t{1}).to_vector<std::int64_t>(q);
      const std::vector<bool> any_col = duet::any(q, T, std::int64_t{1}).to_vector<bool>(q);
      for (std::size_t c = 0; c < cols; ++c) {
        std::int64_t k = 0;
        for (std::size_t r = 0; r < rows; ++r) k += v[r * cols + c];
        CHECK(per_col[c] == k);
        CHECK(any_col[c] == (k > 0));
      }
      if (n > 0) {
        CHECK(duet::max(q, B).dtype() == ScalarType::b8);
        CHECK(duet::max(q, B).to_vector<bool>(q)[0] == (count > 0));
        CHECK(duet::min(q, B).to_vector<bool>(q)[0] == (count == n));
        if (dev.info().supports_double)
          CHECK(duet::mean(q, B).to_vector<double>(q)[0] == doctest::Approx(double(count) / double(n)));
      }
      // Running counts.
      const Array run = duet::cumsum(q, B);
      CHECK(run.dtype() == ScalarType::i64);
      const std::vector<std::int64_t> got_run = run.to_vector<std::int64_t>(q);
      std::int64_t acc = 0;
      for (std::size_t i = 0; i < n; ++i) CHECK(got_run[i] == (acc += v[i]));
      // The positions of the trues.
      const std::vector<std::int64_t> at = duet::flatnonzero(q, B).to_vector<std::int64_t>(q);
      std::vector<std::int64_t> want_at;
      for (std::size_t i = 0; i < n; ++i)
        if (v[i]) want_at.push_back(std::int64_t(i));
      CHECK(at == want_at);
      // False before True, stable: the falses' positions first.
      if (n > 0) {
        const Array flat = *B.reshape_view({std::int64_t(n)});
        std::vector<bool> sorted = v;
        std::stable_sort(sorted.begin(), sorted.end());
        CHECK(duet::sort(q, flat).to_vector<bool>(q) == sorted);
        std::vector<std::int64_t> order;
        for (bool want : {false, true})
          for (std::size_t i = 0; i < n; ++i)
            if (v[i] == want) order.push_back(std::int64_t(i));
        CHECK(duet::argsort(q, flat).to_vector<std::int64_t>(q) == order);
        // take and put move bools as they are.
        const Array picked = duet::take(q, flat, duet::flatnonzero(q, flat), 0);
        CHECK(picked.dtype() == ScalarType::b8);
        CHECK(picked.to_vector<bool>(q) == std::vector<bool>(count, true));
        const Array target = duet::ones(q, {n}, ScalarType::b8);
        duet::put(q, target, duet::flatnonzero(q, flat), duet::zeros(q, {count}, ScalarType::b8));
        const std::vector<bool> flipped = target.to_vector<bool>(q);
        for (std::size_t i = 0; i < n; ++i) CHECK(flipped[i] == !v[i]);
      }
    }
    // A bool array is not an index array.
    const Array B = bools(q, {true, false}, {2});
    CHECK_THROWS_AS(duet::take(q, B, B, 0), duet::ArgumentError);
  });
}

TEST_SUITE_END();
