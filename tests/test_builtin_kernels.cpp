// The built-in kernels (vector_add, multiply, matmul, heat_step, heat) on every device, compared with
// their double-precision CPU references (reference/), and every kernel of their table
// (builtins/builtins.hpp) through its `duet run` case at small sizes. Sizes are primes and non-multiples of common group sizes so
// bounds guards are exercised; outputs are poisoned with NaN before each launch so an element the
// kernel never wrote fails the comparison.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <duet/stencil.hpp>
#include <string>
#include <vector>

#include "builtins.hpp"
#include "cpu_reference.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

const std::size_t kElementwiseSizes[] = {1, 2, 7, 31, 257, 1000003};

using ElementwiseFn = void (*)(duet::Queue&, const duet::Buffer<float>&, const duet::Buffer<float>&,
                               duet::Buffer<float>&);

// c = op(a, b) on n elements; a and b are `extra` elements longer than c, which the kernel must
// ignore (it covers c.size() elements).
void check_elementwise(const duet::Device& dev, const char* name, ElementwiseFn fn, bool add, std::size_t n,
                       std::size_t extra) {
  CAPTURE(n);
  CAPTURE(extra);
  auto rng = make_rng(name, n);
  const std::vector<float> a = random_floats(rng, n + extra);
  const std::vector<float> b = random_floats(rng, n + extra);

  duet::Queue q = dev.queue();
  duet::Buffer<float> da(dev, n + extra), db(dev, n + extra), dc(dev, n);
  q.write(da, a);
  q.write(db, b);
  q.fill(dc, kNaN);
  fn(q, da, db, dc);
  const std::vector<float> c = q.to_vector(dc);

  const std::vector<double> want =
      add ? duet::reference::add_reference(a, b, n) : duet::reference::multiply_reference(a, b, n);
  // One correctly rounded float operation: error at most u * |exact|.
  check_close(
      c, want, [&](std::size_t i) { return kUnitRoundoff * std::fabs(want[i]) * 1.0001 + 1e-38; }, name);
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("vector_add matches the CPU at prime and odd sizes") {
  for_each_device([](const duet::Device& dev) {
    for (std::size_t n : kElementwiseSizes)
      check_elementwise(dev, "vector_add", duet::vector_add, true, n, 0);
    // a and b longer than c: only c.size() elements are computed.
    check_elementwise(dev, "vector_add", duet::vector_add, true, 100, 13);
  });
}

TEST_CASE("multiply matches the CPU at prime and odd sizes") {
  for_each_device([](const duet::Device& dev) {
    for (std::size_t n : kElementwiseSizes) check_elementwise(dev, "multiply", duet::multiply, false, n, 0);
    check_elementwise(dev, "multiply", duet::multiply, false, 100, 13);
  });
}

TEST_CASE("matmul matches a double-precision reference") {
  struct Shape {
    std::size_t M, N, K;
  };
  const Shape shapes[] = {{1, 1, 1}, {17, 33, 65}, {64, 64, 64}, {3, 200, 5}, {1000, 1023, 517}};
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (const Shape& s : shapes) {
      const std::size_t M = s.M, N = s.N, K = s.K;
      CAPTURE(M);
      CAPTURE(N);
      CAPTURE(K);
      auto rng = make_rng("matmul", M * 1000003 + N * 1009 + K);
      const std::vector<float> A = random_floats(rng, M * K);
      const std::vector<float> B = random_floats(rng, K * N);
      // C has a tail of 7 elements past M * N that the kernel must leave alone.
      const std::size_t tail = 7;
      duet::Buffer<float> dA(dev, M * K), dB(dev, K * N), dC(dev, M * N + tail);
      q.write(dA, A);
      q.write(dB, B);
      q.fill(dC, kNaN);
      duet::matmul(q, dA, dB, dC, M, N, K);
      std::vector<float> C = q.to_vector(dC);

      std::vector<double> want, abs_dot;
      duet::reference::matmul_reference(A, B, M, N, K, want, abs_dot);
      // Any summation order of K float products (with or without FMA) is within
      // gamma_K * sum|a*b|, gamma_K ~ K*u; twice that leaves margin and still catches any wrong
      // term, which would be of the size of sum|a*b| itself.
      const double scale = 2.0 * double(K + 1) * kUnitRoundoff;
      const std::vector<float> C_tail(C.begin() + static_cast<std::ptrdiff_t>(M * N), C.end());
      C.resize(M * N);
      check_close(
          C, want, [&](std::size_t i) { return scale * abs_dot[i] + 1e-30; }, "matmul C");
      bool tail_untouched = true;
      for (float x : C_tail) tail_untouched = tail_untouched && std::isnan(x);
      CHECK_MESSAGE(tail_untouched, "matmul wrote past C[M*N]");
    }
  });
}

TEST_CASE("heat_step: interior stencil, fixed boundary, tiny grids") {
  struct Grid {
    std::size_t nx, ny;
  };
  // 1x1, 1xN, Nx1, 2x2, 2x3: all boundary. 3x3: one interior cell. Then grids taller than a CUDA
  // launch has groups along y (65535) at one or four rows a work-item.
  const Grid grids[] = {{1, 1}, {1, 5}, {5, 1}, {2, 2}, {2, 3}, {3, 3}, {17, 5}, {129, 67},
                        {8, 70001}, {5, 70001}, {4, 300007}};
  const float r = 0.2f;
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (const Grid& g : grids) {
      const std::size_t nx = g.nx, ny = g.ny;
      CAPTURE(nx);
      CAPTURE(ny);
      auto rng = make_rng("heat_step", nx * 1000 + ny);
      const std::vector<float> u = random_floats(rng, nx * ny, 0.0f, 1.0f);
      duet::Buffer<float> du(dev, nx * ny), dv(dev, nx * ny);
      q.write(du, u);
      q.fill(dv, kNaN);
      duet::heat_step(q, du, dv, nx, ny, r);
      const std::vector<float> v = q.to_vector(dv);
      const std::vector<float> u_after = q.to_vector(du);

      const std::vector<double> want = duet::reference::heat_reference(u, nx, ny, r, 1);
      check_close(
          v, want, [&](std::size_t) { return 32 * kUnitRoundoff; }, "heat_step v");
      std::size_t boundary_changed = 0;
      for (std::size_t y = 0; y < ny; ++y)
        for (std::size_t x = 0; x < nx; ++x) {
          const std::size_t i = y * nx + x;
          const bool boundary = x == 0 || y == 0 || x + 1 == nx || y + 1 == ny;
          if (boundary && std::memcmp(&v[i], &u[i], sizeof(float)) != 0) ++boundary_changed;
        }
      CHECK_MESSAGE(boundary_changed == 0, boundary_changed << " boundary cells not copied exactly");
      check_equal(u_after, u, "heat_step input u (must not change)");
    }
  });
}

TEST_CASE("heat: many steps against the CPU, boundary unchanged") {
  const float r = 0.24f;
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    struct Run {
      std::size_t nx, ny;
      int steps;
    };
    // Even and odd step counts: the result must end in u either way.
    const Run runs[] = {{61, 37, 50}, {61, 37, 7}, {33, 20, 1}, {9, 9, 0}, {1, 1, 3}};
    for (const Run& run : runs) {
      const std::size_t nx = run.nx, ny = run.ny;
      const int steps = run.steps;
      CAPTURE(nx);
      CAPTURE(ny);
      CAPTURE(steps);
      auto rng = make_rng("heat", nx * 1000 + ny + 100000 * static_cast<std::size_t>(steps));
      const std::vector<float> u0 = random_floats(rng, nx * ny, 0.0f, 1.0f);
      duet::Buffer<float> du(dev, nx * ny), dv(dev, nx * ny);
      q.write(du, u0);
      q.fill(dv, kNaN);
      duet::heat(q, du, dv, nx, ny, r, steps);
      const std::vector<float> u = q.to_vector(du);

      const std::vector<double> want = duet::reference::heat_reference(u0, nx, ny, r, steps);
      // The scheme is stable for r <= 1/4, so per-step rounding errors (a few u each) add up at
      // most linearly in the number of steps.
      const double tol = 32 * kUnitRoundoff * (steps + 1);
      check_close(
          u, want, [&](std::size_t) { return tol; }, "heat u");
      std::size_t boundary_changed = 0;
      for (std::size_t y = 0; y < ny; ++y)
        for (std::size_t x = 0; x < nx; ++x) {
          const std::size_t i = y * nx + x;
          const bool boundary = x == 0 || y == 0 || x + 1 == nx || y + 1 == ny;
          if (boundary && std::memcmp(&u[i], &u0[i], sizeof(float)) != 0) ++boundary_changed;
        }
      CHECK_MESSAGE(boundary_changed == 0, boundary_changed << " boundary cells changed");
    }
  });
}

TEST_CASE("built-in kernels on two queues of one device") {
  for_each_device([](const duet::Device& dev) {
    const std::size_t n = 4099;
    auto rng = make_rng("two queues");
    const std::vector<float> a = random_floats(rng, n), b = random_floats(rng, n);
    duet::Queue q1 = dev.queue(), q2 = dev.queue();
    duet::Buffer<float> da(dev, n), db(dev, n), sum(dev, n), prod(dev, n);
    q1.write(da, a);
    q1.write(db, b);
    q1.finish();
    q1.fill(sum, kNaN);
    q2.fill(prod, kNaN);
    duet::vector_add(q1, da, db, sum);
    duet::multiply(q2, da, db, prod);
    const std::vector<float> s = q1.to_vector(sum);
    const std::vector<float> p = q2.to_vector(prod);
    const std::vector<double> want_s = duet::reference::add_reference(a, b, n);
    const std::vector<double> want_p = duet::reference::multiply_reference(a, b, n);
    check_close(
        s, want_s, [&](std::size_t i) { return kUnitRoundoff * std::fabs(want_s[i]) * 1.0001 + 1e-38; },
        "sum");
    check_close(
        p, want_p, [&](std::size_t i) { return kUnitRoundoff * std::fabs(want_p[i]) * 1.0001 + 1e-38; },
        "product");
  });
}

TEST_CASE("every kernel of the built-in table passes its duet run case at small sizes") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (const duet::builtins::Kernel& kernel : duet::builtins::kernels()) {
      CAPTURE(std::string(kernel.name));
      // Odd sizes, and at least two heat steps where the kernel steps several times.
      duet::builtins::Problem problem = kernel.problem(duet::builtins::Scale::quick);
      problem.size = kernel.flops ? 37 : problem.steps > 1 ? 61 : 1003;
      if (problem.steps > 1) problem.steps = 3;
      duet::builtins::Row row;
      duet::builtins::run_case(kernel, dev, q, problem, 1, row);
      CHECK(row.kernel == kernel.name);
      CHECK(row.timing.runs == 1);
      CHECK(row.work > 0.0);
      CHECK_MESSAGE(row.ok(), row.kernel << " " << row.size << ": error " << row.error << " above "
                                         << row.tolerance);
    }
  });
}

TEST_SUITE_END();
