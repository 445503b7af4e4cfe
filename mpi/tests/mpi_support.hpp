// What the MPI tests share: the run's device and seed (set up by main.cpp), small collectives that
// turn one rank's view into every rank's, and checks that report the first few bad cells in one
// assertion.
//
// Every test case runs on every rank, in the same order. A rank must never leave a test case early
// while the others go on into a collective, or the job hangs: so the checks here are CHECKs (never
// REQUIREs), and a test that could fail on some ranks only first agrees on the outcome with
// all_agree() before it calls anything collective.
#pragma once

#include <doctest/doctest.h>
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <duet/mpi.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace mpitest {

// The device every rank opened with duet::mpi::open_device(MPI_COMM_WORLD).
const duet::Device& device();
// The seed of this run, chosen on rank 0 and broadcast (DUET_TEST_SEED repeats a run).
std::uint64_t seed();

int world_rank();
int world_size();

// The same stream on every rank: data made from it needs no broadcast.
std::mt19937_64 rng(std::string_view tag, std::uint64_t salt = 0);
std::vector<float> random_field(std::mt19937_64& rng, std::size_t n, float lo, float hi);

// Whether `mine` holds on every rank of `comm`; the answer is the same on all of them.
bool all_agree(MPI_Comm comm, bool mine);
// How many ranks of `comm` have `mine` set.
int count_ranks(MPI_Comm comm, bool mine);
// Every rank's tile of `grid`, indexed by rank in grid.comm().
std::vector<duet::mpi::Rect> all_tiles(const duet::mpi::Grid2D& grid);

// Whether some px x py = ranks split gives tiles at least `halo` cells across wherever they have a
// neighbour (and at least one cell everywhere): the grids Grid2D must accept.
bool some_split_fits(std::size_t nx, std::size_t ny, int halo, int ranks);
// The rank grids a test runs on: {0, 0} (duet chooses, often strips) and, where the rank count has
// one that fits, a grid with ranks along both axes, so corners travel through both phases.
std::vector<std::array<int, 2>> dims_to_test(std::size_t nx, std::size_t ny, int halo, int ranks);

std::string describe(std::size_t nx, std::size_t ny, int halo);
std::string describe(const duet::mpi::Rect& r);

// The value a test writes at global cell (x, y): exact in float for the grids used here.
inline float cell_value(std::size_t nx, std::size_t x, std::size_t y) {
  return static_cast<float>(y * nx + x) + 0.5f;
}

// got == want bit for bit (a NaN only matches the same NaN); `nx` turns indices into (x, y).
void check_bitwise(const std::vector<float>& got, const std::vector<float>& want, std::size_t nx,
                   const std::string& what);

}  // namespace mpitest
