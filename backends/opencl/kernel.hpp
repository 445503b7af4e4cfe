// One kernel of a built OpenCL program. A cl_kernel holds its arguments as state, and one Kernel
// may be launched from several threads on different queues, so setting the arguments and
// enqueueing happen together here, under this kernel's own lock: launches of different kernels
// never wait for each other.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cl_api.hpp"

namespace duet::backend::opencl {

class OpenCLKernel final : public KernelImpl {
 public:
  OpenCLKernel(cl::Kernel kernel, std::string name, cl_device_id device);

  int arg_count() const override { return arg_count_; }
  const std::string& name() const { return name_; }

  // Sets the arguments and enqueues one launch on `queue`; returns the launch's event, owned by
  // the caller, or null without `with_event`. Throws DriverError naming the argument or the sizes
  // the driver refused.
  cl_event enqueue(cl_command_queue queue, const LaunchShape& shape, const std::vector<LaunchArg>& args,
                   bool with_event) const;

 private:
  std::string describe(const LaunchShape& shape) const;

  cl::Kernel kernel_;
  std::string name_;
  cl_device_id device_;
  int arg_count_ = -1;
  mutable std::mutex launch_mutex_;
};

}  // namespace duet::backend::opencl
