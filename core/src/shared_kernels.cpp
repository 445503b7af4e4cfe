// The shared kernels as C++ calls: size checks against the buffers, then a launch of the embedded
// dialect kernel, compiled once per device (Device::compile caches by source).
#include <cstdint>
#include <limits>
#include <sstream>
#include <utility>

#include "duet/kernels.hpp"
#include "embedded_kernels.hpp"
#include "probes.hpp"
#include "source.hpp"

namespace duet {
namespace {

constexpr int matmul_tile = 16;

Kernel shared_kernel(const Queue& q, const char* file, const char* kernel, const Defines& defines = {}) {
  return q.device().compile(embedded::kernel_source(file), defines, std::string(file) + ".duet").kernel(kernel);
}

// Checks the buffer is live (ReleasedError) before its size, so a released buffer is never
// reported as a size problem.
template <class T>
void need(const char* call, const char* what, const Buffer<T>& buffer, std::size_t want) {
  buffer.raw().impl(what);
  const std::size_t have = buffer.size();
  if (have < want) {
    std::ostringstream s;
    s << call << ": " << what << " holds " << have << " elements but the call needs " << want;
    throw BufferSizeError(s.str());
  }
}

int as_int(const char* call, const char* what, std::size_t v) {
  if (v > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw ArgumentError(std::string(call) + ": " + what + " = " + std::to_string(v) +
                        " is larger than the kernel supports (2^31 - 1)");
  return static_cast<int>(v);
}

void elementwise(Queue& q, const char* name, const Buffer<float>& a, const Buffer<float>& b,
                 Buffer<float>& c) {
  need(name, "c", c, 0);
  need(name, "a", a, c.size());
  need(name, "b", b, c.size());
  if (c.size() == 0) return;
  q.launch(shared_kernel(q, name, name), Range(c.size()), Range(256), a, b, c,
           static_cast<std::uint64_t>(c.size()));
}

}  // namespace

void vector_add(Queue& q, const Buffer<float>& a, const Buffer<float>& b, Buffer<float>& c) {
  elementwise(q, "vector_add", a, b, c);
}

void multiply(Queue& q, const Buffer<float>& a, const Buffer<float>& b, Buffer<float>& c) {
  elementwise(q, "multiply", a, b, c);
}

void matmul(Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C, std::size_t M,
            std::size_t N, std::size_t K) {
  if (M == 0 || N == 0 || K == 0) throw ArgumentError("matmul: M, N and K must be at least 1");
  const int m = as_int("matmul", "M", M), n = as_int("matmul", "N", N), k = as_int("matmul", "K", K);
  need("matmul", "A (M x K)", A, M * K);
  need("matmul", "B (K x N)", B, K * N);
  need("matmul", "C (M x N)", C, M * N);
  const std::size_t t = matmul_tile;
  q.launch(shared_kernel(q, "matmul", "matmul", {{"TS", std::to_string(matmul_tile)}}),
           Range((N + t - 1) / t * t, (M + t - 1) / t * t), Range(t, t), A, B, C, m, n, k);
}

void heat_step(Queue& q, const Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny,
               float r) {
  if (nx == 0 || ny == 0) throw ArgumentError("heat_step: nx and ny must be at least 1");
  if (!(r > 0.0f && r <= 0.25f))
    throw ArgumentError("heat_step: r = " + std::to_string(r) +
                        " is outside (0, 0.25], where the explicit scheme is stable");
  const int nxi = as_int("heat_step", "nx", nx), nyi = as_int("heat_step", "ny", ny);
  need("heat_step", "u", u, nx * ny);
  need("heat_step", "v", v, nx * ny);
  if (&u.raw().impl() == &v.raw().impl())
    throw ArgumentError("heat_step: u and v must be different buffers");
  q.launch(shared_kernel(q, "heat", "heat_step"), Range(nx, ny), Range(32, 8), u, v, nxi, nyi, r);
}

void heat(Queue& q, Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny, float r,
          int steps) {
  if (steps < 0) throw ArgumentError("heat: steps must be >= 0, not " + std::to_string(steps));
  for (int s = 0; s < steps; ++s) {
    heat_step(q, u, v, nx, ny, r);
    std::swap(u, v);
  }
}

const char* shared_kernel_source(const char* name) { return embedded::kernel_source(name); }
const char* const* shared_kernel_names() { return embedded::kernel_names(); }

std::size_t compile_for_cuda_arch(const std::string& source, const Defines& defines,
                                  const std::string& arch, const std::string& name) {
#ifdef DUET_HAVE_CUDA
  std::string full = detail::assemble_source("cuda", source, defines, name);
  std::vector<char> cubin;
  std::string log;
  std::vector<std::string> options;
  if (!backend::nvrtc_compile_cubin(full, name, arch, cubin, log, options))
    throw CompileError("cuda", name, log, options, detail::compile_error_line(log, name));
  return cubin.size();
#else
  (void)source, (void)defines, (void)arch, (void)name;
  throw BackendUnavailableError("duet was built without the CUDA toolkit, so NVRTC is not available");
#endif
}

}  // namespace duet
