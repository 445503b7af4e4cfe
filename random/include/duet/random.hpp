// duet::random: counter-based random numbers on any duet device (CMake target duet::random, part of
// duet::duet). The generator is Philox4x32-10 (Salmon et al., SC'11): every value is a pure function
// of (seed, offset, index), so a launch needs no state, any element can be made on its own, and the
// same seed gives bitwise the same numbers on CUDA, on every OpenCL driver and on the host (the
// functions in duet::random::host, which the tests compare with the devices).
//
//   duet::Buffer<float> x(device, n);
//   duet::random::normal(queue, x, /*seed=*/42);            // N(0, 1)
//   duet::random::uniform(queue, x, 42, /*offset=*/1);      // another stream of the same seed
//
// (seed, offset) names a stream; element i of the output is the stream's i-th value (the exact
// mapping, and how uniform and normal values are made from Philox's words, is documented at the top
// of random/kernels/random.duet). Calls with the same seed and different offsets give independent
// streams: use offset as a call counter (Python's duet.random.Generator does).
//
// Uniform values are exact fractions: float (w >> 8) 2^-24 in [0, 1), double (53 bits) 2^-53, then
// fma(high - low, u, low). Normal values use Box-Muller with duet's own log, sqrt, sin and cos,
// written with correctly rounded operations only, so they are bitwise portable too; they are
// accurate to a few units in the last place, and their distribution is tested (mean, variance,
// tails). double needs DeviceInfo::supports_double (ArgumentError otherwise).
//
// The calls are asynchronous like every launch: they enqueue on `q` and return the event.
// Thread-safe like Queue::launch.
#pragma once

#include "duet/export.hpp"

#include <array>
#include <cstdint>

#include "duet/buffer.hpp"
#include "duet/queue.hpp"
#include "duet/span.hpp"

namespace duet::random {

DUET_API Event bits(Queue& q, Buffer<std::uint32_t>& out, std::uint64_t seed, std::uint64_t offset = 0);
DUET_API Event uniform(Queue& q, Buffer<float>& out, std::uint64_t seed, std::uint64_t offset = 0,
                       float low = 0.0f, float high = 1.0f);
DUET_API Event uniform(Queue& q, Buffer<double>& out, std::uint64_t seed, std::uint64_t offset = 0,
                       double low = 0.0, double high = 1.0);
DUET_API Event normal(Queue& q, Buffer<float>& out, std::uint64_t seed, std::uint64_t offset = 0,
                      float mean = 0.0f, float stddev = 1.0f);
DUET_API Event normal(Queue& q, Buffer<double>& out, std::uint64_t seed, std::uint64_t offset = 0,
                      double mean = 0.0, double stddev = 1.0);

// The generator's dialect source (DEVICE functions duet_philox4x32_10, duet_philox_block,
// duet_uniform_float, duet_normal2_float, ... and the fill kernels): prepend it to a source of your
// own to draw numbers inside your kernels.
DUET_API const char* source();

// The host reference: the same numbers computed on the CPU, bit for bit.
namespace host {
// One Philox4x32-10 block: counter {c0, c1, c2, c3}, key {k0, k1}.
DUET_API std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter,
                                           std::array<std::uint32_t, 2> key);
DUET_API void bits(Span<std::uint32_t> out, std::uint64_t seed, std::uint64_t offset = 0);
DUET_API void uniform(Span<float> out, std::uint64_t seed, std::uint64_t offset = 0, float low = 0.0f,
                      float high = 1.0f);
DUET_API void uniform(Span<double> out, std::uint64_t seed, std::uint64_t offset = 0, double low = 0.0,
                      double high = 1.0);
DUET_API void normal(Span<float> out, std::uint64_t seed, std::uint64_t offset = 0, float mean = 0.0f,
                     float stddev = 1.0f);
DUET_API void normal(Span<double> out, std::uint64_t seed, std::uint64_t offset = 0, double mean = 0.0,
            double stddev = 1.0);
}  // namespace host

}  // namespace duet::random
