// The device calls that load NVRTC's PTX on NVIDIA's OpenCL (ptx_program.hpp).
#include "ptx_program.hpp"

#include "device.hpp"
#include "errors.hpp"
#include "program.hpp"

namespace duet::backend::opencl {

std::string OpenCLDevice::ptx_target() const {
  // NVIDIA's devices of compute capability 9.0 and later: their architecture-specific target.
  const std::string& arch = info_.arch;
  if (arch.rfind("sm_", 0) != 0 || arch.size() < 5 ||
      arch.find_first_not_of("0123456789", 3) != std::string::npos)
    return {};
  if (std::stoi(arch.substr(3)) < 90) return {};
  return "compute_" + arch.substr(3) + "a";
}

std::shared_ptr<ProgramImpl> OpenCLDevice::load_ptx(
    const std::string& ptx, const std::string& name,
    const std::map<std::string, std::vector<bool>>& buffer_params, std::string& log) {
  const std::string fit = opencl_ptx(ptx, buffer_params, log);
  if (fit.empty()) return nullptr;
  cl_device_id id = device_();
  const auto* bytes = reinterpret_cast<const unsigned char*>(fit.data());
  const std::size_t size = fit.size();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program handle = clCreateProgramWithBinary(context()(), 1, &id, &size, &bytes, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    if (handle) clReleaseProgram(handle);
    log = "clCreateProgramWithBinary refused the PTX of " + name + " on " + label() + " (" + error_name(err) +
          ", " + error_name(status) + ")";
    return nullptr;
  }
  cl::Program program(handle);  // takes ownership
  const cl_int built = clBuildProgram(program(), 1, &id, "", nullptr, nullptr);
  program.getBuildInfo(device_, CL_PROGRAM_BUILD_LOG, &log);
  if (built != CL_SUCCESS) {
    log = "clBuildProgram of the PTX of " + name + " on " + label() + " returned " + error_name(built) +
          (log.empty() ? std::string() : ":\n" + log);
    return nullptr;
  }
  return OpenCLProgram::create(shared_from_this(), std::move(program), name);
}

}  // namespace duet::backend::opencl
