// The device calls that load NVRTC's PTX on NVIDIA's OpenCL (ptx_program.hpp).
#include "ptx_program.hpp"

#include "device.hpp"

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
  return from_binary(fit, name, "", log);
}

}  // namespace duet::backend::opencl
