// The shared kernels, callable from C++ (matmul is duet::blas's: duet/blas.hpp). Each is written
// once in the dialect (kernels/*.duet), compiled on first use per device and cached. All of them
// are asynchronous: they enqueue work on `q` and return. Sizes are checked against the buffers (BufferSizeError) and buffers must belong to
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

// One explicit step of the 2D heat equation on an nx * ny grid (row-major, x fastest):
// v = u + r * (u_west + u_east + u_north + u_south - 4u) inside; boundary cells are copied (fixed).
// r must be in (0, 0.25] for the scheme to be stable.
void heat_step(Queue& q, const Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny,
               float r);

// `steps` heat steps ping-ponging between u and v. On return u holds the final field (the two
// buffers are swapped as needed, never copied) and v holds scratch.
void heat(Queue& q, Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny, float r,
          int steps);

// A window of a larger row-major array `pitch` floats wide, for heat_pass: the cells
// [x0, x0 + nx) x [y0, y0 + ny), whose edge cells are the window's boundary (kept fixed); only the
// rectangle [store_x0, store_x0 + store_nx) x [store_y0, store_y0 + store_ny) of the window (in
// window coordinates) is written to v.
struct HeatWindow {
  std::size_t pitch = 0;
  std::size_t x0 = 0, y0 = 0, nx = 0, ny = 0;
  std::size_t store_x0 = 0, store_y0 = 0, store_nx = 0, store_ny = 0;
};

// `steps` (0 .. heat_pass_depth) steps of heat's scheme in one pass from u into v over a window,
// writing only the window's store rectangle of v; the rest of v is left as it was. Bitwise equal to
// the same steps of heat() on the window alone. The building block of solvers that update parts of a
// grid separately: duet::mpi updates a tile's interior this way while its halo is exchanged.
void heat_pass(Queue& q, const Buffer<float>& u, Buffer<float>& v, const HeatWindow& window, float r, int steps);
// The most steps heat_pass takes in one pass on `device` (the temporal blocking depth).
int heat_pass_depth(const Device& device);

// The dialect source of a shared kernel ("vector_add", "multiply", "heat", and "matmul" where
// duet::blas is linked), as embedded: every source registered by duet_embed_kernels, duet's and
// users' libraries' alike. `name` is a stem ("vector_add") or a qualified "<namespace>/<stem>"
// ("duet/vector_add", "mylib/vector_add"); a stem means duet's own source where duet has one, else
// the one library's that embeds it (the rule is duet/extension.hpp's). nullptr for a name nobody
// registered; ArgumentError for a stem that two users' libraries embed (qualify it); ConfigError
// while two libraries' registrations clash.
const char* shared_kernel_source(const char* name);
// The names of those sources, each source once by the shortest name that shared_kernel_source()
// resolves to it: its stem, or "<namespace>/<stem>" where the stem means another library's source
// (or is ambiguous). Null-terminated, valid until libraries register or drop sources. ConfigError
// while registrations clash.
const char* const* shared_kernel_names();

// The dialect's prelude (kernels/prelude.h, installed as duet/dialect/prelude.h): the macros every
// dialect source is compiled with, prepended by duet, with their documentation. Read it to see
// what a macro expands to on each backend.
const char* dialect_prelude();

// Compile complete dialect source for `target` without a device, with a backend that can: "cuda"
// compiles for an architecture ("sm_90") with NVRTC, without a GPU. Returns the size of the compiled
// code; throws CompileError on failure, BackendUnavailableError when the backend was left out of this
// build, cannot load its compiler or compiles only for open devices (OpenCL), ConfigError for an
// unknown backend.
std::size_t compile_offline(const std::string& backend, const std::string& source, const Defines& defines,
                            const std::string& target, const std::string& name = "kernel.duet");

// compile_offline("cuda", ...): the cubin's size.
inline std::size_t compile_for_cuda_arch(const std::string& source, const Defines& defines,
                                         const std::string& arch, const std::string& name = "kernel.duet") {
  return compile_offline("cuda", source, defines, arch, name);
}

}  // namespace duet
