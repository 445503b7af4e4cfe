// The public scalar-type table (duet/scalar_type.hpp) and the one range-checked conversion
// (duet/scalar_convert.hpp), on the host: every type's C++ type, names and predicates agree with
// each other, and the conversion takes exactly the values a long double reference says each type
// holds, at every boundary and on random values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <duet/duet.hpp>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support.hpp"

namespace {

using duet::ScalarFit;
using duet::ScalarType;
using duet::WideScalar;

static_assert(duet::is_float(ScalarType::f16) && duet::is_float(ScalarType::f64));
static_assert(!duet::is_float(ScalarType::i32) && !duet::is_float(ScalarType::unknown));
static_assert(duet::is_integer(ScalarType::u8) && !duet::is_integer(ScalarType::f32));
static_assert(!duet::is_integer(ScalarType::unknown));
// bool: one byte, neither an integer nor a float, computed as itself.
static_assert(duet::is_bool(ScalarType::b8) && !duet::is_bool(ScalarType::u8) &&
              !duet::is_bool(ScalarType::unknown));
static_assert(!duet::is_integer(ScalarType::b8) && !duet::is_float(ScalarType::b8) &&
              !duet::is_signed(ScalarType::b8));
static_assert(duet::size_of(ScalarType::b8) == 1 && duet::compute_type(ScalarType::b8) == ScalarType::b8);
static_assert(duet::is_signed(ScalarType::i8) && duet::is_signed(ScalarType::f32));
static_assert(!duet::is_signed(ScalarType::u64) && !duet::is_signed(ScalarType::unknown));
static_assert(duet::size_of(ScalarType::f16) == 2 && duet::size_of(ScalarType::unknown) == 0);
static_assert(duet::compute_type(ScalarType::f16) == ScalarType::f32);
static_assert(duet::compute_type(ScalarType::i8) == ScalarType::i8);
static_assert(std::is_same_v<duet::compute_type_t<duet::half>, float>);

// Whether `v` is a value of integer type T: the reference, in long double, which holds every
// 64-bit integer exactly on the machines duet tests on (checked below).
template <class T>
bool holds(long double v) {
  return std::isfinite(v) && v == std::floor(v) && v >= static_cast<long double>(std::numeric_limits<T>::min()) &&
         v <= static_cast<long double>(std::numeric_limits<T>::max());
}

long double as_long_double(const WideScalar& value) {
  return std::visit([](auto v) { return static_cast<long double>(v); }, value);
}

// Converts `value` to every type and checks each result against the reference.
void check_every_type(const WideScalar& value) {
  const long double v = as_long_double(value);
  for (ScalarType t : duet::scalar_types) {
    duet::visit_scalar_type(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      unsigned char out[8];
      std::memset(out, 0xa5, sizeof out);
      const ScalarFit fit = duet::convert_scalar(value, t, out);
      INFO(duet::to_string(t), " from ", static_cast<double>(v), " (alternative ", value.index(), ")");
      if constexpr (std::is_integral_v<T>) {
        const bool whole = std::isfinite(v) && v == std::floor(v);
        CHECK(fit == (holds<T>(v) ? ScalarFit::fits : whole ? ScalarFit::out_of_range : ScalarFit::not_whole));
        if (fit == ScalarFit::fits) {
          T got;
          std::memcpy(&got, out, sizeof got);
          CHECK(static_cast<long double>(got) == v);
        }
      } else if constexpr (!std::is_void_v<T> && !duet::is_complex_v<T>) {
        const long double largest =
            std::is_same_v<T, duet::half>       ? 65504.0L
            : std::is_same_v<T, duet::bfloat16> ? 3.3895313892515355e38L
                                                : static_cast<long double>(std::numeric_limits<duet::compute_type_t<T>>::max());
        const bool reaches = !std::isfinite(v) || std::fabs(v) <= largest;
        CHECK(fit == (reaches ? ScalarFit::fits : ScalarFit::out_of_range));
        if (fit == ScalarFit::fits) {
          T got;
          std::memcpy(&got, out, sizeof got);
          double back;
          if constexpr (std::is_same_v<T, duet::half> || std::is_same_v<T, duet::bfloat16>)
            back = got.to_float();
          else
            back = got;
          // Rounded to nearest: within an ulp of T, relative, or T's smallest subnormal below its
          // normal range (half and bfloat16 round through float, so they may be off by a little
          // more than half).
          const bool bf = std::is_same_v<T, duet::bfloat16>;
          const double ulp = std::is_same_v<T, double> ? 0x1p-52
                             : std::is_same_v<T, float> ? 0x1p-23
                             : bf                       ? 0x1p-7
                                                        : 0x1p-10;
          const double tiny = std::is_same_v<T, double> ? 0x1p-1074
                              : std::is_same_v<T, float> ? 0x1p-149
                              : bf                       ? 0x1p-133
                                                         : 0x1p-24;
          if (std::isnan(v))
            CHECK(std::isnan(back));
          else if (std::isinf(v))
            CHECK(back == static_cast<double>(v));
          else
            CHECK(std::fabs(back - static_cast<double>(v)) <=
                  std::max(std::fabs(static_cast<double>(v)) * ulp, tiny));
        }
      }
      if (fit != ScalarFit::fits) {  // a refused value leaves the output alone
        for (unsigned char byte : out) CHECK(byte == 0xa5);
      }
      return 0;
    });
  }
}

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("the scalar-type table: C++ types, sizes, predicates and names agree") {
  std::set<ScalarType> seen;
  std::set<std::string> names, numpy_names;
  for (ScalarType t : duet::scalar_types) {
    INFO(duet::to_string(t));
    CHECK(t != ScalarType::unknown);
    seen.insert(t);
    names.insert(duet::to_string(t));
    numpy_names.insert(duet::numpy_name(t));
    // bool is stored as uchar by kernels, so no kernel parameter is declared bool.
    CHECK(duet::scalar_type_from_name(duet::to_string(t)) == (duet::is_bool(t) ? ScalarType::unknown : t));
    CHECK(duet::scalar_type_from_numpy_name(duet::numpy_name(t)) == t);
    duet::visit_scalar_type(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_void_v<T>) {
        FAIL("no C++ type");
      } else {
        // A C++ bool stays unknown as a kernel argument (scalar_type_of); visit gives it for b8.
        CHECK(duet::scalar_type_of<T>() == (std::is_same_v<T, bool> ? ScalarType::unknown : t));
        CHECK(duet::is_bool(t) == std::is_same_v<T, bool>);
        CHECK(duet::size_of(t) == sizeof(T));
        CHECK(duet::is_float(t) == !std::is_integral_v<T>);
        CHECK(duet::is_integer(t) == (std::is_integral_v<T> && !std::is_same_v<T, bool>));
        CHECK(duet::is_signed(t) == (duet::is_storage_only(t) || std::is_signed_v<T>));
      }
    });
  }
  CHECK(seen.size() == 13);
  CHECK(names.size() == 13);
  CHECK(numpy_names.size() == 13);
  CHECK(std::string(duet::to_string(ScalarType::b8)) == "bool");
  CHECK(std::string(duet::numpy_name(ScalarType::b8)) == "bool");
  // unknown: in no list, no predicate, no size, no name
  bool void_tag = false;
  duet::visit_scalar_type(ScalarType::unknown, [&](auto tag) { void_tag = std::is_void_v<typename decltype(tag)::type>; });
  CHECK(void_tag);
  CHECK(std::string(duet::to_string(ScalarType::unknown)) == "unknown");
  CHECK(std::string(duet::numpy_name(ScalarType::unknown)) == "unknown");
  for (const char* name : {"", "bool", "float32", "int8_t", "unknown", "complex64"})
    CHECK(duet::scalar_type_from_name(name) == ScalarType::unknown);
  for (const char* name : {"", "bool_", "float", "int", "unknown", "complex256", "cfloat"})
    CHECK(duet::scalar_type_from_numpy_name(name) == ScalarType::unknown);
  // The complex types: std::complex on the host, cfloat and cdouble in the dialect, neither integer
  // nor float.
  for (ScalarType t : duet::complex_types) {
    INFO(duet::to_string(t));
    CHECK(duet::is_complex(t));
    CHECK(!duet::is_float(t));
    CHECK(!duet::is_integer(t));
    CHECK(!duet::is_bool(t));
    CHECK(duet::scalar_type_from_name(duet::to_string(t)) == t);
    CHECK(duet::scalar_type_from_numpy_name(duet::numpy_name(t)) == t);
    CHECK(duet::size_of(t) == 2 * duet::size_of(duet::real_type(t)));
    CHECK(duet::complex_of(duet::real_type(t)) == t);
    duet::visit_scalar_type(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      CHECK(duet::is_complex_v<T>);
      if constexpr (!std::is_void_v<T>) {
        CHECK(duet::scalar_type_of<T>() == t);
        CHECK(sizeof(T) == duet::size_of(t));
      }
    });
  }
  CHECK(duet::scalar_type_of<bool>() == ScalarType::unknown);
}

TEST_CASE("convert_scalar takes what each type holds and refuses the rest, at every boundary") {
  REQUIRE(std::numeric_limits<long double>::digits >= 64);  // the reference holds every 64-bit integer
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<WideScalar> values = {0.0, -0.0, 1.5, -1.5, 2.0, 1e39, -1e39, 1e300, inf, -inf,
                                    std::numeric_limits<double>::quiet_NaN(), 65504.0, 65519.0, 65520.0,
                                    std::numeric_limits<double>::denorm_min(),
                                    static_cast<double>(std::numeric_limits<float>::max()),
                                    std::ldexp(1.0, 63), std::ldexp(1.0, 64), -std::ldexp(1.0, 63),
                                    std::int64_t{0}, std::uint64_t{0}, std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::max(),
                                    std::numeric_limits<std::uint64_t>::max()};
  // Each integer type's bounds and their neighbours, in all three widened forms.
  for (ScalarType t : duet::scalar_types) {
    duet::visit_scalar_type(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) {
        for (long double edge : {static_cast<long double>(std::numeric_limits<T>::min()),
                                 static_cast<long double>(std::numeric_limits<T>::max())}) {
          for (long double v : {edge - 1, edge, edge + 1}) {
            if (v >= -0x1p63L && v < 0x1p63L) values.push_back(static_cast<std::int64_t>(v));
            if (v >= 0 && v < 0x1p64L) values.push_back(static_cast<std::uint64_t>(v));
            values.push_back(static_cast<double>(v));
          }
        }
      }
    });
  }
  for (const WideScalar& value : values) check_every_type(value);
}

TEST_CASE("convert_scalar agrees with the reference on random values") {
  std::mt19937_64 random(20240611);
  for (int k = 0; k < 20000; ++k) {
    const int bits = static_cast<int>(random() % 65);  // magnitudes of every width
    const std::uint64_t raw = bits == 64 ? random() : random() & ((std::uint64_t{1} << bits) - 1);
    switch (k % 4) {
      case 0: check_every_type(WideScalar(raw)); break;
      case 1: check_every_type(WideScalar(static_cast<std::int64_t>(raw))); break;
      case 2: check_every_type(WideScalar(static_cast<double>(raw) * ((raw & 1) ? -1.0 : 1.0))); break;
      default: check_every_type(WideScalar(std::ldexp(static_cast<double>(raw), static_cast<int>(random() % 200) - 100)));
    }
  }
}

TEST_CASE("convert_scalar's errors name the argument, the value, its type and the target") {
  unsigned char out[8];
  const auto range = EXPECT_ERROR(duet::ArgumentError,
                                  duet::convert_scalar(WideScalar(std::int64_t{300}), ScalarType::i32,
                                                       ScalarType::u8, out, "argument 1 ('uchar c')"));
  if (range) CHECK(std::string(range->what()) == "argument 1 ('uchar c'): the value 300 (int) is out of the range of uchar");
  const auto whole = EXPECT_ERROR(duet::ArgumentError, duet::convert_scalar(WideScalar(1.5), ScalarType::f64,
                                                                             ScalarType::i32, out, "k"));
  if (whole) CHECK(std::string(whole->what()) == "k: the value 1.5 (double) is not a whole number, as needed for int");
  const auto big = EXPECT_ERROR(duet::ArgumentError, duet::convert_scalar(WideScalar(1e39), ScalarType::unknown,
                                                                           ScalarType::f32, out, "a"));
  if (big) CHECK(std::string(big->what()) == "a: the value 1e+39 is out of the range of float");  // no "(type)" for unknown
  const auto none = EXPECT_ERROR(duet::ArgumentError, duet::convert_scalar(WideScalar(1.0), ScalarType::f64,
                                                                            ScalarType::unknown, out, "x"));
  if (none) CHECK(std::string(none->what()) == "x: cannot convert to unknown");
  float f = 0;
  duet::convert_scalar(WideScalar(std::uint64_t{3}), ScalarType::u64, ScalarType::f32, &f, "unused");
  CHECK(f == 3.0f);
}

TEST_SUITE_END();
