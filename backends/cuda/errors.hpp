// Turns CUresult codes into duet errors. DUET_CU(fn, args...) calls driver().fn(args...) and, when
// it fails, throws duet::DriverError naming the call as written, the code, its CUDA_ERROR_* name
// and the driver's description; out-of-memory becomes duet::OutOfMemoryError. DUET_CU_NOTHROW is
// for destructors, which must not throw: it logs the failure to stderr and returns false.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "driver_api.hpp"

namespace duet::backend::cuda {

// "CUDA_ERROR_OUT_OF_MEMORY"; "CUresult 1234" for codes the driver does not know.
std::string result_name(CUresult r);
// The driver's one-line description, e.g. "out of memory"; empty when it has none.
std::string result_text(CUresult r);

[[noreturn]] void throw_error(CUresult r, const std::string& call);

inline void check(CUresult r, const char* call) {
  if (r != CUDA_SUCCESS) throw_error(r, call);
}

// For allocations: out-of-memory becomes OutOfMemoryError carrying the sizes, and a message with
// how much of the device's memory is still free.
void check_alloc(CUresult r, const char* call, std::uint64_t requested, std::uint64_t device_memory,
                 const std::string& device_name);

// Logs a failure to stderr and returns false; never throws.
bool check_nothrow(CUresult r, const char* call) noexcept;

}  // namespace duet::backend::cuda

#define DUET_CU(fn, ...) \
  ::duet::backend::cuda::check(::duet::backend::cuda::driver().fn(__VA_ARGS__), #fn "(" #__VA_ARGS__ ")")

#define DUET_CU_NOTHROW(fn, ...)                                                        \
  ::duet::backend::cuda::check_nothrow(::duet::backend::cuda::driver().fn(__VA_ARGS__), \
                                       #fn "(" #__VA_ARGS__ ")")
