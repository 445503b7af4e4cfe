// Shared helpers of the test suite: seeded random inputs, element-wise comparison against a CPU
// reference that reports the first mismatches in one assertion (a million CHECKs would drown the
// log), EXPECT_ERROR for asserting the exact duet error subclass and then inspecting it, and an
// environment guard that restores a variable when a test ends.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <duet/duet.hpp>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "devices.hpp"

// A generator seeded from the run's seed and a tag, so each test draws its own reproducible stream.
inline std::mt19937_64 make_rng(std::string_view tag, std::uint64_t salt = 0) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : tag) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return std::mt19937_64(test_seed() ^ h ^ (salt * 0x9e3779b97f4a7c15ull));
}

inline std::vector<float> random_floats(std::mt19937_64& rng, std::size_t n, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

inline std::vector<int> random_ints(std::mt19937_64& rng, std::size_t n, int lo, int hi) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int> v(n);
  for (int& x : v) x = dist(rng);
  return v;
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kFloatEps = 1.0 / (1 << 23);      // float ulp at 1
constexpr double kUnitRoundoff = 1.0 / (1 << 24);  // float rounding error bound u

inline bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// How many times `needle` (not empty) occurs in `haystack`, overlapping or not.
inline std::size_t occurrences(std::string_view haystack, std::string_view needle) {
  std::size_t count = 0;
  for (std::size_t at = haystack.find(needle); at != std::string_view::npos; at = haystack.find(needle, at + 1)) ++count;
  return count;
}

#define CHECK_CONTAINS(haystack, needle)        \
  CHECK_MESSAGE(contains((haystack), (needle)), \
                "expected \"" << std::string(needle) << "\" in: " << std::string(haystack))

// Compares got[i] with want[i] within tol(i). NaN (a poisoned, unwritten element) never passes.
template <class Tol>
void check_close(const std::vector<float>& got, const std::vector<double>& want, Tol&& tol,
                 const std::string& what) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  double worst = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    const double t = tol(i);
    if (!(err <= t)) {  // written so that NaN fails
      if (bad < 5)
        first << "\n  [" << i << "] got " << got[i] << " want " << want[i] << " (err " << err
              << ", tolerance " << t << ")";
      ++bad;
    }
    if (err > worst || err != err) worst = err;
  }
  INFO(what, ": ", bad, " of ", got.size(), " elements out of tolerance; worst error ", worst, first.str());
  CHECK(bad == 0);
}

template <class T>
void check_equal(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i])) {
      if (bad < 5) first << "\n  [" << i << "] got " << +got[i] << " want " << +want[i];
      ++bad;
    }
  }
  INFO(what, ": ", bad, " of ", got.size(), " elements differ", first.str());
  CHECK(bad == 0);
}

// Runs f, which must throw exactly E; fails the test at the call site otherwise. Returns the caught
// error so the test can look at its message, line(), log(), requested_bytes(), ...
template <class E, class F>
std::optional<E> expect_error(F&& f, const char* expr, const char* type, const char* file, int line) {
  try {
    f();
  } catch (const E& e) {
    return e;
  } catch (const duet::Error& e) {
    ADD_FAIL_CHECK_AT(file, line,
                      std::string(expr) << " threw a duet " << std::string(duet::to_string(e.kind()))
                                        << " error (" << std::string(typeid(e).name()) << ") instead of "
                                        << std::string(type) << ": " << std::string(e.what()));
    return std::nullopt;
  } catch (const std::exception& e) {
    ADD_FAIL_CHECK_AT(file, line,
                      std::string(expr) << " threw " << std::string(typeid(e).name()) << " instead of "
                                        << std::string(type) << ": " << std::string(e.what()));
    return std::nullopt;
  }
  ADD_FAIL_CHECK_AT(file, line, std::string(expr) << " did not throw (expected " << std::string(type) << ")");
  return std::nullopt;
}

// EXPECT_ERROR(duet::ArgumentError, q.launch(...)) -> std::optional<duet::ArgumentError>.
#define EXPECT_ERROR(Type, ...) \
  expect_error<Type>([&]() { (void)(__VA_ARGS__); }, #__VA_ARGS__, #Type, __FILE__, __LINE__)

// Sets (or with nullptr unsets) an environment variable for one scope, restoring it afterwards.
class EnvGuard {
 public:
  EnvGuard(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~EnvGuard() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The status line of a backend as duet::backends() reports it, if duet was built with it.
inline std::optional<duet::BackendStatus> backend_status(const std::string& name) {
  for (const duet::BackendStatus& s : duet::backends())
    if (s.name == name) return s;
  return std::nullopt;
}

// The matmul reference: duet::reference::matmul_reference (reference/), the built-in kernel's one;
// the heat reference is duet::reference::heat_reference.
// C = A * B in double; abs_dot[i] = sum_k |A[i,k] * B[k,j]|, the scale of the rounding error.
void reference_matmul(const std::vector<float>& A, const std::vector<float>& B, std::size_t M, std::size_t N,
                      std::size_t K, std::vector<double>& C, std::vector<double>& abs_dot);

// Row-major C = alpha op(A) op(B) + beta C0 in double (ta, tb: A, B stored transposed), from the
// stored values; C and scale are dense M x N, scale[i] = |alpha| sum_k |a b| + |beta c0|, the size
// of the rounding error. C0 is not read when beta == 0.
void reference_gemm(bool ta, bool tb, std::size_t M, std::size_t N, std::size_t K, double alpha, const double* A,
                    std::size_t lda, const double* B, std::size_t ldb, double beta, const double* C0,
                    std::size_t ldc, double* C, double* scale);
