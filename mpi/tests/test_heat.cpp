// duet::mpi::heat against duet::heat on one device: the gathered field must be the same bits, for
// prime and thin grids, halos that do and do not divide the step count, and zero steps. Rank 0
// computes the one-device field once per grid and step count; the initial field comes from the
// broadcast seed, so every rank draws the same one. u's halo and all of v are poisoned with
// NaN, so a halo the solver forgot to exchange before its first steps shows. One case is also held
// against the double-precision CPU reference, which the bitwise check alone would not catch if
// both paths shared a wrong stencil.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstddef>
#include <duet/mpi.hpp>
#include <duet/queue.hpp>
#include <duet/stencil.hpp>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cpu_reference.hpp"
#include "mpi_support.hpp"

using duet::mpi::Grid2D;
using duet::mpi::GridOptions;

namespace {

constexpr float kPoison = std::numeric_limits<float>::quiet_NaN();
constexpr float kR = 0.23f;

// `steps` distributed steps from `initial` (read on rank 0), gathered on rank 0.
std::vector<float> distributed_heat(const std::vector<float>& initial, std::size_t nx, std::size_t ny,
                                    int halo, int steps,
                                    duet::mpi::Overlap overlap = duet::mpi::Overlap::automatic,
                                    std::array<int, 2> dims = {0, 0}) {
  Grid2D grid(MPI_COMM_WORLD, mpitest::device(), nx, ny, GridOptions{halo, dims});
  duet::Queue q = mpitest::device().queue();
  duet::Buffer<float> u = grid.make_local(), v = grid.make_local();
  q.fill(u, kPoison);
  q.fill(v, kPoison);
  grid.scatter(q, initial, u);
  duet::mpi::heat(grid, q, u, v, kR, steps, overlap);
  return grid.gather(q, u);
}

// duet::heat on the whole grid, on this rank's device.
std::vector<float> one_device_heat(const std::vector<float>& initial, std::size_t nx, std::size_t ny,
                                   int steps) {
  const duet::Device& device = mpitest::device();
  duet::Queue q = device.queue();
  duet::Buffer<float> u(device, nx * ny), v(device, nx * ny);
  q.write(u, initial);
  q.fill(v, kPoison);
  duet::heat(q, u, v, nx, ny, kR, steps);
  return q.to_vector(u);
}

}  // namespace

TEST_CASE("distributed heat is bitwise equal to duet::heat on one device") {
  struct Size {
    std::size_t nx, ny;
  };
  const Size sizes[] = {{61, 37}, {211, 5}, {5, 211}};
  const int ranks = mpitest::world_size();
  const bool root = mpitest::world_rank() == 0;
  for (const Size& s : sizes) {
    std::mt19937_64 rng = mpitest::rng("heat", s.nx * 1000 + s.ny);
    const std::vector<float> initial = mpitest::random_field(rng, s.nx * s.ny, 0.0f, 1.0f);
    for (int steps : {0, 1, 7, 13}) {
      const std::vector<float> want =
          root ? one_device_heat(initial, s.nx, s.ny, steps) : std::vector<float>();
      if (root && steps == 0) mpitest::check_bitwise(want, initial, s.nx, "duet::heat with 0 steps");
      // Halos thinner than a pass (bands beside the tile where it overlaps), one a pass deep, and
      // one deeper, whose strips carry cells the tile's pass stores, not the rings.
      for (int halo : {1, 2, 3, 5, 6, 9}) {
        if (!mpitest::some_split_fits(s.nx, s.ny, halo, ranks)) continue;
        // Both ways of spending the exchange: after it, and the tile while it travels.
        for (duet::mpi::Overlap overlap : {duet::mpi::Overlap::off, duet::mpi::Overlap::on})
          for (const std::array<int, 2>& dims : mpitest::dims_to_test(s.nx, s.ny, halo, ranks)) {
            INFO(mpitest::describe(s.nx, s.ny, halo), ", ", steps, " steps, overlap ",
                 overlap == duet::mpi::Overlap::on ? "on" : "off", ", dims asked ", dims[0], " x ", dims[1]);
            const std::vector<float> got = distributed_heat(initial, s.nx, s.ny, halo, steps, overlap, dims);
            if (root) mpitest::check_bitwise(got, want, s.nx, "mpi::heat against duet::heat");
          }
      }
    }
  }
}

// Long enough runs replay rounds from a graph where every edge of a rank is device work alone
// (one-kernel peer edges between distinct GPUs); elsewhere they launch round by round. Either way
// the field must be one device's, including the rounds left over after the last whole graph.
TEST_CASE("long distributed runs, replayed from graphs where the path allows, stay bitwise equal") {
  const std::size_t nx = 97, ny = 89;
  const bool root = mpitest::world_rank() == 0;
  std::mt19937_64 rng = mpitest::rng("heat-long", nx * 1000 + ny);
  const std::vector<float> initial = mpitest::random_field(rng, nx * ny, 0.0f, 1.0f);
  for (const std::pair<int, int>& run : {std::pair<int, int>{1, 71}, {2, 140}, {3, 100}}) {
    const int halo = run.first, steps = run.second;  // named apart: INFO's lambda captures them
    if (!mpitest::some_split_fits(nx, ny, halo, mpitest::world_size())) continue;
    INFO(mpitest::describe(nx, ny, halo), ", ", steps, " steps");
    const std::vector<float> want = root ? one_device_heat(initial, nx, ny, steps) : std::vector<float>();
    const std::vector<float> got = distributed_heat(initial, nx, ny, halo, steps, duet::mpi::Overlap::off);
    if (root) mpitest::check_bitwise(got, want, nx, "mpi::heat against duet::heat");
  }
}

TEST_CASE("distributed heat against the double-precision CPU reference") {
  const std::size_t nx = 53, ny = 47;
  const int halo = 2, steps = 13;
  std::mt19937_64 rng = mpitest::rng("heat_reference");
  const std::vector<float> initial = mpitest::random_field(rng, nx * ny, 0.0f, 1.0f);
  const std::vector<float> got = distributed_heat(initial, nx, ny, halo, steps);
  if (mpitest::world_rank() != 0) return;

  const std::vector<double> want = duet::reference::heat_reference(initial, nx, ny, kR, steps);
  // Values stay in [0, 1] and each step rounds a few times at that scale; the averaging stencil
  // (r <= 1/4) does not amplify earlier errors.
  const double tolerance = 8.0 * (steps + 1) / (1 << 24);
  std::size_t bad = 0;
  double worst = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) {
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(err <= tolerance)) {  // NaN fails too
      if (bad < 5) first << "\n  (" << i % nx << ", " << i / nx << ") got " << got[i] << " want " << want[i];
      ++bad;
    }
    if (err > worst || std::isnan(err)) worst = err;
  }
  CHECK(got.size() == want.size());
  INFO(bad, " cells beyond ", tolerance, ", worst error ", worst, first.str());
  CHECK(bad == 0);
}

// A schedule knob no rank can take fails on every rank at once (the ranks agree on it before any
// exchange), so none of them waits for a message that never comes.
TEST_CASE("a bad DUET_MPI_OVERLAP_QUEUES fails mpi::heat on every rank with the value") {
  const char* saved = std::getenv("DUET_MPI_OVERLAP_QUEUES");
  const std::string restore = saved ? saved : "";
  setenv("DUET_MPI_OVERLAP_QUEUES", "3", 1);
  Grid2D grid(MPI_COMM_WORLD, mpitest::device(), 37, 29, GridOptions{2, {0, 0}});
  duet::Queue q = mpitest::device().queue();
  duet::Buffer<float> u = grid.make_local(), v = grid.make_local();
  q.fill(u, 0.0f);
  q.fill(v, 0.0f);
  std::string message;
  try {
    duet::mpi::heat(grid, q, u, v, kR, 4, duet::mpi::Overlap::on);
  } catch (const duet::ArgumentError& e) {
    message = e.what();
  }
  if (saved)
    setenv("DUET_MPI_OVERLAP_QUEUES", restore.c_str(), 1);
  else
    unsetenv("DUET_MPI_OVERLAP_QUEUES");
  if (mpitest::world_size() == 1) {
    CHECK(message.empty());  // one rank has no edges: duet::heat, no schedule to choose
  } else {
    CHECK(message.find("DUET_MPI_OVERLAP_QUEUES must be 1") != std::string::npos);
    CHECK(message.find("'3'") != std::string::npos);
  }
}
