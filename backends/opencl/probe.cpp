// Discovery of OpenCL devices: every device of every platform the ICD loader knows, of any type,
// numbered 0..N-1 in platform order, which is the order of "opencl:<index>". No platform, or a
// loader that fails, makes the backend unavailable with a reason the user can act on.
#include <exception>
#include <string>
#include <vector>

#include "device.hpp"
#include "errors.hpp"
#include "probe.hpp"

namespace duet::backend::opencl {
namespace {

// The ICD loaders (ocl-icd, Khronos') say -1001 when no ICD is installed; some older loaders
// succeed with zero platforms instead.
constexpr cl_int platform_not_found = -1001;

std::string failure(const char* call, cl_int code) {
  return std::string(call) + " failed with " + error_name(code) + " (" + std::to_string(code) + ")";
}

void probe_platforms(Probe& probe) {
  cl_uint count = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &count);
  if (err == platform_not_found || (err == CL_SUCCESS && count == 0)) {
    probe.reason = "no OpenCL platform found (install an ICD, e.g. pocl-opencl-icd)";
    return;
  }
  if (err != CL_SUCCESS) {
    probe.reason = failure("clGetPlatformIDs", err);
    return;
  }
  std::vector<cl_platform_id> ids(count);
  err = clGetPlatformIDs(count, ids.data(), nullptr);
  if (err != CL_SUCCESS) {
    probe.reason = failure("clGetPlatformIDs", err);
    return;
  }

  // Problems with single platforms are kept for the reason: they explain a missing device only
  // when no platform at all gave one.
  std::vector<std::string> problems;
  for (cl_platform_id id : ids) {
    cl::Platform platform(id);
    std::string platform_name;
    platform.getInfo(CL_PLATFORM_NAME, &platform_name);
    if (!platform_name.empty() && platform_name.back() == '\0') platform_name.pop_back();

    std::vector<cl::Device> devices;
    err = platform.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    if (err == CL_DEVICE_NOT_FOUND) {
      problems.push_back("platform '" + platform_name + "' has no devices");
      continue;
    }
    if (err != CL_SUCCESS) {
      problems.push_back("platform '" + platform_name + "': " + failure("clGetDeviceIDs", err));
      continue;
    }
    for (const cl::Device& device : devices) {
      const int index = static_cast<int>(probe.devices.size());
      probe.devices.push_back(std::make_shared<OpenCLDevice>(platform, device, index));
    }
  }

  if (probe.devices.empty()) {
    probe.reason = "OpenCL platforms were found but no devices";
    for (std::size_t i = 0; i < problems.size(); ++i) probe.reason += (i ? "; " : ": ") + problems[i];
    return;
  }
  probe.available = true;
}

}  // namespace

Probe probe_opencl() {
  Probe probe;
  probe_platforms(probe);
  return probe;
}

}  // namespace duet::backend::opencl
