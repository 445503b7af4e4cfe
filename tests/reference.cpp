// Double-precision CPU references for the shared kernels. Built with optimisation even in debug
// builds (see tests/CMakeLists.txt): the 1000 x 1023 x 517 matmul reference is half a billion
// multiply-adds.
#include <cmath>
#include <cstddef>
#include <vector>

void reference_matmul(const std::vector<float>& A, const std::vector<float>& B, std::size_t M, std::size_t N,
                      std::size_t K, std::vector<double>& C, std::vector<double>& abs_dot) {
  C.assign(M * N, 0.0);
  abs_dot.assign(M * N, 0.0);
  // i-k-j order: the inner loop walks rows of B and C contiguously.
  for (std::size_t i = 0; i < M; ++i) {
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
}

std::vector<double> reference_heat(const std::vector<float>& u0, std::size_t nx, std::size_t ny, float r,
                                   int steps) {
  std::vector<double> u(u0.begin(), u0.begin() + static_cast<std::ptrdiff_t>(nx * ny));
  std::vector<double> v = u;
  const double rr = r;
  for (int s = 0; s < steps; ++s) {
    for (std::size_t y = 0; y < ny; ++y) {
      for (std::size_t x = 0; x < nx; ++x) {
        const std::size_t i = y * nx + x;
        if (x == 0 || y == 0 || x + 1 == nx || y + 1 == ny) {
          v[i] = u[i];
        } else {
          v[i] = u[i] + rr * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0 * u[i]);
        }
      }
    }
    u.swap(v);
  }
  return u;
}
