// Finding the OpenCL devices (probe.cpp), for the backend object (backend.cpp).
#pragma once

#include "backend.hpp"

namespace duet::backend::opencl {

Probe probe_opencl();

}  // namespace duet::backend::opencl
