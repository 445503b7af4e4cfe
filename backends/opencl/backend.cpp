// The OpenCL backend as the registry sees it: its probe and the name of its buffer handles. OpenCL
// compiles only for a device (clBuildProgram), so there is no offline compile.
#include <string>
#include <vector>

#include "cl_api.hpp"
#include "probe.hpp"

namespace duet::backend {
namespace opencl {
namespace {

class OpenCLBackend final : public Backend {
 public:
  Probe probe() const override { return probe_opencl(); }
  const char* native_buffer_type() const override { return "cl_mem"; }
  std::vector<std::string> native_kernel_markers() const override { return {"__kernel", "kernel"}; }
  // A view becomes a sub-buffer, whose origin the driver aligns.
  const char* view_alignment_rule() const override {
    return "CL_DEVICE_MEM_BASE_ADDR_ALIGN, the alignment of an OpenCL sub-buffer's origin";
  }
  // OpenCL has no code for a kernel's fault. NVIDIA's driver reports an illegal address as
  // CL_OUT_OF_RESOURCES from the next call that waits (and from later calls); a failed command
  // makes the commands waiting on it fail with CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST. A
  // launch's own CL_OUT_OF_RESOURCES (too many registers for its group) is not a fault.
  bool is_kernel_fault(const DriverError& error) const override {
    if (error.backend() != "opencl") return false;
    if (error.native_code() == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) return true;
    return error.native_code() == CL_OUT_OF_RESOURCES && error.call() != "clEnqueueNDRangeKernel";
  }
};

}  // namespace
}  // namespace opencl

const Backend& opencl_backend() {
  static const opencl::OpenCLBackend backend;
  return backend;
}

}  // namespace duet::backend
