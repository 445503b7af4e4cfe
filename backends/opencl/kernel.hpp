// One kernel of a built OpenCL program. A cl_kernel holds its arguments as state, and one Kernel
// may be launched from several threads on different queues, so setting the arguments and
// enqueueing happen together here, under this kernel's own lock: launches of different kernels
// never wait for each other. An argument that holds what the last launch set is not set again
// (clSetKernelArg costs a fraction of a microsecond each on NVIDIA's OpenCL, where a whole
// launch costs about four).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cl_api.hpp"
#include "duet/error.hpp"

namespace duet::backend::opencl {

class OpenCLKernel final : public KernelImpl {
 public:
  OpenCLKernel(cl::Kernel kernel, std::string name, cl_device_id device);

  int arg_count() const override { return arg_count_; }
  std::vector<ParamInfo> params() const override;
  const std::string& name() const { return name_; }

  // Sets the arguments and enqueues one launch on `queue`; returns the launch's event, owned by
  // the caller, or null without `with_event`. Throws ArgumentError for a scalar whose size is not
  // the parameter's (native kernels, whose types duet cannot check), DriverError naming the
  // argument or the sizes for anything else the driver refused.
  cl_event enqueue(cl_command_queue queue, const LaunchShape& shape, const std::vector<LaunchArg>& args,
                   bool with_event) const;

  // A second cl_kernel of the same kernel, whose arguments nothing else sets: a launch recorded
  // into a command buffer keeps one (see command_buffer.hpp).
  cl::Kernel create_copy() const;
  // Sets every argument of `target` (this kernel or a copy of it), with the checks and messages
  // of enqueue; the sub-buffers made for views go to `views`, which must outlive their use.
  void set_args(cl_kernel target, const std::vector<LaunchArg>& args, std::vector<cl::Buffer>& views) const;

 private:
  struct SetArg;
  // One argument; `last` (null: set regardless) is what the argument held, updated.
  void set_arg(cl_kernel target, std::size_t index, const LaunchArg& arg, std::vector<cl::Buffer>& views,
               SetArg* last) const;
  std::string describe(const LaunchShape& shape) const;
  ArgumentError wrong_size(cl_uint index, const LaunchArg& arg) const;
  // CL_KERNEL_ARG_* text of parameter `index`; false when the driver cannot tell.
  bool arg_text(cl_uint index, cl_kernel_arg_info what, std::string& out) const;

  cl::Kernel kernel_;
  std::string name_;
  cl_device_id device_;
  int arg_count_ = -1;
  mutable std::mutex launch_mutex_;

  // What each argument was last set to, under launch_mutex_: a whole buffer (its serial) or a
  // scalar of up to 16 bytes (serial 0); `known` is false for anything else (views, larger
  // scalars, a failed set), which is always set again.
  struct SetArg {
    bool known = false;
    std::uint64_t serial = 0;
    std::size_t size = 0;
    unsigned char bytes[16] = {};
  };
  mutable std::vector<SetArg> set_args_;
};

}  // namespace duet::backend::opencl
