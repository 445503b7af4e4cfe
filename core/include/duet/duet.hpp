// duet: one C++ interface over CUDA and OpenCL devices. This header is the core (duet::core):
// devices, buffers, programs, queues, the generators and the built-in kernels. Each module has a
// header of its own, which includes what it offers: duet/blas.hpp (duet::blas: matmul, gemm and
// the tuning table), duet/random.hpp (duet::random), duet/arrays.hpp (duet::array),
// duet/array_linalg.hpp (duet::linalg: matmul on arrays), duet/stencil.hpp (duet::stencil: the heat
// equation) and duet/mpi.hpp (duet::mpi). Module authors add duet/extension.hpp.
#pragma once

#include "duet/buffer.hpp"
#include "duet/cache.hpp"
#include "duet/device.hpp"
#include "duet/elementwise.hpp"
#include "duet/error.hpp"
#include "duet/graph.hpp"
#include "duet/half.hpp"
#include "duet/host_buffer.hpp"
#include "duet/interprocess.hpp"
#include "duet/kernels.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"
#include "duet/reduction.hpp"
#include "duet/scalar_convert.hpp"
#include "duet/scalar_type.hpp"
#include "duet/span.hpp"
#include "duet/version.hpp"
