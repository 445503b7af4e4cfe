// Finding the CUDA devices (probe.cpp), for the backend object (backend.cpp).
#pragma once

#include "backend.hpp"

namespace duet::backend::cuda {

Probe probe_cuda();

}  // namespace duet::backend::cuda
