// CudaDevice (see device.hpp): the description of one GPU, its lazily retained primary context, and
// the factories for buffers, queues and programs. The primary context (rather than a context of our
// own) is what the CUDA runtime uses too, so duet and runtime-based code in one process share memory
// and streams without copies.
#include "device.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "context.hpp"
#include "errors.hpp"
#include "graph.hpp"
#include "host_memory.hpp"
#include "nvrtc_api.hpp"
#include "program.hpp"
#include "queue.hpp"

namespace duet::backend::cuda {
namespace {

int attribute(CUdevice device, CUdevice_attribute attr) {
  int value = 0;
  DUET_CU(cuDeviceGetAttribute, &value, attr, device);
  return value;
}

}  // namespace

CudaDevice::CudaDevice(int index, int ordinal, CUdevice device, int driver_version) : device_(device) {
  unified_addressing_ = attribute(device, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) != 0;
  max_pitch_ = static_cast<std::size_t>(attribute(device, CU_DEVICE_ATTRIBUTE_MAX_PITCH));
  char name[256] = {};
  DUET_CU(cuDeviceGetName, name, static_cast<int>(sizeof(name) - 1), device);
  std::size_t memory = 0;
  DUET_CU(cuDeviceTotalMem, &memory, device);
  const int major = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  const int minor = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);

  info_.backend = "cuda";
  info_.index = index;
  info_.name = name;
  info_.vendor = "NVIDIA";
  info_.platform = "CUDA";
  info_.driver = cuda_version_text(driver_version) + " driver";
  info_.arch = "sm_" + std::to_string(major) + std::to_string(minor);
  // 9.0 and later have an architecture-specific target (sm_90a: wgmma, setmaxnreg) whose code runs
  // on that architecture only, which is all a cubin built for one device needs.
  if (major >= 9) info_.arch_specific_target = info_.arch + "a";
  info_.language = "CUDA C++ (NVRTC)";
  info_.kind = DeviceKind::gpu;
  info_.memory_bytes = memory;
  // CUDA has no per-allocation limit below the device's memory (unlike OpenCL's MAX_MEM_ALLOC_SIZE).
  info_.max_alloc_bytes = memory;
  // The static __shared__ limit (48 KiB); more needs a per-kernel opt-in that dialect kernels,
  // which declare SHARED arrays statically, cannot make.
  info_.local_memory_bytes =
      static_cast<std::uint64_t>(attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  info_.compute_units = static_cast<unsigned>(attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  info_.max_group_size =
      static_cast<std::size_t>(attribute(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  info_.supports_double = true;
  info_.native_index = ordinal;
  info_.dlpack_device_type = 2;  // kDLCUDA (dlpack.h is optional, so its name is not at hand here)
  // A view is passed to a kernel as its own address, so any element offset works.
  info_.view_alignment = 1;

  const CUdevice_attribute grid[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                      CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  const CUdevice_attribute block[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                       CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                       CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  for (int d = 0; d < 3; ++d) {
    max_grid_[d] = static_cast<unsigned>(attribute(device, grid[d]));
    max_block_[d] = static_cast<unsigned>(attribute(device, block[d]));
  }
}

CudaDevice::~CudaDevice() {
  if (!context_ || abandoned_) return;
  if (!spare_events_.empty()) {
    ContextGuard guard(context_, std::nothrow);
    if (guard.ok())
      for (CUevent e : spare_events_) DUET_CU_NOTHROW(cuEventDestroy, e);
  }
  DUET_CU_NOTHROW(cuDevicePrimaryCtxRelease, device_);
}

CUevent CudaDevice::take_event() const {
  {
    std::lock_guard<std::mutex> lock(events_mutex_);
    if (!spare_events_.empty()) {
      const CUevent e = spare_events_.back();
      spare_events_.pop_back();
      return e;
    }
  }
  CUevent e = nullptr;
  DUET_CU(cuEventCreate, &e, CU_EVENT_DEFAULT);
  return e;
}

void CudaDevice::give_back_event(CUevent event) const noexcept {
  // More spares than this are events a burst of kept Events left behind, not ones in steady use.
  constexpr std::size_t kMostSpare = 256;
  {
    std::lock_guard<std::mutex> lock(events_mutex_);
    if (spare_events_.size() < kMostSpare) {
      spare_events_.push_back(event);
      return;
    }
  }
  ContextGuard guard(context_, std::nothrow);
  if (guard.ok()) DUET_CU_NOTHROW(cuEventDestroy, event);
}

CUcontext CudaDevice::context() const {
  // call_once retries after a throw, so a transient failure (out of memory) is not remembered.
  std::call_once(retain_once_, [this] {
    CUcontext ctx = nullptr;
    DUET_CU(cuDevicePrimaryCtxRetain, &ctx, device_);
    context_ = ctx;
  });
  return context_;
}

std::shared_ptr<BufferImpl> CudaDevice::allocate(std::size_t bytes) {
  return std::make_shared<CudaBuffer>(shared_from_this(), context(), bytes);
}

std::shared_ptr<HostMemoryImpl> CudaDevice::allocate_host(std::size_t bytes) {
  return std::make_shared<CudaHostMemory>(shared_from_this(), context(), bytes);
}

namespace {

std::string hex(std::uintptr_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

}  // namespace

std::shared_ptr<BufferImpl> CudaDevice::wrap(std::uintptr_t native, std::size_t bytes) {
  const CUcontext ctx = context();
  ContextGuard guard(ctx);
  const auto ptr = static_cast<CUdeviceptr>(native);
  const std::string what = "the CUdeviceptr " + hex(native) + " handed to Buffer::wrap for " + info_.id() +
                           " (" + info_.name + ")";
  const DriverApi& api = driver();

  // The memory type tells whether the driver knows the address at all.
  unsigned int type = 0;
  CUresult r = api.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr);
  if (r == CUDA_ERROR_INVALID_VALUE)
    throw ArgumentError(what + " is not memory the CUDA driver knows: wrap device memory from cuMemAlloc, "
                               "cudaMalloc or a library that uses them");
  check(r, "cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_MEMORY_TYPE)");
  unsigned int managed = 0;
  if (api.cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr) != CUDA_SUCCESS) managed = 0;
  if (type == CU_MEMORYTYPE_HOST && !managed)
    throw ArgumentError(what + " is host memory (pinned or registered), not device memory; copy it to a "
                               "duet buffer with Queue::write instead");
  if (type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED && !managed)
    throw ArgumentError(what + " is not device memory (CUmemorytype " + std::to_string(type) + ")");

  // Another device's memory, then another context's on this device: kernels of duet's context
  // could not use either. Allocations from memory pools report no context; their ordinal decides.
  int ordinal = -1;
  if (api.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr) == CUDA_SUCCESS &&
      ordinal >= 0 && ordinal != info_.native_index)
    throw DeviceMismatchError(what + " is memory of CUDA device " + std::to_string(ordinal) + ", not of " +
                              info_.id() + " (CUDA device " + std::to_string(info_.native_index) +
                              "); wrap it for that device, or copy it with duet::copy");
  CUcontext owner = nullptr;
  if (!managed && api.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, ptr) == CUDA_SUCCESS &&
      owner != nullptr && owner != ctx)
    throw ArgumentError(what + " was allocated in another CUDA context of this device; duet uses the "
                               "device's primary context (the CUDA runtime's), whose kernels cannot reach "
                               "it. Allocate it in the primary context (cudaMalloc, or cuMemAlloc after "
                               "cuDevicePrimaryCtxRetain)");

  // Big enough, where the driver can tell the allocation's extent.
  CUdeviceptr base = 0;
  std::size_t size = 0;
  if (api.cuMemGetAddressRange(&base, &size, ptr) == CUDA_SUCCESS && size > 0) {
    const std::size_t available = static_cast<std::size_t>(base + size - ptr);
    if (available < bytes)
      throw BufferSizeError(what + " has " + std::to_string(available) + " bytes left in its allocation (of " +
                            std::to_string(size) + " bytes at " + hex(base) + "), fewer than the " +
                            std::to_string(bytes) + " bytes asked for");
  }
  return std::make_shared<CudaBuffer>(CudaBuffer::Wrapped{}, shared_from_this(), ptr, bytes);
}

std::shared_ptr<QueueImpl> CudaDevice::create_queue(bool high_priority) {
  return std::make_shared<CudaQueue>(shared_from_this(), context(), high_priority);
}

// A CUDA graph where the driver has the graph functions; otherwise core replays the commands.
std::shared_ptr<GraphImpl> CudaDevice::create_graph(const std::vector<GraphCommand>& commands) {
  if (!driver().graphs) return nullptr;
  return std::make_shared<CudaGraph>(shared_from_this(), context(), commands);
}

std::string CudaDevice::graph_path() const { return driver().graphs ? "cuda-graph" : "re-enqueue"; }

// The target NVRTC compiles `source` for: the architecture-specific one where the source asks for
// it with the line `#define DUET_CUDA_ARCH_SPECIFIC 1` (and keeps a portable form for every other
// target) and the device has one; every other source compiles exactly as before.
static std::string build_arch(const DeviceInfo& info, const std::string& source) {
  if (info.arch_specific_target.empty() ||
      source.find("\n#define DUET_CUDA_ARCH_SPECIFIC 1") == std::string::npos)
    return info.arch;
  return info.arch_specific_target;
}

BuildResult CudaDevice::build(const detail::AssembledSource& source, const std::string& name,
                              const std::vector<std::string>& options) {
  BuildResult result;
  std::vector<char> cubin;
  // NVRTC follows #line, so its log names the user's files already and the map is not needed.
  if (!nvrtc_compile_cubin(source.text(), name, build_arch(info_, source.text()), options, cubin, result.log,
                           result.options))
    return result;
  result.program = std::make_shared<CudaProgram>(shared_from_this(), context(), cubin, name);
  return result;
}

std::shared_ptr<ProgramImpl> CudaDevice::load_binary(const std::string& binary, const std::string& name) {
  // A cubin is an ELF file; anything else (a truncated or foreign cache entry) is not handed to
  // the driver at all.
  if (binary.size() < 4 || binary.compare(0, 4, "\x7f" "ELF") != 0) return nullptr;
  try {
    return std::make_shared<CudaProgram>(shared_from_this(), context(),
                                         std::vector<char>(binary.begin(), binary.end()), name);
  } catch (const DriverError&) {
    return nullptr;
  }
}

std::string CudaDevice::compiler_identity() const { return nvrtc_description() + "; " + info_.driver; }

}  // namespace duet::backend::cuda
