// Embedded kernel sources are named per library. duet_test_userlib (tests/embed/) embeds its own
// vector_add.duet and gemm.duet beside duet's; each library's calls must run its own source, bare
// names must keep finding duet's, and registrations that clash or names that are ambiguous must be
// errors that name the libraries, never one source silently standing in for another.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <duet/extension.hpp>
#include <set>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"
#include "userlib.hpp"

namespace {

std::set<std::string> registered_names() {
  std::set<std::string> names;
  for (const char* const* name = duet::builtin_kernel_names(); *name; ++name) names.insert(*name);
  return names;
}

const duet::extension::KernelSource kOtherScale[] = {
    {"scale", "KERNEL void scale(GLOBAL float* x, const float s, const ulong n) { if (GLOBAL_ID(0) < n) x[GLOBAL_ID(0)] = s; }"}};

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("embedded sources are found by library: bare names mean duet's, qualified ones each library's") {
  REQUIRE(std::string(userlib::kernel_namespace()) == "duet_test_userlib");
  const char* duets = duet::builtin_kernel_source("vector_add");
  const char* users = userlib::source("vector_add");
  REQUIRE(duets != nullptr);
  REQUIRE(users != nullptr);
  CHECK(duets != users);
  CHECK_CONTAINS(std::string(users), "2.0f * a[i] - b[i]");
  CHECK(duet::builtin_kernel_source("duet/vector_add") == duets);
  CHECK(duet::builtin_kernel_source("duet_test_userlib/vector_add") == users);
  CHECK(duet::extension::kernel_source("vector_add") == duets);
  CHECK(duet::extension::KernelLibrary("duet").source("vector_add") == duets);

  // duet::blas's gemm keeps its bare name; the library's is reached by its qualified one.
  CHECK(duet::builtin_kernel_source("gemm") == duet::builtin_kernel_source("duet.blas/gemm"));
  CHECK(duet::builtin_kernel_source("gemm") != userlib::source("gemm"));
  CHECK(duet::builtin_kernel_source("duet_test_userlib/gemm") == userlib::source("gemm"));
  // A stem only the library embeds is found bare too.
  CHECK(duet::builtin_kernel_source("scale") == userlib::source("scale"));

  CHECK(duet::builtin_kernel_source("nope") == nullptr);
  CHECK(duet::builtin_kernel_source("duet_test_userlib/multiply") == nullptr);
  CHECK(userlib::source("multiply") == nullptr);  // duet's multiply is not the library's

  // Every source listed once, by a name that finds it.
  const std::set<std::string> names = registered_names();
  for (const char* want : {"vector_add", "gemm", "scale", "duet_test_userlib/vector_add", "duet_test_userlib/gemm"})
    CHECK_MESSAGE(names.count(want) == 1, want);
  CHECK(names.count("duet_test_userlib/scale") == 0);
}

TEST_CASE("a stem two users' libraries embed is ambiguous until qualified") {
  const char* users = userlib::source("scale");
  {
    const duet::extension::KernelSourceRegistration other(duet::extension::KernelLibrary("duet_test_other"),
                                                          "duet_test_other", kOtherScale, 1);
    const auto error = EXPECT_ERROR(duet::ArgumentError, duet::builtin_kernel_source("scale"));
    if (error) {
      CHECK_CONTAINS(std::string(error->what()), "'duet_test_userlib/scale'");
      CHECK_CONTAINS(std::string(error->what()), "'duet_test_other/scale'");
    }
    CHECK(duet::builtin_kernel_source("duet_test_other/scale") == kOtherScale[0].source);
    CHECK(duet::builtin_kernel_source("duet_test_userlib/scale") == users);
    CHECK(userlib::source("scale") == users);
    const std::set<std::string> names = registered_names();
    CHECK(names.count("scale") == 0);
    CHECK(names.count("duet_test_userlib/scale") == 1);
    CHECK(names.count("duet_test_other/scale") == 1);
  }
  // Gone with its registration.
  CHECK(duet::builtin_kernel_source("scale") == users);
  CHECK(duet::builtin_kernel_source("duet_test_other/scale") == nullptr);
}

TEST_CASE("two registrations of one qualified name clash: a ConfigError naming both, until one goes") {
  // A second library that chose the test library's namespace, with another text for one of its stems.
  const duet::extension::KernelSource impostor[] = {{"vector_add", "KERNEL void vector_add() {}"}};
  {
    const duet::extension::KernelSourceRegistration clash(duet::extension::KernelLibrary("duet_test_userlib"),
                                                          "duet_test_impostor", impostor, 1);
    for (const auto& error : {EXPECT_ERROR(duet::ConfigError, userlib::source("vector_add")),
                              EXPECT_ERROR(duet::ConfigError, duet::builtin_kernel_source("duet_test_userlib/vector_add")),
                              EXPECT_ERROR(duet::ConfigError, duet::builtin_kernel_source("vector_add")),
                              EXPECT_ERROR(duet::ConfigError, duet::builtin_kernel_names())}) {
      REQUIRE(error);
      const std::string message = error->what();
      CHECK_CONTAINS(message, "'duet_test_userlib/vector_add' is embedded twice");
      CHECK_CONTAINS(message, "target duet_test_userlib (in ");
      CHECK_CONTAINS(message, "target duet_test_impostor (in ");
      CHECK_CONTAINS(message, "NAMESPACE");
    }
  }
  CHECK(duet::builtin_kernel_source("duet_test_userlib/vector_add") == userlib::source("vector_add"));
  CHECK(duet::builtin_kernel_names() != nullptr);

  // The same text again (one static library linked into two shared ones) is one source, no clash.
  const duet::extension::KernelSource copy[] = {{"vector_add", userlib::source("vector_add")}};
  {
    const duet::extension::KernelSourceRegistration again(duet::extension::KernelLibrary("duet_test_userlib"),
                                                          "duet_test_userlib_copy", copy, 1);
    CHECK(duet::builtin_kernel_source("duet_test_userlib/vector_add") == copy[0].source);
    CHECK(registered_names().count("duet_test_userlib/vector_add") == 1);
  }
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("device");

TEST_CASE("a library's own vector_add.duet and gemm.duet run beside duet's, each from its own source") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("embed");
    for (std::size_t n : {std::size_t(1), std::size_t(37), std::size_t(1000003)}) {
      CAPTURE(n);
      const std::vector<float> a = random_floats(rng, n), b = random_floats(rng, n);
      duet::Buffer<float> da(dev, n), db(dev, n), dc(dev, n), du(dev, n);
      q.write(da, a);
      q.write(db, b);
      q.fill(dc, kNaN);
      q.fill(du, kNaN);
      // Alternated, so each launch would find the other's kernel if the per-device cache mixed them.
      duet::vector_add(q, da, db, dc);
      userlib::vector_add(q, da, db, du);
      duet::vector_add(q, da, db, dc);
      std::vector<double> sum(n), weighted(n);
      for (std::size_t i = 0; i < n; ++i) {
        sum[i] = double(a[i]) + double(b[i]);
        weighted[i] = 2.0 * double(a[i]) - double(b[i]);
      }
      // One rounding each (2a is exact).
      check_close(q.to_vector(dc), sum, [&](std::size_t i) { return kUnitRoundoff * std::fabs(sum[i]) * 1.0001 + 1e-38; },
                  "duet::vector_add");
      check_close(q.to_vector(du), weighted,
                  [&](std::size_t i) { return kUnitRoundoff * std::fabs(weighted[i]) * 1.0001 + 1e-38; },
                  "the library's vector_add");
    }

    // The library's gemm.duet (a max-plus product) beside duet::blas's gemm.
    const std::size_t M = 37, N = 53, K = 19;
    const std::vector<float> A = random_floats(rng, M * K), B = random_floats(rng, K * N);
    duet::Buffer<float> dA(dev, M * K), dB(dev, K * N), dC(dev, M * N), dT(dev, M * N);
    q.write(dA, A);
    q.write(dB, B);
    q.fill(dC, kNaN);
    q.fill(dT, kNaN);
    duet::gemm(q, duet::Op::none, duet::Op::none, M, N, K, 1.0f, dA, K, dB, N, 0.0f, dC, N);
    userlib::max_plus(q, dA, dB, dT, M, N, K);
    std::vector<double> product(M * N), tropical(M * N), bound(M * N);
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        double sum = 0, magnitude = 0, best = -INFINITY;
        for (std::size_t k = 0; k < K; ++k) {
          const double x = double(A[i * K + k]) * double(B[k * N + j]);
          sum += x;
          magnitude += std::fabs(x);
          best = std::max(best, double(A[i * K + k]) + double(B[k * N + j]));
        }
        product[i * N + j] = sum;
        bound[i * N + j] = 2.0 * K * kUnitRoundoff * magnitude + 1e-30;
        tropical[i * N + j] = best;
      }
    check_close(q.to_vector(dC), product, [&](std::size_t i) { return bound[i]; }, "duet::gemm");
    check_close(q.to_vector(dT), tropical,
                [&](std::size_t i) { return kUnitRoundoff * std::fabs(tropical[i]) * 1.0001 + 1e-38; },
                "the library's gemm.duet");

    // Bare names reach duet's kernels, qualified ones the library's.
    CHECK(duet::extension::builtin_kernel(dev, "vector_add", "vector_add").name() == "vector_add");
    duet::Buffer<float> dq(dev, 5);
    q.fill(dq, 3.0f);
    q.launch(duet::extension::builtin_kernel(dev, "duet_test_userlib/vector_add", "vector_add"), duet::Range(5),
             duet::Range(), dq, dq, dq, std::uint64_t(5));
    CHECK(q.to_vector(dq) == std::vector<float>(5, 3.0f));  // 2 * 3 - 3
  });
}

TEST_SUITE_END();
