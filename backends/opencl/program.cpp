// The OpenCL program: its list of kernels and the per-name kernel cache. Missing names are not an
// error here: core turns a null kernel into KernelNotFoundError listing kernel_names().
#include "program.hpp"

#include <utility>

#include "device.hpp"
#include "errors.hpp"
#include "kernel.hpp"

namespace duet::backend::opencl {

namespace {

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  std::string name;
  // The driver separates names with ';' and may end the list with a NUL or blanks.
  for (char c : list) {
    if (c == ';') {
      if (!name.empty()) names.push_back(name);
      name.clear();
    } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != '\0') {
      name += c;
    }
  }
  if (!name.empty()) names.push_back(name);
  return names;
}

}  // namespace

std::shared_ptr<OpenCLProgram> OpenCLProgram::create(std::shared_ptr<const OpenCLDevice> device,
                                                     cl::Program program,
                                                     const std::string& source_name) {
  std::string list;
  const cl_int err = program.getInfo(CL_PROGRAM_KERNEL_NAMES, &list);
  if (err != CL_SUCCESS)
    throw_driver_error("clGetProgramInfo", err,
                       "CL_PROGRAM_KERNEL_NAMES of " + source_name + " on " + device->label());
  return std::make_shared<OpenCLProgram>(std::move(device), std::move(program), split_names(list));
}

OpenCLProgram::OpenCLProgram(std::shared_ptr<const OpenCLDevice> device, cl::Program program,
                             std::vector<std::string> kernel_names)
    : device_(std::move(device)), program_(std::move(program)), kernel_names_(std::move(kernel_names)) {}

std::string OpenCLProgram::binary() const {
  std::size_t size = 0;
  if (clGetProgramInfo(program_(), CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS ||
      size == 0)
    return {};
  std::string bytes(size, '\0');
  unsigned char* where = reinterpret_cast<unsigned char*>(&bytes[0]);
  if (clGetProgramInfo(program_(), CL_PROGRAM_BINARIES, sizeof where, &where, nullptr) != CL_SUCCESS) return {};
  return bytes;
}

std::shared_ptr<KernelImpl> OpenCLProgram::kernel(const std::string& name, int /*declared_params*/) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = kernels_.find(name);
  if (found != kernels_.end()) return found->second;

  cl_int err = CL_SUCCESS;
  cl_kernel handle = clCreateKernel(program_(), name.c_str(), &err);
  if (err == CL_INVALID_KERNEL_NAME) return nullptr;
  if (err != CL_SUCCESS)
    throw_driver_error("clCreateKernel", err, "kernel '" + name + "' on " + device_->label());
  auto kernel = std::make_shared<OpenCLKernel>(cl::Kernel(handle), name, device_->id());
  kernels_.emplace(name, kernel);
  return kernel;
}

}  // namespace duet::backend::opencl
