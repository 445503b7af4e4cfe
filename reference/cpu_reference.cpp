// The double-precision references and error measures of cpu_reference.hpp.
#include "cpu_reference.hpp"

#include <cmath>
#include <mutex>
#include <random>
#include <utility>

#include "parallel.hpp"

namespace duet::reference {
namespace {

// Keeps NaN: worse(NaN, x) and worse(x, NaN) are NaN, whatever the order the chunks finish in.
double worse(double a, double b) { return (std::isnan(a) || a > b) ? a : b; }

}  // namespace

double max_abs_error(std::size_t n, const std::function<double(std::size_t)>& error_at) {
  std::mutex mutex;
  double worst = 0.0;
  parallel_for(n, [&](std::size_t begin, std::size_t end) {
    double local = 0.0;
    for (std::size_t i = begin; i < end; ++i) local = worse(error_at(i), local);
    std::lock_guard<std::mutex> lock(mutex);
    worst = worse(local, worst);
  });
  return worst;
}

double max_abs_error(const std::vector<float>& got, const std::vector<double>& want) {
  return max_abs_error(got.size(), [&](std::size_t i) { return std::fabs(double(got[i]) - want[i]); });
}

std::vector<double> add_reference(const std::vector<float>& a, const std::vector<float>& b, std::size_t n) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = double(a[i]) + double(b[i]);
  return out;
}

std::vector<double> multiply_reference(const std::vector<float>& a, const std::vector<float>& b, std::size_t n) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = double(a[i]) * double(b[i]);
  return out;
}

void matmul_reference(const std::vector<float>& A, const std::vector<float>& B, std::size_t M, std::size_t N,
                      std::size_t K, std::vector<double>& C, std::vector<double>& abs_dot) {
  C.assign(M * N, 0.0);
  abs_dot.assign(M * N, 0.0);
  // Rows of C in parallel, i-k-j order within: the inner loop walks rows of B and C contiguously.
  parallel_for(M, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) {
      double* c = &C[i * N];
      double* s = &abs_dot[i * N];
      for (std::size_t k = 0; k < K; ++k) {
        const double a = A[i * K + k];
        const float* b = &B[k * N];
        for (std::size_t j = 0; j < N; ++j) {
          const double p = a * static_cast<double>(b[j]);
          c[j] += p;
          s[j] += std::fabs(p);
        }
      }
    }
  });
}

double max_error_add(const std::vector<float>& a, const std::vector<float>& b,
                     const std::vector<float>& got) {
  return max_abs_error(
      got.size(), [&](std::size_t i) { return std::fabs(double(got[i]) - (double(a[i]) + double(b[i]))); });
}

double max_error_multiply(const std::vector<float>& a, const std::vector<float>& b,
                          const std::vector<float>& got) {
  return max_abs_error(
      got.size(), [&](std::size_t i) { return std::fabs(double(got[i]) - double(a[i]) * double(b[i])); });
}

MatmulError matmul_error(const std::vector<float>& A, const std::vector<float>& B,
                         const std::vector<float>& C, std::size_t M, std::size_t N, std::size_t K,
                         std::size_t samples, std::uint64_t seed) {
  std::vector<std::pair<std::size_t, std::size_t>> entries;
  if (samples == 0) {
    entries.reserve(M * N);
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) entries.emplace_back(i, j);
  } else {
    entries = {{0, 0}, {0, N - 1}, {M - 1, 0}, {M - 1, N - 1}};
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::size_t> row(0, M - 1), column(0, N - 1);
    for (std::size_t s = 0; s < samples; ++s) entries.emplace_back(row(rng), column(rng));
  }

  std::mutex mutex;
  MatmulError result;
  double error_squares = 0.0, reference_squares = 0.0;
  parallel_for(entries.size(), [&](std::size_t begin, std::size_t end) {
    double worst = 0.0, errors = 0.0, references = 0.0;
    for (std::size_t e = begin; e < end; ++e) {
      const auto [i, j] = entries[e];
      double sum = 0.0, magnitude = 0.0;
      for (std::size_t k = 0; k < K; ++k) {
        const double product = double(A[i * K + k]) * double(B[k * N + j]);
        sum += product;
        magnitude += std::fabs(product);
      }
      const double error = std::fabs(double(C[i * N + j]) - sum);
      worst = worse(magnitude > 0.0 ? error / magnitude : error, worst);
      errors += error * error;
      references += sum * sum;
    }
    std::lock_guard<std::mutex> lock(mutex);
    result.max_relative = worse(worst, result.max_relative);
    error_squares += errors;
    reference_squares += references;
  });
  result.norm_relative =
      reference_squares > 0.0 ? std::sqrt(error_squares / reference_squares) : std::sqrt(error_squares);
  result.checked = entries.size();
  return result;
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

}  // namespace duet::reference
