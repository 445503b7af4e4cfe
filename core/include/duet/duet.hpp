// duet: one C++ interface over CUDA and OpenCL devices. Include this header for everything.
#pragma once

#include "duet/buffer.hpp"
#include "duet/cache.hpp"
#include "duet/device.hpp"
#include "duet/elementwise.hpp"
#include "duet/error.hpp"
#include "duet/half.hpp"
#include "duet/host_buffer.hpp"
#include "duet/kernels.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"
#include "duet/reduction.hpp"
#include "duet/scalar_type.hpp"
#include "duet/span.hpp"
#include "duet/tuning.hpp"
#include "duet/version.hpp"
