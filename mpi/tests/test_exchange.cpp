// Moving data between ranks: the halo exchange fills every halo cell, corners included, with the
// value its owner holds (twice in a row, so staging buffers reused by the second exchange are
// covered, the second time through begin/finish); scatter then gather returns the field bit for
// bit from any root, writes the tiles only and leaves the halo alone; gather reads the owned cells
// and never the halo; strips of over a mebibyte arrive whole, exchange after exchange. Halo cells
// are poisoned with NaN before each operation, so a cell it forgot shows.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <duet/interprocess.hpp>
#include <duet/mpi.hpp>
#include <duet/queue.hpp>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "mpi_support.hpp"

using duet::mpi::Grid2D;
using duet::mpi::GridOptions;
using duet::mpi::Rect;

namespace {

constexpr float kPoison = std::numeric_limits<float>::quiet_NaN();

struct Size {
  std::size_t nx, ny;
};

// The local array as the host sees it: the owned cells from value(x, y), the halo poisoned.
template <class Value>
std::vector<float> owned_cells(const Grid2D& grid, Value&& value) {
  const Rect t = grid.tile();
  std::vector<float> local(grid.local().cells(), kPoison);
  for (std::size_t y = t.y0; y < t.y0 + t.ny; ++y)
    for (std::size_t x = t.x0; x < t.x0 + t.nx; ++x) local[grid.local_index(x, y)] = value(x, y);
  return local;
}

// Every cell of the local array, halo and corners included, against value(x, y).
template <class Value>
void check_local_cells(const Grid2D& grid, const std::vector<float>& got, Value&& value, const char* what) {
  const Rect l = grid.local();
  std::size_t bad = 0;
  std::ostringstream first;
  for (std::size_t y = l.y0; y < l.y0 + l.ny; ++y)
    for (std::size_t x = l.x0; x < l.x0 + l.nx; ++x) {
      const float g = got[grid.local_index(x, y)], w = value(x, y);
      if (g == w) continue;
      if (bad < 5)
        first << "\n  (" << x << ", " << y << ")" << (grid.owns(x, y) ? " owned" : " halo") << " got " << g
              << " want " << w;
      ++bad;
    }
  INFO(what, " on rank ", grid.rank(), ", tile ", mpitest::describe(grid.tile()), ", local ",
       mpitest::describe(l), ": ", bad, " cells wrong", first.str());
  CHECK(bad == 0);
}

// The grids both tests run on, where they fit the rank count and halo.
const Size kSizes[] = {{23, 17}, {5, 40}, {40, 5}, {2, 2}, {97, 61}, {1, 1}};

}  // namespace

TEST_CASE("halo exchange: every local cell holds its owner's value, corners included") {
  const int ranks = mpitest::world_size();
  for (const Size& s : kSizes)
    for (int halo : {1, 2, 3})
      for (const std::array<int, 2>& dims : mpitest::dims_to_test(s.nx, s.ny, halo, ranks)) {
        if (!mpitest::some_split_fits(s.nx, s.ny, halo, ranks)) continue;
        INFO(mpitest::describe(s.nx, s.ny, halo), ", dims asked ", dims[0], " x ", dims[1]);
        Grid2D grid(MPI_COMM_WORLD, mpitest::device(), s.nx, s.ny, GridOptions{halo, dims});
        duet::Queue q = mpitest::device().queue();
        duet::Buffer<float> local = grid.make_local();

        const auto first = [&](std::size_t x, std::size_t y) { return mpitest::cell_value(s.nx, x, y); };
        const std::vector<float> before = owned_cells(grid, first);
        q.write(local, before);
        grid.exchange_halos(q, local);
        check_local_cells(grid, q.to_vector(local), first, "exchange_halos");

        // Other values, a fresh poison in the halo, and the two halves of the exchange apart.
        const auto second = [&](std::size_t x, std::size_t y) {
          return -3.0f * mpitest::cell_value(s.nx, x, y);
        };
        const std::vector<float> again = owned_cells(grid, second);
        q.write(local, again);
        grid.begin_exchange(q, local);
        grid.finish_exchange(q, local);
        check_local_cells(grid, q.to_vector(local), second, "begin_exchange + finish_exchange");

        // In three parts, and continue_exchange where it does not belong refused.
        const auto third = [&](std::size_t x, std::size_t y) {
          return 0.5f * mpitest::cell_value(s.nx, x, y) + 1.0f;
        };
        const std::vector<float> thirds = owned_cells(grid, third);
        q.write(local, thirds);
        CHECK_THROWS_AS(grid.continue_exchange(q, local), duet::ArgumentError);
        grid.begin_exchange(q, local);
        grid.continue_exchange(q, local);
        CHECK_THROWS_AS(grid.continue_exchange(q, local), duet::ArgumentError);
        grid.finish_exchange(q, local);
        check_local_cells(grid, q.to_vector(local), third,
                          "begin_exchange + continue_exchange + finish_exchange");
      }
}

TEST_CASE("halo exchange: strips of over a mebibyte, rows and columns, four exchanges in a row") {
  // Strips this long take the peer path's bulk form between GPUs (plain floats and a count, where
  // shorter strips travel as cells that carry their exchange's number), and over MPI, messages of
  // over a mebibyte. Four exchanges use each of a mailbox's two slots twice.
  const int ranks = mpitest::world_size();
  const std::size_t length = 270001, across = 3 * static_cast<std::size_t>(ranks);
  for (const bool rows : {true, false}) {
    const std::size_t nx = rows ? length : across, ny = rows ? across : length;
    const std::array<int, 2> dims = rows ? std::array<int, 2>{1, ranks} : std::array<int, 2>{ranks, 1};
    INFO(mpitest::describe(nx, ny, 1), ", dims ", dims[0], " x ", dims[1]);
    Grid2D grid(MPI_COMM_WORLD, mpitest::device(), nx, ny, GridOptions{1, dims});
    duet::Queue q = mpitest::device().queue();
    duet::Buffer<float> local = grid.make_local();
    for (int round = 1; round <= 4; ++round) {
      CAPTURE(round);
      const auto value = [&](std::size_t x, std::size_t y) {
        return static_cast<float>(round) * mpitest::cell_value(nx, x, y) - static_cast<float>(round);
      };
      const std::vector<float> cells = owned_cells(grid, value);
      q.write(local, cells);
      grid.exchange_halos(q, local);
      check_local_cells(grid, q.to_vector(local), value, "a long strip");
    }
  }
}

TEST_CASE("gather and scatter: a round trip from any root, tiles only, halo untouched") {
  const int ranks = mpitest::world_size();
  const int me = mpitest::world_rank();
  for (const Size& s : kSizes)
    for (int halo : {1, 3}) {
      if (!mpitest::some_split_fits(s.nx, s.ny, halo, ranks)) continue;
      Grid2D grid(MPI_COMM_WORLD, mpitest::device(), s.nx, s.ny, GridOptions{halo, {0, 0}});
      duet::Queue q = mpitest::device().queue();
      duet::Buffer<float> local = grid.make_local();
      for (int root : {0, ranks - 1}) {
        INFO(mpitest::describe(s.nx, s.ny, halo), ", root ", root);
        std::mt19937_64 rng = mpitest::rng("gather_scatter", s.nx * 131 + s.ny * 7 + halo * 3 + root);
        const std::vector<float> field = mpitest::random_field(rng, s.nx * s.ny, -100.0f, 100.0f);
        // Only the root's field is read: the others pass none.
        const std::vector<float> given = me == root ? field : std::vector<float>();

        q.fill(local, kPoison);
        grid.scatter(q, given, local, root);
        const std::vector<float> scattered = q.to_vector(local);
        std::size_t wrong = 0, halo_written = 0;
        const Rect l = grid.local();
        for (std::size_t y = l.y0; y < l.y0 + l.ny; ++y)
          for (std::size_t x = l.x0; x < l.x0 + l.nx; ++x) {
            const float got = scattered[grid.local_index(x, y)];
            if (!grid.owns(x, y))
              halo_written += std::isnan(got) ? 0 : 1;
            else if (got != field[y * s.nx + x])
              ++wrong;
          }
        CHECK_MESSAGE(wrong == 0, wrong << " owned cells differ from the field after scatter");
        CHECK_MESSAGE(halo_written == 0, "scatter wrote " << halo_written << " halo cells");

        const std::vector<float> gathered = grid.gather(q, local, root);
        if (me == root)
          mpitest::check_bitwise(gathered, field, s.nx, "gather after scatter");
        else
          CHECK(gathered.empty());
      }

      // A field written cell by cell through local_index, with the halo left poisoned: the gather
      // must take every cell from its owner.
      const auto value = [&](std::size_t x, std::size_t y) { return mpitest::cell_value(s.nx, x, y); };
      const std::vector<float> written = owned_cells(grid, value);  // alive until the gather has read it
      q.write(local, written);
      const std::vector<float> gathered = grid.gather(q, local, 0);
      if (me == 0) {
        std::vector<float> want(s.nx * s.ny);
        for (std::size_t y = 0; y < s.ny; ++y)
          for (std::size_t x = 0; x < s.nx; ++x) want[y * s.nx + x] = value(x, y);
        mpitest::check_bitwise(gathered, want, s.nx, "gather of cells written through local_index");
      }
    }
}

TEST_CASE("halo paths: both ranks of an edge take the same path, peer only within a node") {
  const int ranks = mpitest::world_size();
  if (ranks < 2) return;
  Grid2D grid(MPI_COMM_WORLD, mpitest::device(), 64, 48, GridOptions{2, {}});
  const char* separate = std::getenv("DUET_MPI_SEPARATE_NODES");
  const bool nodes_apart = separate && std::string(separate) == "1";
  const bool can_share = duet::interprocess_unavailable(mpitest::device()).empty();
  std::array<int, 4> mine{}, theirs{};
  std::array<MPI_Request, 8> requests;
  requests.fill(MPI_REQUEST_NULL);
  for (int side = 0; side < 4; ++side) {
    const auto s = static_cast<duet::mpi::Side>(side);
    mine[side] = static_cast<int>(grid.path(s));
    if (grid.neighbour(s) == MPI_PROC_NULL) {
      CHECK(grid.path(s) == duet::mpi::HaloPath::none);
      continue;
    }
    CHECK(grid.path(s) != duet::mpi::HaloPath::none);
    if (nodes_apart || !can_share) CHECK(grid.path(s) != duet::mpi::HaloPath::peer);
    MPI_Irecv(&theirs[side], 1, MPI_INT, grid.neighbour(s), 7, grid.comm(), &requests[2 * side]);
    MPI_Isend(&mine[side], 1, MPI_INT, grid.neighbour(s), 7, grid.comm(), &requests[2 * side + 1]);
  }
  MPI_Waitall(8, requests.data(), MPI_STATUSES_IGNORE);
  for (int side = 0; side < 4; ++side)
    if (grid.neighbour(static_cast<duet::mpi::Side>(side)) != MPI_PROC_NULL) {
      INFO("rank ", grid.rank(), " side ", side, ": ",
           duet::mpi::to_string(static_cast<duet::mpi::HaloPath>(mine[side])), " against the neighbour's ",
           duet::mpi::to_string(static_cast<duet::mpi::HaloPath>(theirs[side])));
      CHECK(mine[side] == theirs[side]);
    }
  if (grid.rank() == 0 && can_share && !nodes_apart)
    MESSAGE("rank 0's edges: ", duet::mpi::to_string(grid.path(duet::mpi::Side::east)), " (x), ",
            duet::mpi::to_string(grid.path(duet::mpi::Side::north)), " (y)");
}
