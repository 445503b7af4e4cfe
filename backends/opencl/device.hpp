// One OpenCL device as a duet backend device. It describes itself from the driver's queries at
// probe time, and creates its cl::Context only when first used, because listing devices should not
// cost a context on every GPU of the machine (NVIDIA's takes device memory and tens of
// milliseconds). Buffers, queues and programs are created in that one context, so they can be used
// together freely.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "backend.hpp"
#include "cl_api.hpp"
#include "command_buffer.hpp"

namespace duet::backend::opencl {

class OpenCLDevice final : public DeviceImpl, public std::enable_shared_from_this<OpenCLDevice> {
 public:
  // Never throws for driver failures: a query the driver refuses leaves its field empty or zero.
  OpenCLDevice(const cl::Platform& platform, const cl::Device& device, int index);

  const DeviceInfo& info() const override { return info_; }
  std::shared_ptr<BufferImpl> allocate(std::size_t bytes) override;
  std::shared_ptr<HostMemoryImpl> allocate_host(std::size_t bytes) override;
  std::shared_ptr<BufferImpl> wrap(std::uintptr_t native, std::size_t bytes) override;
  std::uintptr_t native_context() override { return reinterpret_cast<std::uintptr_t>(context()()); }
  std::shared_ptr<QueueImpl> create_queue(bool high_priority) override;
  BuildResult build(const detail::AssembledSource& source, const std::string& name,
                    const std::vector<std::string>& options) override;
  std::shared_ptr<ProgramImpl> load_binary(const std::string& binary, const std::string& name) override;
  std::string compiler_identity() const override;
  // NVRTC's PTX for programs asking for architecture-specific code (ptx_program.cpp).
  std::string ptx_target() const override;
  std::shared_ptr<ProgramImpl> load_ptx(const std::string& ptx, const std::string& name,
                                        const std::map<std::string, std::vector<bool>>& buffer_params,
                                        std::string& log) override;
  // After abandon(), the objects of this device are leaked, never released: a driver may wait for
  // a running kernel when the last reference to a queue, buffer or context goes (NVIDIA's does).
  void abandon() override;
  bool abandoned() const { return abandoned_; }
  // Recorded graphs become command buffers where the device's can be used (command_buffer.hpp);
  // elsewhere core re-enqueues them, and where the device reports command buffers that duet does
  // not use, the path says why.
  std::shared_ptr<GraphImpl> create_graph(const std::vector<GraphCommand>& commands) override;
  std::string graph_path() const override;

  cl_device_id id() const { return device_(); }
  // Whether the device's markers carry timestamps that bracket the commands around them, tried
  // once on a queue of its own; when they do, launches need no events for timing.
  bool markers_timed() const;
  // "opencl:0 (pthread-skylake-...)", for error details.
  std::string label() const;

 private:
  const cl::Context& context() const;
  // A program of a binary (for NVIDIA's driver, PTX) built with `options`; null with `log` saying
  // why where the driver refuses it (load_binary, load_ptx).
  std::shared_ptr<ProgramImpl> from_binary(const std::string& binary, const std::string& name,
                                           const std::string& options, std::string& log);
  bool probe_markers() const;
  void commit(const cl::Buffer& buffer, std::size_t bytes) const;
  [[noreturn]] void throw_out_of_memory(const char* call, cl_int code, std::size_t bytes) const;

  cl::Platform platform_;
  cl::Device device_;
  DeviceInfo info_;
  CommandBufferSupport command_buffers_;
  // Every build's options: the common ones and this device's facts for the prelude.
  std::vector<std::string> build_options_;

  // Created together on first use, then never changed, so references to them stay valid.
  mutable std::mutex mutex_;
  mutable cl::Context context_;
  // duet's own queue: committing new buffers to the device, mapping host buffers. Users' work is
  // never on it, so nothing done here waits for theirs.
  mutable cl::CommandQueue commit_queue_;
  // The queue command buffers are recorded on (never run on), made at the first graph.
  cl::CommandQueue graph_queue_;
  mutable std::once_flag markers_probed_;
  mutable bool markers_timed_ = false;
  std::atomic<bool> abandoned_{false};
};

}  // namespace duet::backend::opencl
