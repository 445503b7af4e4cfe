// CudaQueue (see queue.hpp). Core has checked every size, range and device before these run, so
// the code only maps each operation onto its stream-ordered driver call. Nothing here waits for
// the device except finish() and the destructor.
#include "queue.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "context.hpp"
#include "device.hpp"
#include "errors.hpp"
#include "event.hpp"
#include "kernel.hpp"
#include "launch_params.hpp"

namespace duet::backend::cuda {
namespace {

// Core only hands a queue buffers of its own device, so they are CudaBuffers. A view is its first
// byte's address: offsets are plain address arithmetic on CUDA.
CUdeviceptr address(const BufferImpl& b, std::size_t offset) {
  return static_cast<const CudaBuffer&>(b).handle() + offset;
}

// A rect transfer's size, for cuMemcpy2D (the caller fills in its two sides).
CUDA_MEMCPY2D rect_copy(const RectTransfer& rect) {
  CUDA_MEMCPY2D m{};
  m.WidthInBytes = rect.row_bytes;
  m.Height = rect.rows;
  return m;
}

}  // namespace

CudaQueue::CudaQueue(std::shared_ptr<const CudaDevice> device, CUcontext ctx, bool high_priority)
    : device_(std::move(device)), ctx_(ctx) {
  ContextGuard guard(ctx_);
  if (!high_priority) {
    DUET_CU(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
    return;
  }
  // Lower numbers are higher priorities; the default stream priority is the least one.
  int least = 0, greatest = 0;
  DUET_CU(cuCtxGetStreamPriorityRange, &least, &greatest);
  DUET_CU(cuStreamCreateWithPriority, &stream_, CU_STREAM_NON_BLOCKING, greatest);
}

CudaQueue::~CudaQueue() {
  if (device_->abandoned()) return;
  ContextGuard guard(ctx_, std::nothrow);
  if (!guard.ok()) return;
  DUET_CU_NOTHROW(cuStreamSynchronize, stream_);
  reap(true);
  DUET_CU_NOTHROW(cuStreamDestroy, stream_);
}

void CudaQueue::reap(bool all) noexcept {
  std::lock_guard<std::mutex> lock(staging_mutex_);
  std::size_t kept = 0;
  for (Staging& s : staging_) {
    if (!all && driver().cuEventQuery(s.copied) == CUDA_ERROR_NOT_READY) {
      staging_[kept++] = s;
      continue;
    }
    DUET_CU_NOTHROW(cuEventDestroy, s.copied);
    DUET_CU_NOTHROW(cuMemFreeHost, s.host);
  }
  staging_.resize(kept);
}

void* CudaQueue::map(BufferImpl& buffer, std::size_t offset, std::size_t bytes, MapAccess access) {
  ContextGuard guard(ctx_);
  reap(false);
  void* host = nullptr;
  const CUresult r = driver().cuMemHostAlloc(&host, bytes, CU_MEMHOSTALLOC_PORTABLE);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    throw OutOfMemoryError("cuda: cannot allocate " + std::to_string(bytes) +
                               " bytes of pinned staging memory to map a buffer (cuMemHostAlloc returned " +
                               result_name(r) + "); map a smaller range",
                           bytes, 0);
  check(r, "cuMemHostAlloc(&host, bytes, CU_MEMHOSTALLOC_PORTABLE)");
  if (access == MapAccess::write) return host;  // the caller overwrites it all
  command_begins();
  CUresult c = driver().cuMemcpyDtoHAsync(host, address(buffer, offset), bytes, stream_);
  if (c == CUDA_SUCCESS) c = driver().cuStreamSynchronize(stream_);
  if (c != CUDA_SUCCESS) {
    DUET_CU_NOTHROW(cuMemFreeHost, host);
    throw_error(c, "mapping a buffer: cuMemcpyDtoHAsync + cuStreamSynchronize");
  }
  return host;
}

void CudaQueue::unmap(BufferImpl& buffer, void* host, std::size_t offset, std::size_t bytes,
                      MapAccess access) {
  ContextGuard guard(ctx_);
  if (access == MapAccess::read) {
    // Nothing goes back, and map() waited for its own copy: the staging memory is free now.
    DUET_CU_NOTHROW(cuMemFreeHost, host);
    return;
  }
  Staging s;
  s.host = host;
  command_begins();
  CUresult r = driver().cuMemcpyHtoDAsync(address(buffer, offset), host, bytes, stream_);
  if (r == CUDA_SUCCESS) r = driver().cuEventCreate(&s.copied, CU_EVENT_DISABLE_TIMING);
  if (r == CUDA_SUCCESS) r = driver().cuEventRecord(s.copied, stream_);
  if (r != CUDA_SUCCESS) {
    // Whatever was enqueued must finish before the memory goes.
    DUET_CU_NOTHROW(cuStreamSynchronize, stream_);
    if (s.copied) DUET_CU_NOTHROW(cuEventDestroy, s.copied);
    DUET_CU_NOTHROW(cuMemFreeHost, host);
    throw_error(r, "unmapping a buffer: cuMemcpyHtoDAsync + cuEventRecord");
  }
  std::lock_guard<std::mutex> lock(staging_mutex_);
  staging_.push_back(s);
}

void CudaQueue::write(BufferImpl& dst, std::size_t offset, const void* src, std::size_t bytes) {
  ContextGuard guard(ctx_);
  command_begins();
  DUET_CU(cuMemcpyHtoDAsync, address(dst, offset), src, bytes, stream_);
}

void CudaQueue::read(const BufferImpl& src, std::size_t offset, void* dst, std::size_t bytes) {
  ContextGuard guard(ctx_);
  command_begins();
  DUET_CU(cuMemcpyDtoHAsync, dst, address(src, offset), bytes, stream_);
}

// cuMemcpy2D takes pitches up to the device's limit; a wider one goes row by row.
void CudaQueue::write_rect(BufferImpl& dst, const RectTransfer& rect, const void* src) {
  if (rect.pitch > device_->max_pitch() || rect.host_pitch > device_->max_pitch()) {
    QueueImpl::write_rect(dst, rect, src);
    return;
  }
  CUDA_MEMCPY2D m = rect_copy(rect);
  m.srcMemoryType = CU_MEMORYTYPE_HOST;
  m.srcHost = src;
  m.srcPitch = rect.host_pitch;
  m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  m.dstDevice = address(dst, rect.offset);
  m.dstPitch = rect.pitch;
  copy_2d(m);
}

void CudaQueue::read_rect(const BufferImpl& src, const RectTransfer& rect, void* dst) {
  if (rect.pitch > device_->max_pitch() || rect.host_pitch > device_->max_pitch()) {
    QueueImpl::read_rect(src, rect, dst);
    return;
  }
  CUDA_MEMCPY2D m = rect_copy(rect);
  m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  m.srcDevice = address(src, rect.offset);
  m.srcPitch = rect.pitch;
  m.dstMemoryType = CU_MEMORYTYPE_HOST;
  m.dstHost = dst;
  m.dstPitch = rect.host_pitch;
  copy_2d(m);
}

void CudaQueue::copy_2d(const CUDA_MEMCPY2D& m) {
  ContextGuard guard(ctx_);
  command_begins();
  DUET_CU(cuMemcpy2DAsync, &m, stream_);
}

void CudaQueue::copy(const BufferImpl& src, std::size_t src_offset, BufferImpl& dst, std::size_t dst_offset,
                     std::size_t bytes) {
  ContextGuard guard(ctx_);
  command_begins();
  DUET_CU(cuMemcpyDtoDAsync, address(dst, dst_offset), address(src, src_offset), bytes, stream_);
}

void CudaQueue::fill(BufferImpl& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                     std::size_t pattern_size) {
  const auto* p = static_cast<const unsigned char*>(pattern);
  // A pattern whose halves are equal (0.0, -1, 0x01010101) repeats its half, so shrink it: most
  // fills then take the single 1-byte memset, the fastest path. Offset and size stay multiples.
  std::size_t size = pattern_size;
  while (size > 1 && std::memcmp(p, p + size / 2, size / 2) == 0) size /= 2;
  const CUdeviceptr base = address(dst, offset);
  const std::size_t count = bytes / size;

  ContextGuard guard(ctx_);
  command_begins();
  switch (size) {
    case 1:
      DUET_CU(cuMemsetD8Async, base, p[0], count, stream_);
      return;
    case 2: {
      std::uint16_t v;
      std::memcpy(&v, p, sizeof(v));
      DUET_CU(cuMemsetD16Async, base, v, count, stream_);
      return;
    }
    case 4: {
      std::uint32_t v;
      std::memcpy(&v, p, sizeof(v));
      DUET_CU(cuMemsetD32Async, base, v, count, stream_);
      return;
    }
    default:
      // CUDA has no memset wider than 32 bits. View the range as `count` rows of `size` bytes (the
      // pitch) and set one 32-bit column per call: word w of every element gets word w of the pattern.
      for (std::size_t w = 0; w < size / 4; ++w) {
        std::uint32_t v;
        std::memcpy(&v, p + 4 * w, sizeof(v));
        DUET_CU(cuMemsetD2D32Async, base + 4 * w, size, v, 1, count, stream_);
      }
      return;
  }
}

void CudaQueue::launch(KernelImpl& kernel_impl, const LaunchShape& shape,
                       const std::vector<LaunchArg>& args) {
  // Core hands a queue kernels compiled for its own device, so they are CudaKernels.
  auto& kernel = static_cast<CudaKernel&>(kernel_impl);
  const LaunchDims d = launch_dims(*device_, kernel, shape);
  // Reused between launches (core makes one call at a time on a queue): launches allocate nothing.
  kernel_params(kernel, args, addresses_, params_);

  ContextGuard guard(ctx_);
  command_begins();
  DUET_CU(cuLaunchKernel, kernel.handle(), d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1],
          d.block[2], kernel.dynamic_shared_bytes(), stream_, params_.empty() ? nullptr : params_.data(), nullptr);
}

void CudaQueue::launch_graph(CUgraphExec exec) {
  ContextGuard guard(ctx_);
  command_begins();
  DUET_CU(cuGraphLaunch, exec, stream_);
}

std::shared_ptr<EventImpl> CudaQueue::record() { return std::make_shared<CudaEvent>(device_, ctx_, stream_); }

// The driver times only the span between two events, so an operation's start needs an event of
// its own, recorded (on queues that asked for command timing) just before its first command: an
// operation that enqueues none (a launch over an empty range) has no span, and lasts 0 ms.
void CudaQueue::start_timing() {
  timing_ = true;
  timing_start_.reset();
}

void CudaQueue::command_begins() {
  if (timing_ && !timing_start_) timing_start_ = std::make_shared<CudaEvent>(device_, ctx_, stream_);
}

std::shared_ptr<CommandTimeImpl> CudaQueue::stop_timing() {
  timing_ = false;
  if (!timing_start_) return std::make_shared<CudaCommandTime>(nullptr, nullptr);
  auto end = std::make_shared<CudaEvent>(device_, ctx_, stream_);
  return std::make_shared<CudaCommandTime>(std::move(timing_start_), std::move(end));
}

void CudaQueue::wait_for(EventImpl& event) {
  // Core only hands a queue events of its own device, so they are CudaEvents.
  ContextGuard guard(ctx_);
  DUET_CU(cuStreamWaitEvent, stream_, static_cast<CudaEvent&>(event).handle(), 0);
}

void CudaQueue::finish() {
  ContextGuard guard(ctx_);
  DUET_CU(cuStreamSynchronize, stream_);
  // Not reap(true): another thread may have unmapped while this one waited, and that copy back
  // may still be reading its staging memory. Everything older has completed, so it all goes.
  reap(false);
}

}  // namespace duet::backend::cuda
