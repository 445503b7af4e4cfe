// probe_cuda: load the driver, initialise it and describe every device, without creating contexts.
// A machine without an NVIDIA driver or GPU gets an unavailable backend whose reason says which
// step failed and why.
#include <exception>
#include <memory>
#include <string>

#include "device.hpp"
#include "driver_api.hpp"
#include "errors.hpp"
#include "probe.hpp"

namespace duet::backend::cuda {
namespace {

std::string describe(CUresult r) {
  std::string text = result_text(r);
  return result_name(r) + (text.empty() ? "" : " (" + text + ")");
}

}  // namespace

Probe probe_cuda() {
  Probe p;
  std::string reason;
  const DriverApi* api = load_driver(&reason);
  if (!api) {
    p.reason = reason;
    return p;
  }
  CUresult r = api->cuInit(0);
  if (r != CUDA_SUCCESS) {
    p.reason = "cuInit failed: " + describe(r);
    if (r == CUDA_ERROR_NO_DEVICE) p.reason += "; check CUDA_VISIBLE_DEVICES";
    return p;
  }
  int count = 0;
  r = api->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS) {
    p.reason = "cuDeviceGetCount failed: " + describe(r);
    return p;
  }
  if (count <= 0) {
    p.reason = "no CUDA devices";
    return p;
  }
  // A device the driver cannot describe is left out rather than failing the others.
  std::string skipped;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    try {
      CUdevice dev = 0;
      DUET_CU(cuDeviceGet, &dev, ordinal);
      p.devices.push_back(
          std::make_shared<CudaDevice>(static_cast<int>(p.devices.size()), ordinal, dev,
                                             api->driver_version));
    } catch (const std::exception& e) {
      skipped +=
          (skipped.empty() ? "" : "; ") + std::string("device ") + std::to_string(ordinal) + ": " + e.what();
    }
  }
  if (p.devices.empty()) {
    p.reason = "no usable CUDA devices (" + skipped + ")";
    return p;
  }
  p.available = true;
  return p;
}

}  // namespace duet::backend::cuda
