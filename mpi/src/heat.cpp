// The heat equation on a Grid2D: every `halo` steps the halo is refreshed, and each rank runs that
// many steps of duet::heat on its local array. The local array's edge cells stay fixed through those
// steps: at the grid's edge they are the boundary, elsewhere they are halo cells whose staleness
// moves inward one cell per step and so never reaches the tile. Every owned cell thus goes through
// the same operations on the same values as on one device, which makes the result bitwise equal.
#include <algorithm>
#include <limits>
#include <memory>
#include <string>

#include "duet/error.hpp"
#include "duet/extension.hpp"
#include "duet/kernels.hpp"
#include "duet/reduction.hpp"
#include "grid_state.hpp"

namespace duet::mpi {

void heat(Grid2D& grid, Queue& q, Buffer<float>& u, Buffer<float>& v, float r, int steps) {
  if (steps < 0) throw ArgumentError("mpi::heat: steps must be >= 0, not " + std::to_string(steps));
  const std::size_t nx = grid.local_nx(), ny = grid.local_ny();
  for (int done = 0; done < steps;) {
    const int run = std::min(grid.halo(), steps - done);
    grid.exchange_halos(q, u);
    duet::heat(q, u, v, nx, ny, r, run);
    done += run;
  }
}

float max_change(const Grid2D& grid, Queue& q, const Buffer<float>& before, const Buffer<float>& after) {
  const Grid2D::State& s = grid.state();
  // Only the tiles count: the halos hold neighbours' cells (or stale ones).
  const Rect tile{s.tile.x0 - s.local.x0, s.tile.y0 - s.local.y0, s.tile.nx, s.tile.ny};
  Buffer<float> a(s.device, tile.cells()), b(s.device, tile.cells());
  pack(q, before, s.local.nx, tile, a);
  pack(q, after, s.local.nx, tile, b);
  // A NaN must win the maximum (fmax would drop it), so a blown-up field never looks converged.
  const auto largest = extension::device_state<ReductionKernel>(s.device, "duet.mpi.max_change", [&] {
    return std::make_shared<ReductionKernel>(s.device, "float", "float x, float y", "fabs(x - y)",
                                             "(a > b || a != a) ? a : b", "0.0f", "max_change");
  });
  const float mine = largest->reduce<float>(q, a, b);
  float all = 0.0f;
  // MPI_MAX drops NaN on some implementations: a NaN anywhere is passed as a flag beside it.
  const float pair[2] = {mine != mine ? 0.0f : mine, mine != mine ? 1.0f : 0.0f};
  float result[2] = {0.0f, 0.0f};
  check_mpi(MPI_Allreduce(pair, result, 2, MPI_FLOAT, MPI_MAX, s.cart), "MPI_Allreduce");
  all = result[1] > 0.0f ? std::numeric_limits<float>::quiet_NaN() : result[0];
  return all;
}

}  // namespace duet::mpi
