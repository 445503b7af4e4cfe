// One CUDA device. Its description is read from the driver when the device is probed; its primary
// context is retained on first use (allocation, queue or build), not at probe time, because creating
// a context costs time and memory on every GPU and listing devices should cost neither. Buffers,
// queues, events and programs hold a shared_ptr to the device, so the context outlives them all.
// Safe to use from several threads.
#pragma once

#include <cuda.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "backend.hpp"

namespace duet::backend::cuda {

class CudaDevice final : public DeviceImpl, public std::enable_shared_from_this<CudaDevice> {
 public:
  // Reads the description of CUDA device `device`; throws DriverError when the driver cannot.
  // `ordinal` is the number cuDeviceGet took (DeviceInfo::native_index).
  CudaDevice(int index, int ordinal, CUdevice device, int driver_version);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const DeviceInfo& info() const override { return info_; }
  std::shared_ptr<BufferImpl> allocate(std::size_t bytes) override;
  std::shared_ptr<HostMemoryImpl> allocate_host(std::size_t bytes) override;
  std::shared_ptr<BufferImpl> wrap(std::uintptr_t native, std::size_t bytes) override;
  std::uintptr_t native_context() override { return reinterpret_cast<std::uintptr_t>(context()); }
  std::shared_ptr<QueueImpl> create_queue(bool high_priority) override;
  BuildResult build(const detail::AssembledSource& source, const std::string& name,
                    const std::vector<std::string>& options) override;
  std::shared_ptr<ProgramImpl> load_binary(const std::string& binary, const std::string& name) override;
  std::string compiler_identity() const override;
  // CUDA IPC (interprocess.cpp).
  std::string interprocess_unavailable() const override;
  std::string export_memory(const BufferImpl& buffer, std::size_t offset) override;
  std::shared_ptr<BufferImpl> import_memory(const std::string& handle, std::size_t bytes) override;
  // Tensor maps (tiled_copy.cpp).
  std::string encode_tiled_copy(const BufferImpl& buffer, std::size_t offset, const extension::TiledCopy& shape) override;
  std::shared_ptr<GraphImpl> create_graph(const std::vector<GraphCommand>& commands) override;
  std::string graph_path() const override;

  // The retained primary context; retains it on the first call. Throws DriverError on failure.
  CUcontext context() const;
  // Launch limits per dimension, checked before cuLaunchKernel so a bad shape reads clearly.
  unsigned max_grid(int d) const { return max_grid_[d]; }
  unsigned max_block(int d) const { return max_block_[d]; }
  // After abandon(), destructors free nothing: cuMemFree and stream teardown wait for a kernel
  // that will never end. The process's exit releases it all.
  void abandon() override { abandoned_ = true; }
  bool abandoned() const { return abandoned_; }
  // Whether host and device share one address space, so that pinned host memory is reachable
  // from kernels at its host address (CudaHostMemory::device_view).
  bool unified_addressing() const { return unified_addressing_; }
  // The largest row pitch cuMemcpy2D takes, in bytes.
  std::size_t max_pitch() const { return max_pitch_; }
  // Driver events of the primary context that CudaEvent reuses: making and destroying one costs
  // the host about as much as recording it, and every operation whose Event is kept records one.
  // take_event() gives a spare or a new one (context current); give_back_event() keeps it for the
  // next, or destroys it when enough are spare.
  CUevent take_event() const;
  void give_back_event(CUevent event) const noexcept;

 private:
  CUdevice device_;
  DeviceInfo info_;
  bool unified_addressing_ = false;
  std::size_t max_pitch_ = 0;
  unsigned max_grid_[3] = {0, 0, 0};
  unsigned max_block_[3] = {0, 0, 0};
  mutable std::once_flag retain_once_;
  mutable CUcontext context_ = nullptr;
  std::atomic<bool> abandoned_{false};
  mutable std::mutex events_mutex_;
  mutable std::vector<CUevent> spare_events_;
};

}  // namespace duet::backend::cuda
