// The shared kernels, callable from C++. Each is written once in the dialect (kernels/*.duet),
// compiled on first use per device and cached. All of them are asynchronous: they enqueue work on
// `q` and return. Sizes are checked against the buffers (BufferSizeError) and buffers must belong to
// the queue's device (DeviceMismatchError).
#pragma once

#include <cstddef>
#include <string>

#include "duet/buffer.hpp"
#include "duet/queue.hpp"

namespace duet {

// c[i] = a[i] + b[i] for i < c.size(); a and b must hold at least c.size() elements.
void vector_add(Queue& q, const Buffer<float>& a, const Buffer<float>& b, Buffer<float>& c);

// c[i] = a[i] * b[i] for i < c.size().
void multiply(Queue& q, const Buffer<float>& a, const Buffer<float>& b, Buffer<float>& c);

// C = A * B, row-major float32: A is M x K, B is K x N, C is M x N. Any sizes >= 1.
void matmul(Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C, std::size_t M,
            std::size_t N, std::size_t K);

// One explicit step of the 2D heat equation on an nx * ny grid (row-major, x fastest):
// v = u + r * (u_west + u_east + u_north + u_south - 4u) inside; boundary cells are copied (fixed).
// r must be in (0, 0.25] for the scheme to be stable.
void heat_step(Queue& q, const Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny,
               float r);

// `steps` heat steps ping-ponging between u and v. On return u holds the final field (the two
// buffers are swapped as needed, never copied) and v holds scratch.
void heat(Queue& q, Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny, float r,
          int steps);

// The dialect source of a shared kernel ("vector_add", "multiply", "matmul", "heat"), as embedded.
const char* shared_kernel_source(const char* name);
// The names of the shared kernel sources.
const char* const* shared_kernel_names();  // null-terminated

// Compile complete dialect source for a CUDA architecture ("sm_90") with NVRTC, without a GPU.
// Returns the cubin's size; throws CompileError on failure and BackendUnavailableError when NVRTC
// cannot be loaded or duet was built without CUDA.
std::size_t compile_for_cuda_arch(const std::string& source, const Defines& defines,
                                  const std::string& arch, const std::string& name = "kernel.duet");

}  // namespace duet
