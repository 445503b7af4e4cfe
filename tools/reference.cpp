// Double-precision CPU references for `duet run`.
#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

namespace duet::tool {

void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
  const std::size_t threads =
      std::max<std::size_t>(1, std::min<std::size_t>(std::thread::hardware_concurrency(), n));
  if (threads == 1) {
    body(0, n);
    return;
  }
  const std::size_t chunk = (n + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t begin = t * chunk;
    const std::size_t end = std::min(n, begin + chunk);
    if (begin < end) workers.emplace_back(body, begin, end);
  }
  for (auto& worker : workers) worker.join();
}

namespace {

// max over i of error(i), computed in parallel.
double parallel_max(std::size_t n, const std::function<double(std::size_t)>& error) {
  std::mutex mutex;
  double worst = 0.0;
  parallel_for(n, [&](std::size_t begin, std::size_t end) {
    double local = 0.0;
    for (std::size_t i = begin; i < end; ++i) {
      const double e = error(i);
      // NaN compares false: keep it, so a NaN result can never pass as "error 0".
      if (!(e <= local)) local = e;
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (!(local <= worst)) worst = local;
  });
  return worst;
}

}  // namespace

double max_error_add(const std::vector<float>& a, const std::vector<float>& b,
                     const std::vector<float>& got) {
  return parallel_max(
      got.size(), [&](std::size_t i) { return std::fabs(double(got[i]) - (double(a[i]) + double(b[i]))); });
}

double max_error_multiply(const std::vector<float>& a, const std::vector<float>& b,
                          const std::vector<float>& got) {
  return parallel_max(got.size(),
                      [&](std::size_t i) { return std::fabs(double(got[i]) - double(a[i]) * double(b[i])); });
}

double max_relative_error_matmul(const std::vector<float>& A, const std::vector<float>& B,
                                 const std::vector<float>& C, std::size_t M, std::size_t N, std::size_t K,
                                 std::size_t samples) {
  std::vector<std::pair<std::size_t, std::size_t>> entries;
  if (samples == 0) {
    entries.reserve(M * N);
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) entries.emplace_back(i, j);
  } else {
    entries = {{0, 0}, {0, N - 1}, {M - 1, 0}, {M - 1, N - 1}};
    std::mt19937_64 rng(12345);
    std::uniform_int_distribution<std::size_t> row(0, M - 1), column(0, N - 1);
    for (std::size_t s = 0; s < samples; ++s) entries.emplace_back(row(rng), column(rng));
  }

  return parallel_max(entries.size(), [&](std::size_t e) {
    const auto [i, j] = entries[e];
    double sum = 0.0, magnitude = 0.0;
    for (std::size_t k = 0; k < K; ++k) {
      const double product = double(A[i * K + k]) * double(B[k * N + j]);
      sum += product;
      magnitude += std::fabs(product);
    }
    const double error = std::fabs(double(C[i * N + j]) - sum);
    return magnitude > 0.0 ? error / magnitude : error;
  });
}

std::vector<double> heat_reference(const std::vector<float>& initial, std::size_t nx, std::size_t ny, float r,
                                   int steps) {
  std::vector<double> u(initial.begin(), initial.end());
  std::vector<double> v(u.size());
  const double rr = r;  // the float the kernel sees, widened
  for (int step = 0; step < steps; ++step) {
    parallel_for(ny, [&](std::size_t y0, std::size_t y1) {
      for (std::size_t y = y0; y < y1; ++y) {
        for (std::size_t x = 0; x < nx; ++x) {
          const std::size_t i = y * nx + x;
          if (x == 0 || y == 0 || x + 1 == nx || y + 1 == ny) {
            v[i] = u[i];
          } else {
            v[i] = u[i] + rr * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0 * u[i]);
          }
        }
      }
    });
    std::swap(u, v);
  }
  return u;
}

double max_abs_error(const std::vector<float>& got, const std::vector<double>& want) {
  return parallel_max(got.size(), [&](std::size_t i) { return std::fabs(double(got[i]) - want[i]); });
}

std::vector<float> random_floats(std::size_t n, float lo, float hi, unsigned seed) {
  std::vector<float> values(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (auto& value : values) value = dist(rng);
  return values;
}

}  // namespace duet::tool
