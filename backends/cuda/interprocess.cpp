// CUDA IPC: device memory shared with other processes of the machine, and stream memory operations
// that signal between them. An exported handle is the allocation's CUipcMemHandle followed by the
// byte offset of the shared range within the allocation, since a handle always names a whole
// allocation. Imports enable peer access lazily, so that memory of another device of the machine
// (over NVLink or PCIe) is reachable by this device's kernels and copies, where the two can reach
// each other at all; where they cannot, cuIpcOpenMemHandle fails and the caller takes another path.
#include <cstdint>
#include <cstring>
#include <string>

#include "buffer.hpp"
#include "context.hpp"
#include "device.hpp"
#include "driver_api.hpp"
#include "errors.hpp"
#include "queue.hpp"

namespace duet::backend::cuda {
namespace {

constexpr std::size_t kHandleBytes = sizeof(CUipcMemHandle) + sizeof(std::uint64_t);

CUdeviceptr address(const BufferImpl& b, std::size_t offset) {
  return static_cast<const CudaBuffer&>(b).handle() + offset;
}

}  // namespace

std::string CudaDevice::interprocess_unavailable() const {
  const DriverApi& api = driver();
  if (!api.cuIpcGetMemHandle || !api.cuIpcOpenMemHandle || !api.cuIpcCloseMemHandle ||
      !api.cuStreamWriteValue32 || !api.cuStreamWaitValue32)
    return "the NVIDIA driver (" + cuda_version_text(api.driver_version) +
           ") lacks CUDA IPC or the stream memory operations";
  int unified = 0;
  if (api.cuDeviceGetAttribute(&unified, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, device_) != CUDA_SUCCESS ||
      !unified)
    return info_.id() + " has no unified addressing, which CUDA IPC needs";
  return {};
}

std::string CudaDevice::export_memory(const BufferImpl& buffer, std::size_t offset) {
  ContextGuard guard(context());
  const CUdeviceptr ptr = address(buffer, offset);
  CUdeviceptr base = 0;
  std::size_t size = 0;
  DUET_CU(cuMemGetAddressRange, &base, &size, ptr);
  CUipcMemHandle handle;
  DUET_CU(cuIpcGetMemHandle, &handle, base);
  const std::uint64_t within = static_cast<std::uint64_t>(ptr - base);
  std::string out(kHandleBytes, '\0');
  std::memcpy(&out[0], &handle, sizeof handle);
  std::memcpy(&out[sizeof handle], &within, sizeof within);
  return out;
}

std::shared_ptr<BufferImpl> CudaDevice::import_memory(const std::string& handle, std::size_t bytes) {
  if (handle.size() != kHandleBytes)
    throw ArgumentError("import_from_process: a CUDA memory handle has " + std::to_string(kHandleBytes) +
                        " bytes, not " + std::to_string(handle.size()) +
                        "; pass the bytes export_to_process returned in the other process unchanged");
  CUipcMemHandle ipc;
  std::uint64_t within = 0;
  std::memcpy(&ipc, handle.data(), sizeof ipc);
  std::memcpy(&within, handle.data() + sizeof ipc, sizeof within);
  const CUcontext ctx = context();
  ContextGuard guard(ctx);
  CUdeviceptr base = 0;
  DUET_CU(cuIpcOpenMemHandle, &base, ipc, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  return std::make_shared<CudaBuffer>(CudaBuffer::Imported{}, shared_from_this(), ctx, base,
                                      base + static_cast<CUdeviceptr>(within), bytes);
}

// The default flags of a write put a memory barrier before it (a __threadfence_system() scoped to
// the stream): the other process sees the word change only after the writes of the work before it,
// which is what makes the word mean "the data has arrived".
void CudaQueue::signal(BufferImpl& flags, std::size_t offset, std::uint32_t value) {
  ContextGuard guard(ctx_);
  DUET_CU(cuStreamWriteValue32, stream_, address(flags, offset), value, CU_STREAM_WRITE_VALUE_DEFAULT);
}

// Equality rather than "at least": the sender of a word never gets more than one value ahead of its
// reader (each side waits for the other's acknowledgement), so a value never has to be compared
// across the 32-bit wrap.
void CudaQueue::wait_signal(const BufferImpl& flags, std::size_t offset, std::uint32_t value) {
  ContextGuard guard(ctx_);
  DUET_CU(cuStreamWaitValue32, stream_, address(flags, offset), value, CU_STREAM_WAIT_VALUE_EQ);
}

}  // namespace duet::backend::cuda
