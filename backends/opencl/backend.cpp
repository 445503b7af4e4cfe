// The OpenCL backend as the registry sees it: its probe and the name of its buffer handles. OpenCL
// compiles only for a device (clBuildProgram), so there is no offline compile.
#include "probe.hpp"

namespace duet::backend {
namespace opencl {
namespace {

class OpenCLBackend final : public Backend {
 public:
  Probe probe() const override { return probe_opencl(); }
  const char* native_buffer_type() const override { return "cl_mem"; }
};

}  // namespace
}  // namespace opencl

const Backend& opencl_backend() {
  static const opencl::OpenCLBackend backend;
  return backend;
}

}  // namespace duet::backend
