// The double-precision GEMM reference of the tests, with the per-entry error scale. Built with
// optimisation even in debug builds (see tests/CMakeLists.txt). The matmul reference is the one of
// the built-in kernel (duet_reference, reference/), under the name the tests have always called.
#include <cmath>
#include <cstddef>
#include <vector>

#include "cpu_reference.hpp"

void reference_matmul(const std::vector<float>& A, const std::vector<float>& B, std::size_t M, std::size_t N,
                      std::size_t K, std::vector<double>& C, std::vector<double>& abs_dot) {
  duet::reference::matmul_reference(A, B, M, N, K, C, abs_dot);
}

void reference_gemm(bool ta, bool tb, std::size_t M, std::size_t N, std::size_t K, double alpha, const double* A,
                    std::size_t lda, const double* B, std::size_t ldb, double beta, const double* C0,
                    std::size_t ldc, double* C, double* scale) {
  // C and scale are dense M x N. i-k-j order where B's rows are contiguous (B none).
  for (std::size_t i = 0; i < M; ++i) {
    double* c = C + i * N;
    double* s = scale + i * N;
    for (std::size_t j = 0; j < N; ++j) c[j] = s[j] = 0.0;
    for (std::size_t k = 0; k < K; ++k) {
      const double a = ta ? A[k * lda + i] : A[i * lda + k];
      for (std::size_t j = 0; j < N; ++j) {
        const double p = a * (tb ? B[j * ldb + k] : B[k * ldb + j]);
        c[j] += p;
        s[j] += std::fabs(p);
      }
    }
    for (std::size_t j = 0; j < N; ++j) {
      const double old = beta != 0.0 ? beta * C0[i * ldc + j] : 0.0;
      c[j] = alpha * c[j] + old;
      s[j] = std::fabs(alpha) * s[j] + std::fabs(old);
    }
  }
}
