// The backend interface: the one place where CUDA and OpenCL differ. Each backend implements these
// classes in backends/<name>/, with a Backend object that core/CMakeLists.txt lists in the generated
// backend registry (backend_list.hpp); nothing above this interface names a backend. Core checks every
// argument (sizes, devices, released objects) before calling in, so implementations may assume
// valid input and only translate driver failures into duet errors (DriverError, OutOfMemoryError).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "duet/device.hpp"
#include "duet/error.hpp"
#include "duet/extension.hpp"
#include "duet/queue.hpp"
#include "queue_order.hpp"
#include "source_map.hpp"

namespace duet::backend {

class DeviceImpl;

class BufferImpl {
 public:
  virtual ~BufferImpl() = default;
  virtual std::size_t bytes() const = 0;
  virtual const DeviceImpl& device() const = 0;
  // false for wrapped memory (DeviceImpl::wrap), which destroying this object never frees.
  virtual bool owns_memory() const = 0;
  // The native handle of the range that starts `byte_offset` bytes into the allocation, as an
  // integer: where handles are addresses (a CUdeviceptr) the range's own start; where they are
  // objects without address arithmetic (a cl_mem) the allocation's handle.
  virtual std::uintptr_t native_handle(std::size_t byte_offset) const = 0;
  // Whether the byte `byte_offset` into the allocation lies at a multiple of `alignment` (a power
  // of two) in device memory: wrapped memory may start anywhere.
  virtual bool aligned_at(std::size_t byte_offset, std::size_t alignment) const = 0;

  // The core's record of which queues may still be using which bytes (queue_order.hpp); backends
  // never touch it.
  detail::BufferAccesses accesses;
};

// Pinned host memory (DeviceImpl::allocate_host), freed when the object is destroyed.
class HostMemoryImpl {
 public:
  virtual ~HostMemoryImpl() = default;
  virtual void* data() const = 0;
  virtual std::size_t bytes() const = 0;
  // Why the device's kernels cannot use this memory in place (RawHostBuffer::device_view); empty
  // when they can, and then device_view() gives a buffer over it that never frees it.
  virtual std::string device_view_unavailable() const = 0;
  virtual std::shared_ptr<BufferImpl> device_view() = 0;
};

class EventImpl {
 public:
  virtual ~EventImpl() = default;
  virtual void wait() = 0;
  // Whether everything before the event has completed; does not block.
  virtual bool done() = 0;
  // Milliseconds from this event to `later` (both recorded on the same queue); waits for both.
  virtual double elapsed_ms_until(EventImpl& later) = 0;
};

// The device time of one operation's commands (QueueImpl::stop_timing).
class CommandTimeImpl {
 public:
  virtual ~CommandTimeImpl() = default;
  // Milliseconds from the start of the operation's first command to the end of its last; waits
  // for them. 0 for an operation that enqueued no command.
  virtual double duration_ms() = 0;
};

// What a driver can tell of one kernel parameter without the source (native kernels): OpenCL the
// address space, type and name (programs are built with -cl-kernel-arg-info), CUDA the size.
struct ParamInfo {
  enum class Space { unknown, global, constant, local, value };
  Space space = Space::unknown;
  std::string type_name;  // as the driver writes it ("float*", "uint"); empty when it cannot tell
  std::string name;       // empty when it cannot tell
  bool is_const = false;  // points to const (only meaningful with a known space)
  std::size_t size = 0;   // bytes the parameter takes; 0 when it cannot tell
};

class KernelImpl {
 public:
  virtual ~KernelImpl() = default;
  // Number of parameters when the backend can tell, else -1.
  virtual int arg_count() const = 0;
  // One entry per parameter when the backend can tell anything about them, else none.
  virtual std::vector<ParamInfo> params() const = 0;
};

class ProgramImpl {
 public:
  virtual ~ProgramImpl() = default;
  // nullptr when the program has no kernel of that name. `declared_params`: the number of
  // parameters its dialect declaration lists, or -1 for native source (the backend finds out).
  virtual std::shared_ptr<KernelImpl> kernel(const std::string& name, int declared_params) = 0;
  virtual std::vector<std::string> kernel_names() const = 0;
  // The compiled program as bytes that DeviceImpl::load_binary accepts on the same device, driver
  // and compiler (for the on-disk cache); empty when there is nothing to export.
  virtual std::string binary() const = 0;
};

// A launch argument after core's checks: a buffer range, or scalar bytes. A buffer range that
// starts at offset 0 may be passed as the whole buffer; one that does not is a view (core has
// checked the offset is a multiple of DeviceInfo::view_alignment).
struct LaunchArg {
  const BufferImpl* buffer = nullptr;  // non-null for buffers
  std::size_t offset = 0;              // byte offset of the range into the buffer
  std::size_t bytes = 0;               // size of the range in bytes
  const void* scalar = nullptr;        // points at `scalar_size` bytes otherwise
  std::size_t scalar_size = 0;
};

// Global sizes are already multiples of the local sizes; unused dimensions are 1.
struct LaunchShape {
  int dims = 1;
  std::size_t global[3] = {1, 1, 1};
  std::size_t local[3] = {1, 1, 1};
};

// A strided 2D transfer between a buffer and host memory (Queue::write_rect, read_rect), in bytes:
// `rows` rows of `row_bytes`, in the buffer `pitch` apart from byte `offset` of the allocation, in
// host memory `host_pitch` apart from the host address the call gets. Core checked both layouts
// (rows >= 1, row_bytes >= 1, pitches >= row_bytes where rows > 1).
struct RectTransfer {
  std::size_t offset = 0, pitch = 0, host_pitch = 0, row_bytes = 0, rows = 0;
};

// Core makes the calls on one QueueImpl one at a time, from whichever threads share the Queue,
// except finish(), which may run on another thread beside any of the others.
class QueueImpl {
 public:
  virtual ~QueueImpl() = default;
  virtual void write(BufferImpl& dst, std::size_t offset, const void* src, std::size_t bytes) = 0;
  virtual void read(const BufferImpl& src, std::size_t offset, void* dst, std::size_t bytes) = 0;
  // Strided transfers; a backend without the driver's own inherits one transfer per row.
  virtual void write_rect(BufferImpl& dst, const RectTransfer& rect, const void* src) {
    for (std::size_t r = 0; r < rect.rows; ++r)
      write(dst, rect.offset + r * rect.pitch, static_cast<const char*>(src) + r * rect.host_pitch,
            rect.row_bytes);
  }
  virtual void read_rect(const BufferImpl& src, const RectTransfer& rect, void* dst) {
    for (std::size_t r = 0; r < rect.rows; ++r)
      read(src, rect.offset + r * rect.pitch, static_cast<char*>(dst) + r * rect.host_pitch, rect.row_bytes);
  }
  virtual void copy(const BufferImpl& src, std::size_t src_offset, BufferImpl& dst,
                    std::size_t dst_offset, std::size_t bytes) = 0;
  // pattern_size is a power of two from 1 to 128; bytes and offset are multiples of it.
  virtual void fill(BufferImpl& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                    std::size_t pattern_size) = 0;
  virtual void launch(KernelImpl& kernel, const LaunchShape& shape,
                      const std::vector<LaunchArg>& args) = 0;
  virtual std::shared_ptr<EventImpl> record() = 0;
  // Command timing, for queues made with QueueOptions::command_timing only: core calls
  // start_timing() right before one operation's commands are enqueued and stop_timing() right
  // after them, so a queue without it pays nothing. Between the two the backend makes whatever the
  // driver needs to time the commands (an event before them, an event of each command).
  virtual void start_timing() = 0;
  virtual std::shared_ptr<CommandTimeImpl> stop_timing() = 0;
  // Later work on this queue starts after `event` (of a queue of the same device) has completed.
  virtual void wait_for(EventImpl& event) = 0;
  virtual void finish() = 0;
  // Blocking: waits for the queue's earlier work, then returns a host address for the range
  // (bytes > 0) holding its contents (unless access is write). Every map is followed by one unmap
  // with the same arguments and the returned address, which enqueues the way back (unless access
  // is read) and may return before it completed.
  virtual void* map(BufferImpl& buffer, std::size_t offset, std::size_t bytes, MapAccess access) = 0;
  virtual void unmap(BufferImpl& buffer, void* host, std::size_t offset, std::size_t bytes,
                     MapAccess access) = 0;
  // CUstream / cl_command_queue, as an integer.
  virtual std::uintptr_t native_handle() const = 0;

  // Signals between processes (DeviceImpl::interprocess_unavailable is empty where they work), on
  // 32-bit words of `flags` at byte `offset` (a multiple of 4): signal() stores `value` once the
  // queue's earlier work is done and its writes are visible to other devices of the machine, and
  // wait_signal() holds the queue's later work, on the device, until the word equals `value`. The
  // host never blocks.
  virtual void signal(BufferImpl& flags, std::size_t offset, std::uint32_t value) {
    (void)flags, (void)offset, (void)value;
  }
  virtual void wait_signal(const BufferImpl& flags, std::size_t offset, std::uint32_t value) {
    (void)flags, (void)offset, (void)value;
  }
};

struct BuildResult {
  std::shared_ptr<ProgramImpl> program;  // null when the compile failed
  std::string log;                       // the compiler's log (warnings too when it succeeded)
  std::vector<std::string> options;      // the options the compiler was given
};

// --- Graphs: commands recorded once and replayed as one submission (duet/graph.hpp) ------------
// Core records a queue's launches, copies and fills as a list of GraphCommands after its usual
// checks, and owns everything they point to for as long as the graph lives. A backend that can
// replay such a list natively (a CUDA graph, an OpenCL command buffer) makes a GraphImpl of it;
// where it cannot, core replays the commands itself through the QueueImpl calls above, which
// skips its own per-launch checks and conversions but not the driver's per-command cost.

// One recorded command; the commands of a graph run in order, each after the one before.
struct GraphCommand {
  enum class Kind { launch, copy, fill };
  Kind kind = Kind::launch;
  // launch: the kernel, its shape and its arguments (core may change `args` between replays, and
  // then calls GraphImpl::update_launch). An empty global size launches nothing.
  KernelImpl* kernel = nullptr;
  LaunchShape shape;
  const std::vector<LaunchArg>* args = nullptr;
  // copy (src to dst) and fill (dst); offsets are bytes into the allocations; 0 bytes do nothing.
  const BufferImpl* src = nullptr;
  BufferImpl* dst = nullptr;
  std::size_t src_offset = 0, dst_offset = 0, bytes = 0;
  const void* pattern = nullptr;  // fill: as QueueImpl::fill takes it
  std::size_t pattern_size = 0;
};

// A backend's native form of a command list, replayable on any queue of its device. Core calls
// replay() and update_launch() one at a time per graph (under the graph's lock).
class GraphImpl {
 public:
  virtual ~GraphImpl() = default;
  // Enqueues the whole list on `queue` (of the graph's device) as one submission; on a queue with
  // command timing, between its start_timing and stop_timing like any command.
  virtual void replay(QueueImpl& queue) = 0;
  // Command `index` (a launch) has new arguments in *command.args. false where the native graph
  // cannot take them in place: core then makes a new GraphImpl.
  virtual bool update_launch(std::size_t index, const GraphCommand& command) = 0;
};
// ------------------------------------------------------------------------------------------------

class DeviceImpl {
 public:
  virtual ~DeviceImpl() = default;
  virtual const DeviceInfo& info() const = 0;
  // Throws OutOfMemoryError when the device cannot provide `bytes` (> 0).
  virtual std::shared_ptr<BufferImpl> allocate(std::size_t bytes) = 0;
  // Pinned (page-locked) host memory of `bytes` (> 0) for fast asynchronous transfers with this
  // device; OutOfMemoryError when the system refuses.
  virtual std::shared_ptr<HostMemoryImpl> allocate_host(std::size_t bytes) = 0;
  // Adopts memory another library owns (`native` is a CUdeviceptr / cl_mem, non-zero) as a buffer
  // of at least `bytes` (> 0) that never frees it. Validates what the driver can tell: that it is
  // device memory of this device's context and large enough (ArgumentError, DeviceMismatchError,
  // BufferSizeError with what was wrong).
  virtual std::shared_ptr<BufferImpl> wrap(std::uintptr_t native, std::size_t bytes) = 0;
  // CUcontext / cl_context, as an integer; created on first use.
  virtual std::uintptr_t native_context() = 0;
  // A queue whose work the device starts before normal queues' where the backend can (QueueOptions).
  virtual std::shared_ptr<QueueImpl> create_queue(bool high_priority) = 0;
  // `source` is complete: the backend's prelude, defines and the user's source (with #line marks),
  // or a native CUDA C++ / OpenCL C source; its map places the compiler's positions for a backend
  // whose compiler does not follow #line. `options` go to the compiler after the backend's own.
  virtual BuildResult build(const detail::AssembledSource& source, const std::string& name,
                            const std::vector<std::string>& options) = 0;
  // A program from ProgramImpl::binary(); null when the driver rejects the bytes (then core builds
  // from source again).
  virtual std::shared_ptr<ProgramImpl> load_binary(const std::string& binary, const std::string& name) = 0;
  // Everything besides source and options that decides the compiled code: compiler and driver
  // versions. Part of the on-disk cache key.
  virtual std::string compiler_identity() const = 0;
  // A kernel of this device never ended and core stopped waiting for it: from now on, destroying
  // objects must not wait for the device (freeing memory a kernel may use does, on some drivers).
  // They are leaked instead, so that the process can end.
  virtual void abandon() {}

  // Memory shared with other processes of this machine (CUDA IPC): empty where this device can
  // export and import it and signal between processes (QueueImpl::signal), else why not. Core
  // calls the two below only where it is empty.
  virtual std::string interprocess_unavailable() const { return "its backend cannot share device memory between processes"; }
  // The allocation of `buffer` (owned by this device) as bytes another process passes to
  // import_memory, with `offset` bytes into it where the shared range starts.
  virtual std::string export_memory(const BufferImpl& buffer, std::size_t offset) {
    (void)buffer, (void)offset;
    return {};
  }
  // Memory another process exported, mapped into this device's context for as long as the
  // returned buffer lives; `bytes` must not exceed what was exported. Throws DriverError where the
  // driver refuses (no peer path between the two devices, a handle of this same process).
  virtual std::shared_ptr<BufferImpl> import_memory(const std::string& handle, std::size_t bytes) {
    (void)handle, (void)bytes;
    return nullptr;
  }
  // Graphs (see GraphCommand): a native graph of `commands`, which outlive it; null where the
  // device replays command lists through its queues instead.
  virtual std::shared_ptr<GraphImpl> create_graph(const std::vector<GraphCommand>& commands) {
    (void)commands;
    return nullptr;
  }
  // A tiled-copy descriptor (extension::TiledCopy, checked by core) for the memory `offset` bytes
  // into `buffer`: a CUDA tensor map, the bytes the tensor memory accelerator's bulk copies read.
  // Empty where the device has no such copies (OpenCL); DriverError where the driver refuses.
  virtual std::string encode_tiled_copy(const BufferImpl& buffer, std::size_t offset, const extension::TiledCopy& shape) {
    (void)buffer, (void)offset, (void)shape;
    return {};
  }
  // PTX from another backend's compiler (Backend::compile_ptx), for programs that ask for code of
  // one architecture (`#define DUET_CUDA_ARCH_SPECIFIC 1`): the virtual target to compile for
  // ("compute_90a"), or empty where this device takes no such PTX (the default).
  virtual std::string ptx_target() const { return {}; }
  // A program of that PTX; `buffer_params` names, per kernel,
  // which parameters are buffers (the PTX cannot tell a pointer from a 64-bit integer). Null with
  // `log` saying why where the driver refuses it.
  virtual std::shared_ptr<ProgramImpl> load_ptx(const std::string& ptx, const std::string& name,
                                                const std::map<std::string, std::vector<bool>>& buffer_params,
                                                std::string& log) {
    (void)ptx, (void)name, (void)buffer_params;
    log = "this device takes no PTX";
    return nullptr;
  }
  // How graphs replay on this device, for `duet devices` and Graph::path().
  // "cuda-graph", "cl_khr_command_buffer", or "re-enqueue" (core replays the commands one by one).
  virtual std::string graph_path() const { return "re-enqueue"; }
};

// What a backend's probe found: its devices, or why it is not available.
struct Probe {
  std::vector<std::shared_ptr<DeviceImpl>> devices;
  bool available = false;
  std::string reason;
};

// A compile for a target architecture without a device (Backend::compile_offline).
struct OfflineBuild {
  bool compiled = false;
  std::size_t binary_bytes = 0;      // the size of the compiled code
  std::string log;                   // the compiler's log
  std::vector<std::string> options;  // the options the compiler was given
};

// A backend as a whole, before any device: finding its devices, and the services that need none.
// Each backend defines one, returned by `const Backend& <name>_backend()` in backends/<name>/backend.cpp.
class Backend {
 public:
  virtual ~Backend() = default;
  // Loads the driver and describes every device. May throw: the registry turns an exception into
  // the reason the backend is unavailable, so a probe needs no catch-all of its own.
  virtual Probe probe() const = 0;
  // The type users know the backend's buffer handles by ("CUdeviceptr"), for messages.
  virtual const char* native_buffer_type() const = 0;
  // Whether `error`, from a call that waits for the device or enqueues after a kernel ran, is the
  // driver's report that a kernel faulted (an illegal address, a trap) rather than a failure of
  // that call; core then names the kernels that may have caused it (KernelFaultError).
  virtual bool is_kernel_fault(const DriverError& error) const {
    (void)error;
    return false;
  }
  // Whether a device stays usable after one of its kernels faulted (is_kernel_fault): false where
  // the driver's fault is sticky, so that every later call in the device's context fails alike and
  // the process has to end.
  virtual bool survives_kernel_fault() const { return true; }
  // The words that declare a kernel in this backend's native source (`__global__` in CUDA C++), for
  // reading a native program's kernel parameters from its source.
  virtual std::vector<std::string> native_kernel_markers() const = 0;
  // The driver's rule behind DeviceInfo::view_alignment, as its documentation names it, for the
  // message that refuses a view at another offset; empty where views need no alignment.
  virtual const char* view_alignment_rule() const { return ""; }
  // Compiles complete source (as assembled for this backend) for `target`, an architecture such as
  // "sm_90", without a device. Throws BackendUnavailableError when the compiler cannot be loaded;
  // nullopt when the backend has no compiler that runs without a device.
  virtual std::optional<OfflineBuild> compile_offline(const std::string& source, const std::string& name,
                                                      const std::string& target) const {
    (void)source, (void)name, (void)target;
    return std::nullopt;
  }
  // Compiles complete source (as assembled for this backend) to PTX for `target` ("compute_90a"),
  // for a device of another backend that takes PTX (DeviceImpl::ptx_target). nullopt where this
  // backend makes no PTX; `log` gets the compiler's log, `options` its options; false in
  // `compiled` when the compile failed. Throws BackendUnavailableError when the compiler cannot be
  // loaded.
  // Empty where compile_ptx works here (its compiler loads), else why not.
  virtual std::string ptx_unavailable() const { return "this backend makes no PTX"; }
  virtual std::optional<bool> compile_ptx(const std::string& source, const std::string& name,
                                          const std::string& target, std::string& ptx, std::string& log,
                                          std::vector<std::string>& options) const {
    (void)source, (void)name, (void)target, (void)ptx, (void)log, (void)options;
    return std::nullopt;
  }
};

}  // namespace duet::backend
