// CUresult to duet error translation (see errors.hpp). Names and descriptions come from the
// driver itself (cuGetErrorName / cuGetErrorString), so codes added by newer drivers read well too.
#include "errors.hpp"

#include <cstdio>
#include <mutex>
#include <set>
#include <sstream>

#include "duet/error.hpp"

namespace duet::backend::cuda {
namespace {

std::string gib(std::uint64_t bytes) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(2);
  s << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return s.str();
}

}  // namespace

std::string result_name(CUresult r) {
  const DriverApi* api = load_driver();
  const char* name = nullptr;
  if (api && api->cuGetErrorName(r, &name) == CUDA_SUCCESS && name) return name;
  return "CUresult " + std::to_string(static_cast<int>(r));
}

std::string result_text(CUresult r) {
  const DriverApi* api = load_driver();
  const char* text = nullptr;
  if (api && api->cuGetErrorString(r, &text) == CUDA_SUCCESS && text) return text;
  return {};
}

void throw_error(CUresult r, const std::string& call) {
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    throw OutOfMemoryError("cuda: " + call + " failed: the device is out of memory (" + result_name(r) +
                               "); free buffers or use smaller ones",
                           0, 0);
  throw DriverError("cuda", call, static_cast<long>(r), result_name(r), result_text(r));
}

void check_alloc(CUresult r, const char* call, std::uint64_t requested, std::uint64_t device_memory,
                 const std::string& device_name) {
  if (r == CUDA_SUCCESS) return;
  if (r != CUDA_ERROR_OUT_OF_MEMORY) throw_error(r, call);
  std::ostringstream s;
  s << "cuda: cannot allocate " << requested << " bytes (" << gib(requested) << ") on " << device_name
    << " with " << gib(device_memory) << " of memory";
  // The caller holds the device's context, so this reports what the allocation competed for.
  std::size_t free_bytes = 0, total_bytes = 0;
  if (driver().cuMemGetInfo(&free_bytes, &total_bytes) == CUDA_SUCCESS)
    s << ", of which " << gib(free_bytes) << " is free";
  s << " (" << call << " returned " << result_name(r) << "); free buffers or allocate less";
  throw OutOfMemoryError(s.str(), requested, device_memory);
}

bool check_nothrow(CUresult r, const char* call) noexcept {
  if (r == CUDA_SUCCESS) return true;
  // After the driver's exit handlers ran, every call says DEINITIALIZED; objects freed that late
  // (globals holding duet handles) have nothing left to release, so that is not worth a line.
  if (r == CUDA_ERROR_DEINITIALIZED) return false;
  try {
    // After a sticky error (an illegal address in a kernel, say) every later call in the context
    // fails alike, and the error already reached the caller as a DriverError; one line per code
    // says it without a line for each object torn down afterwards.
    static std::mutex mutex;
    static std::set<int> reported;
    std::lock_guard<std::mutex> lock(mutex);
    if (!reported.insert(static_cast<int>(r)).second) return false;
    const std::string text = result_text(r);
    std::fprintf(stderr,
                 "duet: cuda: %s failed with %s%s%s (later failures with this code are not reported)\n", call,
                 result_name(r).c_str(), text.empty() ? "" : ": ", text.c_str());
  } catch (...) {
    std::fprintf(stderr, "duet: cuda: %s failed with CUresult %d\n", call, static_cast<int>(r));
  }
  return false;
}

}  // namespace duet::backend::cuda
