// The one place that configures the Khronos C++ bindings. Every file of this backend includes this
// header instead of <CL/opencl.hpp>, so all of them agree on the API level (OpenCL 1.2, the newest
// that PoCL, NVIDIA, AMD and Intel all provide, so nothing newer may be called) and on error
// handling: CLHPP exceptions stay off, because every failure must become a duet error that names
// the failed call and the code, which the return-code style lets each call site do directly.
#pragma once

#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif

#if CL_HPP_MINIMUM_OPENCL_VERSION != 120 || CL_HPP_TARGET_OPENCL_VERSION != 120
#error "duet's OpenCL backend is written against the OpenCL 1.2 API only"
#endif
#ifdef CL_HPP_ENABLE_EXCEPTIONS
#error "duet's OpenCL backend checks return codes; CLHPP exceptions must stay off"
#endif

#include <CL/opencl.hpp>
