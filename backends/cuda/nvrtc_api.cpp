// NVRTC loading (see nvrtc_api.hpp) and nvrtc_compile_cubin, the one compile path of
// the CUDA backend: complete dialect source in, a cubin for one real architecture out. It needs no
// GPU and no driver, so tests can check every kernel compiles on machines without a GPU.
#include "nvrtc_api.hpp"

#include <dlfcn.h>

#include <iterator>
#include <vector>

#include "duet/error.hpp"

namespace duet::backend {
namespace cuda {
namespace {

struct Loaded {
  NvrtcApi api;
  bool ok = false;
  std::string reason;
};

std::vector<std::string> candidates() {
  // Newest first, so a machine with several toolkits compiles for the newest architectures.
  const char* const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  std::vector<std::string> out(std::begin(names), std::end(names));
#ifdef DUET_CUDA_TOOLKIT_LIBDIR
  // The toolkit duet was built with, for machines where it is installed but not on the loader path.
  for (const char* n : names) out.push_back(std::string(DUET_CUDA_TOOLKIT_LIBDIR) + "/" + n);
#endif
  return out;
}

// Fills `api` from `lib`; names the first missing function otherwise.
bool bind(void* lib, NvrtcApi& api, std::string& missing) {
#define DUET_NVRTC_BIND(name)                                         \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(lib, #name)); \
  if (!api.name) {                                                    \
    missing = #name;                                                  \
    return false;                                                     \
  }
  DUET_NVRTC_FUNCTIONS(DUET_NVRTC_BIND)
#undef DUET_NVRTC_BIND
  return true;
}

Loaded load() {
  Loaded out;
  std::string tried, errors;
  for (const std::string& name : candidates()) {
    tried += (tried.empty() ? "" : ", ") + name;
    dlerror();
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      errors += std::string("\n  ") + (e ? e : name + ": dlopen failed");
      continue;
    }
    std::string missing;
    NvrtcApi api;
    if (!bind(lib, api, missing) || api.nvrtcVersion(&api.major, &api.minor) != NVRTC_SUCCESS) {
      errors += "\n  " + name + ": " + (missing.empty() ? "nvrtcVersion failed" : "has no " + missing);
      dlclose(lib);
      continue;
    }
    // Kept loaded for the life of the process: compiled programs may be built at any time.
    api.library = name;
    out.api = api;
    out.ok = true;
    return out;
  }
  out.reason = "NVRTC (the CUDA runtime compiler) could not be loaded; tried " + tried + ":" + errors +
               "\ninstall the CUDA toolkit's NVRTC (e.g. the cuda-nvrtc package) or add its lib "
               "directory to LD_LIBRARY_PATH";
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

std::string log_of(const NvrtcApi& api, nvrtcProgram prog) {
  std::size_t size = 0;
  if (api.nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (api.nvrtcGetProgramLog(prog, &log[0]) != NVRTC_SUCCESS) return {};
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

// Destroys the program on every path out of a compile.
struct ProgramOwner {
  const NvrtcApi& api;
  nvrtcProgram prog = nullptr;
  ~ProgramOwner() {
    if (prog) api.nvrtcDestroyProgram(&prog);
  }
};

}  // namespace

const NvrtcApi* load_nvrtc(std::string* reason) {
  const Loaded& l = loaded();
  if (!l.ok) {
    if (reason) *reason = l.reason;
    return nullptr;
  }
  return &l.api;
}

std::string nvrtc_description() {
  const NvrtcApi* api = load_nvrtc();
  if (!api) return "NVRTC (not loaded)";
  return "NVRTC " + std::to_string(api->major) + "." + std::to_string(api->minor) + " (" + api->library + ")";
}

namespace {

// Compiles `source` for `arch`; on success the program owns the code. Returns false with `log`
// filled when the compile fails.
bool compile(const NvrtcApi& api, ProgramOwner& owner, const std::string& source, const std::string& name,
             const std::string& arch, const std::vector<std::string>& extra, std::string& log,
             std::vector<std::string>& options) {
  // A real architecture (sm_XY) makes NVRTC emit SASS, so the driver loads the kernel without a
  // second JIT step (a virtual one, compute_XY, gives PTX); -lineinfo keeps source lines for
  // profilers and sanitizers.
  options = {"-arch=" + arch, "--std=c++17", "-lineinfo"};
  options.insert(options.end(), extra.begin(), extra.end());
  log.clear();
  nvrtcResult r = api.nvrtcCreateProgram(&owner.prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS)
    throw DriverError("cuda", "nvrtcCreateProgram(" + name + ")", static_cast<long>(r),
                      api.nvrtcGetErrorString(r), nvrtc_description());
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  r = api.nvrtcCompileProgram(owner.prog, static_cast<int>(argv.size()), argv.data());
  log = log_of(api, owner.prog);
  if (r == NVRTC_SUCCESS) return true;
  // Anything but a plain compile error (an architecture this NVRTC does not know, say) leaves
  // little or nothing in the log, so say what NVRTC answered and with which options.
  if (r != NVRTC_ERROR_COMPILATION || log.empty()) {
    if (!log.empty() && log.back() != '\n') log += '\n';
    log += nvrtc_description() + " failed with " + api.nvrtcGetErrorString(r) + " for options:";
    for (const auto& o : options) log += " " + o;
    log += '\n';
  }
  return false;
}

const NvrtcApi& loaded_or_throw() {
  std::string reason;
  const NvrtcApi* api = load_nvrtc(&reason);
  if (!api) throw BackendUnavailableError(reason);
  return *api;
}

}  // namespace

bool nvrtc_compile_cubin(const std::string& source, const std::string& name, const std::string& arch,
                         const std::vector<std::string>& extra, std::vector<char>& cubin, std::string& log,
                         std::vector<std::string>& options) {
  const NvrtcApi& api = loaded_or_throw();
  ProgramOwner owner{api};
  cubin.clear();
  if (!compile(api, owner, source, name, arch, extra, log, options)) return false;
  std::size_t size = 0;
  nvrtcResult r = api.nvrtcGetCUBINSize(owner.prog, &size);
  if (r == NVRTC_SUCCESS && size > 0) {
    cubin.resize(size);
    r = api.nvrtcGetCUBIN(owner.prog, cubin.data());
  }
  if (r != NVRTC_SUCCESS || size == 0)
    throw DriverError("cuda", "nvrtcGetCUBIN(" + name + ", " + arch + ")", static_cast<long>(r),
                      api.nvrtcGetErrorString(r), nvrtc_description() + " produced no cubin");
  return true;
}

bool nvrtc_compile_ptx(const std::string& source, const std::string& name, const std::string& arch,
                       const std::vector<std::string>& extra, std::string& ptx, std::string& log,
                       std::vector<std::string>& options) {
  const NvrtcApi& api = loaded_or_throw();
  ProgramOwner owner{api};
  ptx.clear();
  if (!compile(api, owner, source, name, arch, extra, log, options)) return false;
  std::size_t size = 0;
  nvrtcResult r = api.nvrtcGetPTXSize(owner.prog, &size);
  if (r == NVRTC_SUCCESS && size > 0) {
    ptx.resize(size);
    r = api.nvrtcGetPTX(owner.prog, &ptx[0]);
  }
  if (r != NVRTC_SUCCESS || size == 0)
    throw DriverError("cuda", "nvrtcGetPTX(" + name + ", " + arch + ")", static_cast<long>(r),
                      api.nvrtcGetErrorString(r), nvrtc_description() + " produced no PTX");
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return true;
}

}  // namespace cuda
}  // namespace duet::backend
