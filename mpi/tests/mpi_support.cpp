// The helpers of mpi_support.hpp.
#include "mpi_support.hpp"

#include <array>
#include <cstring>
#include <sstream>

namespace mpitest {

std::mt19937_64 rng(std::string_view tag, std::uint64_t salt) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the tag, so each test draws its own stream
  for (char c : tag) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return std::mt19937_64(seed() ^ h ^ (salt * 0x9e3779b97f4a7c15ull));
}

std::vector<float> random_field(std::mt19937_64& rng, std::size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> out(n);
  for (float& v : out) v = dist(rng);
  return out;
}

bool all_agree(MPI_Comm comm, bool mine) {
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, comm);
  return out == 1;
}

int count_ranks(MPI_Comm comm, bool mine) {
  int in = mine ? 1 : 0, out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm);
  return out;
}

std::vector<duet::mpi::Rect> all_tiles(const duet::mpi::Grid2D& grid) {
  int size = 0;
  MPI_Comm_size(grid.comm(), &size);
  const duet::mpi::Rect t = grid.tile();
  const std::array<unsigned long long, 4> mine{t.x0, t.y0, t.nx, t.ny};
  std::vector<unsigned long long> every(4 * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), 4, MPI_UNSIGNED_LONG_LONG, every.data(), 4, MPI_UNSIGNED_LONG_LONG, grid.comm());
  std::vector<duet::mpi::Rect> tiles(static_cast<std::size_t>(size));
  for (std::size_t r = 0; r < tiles.size(); ++r)
    tiles[r] = {every[4 * r], every[4 * r + 1], every[4 * r + 2], every[4 * r + 3]};
  return tiles;
}

bool some_split_fits(std::size_t nx, std::size_t ny, int halo, int ranks) {
  const auto wide_enough = [&](std::size_t n, int parts) {
    const std::size_t smallest = n / static_cast<std::size_t>(parts);
    return smallest >= 1 && (parts == 1 || smallest >= static_cast<std::size_t>(halo));
  };
  for (int px = 1; px <= ranks; ++px)
    if (ranks % px == 0 && wide_enough(nx, px) && wide_enough(ny, ranks / px)) return true;
  return false;
}

std::vector<std::array<int, 2>> dims_to_test(std::size_t nx, std::size_t ny, int halo, int ranks) {
  std::vector<std::array<int, 2>> out{{0, 0}};
  const auto wide_enough = [&](std::size_t n, int parts) {
    const std::size_t smallest = n / static_cast<std::size_t>(parts);
    return smallest >= 1 && (parts == 1 || smallest >= static_cast<std::size_t>(halo));
  };
  for (int px = 2; px < ranks; ++px)
    if (ranks % px == 0 && ranks / px > 1 && wide_enough(nx, px) && wide_enough(ny, ranks / px)) {
      out.push_back({px, ranks / px});
      break;
    }
  return out;
}

std::string describe(std::size_t nx, std::size_t ny, int halo) {
  std::ostringstream s;
  s << nx << " x " << ny << " grid, halo " << halo << ", " << world_size() << " rank(s)";
  return s.str();
}

std::string describe(const duet::mpi::Rect& r) {
  std::ostringstream s;
  s << "[" << r.x0 << ", " << r.x0 + r.nx << ") x [" << r.y0 << ", " << r.y0 + r.ny << ")";
  return s.str();
}

void check_bitwise(const std::vector<float>& got, const std::vector<float>& want, std::size_t nx,
                   const std::string& what) {
  CHECK_MESSAGE(got.size() == want.size(), what << ": " << got.size() << " cells, expected " << want.size());
  if (got.size() != want.size()) return;
  std::size_t bad = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) == 0) continue;
    if (bad < 5) first << "\n  (" << i % nx << ", " << i / nx << ") got " << got[i] << " want " << want[i];
    ++bad;
  }
  INFO(what, ": ", bad, " of ", got.size(), " cells differ", first.str());
  CHECK(bad == 0);
}

}  // namespace mpitest
