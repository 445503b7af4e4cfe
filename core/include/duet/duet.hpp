// duet: one C++ interface over CUDA and OpenCL devices. Include this header for everything: the
// core (duet::core) and the modules that duet::duet links where they are installed (duet::blas:
// matmul and its tuning table; duet::random; duet::array). Module authors add duet/extension.hpp.
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
#include "duet/scalar_convert.hpp"
#include "duet/scalar_type.hpp"
#include "duet/span.hpp"
#include "duet/version.hpp"

#if __has_include("duet/blas.hpp")
#include "duet/blas.hpp"
#endif
#if __has_include("duet/random.hpp")
#include "duet/random.hpp"
#endif
#if __has_include("duet/array.hpp")
#include "duet/array.hpp"
#include "duet/array_expr.hpp"
#include "duet/array_reduce.hpp"
#include "duet/array_scan.hpp"
#endif
#if __has_include("duet/array_linalg.hpp")
#include "duet/array_linalg.hpp"
#endif
