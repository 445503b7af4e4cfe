// The built-in kernels, callable from C++ (matmul is duet::blas's: duet/blas.hpp; the heat solver
// duet::stencil's: duet/stencil.hpp). Each is written once in the dialect (core/kernels/*.duet),
// compiled on first use per device and cached. All of them are asynchronous: they enqueue work on
// `q` and return. Sizes are checked against the buffers (BufferSizeError) and buffers must belong
// to the queue's device (DeviceMismatchError).
#pragma once

#include <cstddef>
#include <string>

#include "duet/buffer.hpp"
#include "duet/export.hpp"
#include "duet/queue.hpp"

namespace duet {

// c[i] = a[i] + b[i] for i < c.size(); a and b must hold at least c.size() elements.
DUET_API void vector_add(Queue& q, const Buffer<float>& a, const Buffer<float>& b, Buffer<float>& c);

// c[i] = a[i] * b[i] for i < c.size().
DUET_API void multiply(Queue& q, const Buffer<float>& a, const Buffer<float>& b, Buffer<float>& c);

// The dialect source of a built-in kernel ("vector_add", "multiply", and those of the modules linked:
// "heat" with duet::stencil, "matmul" with duet::blas), as embedded: every source registered by
// duet_embed_kernels, duet's and users' libraries' alike. `name` is a stem ("vector_add") or a
// qualified "<namespace>/<stem>" ("duet/vector_add", "mylib/vector_add"); a stem means duet's own
// source where duet has one, else the one library's that embeds it (the rule is
// duet/extension.hpp's). nullptr for a name nobody registered; ArgumentError for a stem that two
// users' libraries embed (qualify it); ConfigError while two libraries' registrations clash.
DUET_API const char* builtin_kernel_source(const char* name);
// The names of those sources, each source once by the shortest name that builtin_kernel_source()
// resolves to it: its stem, or "<namespace>/<stem>" where the stem means another library's source
// (or is ambiguous). Null-terminated, valid until libraries register or drop sources. ConfigError
// while registrations clash.
DUET_API const char* const* builtin_kernel_names();

// The former names of the two above, kept for one release.
[[deprecated("use duet::builtin_kernel_source")]] inline const char* shared_kernel_source(const char* name) {
  return builtin_kernel_source(name);
}
[[deprecated("use duet::builtin_kernel_names")]] inline const char* const* shared_kernel_names() {
  return builtin_kernel_names();
}

// The dialect's prelude (core/kernels/prelude.h, installed as duet/dialect/prelude.h): the macros
// every dialect source is compiled with, prepended by duet, with their documentation. Read it to see
// what a macro expands to on each backend.
DUET_API const char* dialect_prelude();

// Compile complete dialect source for `target` without a device, with a backend that can: "cuda"
// compiles for an architecture ("sm_90") with NVRTC, without a GPU. Returns the size of the compiled
// code; throws CompileError on failure, BackendUnavailableError when the backend was left out of this
// build, cannot load its compiler or compiles only for open devices (OpenCL), ConfigError for an
// unknown backend.
DUET_API std::size_t compile_offline(const std::string& backend, const std::string& source, const Defines& defines,
                            const std::string& target, const std::string& name = "kernel.duet");

// compile_offline("cuda", ...): the cubin's size.
inline std::size_t compile_for_cuda_arch(const std::string& source, const Defines& defines,
                                         const std::string& arch, const std::string& name = "kernel.duet") {
  return compile_offline("cuda", source, defines, arch, name);
}

}  // namespace duet
