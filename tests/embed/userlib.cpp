// The test library's calls: each finds its kernel through the generated embedded_kernels, which
// names the library's namespace, so duet's files of the same names are never in reach.
#include "userlib.hpp"

#include <cstdint>
#include <duet/extension.hpp>

#include "duet_embedded_kernels.hpp"

namespace userlib {

void vector_add(duet::Queue& q, const duet::Buffer<float>& a, const duet::Buffer<float>& b, duet::Buffer<float>& c) {
  q.launch(embedded_kernels.kernel(q.device(), "vector_add", "vector_add"), duet::Range(c.size()), duet::Range(),
           a, b, c, static_cast<std::uint64_t>(c.size()));
}

void max_plus(duet::Queue& q, const duet::Buffer<float>& A, const duet::Buffer<float>& B, duet::Buffer<float>& C,
              std::size_t M, std::size_t N, std::size_t K) {
  q.launch(embedded_kernels.kernel(q.device(), "gemm", "gemm"), duet::Range(N, M), duet::Range(), A, B, C,
           static_cast<int>(M), static_cast<int>(N), static_cast<int>(K));
}

const char* source(const char* stem) { return embedded_kernels.source(stem); }

const char* kernel_namespace() { return embedded_kernels.name(); }

}  // namespace userlib
