// Turning OpenCL return codes into duet errors. Every failed call becomes a duet::DriverError that
// carries the call, the native code and its CL_* name, so a report from a user's machine says
// exactly what the driver refused; allocation failures are told apart because duet reports them as
// OutOfMemoryError (see device.cpp), which callers can handle by asking for less.
#pragma once

#include <string>

#include "cl_api.hpp"

namespace duet::backend::opencl {

// "CL_OUT_OF_RESOURCES" for -5; "CL_UNKNOWN_ERROR" for codes outside the standard and KHR sets.
const char* error_name(cl_int code);

// The codes with which drivers say that device memory ran out while creating or first using a buffer.
bool is_allocation_failure(cl_int code);

[[noreturn]] void throw_driver_error(const char* call, cl_int code, const std::string& detail = {});

inline void check(cl_int code, const char* call) {
  if (code != CL_SUCCESS) throw_driver_error(call, code);
}

}  // namespace duet::backend::opencl
