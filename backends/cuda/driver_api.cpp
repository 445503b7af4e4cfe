// Loader of the CUDA driver table (see driver_api.hpp): dlopen of libcuda.so.1, dlsym of the one
// versioned entry point cuGetProcAddress_v2, and cuGetProcAddress for everything else. Failures
// become a readable reason for the probe to report; nothing here throws or aborts.
#include "driver_api.hpp"

#include <dlfcn.h>

#include <algorithm>

namespace duet::backend::cuda {
namespace {

using GetProcAddress = decltype(&::cuGetProcAddress);

struct Loaded {
  DriverApi api;
  bool ok = false;
  std::string reason;
};

std::string last_dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

// Null when the driver has no ABI-compatible version of `name` for `version`.
void* lookup(GetProcAddress get_proc, const char* name, int version) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CUresult r = get_proc(name, &fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &status);
  if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS) return nullptr;
  return fn;
}

template <class Fn>
bool resolve(GetProcAddress get_proc, const char* name, int version, Fn& out) {
  out = reinterpret_cast<Fn>(lookup(get_proc, name, version));
  return out != nullptr;
}

Loaded load() {
  Loaded out;
  dlerror();
  // Never dlclose'd: the table's pointers must stay valid as long as any CUDA object lives, and
  // unloading libcuda while its own threads and exit handlers are registered crashes the process.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    out.reason = "libcuda.so.1 not found (no NVIDIA driver): " + last_dl_error();
    return out;
  }
  void* sym = dlsym(lib, "cuGetProcAddress_v2");
  if (!sym) {
    out.reason =
        "the NVIDIA driver is too old: libcuda.so.1 has no cuGetProcAddress_v2 (duet needs a driver "
        "for CUDA 12.0 or newer)";
    return out;
  }
  auto get_proc = reinterpret_cast<GetProcAddress>(sym);
  DriverApi& api = out.api;

  // cuGetProcAddress fails every lookup whose version is newer than the driver, so learn the
  // driver's version first, through an entry point that has had one ABI since CUDA 2.2.
  if (!resolve(get_proc, "cuDriverGetVersion", 12000, api.cuDriverGetVersion) ||
      api.cuDriverGetVersion(&api.driver_version) != CUDA_SUCCESS) {
    out.reason = "the NVIDIA driver does not report its CUDA version (cuDriverGetVersion failed)";
    return out;
  }
  // Ask for the headers' ABI, or the driver's own on an older driver (see driver_api.hpp for why
  // that is safe for this table).
  const int version = std::min(CUDA_VERSION, api.driver_version);

  std::string missing;
#define DUET_CUDA_DRIVER_RESOLVE(name) \
  if (!resolve(get_proc, #name, version, api.name)) missing += missing.empty() ? #name : ", " #name;
  DUET_CUDA_DRIVER_REQUIRED(DUET_CUDA_DRIVER_RESOLVE)
#undef DUET_CUDA_DRIVER_RESOLVE
  if (!missing.empty()) {
    out.reason = "the NVIDIA driver (" + cuda_version_text(api.driver_version) +
                 ") lacks driver functions duet needs: " + missing + "; update the driver";
    return out;
  }
#define DUET_CUDA_DRIVER_RESOLVE_OPTIONAL(name) resolve(get_proc, #name, version, api.name);
  DUET_CUDA_DRIVER_OPTIONAL(DUET_CUDA_DRIVER_RESOLVE_OPTIONAL)
#undef DUET_CUDA_DRIVER_RESOLVE_OPTIONAL
  api.graphs = true;
#define DUET_CUDA_DRIVER_RESOLVE_GRAPH(name) api.graphs = resolve(get_proc, #name, version, api.name) && api.graphs;
  DUET_CUDA_DRIVER_GRAPH(DUET_CUDA_DRIVER_RESOLVE_GRAPH)
#undef DUET_CUDA_DRIVER_RESOLVE_GRAPH
  out.ok = true;
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

}  // namespace

const DriverApi* load_driver(std::string* reason) {
  const Loaded& l = loaded();
  if (!l.ok) {
    if (reason) *reason = l.reason;
    return nullptr;
  }
  return &l.api;
}

const DriverApi& driver() { return loaded().api; }

std::string cuda_version_text(int version) {
  return "CUDA " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace duet::backend::cuda
