// Checkpoints of a Grid2D's field: one file, written and read by every rank at once with MPI-IO
// (each rank's tile is a subarray of the global field), under a temporary name that is renamed only
// once the file is whole and synced. Rank 0 alone lists, renames and removes files, and tells the
// others what it decided, so every rank takes the same path through the collectives.
//
// File layout, little-endian: a 64-byte header (the magic "DUETCKPT", format version, header size,
// nx, ny, r, step, checksum, field bytes), then the field as float32, row-major.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "duet/error.hpp"
#include "grid_state.hpp"

namespace duet::mpi {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'D', 'U', 'E', 'T', 'C', 'K', 'P', 'T'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 64;

struct RawHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_bytes;
  std::uint64_t nx, ny;
  float r;
  std::uint32_t reserved;
  std::int64_t step;
  std::uint64_t checksum;
  std::uint64_t data_bytes;
};
static_assert(sizeof(RawHeader) == kHeaderBytes, "the checkpoint header is 64 bytes");

// Each cell's contribution depends on its place in the grid and its bits; the sum over all cells
// is the same however the grid is split, so ranks add their tiles' sums with MPI_Allreduce.
std::uint64_t cell_hash(std::uint64_t index, std::uint32_t bits) {
  std::uint64_t z = index * 0x9E3779B97F4A7C15ull ^ (std::uint64_t(bits) << 17 | bits);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::uint64_t tile_checksum(const Grid2D::State& s, const std::vector<float>& tile) {
  std::uint64_t sum = 0;
  for (std::size_t y = 0; y < s.tile.ny; ++y)
    for (std::size_t x = 0; x < s.tile.nx; ++x) {
      std::uint32_t bits;
      std::memcpy(&bits, &tile[y * s.tile.nx + x], sizeof bits);
      sum += cell_hash((s.tile.y0 + y) * s.nx + s.tile.x0 + x, bits);
    }
  return sum;
}

std::uint64_t grid_checksum(const Grid2D::State& s, const std::vector<float>& tile) {
  const std::uint64_t mine = tile_checksum(s, tile);
  std::uint64_t all = 0;
  check_mpi(MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, s.cart), "MPI_Allreduce");
  return all;
}

std::string file_name(long long step) {
  char name[64];
  std::snprintf(name, sizeof name, "checkpoint-%012lld.duet", step);
  return name;
}

long long step_of(const fs::path& path) {
  long long step = -1;
  std::sscanf(path.filename().string().c_str(), "checkpoint-%lld", &step);
  return step;
}

// The checkpoints in `directory`, newest first.
std::vector<fs::path> listed(const std::string& directory) {
  std::vector<std::pair<long long, fs::path>> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    long long step = 0;
    char tail[8] = {};
    if (std::sscanf(name.c_str(), "checkpoint-%lld.%7s", &step, tail) == 2 && std::string(tail) == "duet" &&
        name == file_name(step))
      found.emplace_back(step, entry.path());
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<fs::path> out;
  for (auto& f : found) out.push_back(f.second);
  return out;
}

// The header of `path`, or why it is not one.
bool read_header(const fs::path& path, RawHeader& h, std::string& why) {
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return why = "shorter than a header", false;
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
    return why = "not a duet checkpoint (bad magic)", false;
  if (h.version != kVersion)
    return why = "format version " + std::to_string(h.version) + ", not " + std::to_string(kVersion), false;
  if (h.header_bytes != kHeaderBytes || h.nx == 0 || h.ny == 0 || h.data_bytes != h.nx * h.ny * sizeof(float))
    return why = "the header's sizes do not agree", false;
  return true;
}

void broadcast(MPI_Comm comm, std::string& text) {
  unsigned long long length = text.size();
  check_mpi(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm), "MPI_Bcast");
  text.resize(length);
  check_mpi(MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, comm), "MPI_Bcast");
}

// A file view that shows this rank its tile of the global field, after the header.
struct TileView {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  explicit TileView(const Grid2D::State& s) {
    const int sizes[2] = {static_cast<int>(s.ny), static_cast<int>(s.nx)};
    const int parts[2] = {static_cast<int>(s.tile.ny), static_cast<int>(s.tile.nx)};
    const int starts[2] = {static_cast<int>(s.tile.y0), static_cast<int>(s.tile.x0)};
    check_mpi(MPI_Type_create_subarray(2, sizes, parts, starts, MPI_ORDER_C, MPI_FLOAT, &type),
              "MPI_Type_create_subarray");
    check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
  }
  ~TileView() { MPI_Type_free(&type); }
  void apply(MPI_File file) const {
    check_mpi(MPI_File_set_view(file, kHeaderBytes, MPI_FLOAT, type, "native", MPI_INFO_NULL),
              "MPI_File_set_view");
  }
};

// Every rank agrees on rank 0's verdict: raises the same ConfigError on all of them.
void agree(MPI_Comm comm, bool ok_on_root, std::string message) {
  int ok = ok_on_root;
  check_mpi(MPI_Bcast(&ok, 1, MPI_INT, 0, comm), "MPI_Bcast");
  broadcast(comm, message);
  if (!ok) throw ConfigError(message);
}

}  // namespace

std::string save_checkpoint(const Grid2D& grid, Queue& q, const Buffer<float>& local,
                            const std::string& directory, long long step, float r) {
  const Grid2D::State& s = grid.state();
  const std::vector<float> tile = read_tile(s, q, local);
  const std::uint64_t checksum = grid_checksum(s, tile);
  const fs::path final_path = fs::path(directory) / file_name(step);
  const fs::path part_path = fs::path(directory) / ("." + file_name(step) + ".part");

  std::string problem;
  if (s.rank == 0) {
    std::error_code error;
    fs::create_directories(directory, error);
    if (error) problem = "cannot create the checkpoint directory " + directory + ": " + error.message();
    fs::remove(part_path, error);  // a killed run's leftover must not lend the new file its length
  }
  agree(s.cart, problem.empty(), problem);

  MPI_File file;
  check_mpi(MPI_File_open(s.cart, part_path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file),
            ("MPI_File_open(" + part_path.string() + ")").c_str());
  if (s.rank == 0) {
    RawHeader h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kVersion;
    h.header_bytes = kHeaderBytes;
    h.nx = s.nx, h.ny = s.ny, h.r = r, h.step = step, h.checksum = checksum;
    h.data_bytes = s.nx * s.ny * sizeof(float);
    check_mpi(MPI_File_write_at(file, 0, &h, sizeof h, MPI_BYTE, MPI_STATUS_IGNORE), "MPI_File_write_at");
  }
  const TileView view(s);
  view.apply(file);
  check_mpi(
      MPI_File_write_all(file, tile.data(), static_cast<int>(tile.size()), MPI_FLOAT, MPI_STATUS_IGNORE),
      "MPI_File_write_all");
  check_mpi(MPI_File_sync(file), "MPI_File_sync");
  check_mpi(MPI_File_close(&file), "MPI_File_close");

  if (s.rank == 0) {
    std::error_code error;
    fs::rename(part_path, final_path, error);
    if (error) {
      problem = "cannot rename " + part_path.string() + " to " + final_path.string() + ": " + error.message();
    } else {
      // The rename itself reaches the disk with the directory.
      const int dir = ::open(directory.c_str(), O_RDONLY);
      if (dir >= 0) ::fsync(dir), ::close(dir);
      // Older checkpoints go, but the newest of them: the one to fall back to should this one be
      // damaged later. Newer ones (left by a run this one restarted from before them) stay.
      bool kept_previous = false;
      for (const fs::path& path : listed(directory)) {
        if (path == final_path || step_of(path) > step) continue;
        if (!kept_previous) {
          kept_previous = true;
          continue;
        }
        fs::remove(path, error);
      }
    }
  }
  agree(s.cart, problem.empty(), problem);
  return final_path.string();
}

std::optional<CheckpointHeader> newest_checkpoint(MPI_Comm comm, const std::string& directory,
                                                  std::vector<std::string>* refused) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  RawHeader h{};
  int found = 0;
  if (rank == 0) {
    for (const fs::path& path : listed(directory)) {
      std::string why;
      if (read_header(path, h, why)) {
        found = 1;
        break;
      }
      if (refused) refused->push_back(path.string() + ": " + why);
    }
  }
  check_mpi(MPI_Bcast(&found, 1, MPI_INT, 0, comm), "MPI_Bcast");
  if (!found) return std::nullopt;
  check_mpi(MPI_Bcast(&h, sizeof h, MPI_BYTE, 0, comm), "MPI_Bcast");
  return CheckpointHeader{h.nx, h.ny, h.r, h.step, h.checksum};
}

CheckpointHeader load_checkpoint(const Grid2D& grid, Queue& q, Buffer<float>& local,
                                 const std::string& directory, std::vector<std::string>* refused) {
  const Grid2D::State& s = grid.state();
  std::vector<std::string> candidates;
  if (s.rank == 0)
    for (const fs::path& path : listed(directory)) candidates.push_back(path.string());
  unsigned long long count = candidates.size();
  check_mpi(MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG_LONG, 0, s.cart), "MPI_Bcast");
  candidates.resize(count);
  std::vector<std::string> passed_over;

  for (std::string& path : candidates) {
    broadcast(s.cart, path);
    // Rank 0 checks what it can alone: the header, and the file's length against it.
    RawHeader h{};
    std::string why;
    if (s.rank == 0 && read_header(path, h, why)) {
      std::error_code error;
      const auto bytes = fs::file_size(path, error);
      if (error || bytes != kHeaderBytes + h.data_bytes)
        why = "truncated or padded: " + std::to_string(error ? 0 : bytes) + " bytes, the header says " +
              std::to_string(kHeaderBytes + h.data_bytes);
      else if (h.nx != s.nx || h.ny != s.ny)
        why = "a " + std::to_string(h.nx) + " x " + std::to_string(h.ny) + " grid, not " +
              std::to_string(s.nx) + " x " + std::to_string(s.ny);
    }
    broadcast(s.cart, why);
    if (!why.empty()) {
      passed_over.push_back(path + ": " + why);
      continue;
    }
    check_mpi(MPI_Bcast(&h, sizeof h, MPI_BYTE, 0, s.cart), "MPI_Bcast");

    std::vector<float> tile(s.tile.cells());
    MPI_File file;
    check_mpi(MPI_File_open(s.cart, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &file),
              ("MPI_File_open(" + path + ")").c_str());
    const TileView view(s);
    view.apply(file);
    check_mpi(
        MPI_File_read_all(file, tile.data(), static_cast<int>(tile.size()), MPI_FLOAT, MPI_STATUS_IGNORE),
        "MPI_File_read_all");
    check_mpi(MPI_File_close(&file), "MPI_File_close");
    if (grid_checksum(s, tile) != h.checksum) {
      passed_over.push_back(path + ": the field does not match the header's checksum (damaged)");
      continue;
    }
    write_tile(s, q, tile, local);
    if (refused) refused->insert(refused->end(), passed_over.begin(), passed_over.end());
    return CheckpointHeader{h.nx, h.ny, h.r, h.step, h.checksum};
  }
  std::string message = "no usable checkpoint in " + directory;
  for (const std::string& p : passed_over) message += "; " + p;
  if (passed_over.empty()) message += " (the directory holds none)";
  throw ConfigError(message);
}

}  // namespace duet::mpi
