// NVRTC, the in-process CUDA C++ compiler, as a table of function pointers loaded at run time, like
// the driver (driver_api.hpp): libduet never links libnvrtc, so it loads on machines without the
// CUDA toolkit and only kernel compilation needs NVRTC. Candidates are tried newest first, then the
// same names in the toolkit duet was built with (DUET_CUDA_TOOLKIT_LIBDIR, set by CMake).
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

// Every NVRTC function the backend calls. NVRTC exports plain names with stable ABIs, so dlsym is
// enough here; the table keeps the list in one place and types each pointer from nvrtc.h.
#define DUET_NVRTC_FUNCTIONS(X) \
  X(nvrtcVersion)               \
  X(nvrtcGetErrorString)        \
  X(nvrtcCreateProgram)         \
  X(nvrtcCompileProgram)        \
  X(nvrtcGetProgramLogSize)     \
  X(nvrtcGetProgramLog)         \
  X(nvrtcGetCUBINSize)          \
  X(nvrtcGetCUBIN)              \
  X(nvrtcGetPTXSize)            \
  X(nvrtcGetPTX)                \
  X(nvrtcDestroyProgram)

namespace duet::backend::cuda {

struct NvrtcApi {
#define DUET_NVRTC_MEMBER(name) decltype(&::name) name = nullptr;
  DUET_NVRTC_FUNCTIONS(DUET_NVRTC_MEMBER)
#undef DUET_NVRTC_MEMBER

  int major = 0, minor = 0;  // from nvrtcVersion
  std::string library;       // the name or path that loaded
};

// Loads NVRTC once per process (thread-safe); every later call returns the same outcome. Returns
// null and sets `*reason` (naming every library tried) when no candidate loads.
const NvrtcApi* load_nvrtc(std::string* reason = nullptr);

// "NVRTC 13.0 (libnvrtc.so.13)", or "NVRTC (not loaded)".
std::string nvrtc_description();

// Compiles complete CUDA source for `arch` ("sm_90") to a cubin, with or without a GPU. Returns
// false with `log` filled when the compile fails; throws BackendUnavailableError when NVRTC cannot
// be loaded. `extra` are appended to duet's options; `options` receives all options given.
bool nvrtc_compile_cubin(const std::string& source, const std::string& name, const std::string& arch,
                         const std::vector<std::string>& extra, std::vector<char>& cubin,
                         std::string& log, std::vector<std::string>& options);
// The same for a virtual architecture (`arch` "compute_90a"): PTX text, which a driver compiles when
// it loads it (NVIDIA's OpenCL takes it as a program binary).
bool nvrtc_compile_ptx(const std::string& source, const std::string& name, const std::string& arch,
                       const std::vector<std::string>& extra, std::string& ptx, std::string& log,
                       std::vector<std::string>& options);

}  // namespace duet::backend::cuda
