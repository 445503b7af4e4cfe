// Gathering the tiles into one field on a root rank, and scattering one into the tiles. Each tile
// travels packed (its rows back to back); the root places it by the tile's rectangle, which every
// rank can work out from the decomposition.
#include <algorithm>
#include <string>
#include <vector>

#include "duet/error.hpp"
#include "duet/extension.hpp"
#include "grid_state.hpp"

namespace duet::mpi {
namespace {

// Counts and offsets of every rank's tile, in cells, in rank order.
void layout(const Grid2D::State& s, std::vector<int>& counts, std::vector<int>& offsets,
            std::vector<Rect>& tiles) {
  counts.assign(static_cast<std::size_t>(s.size), 0);
  offsets.assign(static_cast<std::size_t>(s.size), 0);
  tiles.assign(static_cast<std::size_t>(s.size), Rect{});
  int offset = 0;
  for (int r = 0; r < s.size; ++r) {
    std::array<int, 2> at{};
    check_mpi(MPI_Cart_coords(s.cart, r, 2, at.data()), "MPI_Cart_coords");
    const std::size_t k = static_cast<std::size_t>(r);
    tiles[k] = s.tile_at(at);
    counts[k] = static_cast<int>(tiles[k].cells());
    offsets[k] = offset;
    offset += counts[k];
  }
}

void check_root(const Grid2D::State& s, int root, const char* call) {
  if (root < 0 || root >= s.size)
    throw ArgumentError(std::string(call) + ": root " + std::to_string(root) +
                        " is not a rank of the grid's " + std::to_string(s.size));
}

}  // namespace

std::vector<float> Grid2D::gather(Queue& q, const Buffer<float>& local, int root) const {
  const State& s = *state_;
  check_root(s, root, "Grid2D::gather");
  extension::require_elements("Grid2D::gather", "the local array", local, s.local.cells());
  const std::vector<float> mine = read_tile(s, q, local);

  std::vector<int> counts, offsets;
  std::vector<Rect> tiles;
  layout(s, counts, offsets, tiles);
  std::vector<float> all(s.rank == root ? s.nx * s.ny : 0);
  check_mpi(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_FLOAT, all.data(), counts.data(),
                        offsets.data(), MPI_FLOAT, root, s.cart),
            "MPI_Gatherv");
  if (s.rank != root) return {};
  std::vector<float> field(all.size());
  for (std::size_t r = 0; r < tiles.size(); ++r) {
    const Rect& t = tiles[r];
    const float* from = all.data() + offsets[r];
    for (std::size_t y = 0; y < t.ny; ++y)
      std::copy(from + y * t.nx, from + (y + 1) * t.nx,
                field.begin() + static_cast<std::ptrdiff_t>((t.y0 + y) * s.nx + t.x0));
  }
  return field;
}

void Grid2D::scatter(Queue& q, const std::vector<float>& global, Buffer<float>& local, int root) const {
  const State& s = *state_;
  check_root(s, root, "Grid2D::scatter");
  extension::require_elements("Grid2D::scatter", "the local array", local, s.local.cells());
  // Checked on the root only, where the field is read; the others learn of a bad one from the
  // broadcast flag, so no rank is left waiting in the scatter.
  int ok = s.rank != root || global.size() == s.nx * s.ny;
  check_mpi(MPI_Bcast(&ok, 1, MPI_INT, root, s.cart), "MPI_Bcast");
  if (!ok)
    throw BufferSizeError("Grid2D::scatter: the field on rank " + std::to_string(root) +
                          " must hold nx * ny = " + std::to_string(s.nx * s.ny) + " floats");

  std::vector<int> counts, offsets;
  std::vector<Rect> tiles;
  layout(s, counts, offsets, tiles);
  std::vector<float> packed_all;
  if (s.rank == root) {
    packed_all.resize(s.nx * s.ny);
    for (std::size_t r = 0; r < tiles.size(); ++r) {
      const Rect& t = tiles[r];
      float* to = packed_all.data() + offsets[r];
      for (std::size_t y = 0; y < t.ny; ++y) {
        const auto row = global.begin() + static_cast<std::ptrdiff_t>((t.y0 + y) * s.nx + t.x0);
        std::copy(row, row + static_cast<std::ptrdiff_t>(t.nx), to + y * t.nx);
      }
    }
  }
  std::vector<float> mine(s.tile.cells());
  check_mpi(MPI_Scatterv(packed_all.data(), counts.data(), offsets.data(), MPI_FLOAT, mine.data(),
                         static_cast<int>(mine.size()), MPI_FLOAT, root, s.cart),
            "MPI_Scatterv");
  write_tile(s, q, mine, local);
}

std::vector<float> read_tile(const Grid2D::State& s, Queue& q, const Buffer<float>& local) {
  Buffer<float> packed(s.device, s.tile.cells());
  pack(q, local, s.local.nx, s.tile_in_local(), packed);
  return q.to_vector(packed);
}

void write_tile(const Grid2D::State& s, Queue& q, const std::vector<float>& tile, Buffer<float>& local) {
  Buffer<float> packed(s.device, tile.size());
  q.write(packed, tile);
  unpack(q, packed, s.local.nx, s.tile_in_local(), local);
  q.finish();  // `tile` and `packed` may go once this returns
}

}  // namespace duet::mpi
