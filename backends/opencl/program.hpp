// A successfully built OpenCL program. Its kernels are created on first request and then kept,
// one cl_kernel per name, so every launch of a name goes through the same object and its launch
// lock (see kernel.hpp). Requests may come from several threads at once.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cl_api.hpp"

namespace duet::backend::opencl {

class OpenCLDevice;
class OpenCLKernel;

class OpenCLProgram final : public ProgramImpl {
 public:
  // Reads the kernel names from the built program; throws DriverError if the driver cannot.
  static std::shared_ptr<OpenCLProgram> create(std::shared_ptr<const OpenCLDevice> device,
                                               cl::Program program, const std::string& source_name);

  OpenCLProgram(std::shared_ptr<const OpenCLDevice> device, cl::Program program,
                std::vector<std::string> kernel_names);

  std::shared_ptr<KernelImpl> kernel(const std::string& name, int declared_params) override;
  std::vector<std::string> kernel_names() const override { return kernel_names_; }
  // CL_PROGRAM_BINARIES for the program's one device; empty when the driver offers none.
  std::string binary() const override;

 private:
  std::shared_ptr<const OpenCLDevice> device_;
  cl::Program program_;
  std::vector<std::string> kernel_names_;

  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<OpenCLKernel>> kernels_;
};

}  // namespace duet::backend::opencl
