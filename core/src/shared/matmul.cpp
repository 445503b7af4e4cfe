// matmul: C = A * B with the tiled dialect kernel in kernels/matmul.duet.
#include "duet/kernels.hpp"
#include "support.hpp"

namespace duet {
namespace {
constexpr std::size_t matmul_tile = 16;
}

void matmul(Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C, std::size_t M,
            std::size_t N, std::size_t K) {
  if (M == 0 || N == 0 || K == 0) throw ArgumentError("matmul: M, N and K must be at least 1");
  const int m = detail::as_int("matmul", "M", M), n = detail::as_int("matmul", "N", N),
            k = detail::as_int("matmul", "K", K);
  detail::need("matmul", "A (M x K)", A, M * K);
  detail::need("matmul", "B (K x N)", B, K * N);
  detail::need("matmul", "C (M x N)", C, M * N);
  const std::size_t t = matmul_tile;
  q.launch(detail::shared_kernel(q.device(), "matmul", "matmul", {{"TS", std::to_string(t)}}),
           Range((N + t - 1) / t * t, (M + t - 1) / t * t), Range(t, t), A, B, C, m, n, k);
}

}  // namespace duet
