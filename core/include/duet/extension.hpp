// Building libraries on duet: what duet's own modules (duet::blas, and the MPI and Python parts) use,
// open to users' libraries too, so that nothing outside the core needs its private headers.
//
// - Kernel sources embedded at build time: the CMake function
//   duet_embed_kernels(<target> [NAMESPACE <name>] <files>) (cmake/DuetEmbed.cmake, installed with
//   the package) compiles each .duet file into the target and registers it when the library loads,
//   under the library's namespace (the target's name unless NAMESPACE says otherwise) and the file's
//   stem. It also generates the header duet_embedded_kernels.hpp, private to the target, defining
//   `embedded_kernels` (a KernelLibrary naming that namespace): the library's code finds its own
//   sources with embedded_kernels.kernel(device, "<stem>", "<kernel>") or .source("<stem>"), never
//   another library's file of the same name. kernel() compiles once per device and defines, and
//   finds the kernel again with a lookup, not a compile: the launch path of a module stays as cheap
//   as duet's own built-in kernels (which use the same calls).
// - A slot per device for what a module works out once per device (tuned parameters, say), kept for
//   the life of the device's shared state.
// - The argument checks every entry point makes, with messages that name the call.
// - Views at any offset as kernel arguments on every backend (kernel_range).
//
// Everything here is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/error.hpp"
#include "duet/export.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"

namespace duet::extension {

struct KernelSource {
  const char* name;    // the file's stem: "matmul" for matmul.duet
  const char* source;  // dialect source, kept alive by the library that registers it
};

// The embedded kernel sources of one library: its namespace, "duet" for the core's, "duet.<module>"
// for duet's modules ("duet.blas"), the target's name (or duet_embed_kernels' NAMESPACE) for users'.
// A source's qualified name is "<namespace>/<stem>": "duet/vector_add", "duet.blas/gemm". A
// literal type, so the generated `embedded_kernels` is a constant that needs no initialisation.
class DUET_API KernelLibrary {
 public:
  constexpr explicit KernelLibrary(const char* name) noexcept : name_(name) {}
  constexpr const char* name() const noexcept { return name_; }

  // The source this library registered as `file` (a stem), or nullptr. ConfigError while two
  // registrations clash (see KernelSourceRegistration).
  const char* source(const char* file) const;

  // Kernel `kernel` of this library's source `file`, compiled with `defines` on `device` (the
  // source name in compiler messages is "<file>.duet"). The first call per (device, library, file,
  // kernel, defines) compiles; later calls are a lookup. With no defines, `file` and `kernel` should
  // be string literals: their addresses (and the library's) are the fastest key. ArgumentError when
  // the library registered no such source; ConfigError while two registrations clash.
  Kernel kernel(const Device& device, const char* file, const char* kernel, const Defines& defines = {}) const;

 private:
  const char* name_;
};

// Registers `count` sources of `library`, made by the CMake target `target`, while it lives (the
// file duet_embed_kernels generates holds one of these as a static object, so: for the life of the
// library that embeds them).
//
// Each qualified name belongs to one source. A second registration of a name with another text (two
// libraries that chose one namespace) is a clash: it runs in a static initialiser, where nothing
// can be thrown, so it is written to stderr at once, and from then on every lookup of embedded
// sources (KernelLibrary, kernel_source, builtin_kernel, builtin_kernel_source/_names) throws a
// ConfigError naming both targets and the files that hold them, until one of the two is unloaded.
// Neither source is ever used in the other's place. The same text registered twice (one static
// library linked into two shared ones) is the same source, not a clash.
class DUET_API KernelSourceRegistration {
 public:
  KernelSourceRegistration(KernelLibrary library, const char* target, const KernelSource* sources,
                           std::size_t count) noexcept;
  ~KernelSourceRegistration();
  KernelSourceRegistration(const KernelSourceRegistration&) = delete;
  KernelSourceRegistration& operator=(const KernelSourceRegistration&) = delete;
};

// How a name without a namespace resolves (here, in builtin_kernel, builtin_kernel_source, `duet run`
// and Python's duet.kernel_source): "<namespace>/<stem>" is that source exactly; a bare "<stem>" is
// looked for in the core's namespace ("duet") first, then in duet's modules ("duet.*"), then in
// every other library, and the first of these groups that has the stem decides. So duet's own
// kernels keep their short names whatever users embed, and a user's stem that no one else uses is
// found by it too; a stem that two libraries of one group embed (two users' "axpy") is ambiguous:
// ArgumentError naming the qualified names to use instead.

// The registered source called `name` (resolved as above), or nullptr.
DUET_API const char* kernel_source(std::string_view name);

// Kernel `kernel` of the registered source `file` (resolved as above): KernelLibrary::kernel of the
// library it resolves to. A library's own code uses its `embedded_kernels` instead, which never
// resolves to another library's file.
DUET_API Kernel builtin_kernel(const Device& device, const char* file, const char* kernel, const Defines& defines = {});

// The object kept under `key` for `device`, made by `make` on first use (one call per device and
// key, even when threads race). Keys are the module's own ("duet.blas.matmul").
DUET_API std::shared_ptr<void> device_slot(const Device& device, std::string_view key,
                                           const std::function<std::shared_ptr<void>()>& make);

template <class T, class Make>
std::shared_ptr<T> device_state(const Device& device, std::string_view key, Make make) {
  return std::static_pointer_cast<T>(device_slot(device, key, [&] { return std::shared_ptr<void>(make()); }));
}

// The object kept under `key` for `queue` (shared by its copies), made by `make` on first use and
// freed with the queue's last copy: what a module keeps per queue, such as scratch memory that its
// calls on one queue share because they run in order. Kept per device instead, anything holding
// the queue or a buffer would keep the device's state alive from within, for good.
DUET_API std::shared_ptr<void> queue_slot(const Queue& queue, std::string_view key,
                                          const std::function<std::shared_ptr<void>()>& make);

template <class T, class Make>
std::shared_ptr<T> queue_state(const Queue& queue, std::string_view key, Make make) {
  return std::static_pointer_cast<T>(queue_slot(queue, key, [&] { return std::shared_ptr<void>(make()); }));
}

// Checks `buffer` is live (ReleasedError naming `what`) and then that it holds at least `want`
// elements (BufferSizeError "<call>: <what> holds 10 elements but the call needs 12"), in that
// order, so a released buffer is never reported as a size problem.
template <class Buffer>
void require_elements(const char* call, const char* what, const Buffer& buffer, std::size_t want) {
  buffer.raw().check_live(what);
  if (buffer.size() < want) {
    std::ostringstream s;
    s << call << ": " << what << " holds " << buffer.size() << " elements but the call needs " << want;
    throw BufferSizeError(s.str());
  }
}

// `value` as an int, for kernels that index with int; ArgumentError naming `call` and `what` when it
// does not fit.
DUET_API int as_int(const char* call, const char* what, std::size_t value);

// A buffer or view as a kernel takes it at any element offset, on every backend: `arg` is a view
// of the same memory that starts where the device accepts a view argument (a multiple of
// DeviceInfo::view_alignment bytes from the allocation's start: OpenCL sub-buffers), and `offset`
// the elements from arg's start to the view's first element, which the kernel adds itself. On
// CUDA (alignment 1) arg is the view and offset 0. ArgumentError naming `call` and `what` when the
// view's byte offset is not a multiple of sizeof(T) (memory wrapped at an odd byte offset).
template <class T>
struct KernelRange {
  BufferView<T> arg;
  std::uint64_t offset = 0;
};
template <class T>
KernelRange<T> kernel_range(const char* call, const char* what, const BufferView<T>& view,
                            const DeviceInfo& device) {
  RawBuffer wide = view.raw().aligned_back(device.view_alignment);
  const std::size_t back = view.raw().offset() - wide.offset();
  if (back % sizeof(T) != 0)
    throw ArgumentError(std::string(call) + ": " + what + " starts " + std::to_string(view.raw().offset()) +
                        " bytes into its allocation, not at a whole element");
  const std::size_t count = wide.bytes() / sizeof(T), skipped = back / sizeof(T);
  const std::size_t first = view.offset() >= skipped ? view.offset() - skipped : 0;
  return {BufferView<T>(std::move(wide), count, first), skipped};
}

// A 2D tiled copy of a row-major matrix in device memory, for the descriptor below: `rows` rows of
// `cols` elements of `element_bytes` (1, 2, 4 or 8) each, `row_bytes` apart (a multiple of 16, at
// least cols * element_bytes); each copy moves a box of box_rows x box_cols elements (each 1 to
// 256) into shared memory, stored with the `swizzle_bytes` swizzle (0 none, 32, 64 or 128; with
// one, box_cols * element_bytes at most that many bytes).
struct TiledCopy {
  std::size_t element_bytes = 2;
  std::uint64_t cols = 0, rows = 0, row_bytes = 0;
  std::uint32_t box_cols = 0, box_rows = 0;
  std::uint32_t swizzle_bytes = 128;
};

// The bytes of the device's descriptor for tiled copies of `shape` from `memory` (its first byte
// is the matrix's first element, 16-byte aligned): on CUDA a tensor map (128 bytes, to be placed
// 64-byte aligned in device memory for a kernel's cp.async.bulk.tensor), made by the driver's
// cuTensorMapEncodeTiled. Empty where the device has no such copies (OpenCL, a driver without
// them): the caller then copies another way. ArgumentError naming `call` for a shape the
// descriptor cannot hold; DriverError where the driver refuses it.
DUET_API std::string tiled_copy_descriptor(const char* call, const RawBuffer& memory, const TiledCopy& shape);

}  // namespace duet::extension
