// Grid2D's decomposition, checked from what every rank reports: the tiles cover the grid exactly
// once and are balanced, the neighbours agree with each other and with the tiles' positions, the
// local array is the tile plus a halo on the sides that have a neighbour, and a grid too small for
// the ranks and halo is a ConfigError on every rank. Sizes are primes, thin strips, grids smaller
// than the rank count and sizes no rank count divides.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <duet/error.hpp>
#include <duet/mpi.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mpi_support.hpp"

using duet::mpi::Grid2D;
using duet::mpi::GridOptions;
using duet::mpi::Rect;
using duet::mpi::Side;

namespace {

constexpr std::array<Side, 4> kSides{Side::west, Side::east, Side::south, Side::north};

// west/east and south/north are 0/1 and 2/3 (mpi.hpp), so the opposite side differs in bit 0.
Side opposite(Side side) { return static_cast<Side>(static_cast<int>(side) ^ 1); }

const char* name(Side side) {
  static const char* const names[] = {"west", "east", "south", "north"};
  return names[static_cast<int>(side)];
}

bool overlap(const Rect& a, const Rect& b) {
  return a.x0 < b.x0 + b.nx && b.x0 < a.x0 + a.nx && a.y0 < b.y0 + b.ny && b.y0 < a.y0 + a.ny;
}

// The tiles of every rank: inside the grid, disjoint, as many cells as the grid, balanced, and no
// thinner than the halo across a direction that is split.
void check_tiles(const Grid2D& grid) {
  const std::vector<Rect> tiles = mpitest::all_tiles(grid);
  unsigned long long mine = grid.tile().cells(), total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, grid.comm());
  CHECK(total == grid.nx() * grid.ny());

  const std::size_t h = static_cast<std::size_t>(grid.halo());
  std::size_t outside = 0, overlapping = 0, unbalanced = 0, thin = 0;
  for (std::size_t a = 0; a < tiles.size(); ++a) {
    const Rect& t = tiles[a];
    if (t.nx == 0 || t.ny == 0 || t.x0 + t.nx > grid.nx() || t.y0 + t.ny > grid.ny()) ++outside;
    if ((grid.dims()[0] > 1 && t.nx < h) || (grid.dims()[1] > 1 && t.ny < h)) ++thin;
    for (std::size_t b = a + 1; b < tiles.size(); ++b) {
      const Rect& u = tiles[b];
      if (overlap(t, u)) ++overlapping;
      if (std::max(t.nx, u.nx) - std::min(t.nx, u.nx) > 1 || std::max(t.ny, u.ny) - std::min(t.ny, u.ny) > 1)
        ++unbalanced;
    }
  }
  INFO("this rank's tile ", mpitest::describe(grid.tile()), ", dims ", grid.dims()[0], " x ", grid.dims()[1]);
  CHECK(outside == 0);
  CHECK(overlapping == 0);
  CHECK(unbalanced == 0);
  CHECK(thin == 0);
}

// Each neighbour names this rank back on the opposite side and lies right beside the tile; the
// grid's edge is exactly where there is none.
void check_neighbours(const Grid2D& grid) {
  const std::vector<Rect> tiles = mpitest::all_tiles(grid);
  int size = 0;
  MPI_Comm_size(grid.comm(), &size);
  std::array<int, 4> mine{};
  for (Side side : kSides) mine[static_cast<std::size_t>(side)] = grid.neighbour(side);
  std::vector<int> every(4 * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), 4, MPI_INT, every.data(), 4, MPI_INT, grid.comm());

  const Rect t = grid.tile();
  const int me = grid.rank();
  for (Side side : kSides) {
    const int n = grid.neighbour(side);
    INFO("rank ", me, " tile ", mpitest::describe(t), ", ", name(side), " neighbour ", n);
    const bool at_edge =
        (side == Side::west && t.x0 == 0) || (side == Side::east && t.x0 + t.nx == grid.nx()) ||
        (side == Side::south && t.y0 == 0) || (side == Side::north && t.y0 + t.ny == grid.ny());
    CHECK((n == MPI_PROC_NULL) == at_edge);
    if (n == MPI_PROC_NULL) continue;
    CHECK(n >= 0);
    CHECK(n < size);
    if (n < 0 || n >= size) continue;
    CHECK(every[4 * static_cast<std::size_t>(n) + static_cast<std::size_t>(opposite(side))] == me);
    const Rect& o = tiles[static_cast<std::size_t>(n)];
    if (side == Side::west || side == Side::east) {
      CHECK(o.y0 == t.y0);
      CHECK(o.ny == t.ny);
      CHECK((side == Side::east ? o.x0 == t.x0 + t.nx : o.x0 + o.nx == t.x0));
    } else {
      CHECK(o.x0 == t.x0);
      CHECK(o.nx == t.nx);
      CHECK((side == Side::north ? o.y0 == t.y0 + t.ny : o.y0 + o.ny == t.y0));
    }
  }
}

// local() is the tile grown by the halo towards each neighbour; local_index is row-major over it;
// owns() is the tile. Entirely this rank's own business: no collectives.
void check_local(const Grid2D& grid) {
  const Rect t = grid.tile(), l = grid.local();
  const std::size_t h = static_cast<std::size_t>(grid.halo());
  const auto grow = [&](Side side) { return grid.neighbour(side) == MPI_PROC_NULL ? std::size_t{0} : h; };
  INFO("tile ", mpitest::describe(t), ", local ", mpitest::describe(l));
  CHECK(l.x0 + grow(Side::west) == t.x0);
  CHECK(l.y0 + grow(Side::south) == t.y0);
  CHECK(l.nx == t.nx + grow(Side::west) + grow(Side::east));
  CHECK(l.ny == t.ny + grow(Side::south) + grow(Side::north));
  CHECK(grid.local_nx() == l.nx);
  CHECK(grid.local_ny() == l.ny);
  CHECK(grid.make_local().size() == l.cells());

  std::size_t wrong_index = 0, wrong_owner = 0;
  for (std::size_t y = l.y0; y < l.y0 + l.ny; ++y)
    for (std::size_t x = l.x0; x < l.x0 + l.nx; ++x) {
      if (grid.local_index(x, y) != (y - l.y0) * l.nx + (x - l.x0)) ++wrong_index;
      const bool inside = x >= t.x0 && x < t.x0 + t.nx && y >= t.y0 && y < t.y0 + t.ny;
      if (grid.owns(x, y) != inside) ++wrong_owner;
    }
  CHECK(wrong_index == 0);
  CHECK(wrong_owner == 0);
  // One past the local array's corner is no cell of it.
  bool threw = false;
  try {
    (void)grid.local_index(l.x0 + l.nx, l.y0 + l.ny - 1);
  } catch (const duet::ArgumentError&) {
    threw = true;
  }
  CHECK_MESSAGE(threw, "local_index past the local array must throw ArgumentError");
  CHECK_FALSE(grid.owns(grid.nx(), 0));
}

// Builds the grid on every rank; nullopt when it threw, with the ConfigError's message in `error`.
std::optional<Grid2D> try_grid(std::size_t nx, std::size_t ny, const GridOptions& options,
                               std::string& error) {
  try {
    return Grid2D(MPI_COMM_WORLD, mpitest::device(), nx, ny, options);
  } catch (const duet::ConfigError& e) {
    error = e.what();
  } catch (const duet::Error& e) {
    error = std::string("not a ConfigError: ") + duet::to_string(e.kind()) + ": " + e.what();
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("decomposition: tiles cover the grid once, neighbours agree, local = tile + halo") {
  struct Size {
    std::size_t nx, ny;
  };
  // Primes both ways, thin strips both ways, grids no rank count above 1 divides, and grids of a
  // cell or four, which fit only some rank counts and halos.
  const Size sizes[] = {{1, 1}, {2, 2}, {97, 61}, {61, 97}, {5, 1000}, {1000, 5}, {7, 3}, {13, 11}, {3, 31}};
  const int ranks = mpitest::world_size();
  for (const Size& s : sizes)
    for (int halo : {1, 2, 3}) {
      const bool fits = mpitest::some_split_fits(s.nx, s.ny, halo, ranks);
      INFO(mpitest::describe(s.nx, s.ny, halo), std::string(fits ? " (fits)" : " (too small)"));
      std::string error;
      std::optional<Grid2D> grid = try_grid(s.nx, s.ny, GridOptions{halo, {0, 0}}, error);
      const bool built = grid.has_value();
      // Ranks that disagree here would go different ways into the collectives below.
      const int built_on = mpitest::count_ranks(MPI_COMM_WORLD, built);
      CHECK_MESSAGE((built_on == 0 || built_on == ranks),
                    "the grid was built on " << built_on << " of " << ranks << " ranks");
      if (built_on != 0 && built_on != ranks) continue;
      if (!fits) {
        CHECK_MESSAGE(!built, "a grid too small for the ranks and halo was accepted");
        CHECK_MESSAGE(error.rfind("not a ConfigError", 0) == std::string::npos, error);
        CHECK_MESSAGE(error.find(std::to_string(s.nx)) != std::string::npos, "message: " << error);
        CHECK_MESSAGE(error.find(std::to_string(ranks)) != std::string::npos, "message: " << error);
        continue;
      }
      CHECK_MESSAGE(built, "a grid that fits was refused: " << error);
      if (!built) continue;
      CHECK(grid->nx() == s.nx);
      CHECK(grid->ny() == s.ny);
      CHECK(grid->halo() == halo);
      CHECK(grid->dims()[0] * grid->dims()[1] == ranks);
      CHECK(grid->coords()[0] < grid->dims()[0]);
      CHECK(grid->coords()[1] < grid->dims()[1]);
      int comm_rank = -1;
      MPI_Comm_rank(grid->comm(), &comm_rank);
      CHECK(grid->rank() == comm_rank);
      CHECK(grid->device() == mpitest::device());
      check_tiles(*grid);
      check_neighbours(*grid);
      check_local(*grid);
    }
}

TEST_CASE("decomposition: dims asked for are used; impossible dims and a zero halo are refused everywhere") {
  const int ranks = mpitest::world_size();
  std::string error;
  {
    std::optional<Grid2D> grid = try_grid(1000, 5, GridOptions{1, {ranks, 1}}, error);
    CHECK_MESSAGE(grid.has_value(), error);
    if (grid) CHECK(grid->dims() == std::array<int, 2>{ranks, 1});
  }
  {
    std::optional<Grid2D> grid = try_grid(6, 1000, GridOptions{2, {0, ranks}}, error);
    CHECK_MESSAGE(grid.has_value(), error);
    if (grid) CHECK(grid->dims() == std::array<int, 2>{1, ranks});
  }
  // Which error these are is not promised; only that every rank refuses them.
  CHECK(mpitest::count_ranks(MPI_COMM_WORLD, !try_grid(50, 50, GridOptions{1, {ranks + 1, 1}}, error)) ==
        ranks);
  CHECK(mpitest::count_ranks(MPI_COMM_WORLD, !try_grid(50, 50, GridOptions{0, {0, 0}}, error)) == ranks);
}
