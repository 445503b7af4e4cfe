// duet::stencil: the explicit 2D heat equation on one device (CMake target duet::stencil, part of
// duet::duet), written once in the dialect (stencil/kernels/heat.duet), compiled on first use per
// device and cached. Like every launch, the calls are asynchronous: they enqueue work on `q` and
// return. Sizes are checked against the buffers (BufferSizeError) and buffers must belong to the
// queue's device (DeviceMismatchError). duet::mpi (duet/mpi.hpp) runs the same scheme on a grid
// decomposed over MPI ranks, through heat_pass.
#pragma once

#include <cstddef>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/export.hpp"
#include "duet/queue.hpp"
#include "duet/span.hpp"

namespace duet {

// One explicit step of the 2D heat equation on an nx * ny grid (row-major, x fastest):
// v = u + r * (u_west + u_east + u_north + u_south - 4u) inside; boundary cells are copied (fixed).
// r must be in (0, 0.25] for the scheme to be stable.
DUET_API void heat_step(Queue& q, const Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny,
               float r);

// `steps` heat steps ping-ponging between u and v. On return u holds the final field (the two
// buffers are swapped as needed, never copied) and v holds scratch. Long runs on small grids, where
// launching bounds the run, replay a graph of many passes (duet/graph.hpp), with the same result
// bit for bit; on a queue that is capturing a graph the passes are recorded into it one by one.
DUET_API void heat(Queue& q, Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny, float r,
          int steps);

// Compiles every kernel heat() runs on an nx-wide grid on q's device (which of them depends on the
// width and on the steps per pass, not on the grid's height), by a few steps on a small grid of the
// same kind, and waits for them: a timed run after it measures the kernels, not the compiler.
DUET_API void heat_warm_up(Queue& q, std::size_t nx);

// A window of a larger row-major array `pitch` floats wide, for heat_pass: the cells
// [x0, x0 + nx) x [y0, y0 + ny), whose edge cells are the window's boundary (kept fixed); only the
// rectangle [store_x0, store_x0 + store_nx) x [store_y0, store_y0 + store_ny) of the window (in
// window coordinates) is written to v.
struct DUET_API HeatWindow {
  std::size_t pitch = 0;
  std::size_t x0 = 0, y0 = 0, nx = 0, ny = 0;
  std::size_t store_x0 = 0, store_y0 = 0, store_nx = 0, store_ny = 0;
};

// `steps` (0 .. heat_pass_depth) steps of heat's scheme in one pass from u into v over a window,
// writing only the window's store rectangle of v; the rest of v is left as it was. Bitwise equal to
// the same steps of heat() on the window alone. The building block of solvers that update parts of a
// grid separately: duet::mpi updates a tile's interior this way while its halo is exchanged.
DUET_API void heat_pass(Queue& q, const Buffer<float>& u, Buffer<float>& v, const HeatWindow& window, float r,
                        int steps);
// heat_pass over several windows of the same u and v (one array width), the same steps each, in
// fewer launches: two windows whose passes take the same shape (the rings along a tile's opposite
// sides) share one. Bitwise equal to heat_pass on each window; the windows' passes run in no set
// order, so no window may store cells another one stores differently. For solvers whose small
// windows cost a launch each more than their cells: duet::mpi's rings.
DUET_API void heat_passes(Queue& q, const Buffer<float>& u, Buffer<float>& v, Span<const HeatWindow> windows,
                          float r, int steps);
// The most steps heat_pass takes in one pass on `device` (the temporal blocking depth).
DUET_API int heat_pass_depth(const Device& device);

}  // namespace duet
