// Explicit backend registration: each backend built into libduet provides a probe, called once at
// first use by the registry. A probe never throws: a missing driver makes the backend unavailable
// with a readable reason.
#pragma once

#include <string>
#include <vector>

#include "backend.hpp"

namespace duet::backend {

#ifdef DUET_HAVE_CUDA
Probe probe_cuda();

// NVRTC without a GPU or driver: compile complete CUDA source for `arch` ("sm_90") to a cubin.
// Returns false with `log` filled when the compile fails; throws BackendUnavailableError when NVRTC
// cannot be loaded. `extra` are appended to duet's options; `options` receives all options given.
bool nvrtc_compile_cubin(const std::string& source, const std::string& name, const std::string& arch,
                         const std::vector<std::string>& extra, std::vector<char>& cubin,
                         std::string& log, std::vector<std::string>& options);
#endif

#ifdef DUET_HAVE_OPENCL
Probe probe_opencl();
#endif

}  // namespace duet::backend
