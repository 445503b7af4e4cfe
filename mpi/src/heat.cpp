// The heat equation on a Grid2D: every `halo` steps the halo is refreshed, and each rank runs that
// many steps of duet::heat on its local array. The local array's edge cells stay fixed through those
// steps: at the grid's edge they are the boundary, elsewhere they are halo cells whose staleness
// moves inward one cell per step and so never reaches the tile. Every owned cell thus goes through
// the same operations on the same values as on one device, which makes the result bitwise equal.
#include <algorithm>
#include <string>

#include "duet/error.hpp"
#include "duet/kernels.hpp"
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

}  // namespace duet::mpi
