// Devices: discovery across every backend that loaded, and opening one by environment or spec.
//
// A Device is a cheap handle (copies share one device context). It is safe to use one Device from
// several threads at once: opening it, making queues, compiling (a program compiled concurrently
// by several threads is compiled once and shared), allocating, launching and transferring. Threads
// may share a Queue too, or each make their own (see queue.hpp). Several devices, of one backend or
// of both, may be open in one process at the same time; duet::copy (queue.hpp) moves data between
// them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "duet/export.hpp"

namespace duet {

namespace detail {
struct DeviceCore;
struct Access;
}
class Queue;
class Program;

enum class DeviceKind { gpu, cpu, other };
DUET_API const char* to_string(DeviceKind kind);

struct DeviceInfo {
  std::string backend;        // "cuda" or "opencl"
  int index = 0;              // position within its backend: open("<backend>:<index>")
  std::string name;           // "NVIDIA H100 80GB HBM3", "pthread-skylake-avx512-..."
  std::string vendor;         // "NVIDIA", "Portable Computing Language", ...
  std::string platform;       // OpenCL platform name; "CUDA" for the CUDA backend
  std::string driver;         // driver version string
  std::string arch;           // "sm_90" (NVIDIA, either backend), "gfx90a" (AMD); empty where unknown
  // What a program asking for one architecture's own instructions (`#define DUET_CUDA_ARCH_SPECIFIC 1`:
  // sm_90a's warpgroup MMA) is compiled for: "sm_90a" on CUDA devices of 9.0 or later, "compute_90a"
  // on NVIDIA's OpenCL devices of 9.0 or later where NVRTC loads (PTX it makes, loaded as the
  // program's binary; DUET_PTX_PROGRAMS=0 turns that off); empty where such programs get the plain
  // target (docs/dialect.md).
  std::string arch_specific_target;
  // Where the device has Intel's subgroup matrix multiply-accumulate
  // (cl_intel_subgroup_matrix_multiply_accumulate): the sub-group size its built-ins need (8 or 16);
  // 0 elsewhere.
  unsigned intel_matrix_subgroup = 0;
  std::string language;       // what kernels compile as: "CUDA C++ (NVRTC)", "OpenCL C 1.2 PoCL"
  DeviceKind kind = DeviceKind::other;
  std::uint64_t memory_bytes = 0;     // global memory
  std::uint64_t max_alloc_bytes = 0;  // largest single allocation
  std::uint64_t local_memory_bytes = 0;  // shared / __local memory per group
  unsigned compute_units = 0;
  std::size_t max_group_size = 0;     // most work-items in one group
  bool supports_double = false;
  // A view (BufferView) passed as a kernel argument must start a multiple of this many bytes from
  // the start of its allocation: CL_DEVICE_MEM_BASE_ADDR_ALIGN (in bytes) on OpenCL, where a view
  // becomes a sub-buffer; 1 on CUDA, where any element offset works.
  std::size_t view_alignment = 1;
  // The device's number in the native API: the CUDA device ordinal (cuDeviceGet, cudaSetDevice,
  // DLPack's device_id); on OpenCL the same as `index`.
  int native_index = 0;
  // The DLPack device type of the device's memory (DLDeviceType: 2 kDLCUDA, 4 kDLOpenCL), for
  // duet/dlpack.hpp; 0 where DLPack has none.
  int dlpack_device_type = 0;

  std::string id() const { return backend + ":" + std::to_string(index); }
};

// One line per backend duet was built with: loaded or not, and why not.
struct BackendStatus {
  std::string name;
  bool available = false;
  std::string reason;  // empty when available
  std::size_t device_count = 0;
};

DUET_API std::vector<BackendStatus> backends();
// The names of the backends duet knows ("cuda", "opencl"), built into this library or not, in order
// of preference; unlike backends(), loads no driver.
DUET_API std::vector<std::string> backend_names();
// Every device of every backend that loaded, CUDA first, then OpenCL (platform order).
DUET_API std::vector<DeviceInfo> devices();

// How a queue is made (Device::queue).
enum class QueuePriority { normal, high };

struct QueueOptions {
  // Every operation's event can tell how long the operation ran on the device
  // (Event::duration_ms). Off by default, since it costs each operation on that queue: on CUDA an
  // event recorded before the operation and one after it (two more driver calls and one
  // allocation); on OpenCL a launch asks for an event of its own, which devices whose markers are
  // timed otherwise spare it. Queues without it pay nothing.
  bool command_timing = false;
  // Where a device runs work of several queues at once, which queue's work it starts first when
  // both wait. `high` suits small, latency-bound work issued beside long kernels (a halo exchange
  // and the edge cells beside a stencil's interior pass): its kernels take the multiprocessors as
  // soon as any free up, rather than after the long kernel's last group has started. A hint: CUDA
  // honours it (stream priorities); on OpenCL the queue is a normal one. Order within a queue and
  // between queues (events) is never changed.
  QueuePriority priority = QueuePriority::normal;
};

// Compile-time values for a kernel, emitted as #define NAME VALUE before the source.
using Defines = std::vector<std::pair<std::string, std::string>>;

class DUET_API Device {
 public:
  // Honours DUET_BACKEND=cuda|opencl|auto (default auto) and DUET_DEVICE (index or name substring).
  // Without a device, the best one is taken: CUDA GPUs, then OpenCL GPUs, then CPUs. An index counts
  // within the backend (the <index> of "opencl:<index>"); with auto it counts in that order.
  Device() = default;  // an empty handle; use open()
  static Device open();
  // spec: "auto", "cuda", "opencl", "cuda:0", "opencl:1", "opencl:NVIDIA" (name substring).
  // An asked-for backend or device that is missing throws, naming what is available.
  static Device open(std::string_view spec);
  // Every device open() could have taken under this DUET_BACKEND / DUET_DEVICE: those of the backend
  // and kind open() picks that DUET_DEVICE names (every one when unset; a number names only the one
  // open() takes), in open()'s order of preference: one for each process of a job, say.
  static std::vector<Device> open_all();
  // Whether DUET_DEVICE names a device by its index, so that open_all() gives that one alone however
  // many the machine has: processes that all open it share it on purpose.
  static bool device_env_is_index();

  const DeviceInfo& info() const;
  Queue queue() const;
  Queue queue(const QueueOptions& options) const;
  // Compile dialect source (see core/kernels/prelude.h). `name` labels the source in compiler logs.
  // A program with the same source and defines is compiled once per device and then shared.
  // Before any compiler sees it, and alike on every backend (compile_native too), a source with a
  // NUL byte, an empty one, one of only whitespace and comments, and one in which no kernel can be
  // declared (no KERNEL, __kernel, kernel or __global__, and no #include) throw ArgumentError. A
  // source of any size goes to the compiler, which compiles it or fails with CompileError.
  Program compile(std::string_view source, const Defines& defines = {},
                  std::string_view name = "kernel.duet") const;

  // Compile a native source as it is: CUDA C++ on the CUDA backend (kernels declared
  // extern "C" __global__, found by their plain names), OpenCL C on the OpenCL backend. `options`
  // go to NVRTC or clBuildProgram after duet's own. Argument counts are checked where the driver
  // can tell; kinds and types are not (there is no dialect signature to read).
  Program compile_native(std::string_view source, const std::vector<std::string>& options = {},
                         std::string_view name = "native") const;

  // The native context, as an integer: the CUcontext (CUDA; the device's primary context, which the
  // CUDA runtime uses too) or the cl_context (OpenCL) that all of this device's buffers, queues and
  // programs live in. Created on first use; valid as long as any handle of the device lives. duet
  // keeps its reference: retain it (clRetainContext) to keep it longer, never release duet's.
  std::uintptr_t native_context() const;

  // Whether this handle names a device: false for Device(), true for what open() returns and
  // copies of it.
  bool valid() const noexcept { return core_ != nullptr; }
  // Handles of one opened device (copies, or open() asked twice for one device) compare equal and
  // hash alike (std::hash<Device>), so a Device can key a map.
  bool operator==(const Device& o) const noexcept { return core_ == o.core_; }
  bool operator!=(const Device& o) const noexcept { return core_ != o.core_; }

 private:
  friend struct detail::Access;
  friend struct std::hash<Device>;
  explicit Device(std::shared_ptr<detail::DeviceCore> core) : core_(std::move(core)) {}
  std::shared_ptr<detail::DeviceCore> core_;
};

}  // namespace duet

template <>
struct std::hash<duet::Device> {
  std::size_t operator()(const duet::Device& device) const noexcept {
    return std::hash<const void*>()(device.core_.get());
  }
};
