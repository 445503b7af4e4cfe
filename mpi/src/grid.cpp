// Grid2D: choosing the decomposition, this rank's tile and local array, and the index mapping. The
// decomposition is worked out from the arguments alone, so every rank reaches the same answer, or
// the same error, without talking to the others first.
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "duet/error.hpp"
#include "grid_state.hpp"

namespace duet::mpi {

Split split(std::size_t n, int parts, int index) {
  const std::size_t p = static_cast<std::size_t>(parts), i = static_cast<std::size_t>(index);
  const std::size_t base = n / p, rest = n % p;
  return {i * base + std::min(i, rest), base + (i < rest ? 1 : 0)};
}

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw DriverError("mpi", call, code, std::string(text, static_cast<std::size_t>(length)));
}

Rect Grid2D::State::tile_at(const std::array<int, 2>& at) const {
  const Split x = split(nx, dims[0], at[0]), y = split(ny, dims[1], at[1]);
  return {x.first, y.first, x.count, y.count};
}

namespace {

// Whether every tile of a px x py decomposition is at least `halo` cells across wherever it has a
// neighbour in that direction (a halo wider than the neighbour's tile would need cells two ranks
// away), and at least one cell everywhere.
bool fits(std::size_t nx, std::size_t ny, int halo, int px, int py) {
  const std::size_t h = static_cast<std::size_t>(halo);
  const auto enough = [&](std::size_t n, int parts) {
    const std::size_t smallest = n / static_cast<std::size_t>(parts);
    return smallest >= 1 && (parts == 1 || smallest >= h);
  };
  return enough(nx, px) && enough(ny, py);
}

// What one halo exchange costs the busiest rank, by the way halo.cpp makes it, in microseconds: the
// model the rank grid is chosen by.
//   - Each strip is packed, copied to pinned memory, carried by MPI through host memory and copied
//     and unpacked at the other end: its bytes pass through memory several times at rates far below
//     the device's, which makes them the main cost. A rank in the middle of a row of three or more
//     has two strips in that direction, one at an end only one.
//   - Each direction with neighbours (x: west and east, y: south and north) is a phase of its own,
//     with launches and a wait on the host: a fixed price, small beside the bytes of large strips
//     but what decides among small ones.
// Column strips (x sides) read a few cells of every row where row strips read whole rows; on GPUs
// the pack kernel hides most of that difference, so the model prices their bytes alike.
constexpr double kPhaseMicroseconds = 60.0;
constexpr double kStripBytesPerMicrosecond = 3.3e3;  // end to end through host memory

double exchange_cost(std::size_t nx, std::size_t ny, int halo, int px, int py) {
  const double h = halo, tile_x = std::ceil(double(nx) / px), tile_y = std::ceil(double(ny) / py);
  const auto strips = [](int parts) { return parts > 2 ? 2.0 : parts - 1.0; };
  double cost = 0.0;
  if (px > 1) cost += kPhaseMicroseconds + strips(px) * h * tile_y * 4.0 / kStripBytesPerMicrosecond;
  if (py > 1)
    cost += kPhaseMicroseconds + strips(py) * h * (tile_x + 2.0 * h) * 4.0 / kStripBytesPerMicrosecond;
  return cost;
}

// Ranks along x and y: the requested ones, else the fitting factorisation the exchange model above
// finds cheapest, the smaller cut (cells on tile edges) breaking ties. Thin grids still decompose
// (1000 x 5 on 4 ranks: 4 x 1).
std::array<int, 2> choose_dims(std::size_t nx, std::size_t ny, int halo, int ranks, std::array<int, 2> want) {
  std::ostringstream why;
  why << "cannot decompose a " << nx << " x " << ny << " grid with halo " << halo << " over " << ranks
      << " rank(s)";
  if (want[0] < 0 || want[1] < 0) throw ConfigError(why.str() + ": dims must not be negative");
  if ((want[0] && ranks % want[0]) || (want[1] && ranks % want[1]) ||
      (want[0] && want[1] && want[0] * want[1] != ranks))
    throw ConfigError(why.str() + ": dims " + std::to_string(want[0]) + " x " + std::to_string(want[1]) +
                      " do not multiply to the rank count (0 lets duet choose)");
  std::array<int, 2> best{0, 0};
  double best_cost = std::numeric_limits<double>::infinity(), best_cut = best_cost;
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px) continue;
    const int py = ranks / px;
    if ((want[0] && px != want[0]) || (want[1] && py != want[1]) || !fits(nx, ny, halo, px, py)) continue;
    const double cost = exchange_cost(nx, ny, halo, px, py);
    const double cut = double(px - 1) * double(ny) + double(py - 1) * double(nx);
    if (cost < best_cost || (cost == best_cost && cut < best_cut))
      best_cost = cost, best_cut = cut, best = {px, py};
  }
  if (best[0] == 0)
    throw ConfigError(why.str() +
                      ": every split leaves a tile narrower than the halo (each tile needs at "
                      "least " +
                      std::to_string(halo) +
                      " cells across wherever it has a neighbour); use "
                      "fewer ranks, a smaller halo or a larger grid");
  return best;
}

// Every rank must pass the same grid: a mismatch would otherwise hang in the first exchange.
void check_same_everywhere(MPI_Comm comm, std::size_t nx, std::size_t ny, const GridOptions& options) {
  const long long mine[5] = {static_cast<long long>(nx), static_cast<long long>(ny), options.halo,
                             options.dims[0], options.dims[1]};
  long long low[5], high[5];
  check_mpi(MPI_Allreduce(mine, low, 5, MPI_LONG_LONG, MPI_MIN, comm), "MPI_Allreduce");
  check_mpi(MPI_Allreduce(mine, high, 5, MPI_LONG_LONG, MPI_MAX, comm), "MPI_Allreduce");
  if (!std::equal(low, low + 5, high))
    throw ConfigError(
        "Grid2D: the ranks were given different grids (nx, ny, halo or dims differ between "
        "ranks: nx " +
        std::to_string(low[0]) + ".." + std::to_string(high[0]) + ", ny " + std::to_string(low[1]) + ".." +
        std::to_string(high[1]) + ", halo " + std::to_string(low[2]) + ".." + std::to_string(high[2]) +
        "); every rank must construct the same Grid2D");
}

}  // namespace

Grid2D::Grid2D(MPI_Comm comm, const Device& device, std::size_t nx, std::size_t ny,
               const GridOptions& options)
    : state_(std::make_unique<State>()) {
  device.info();  // ReleasedError for an empty handle, before any collective
  check_same_everywhere(comm, nx, ny, options);
  if (nx == 0 || ny == 0) throw ConfigError("Grid2D: nx and ny must be at least 1");
  if (options.halo < 1)
    throw ConfigError("Grid2D: the halo must be at least 1 cell, not " + std::to_string(options.halo));
  if (nx > std::size_t(std::numeric_limits<int>::max()) || ny > std::size_t(std::numeric_limits<int>::max()))
    throw ConfigError("Grid2D: nx and ny must be below 2^31");
  State& s = *state_;
  s.device = device;
  s.nx = nx, s.ny = ny, s.halo = options.halo;
  int ranks = 1;
  check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  s.dims = choose_dims(nx, ny, options.halo, ranks, options.dims);

  const int periodic[2] = {0, 0};
  // No reordering: rank numbers stay those of `comm`, so root ranks mean what the caller meant.
  check_mpi(MPI_Cart_create(comm, 2, s.dims.data(), periodic, 0, &s.cart), "MPI_Cart_create");
  // Failures on the grid's communicator come back as codes, which check_mpi turns into DriverError;
  // the default handler would abort the job before duet could say what failed.
  check_mpi(MPI_Comm_set_errhandler(s.cart, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check_mpi(MPI_Comm_rank(s.cart, &s.rank), "MPI_Comm_rank");
  s.size = ranks;
  check_mpi(MPI_Cart_coords(s.cart, s.rank, 2, s.coords.data()), "MPI_Cart_coords");
  auto& n = s.neighbours;
  check_mpi(MPI_Cart_shift(s.cart, 0, 1, &n[int(Side::west)], &n[int(Side::east)]), "MPI_Cart_shift");
  check_mpi(MPI_Cart_shift(s.cart, 1, 1, &n[int(Side::south)], &n[int(Side::north)]), "MPI_Cart_shift");

  s.tile = s.tile_at(s.coords);
  const std::size_t h = static_cast<std::size_t>(s.halo);
  const std::size_t west = s.has(Side::west) ? h : 0, east = s.has(Side::east) ? h : 0;
  const std::size_t south = s.has(Side::south) ? h : 0, north = s.has(Side::north) ? h : 0;
  s.local = {s.tile.x0 - west, s.tile.y0 - south, s.tile.nx + west + east, s.tile.ny + south + north};

  // The strips, in local coordinates. West and east carry the tile's rows only; south and north the
  // local array's whole width, so that what the first pair brought (the corners) travels on.
  auto& st = s.strips;
  st[int(Side::west)].send = {west, south, h, s.tile.ny};
  st[int(Side::west)].receive = {0, south, h, s.tile.ny};
  st[int(Side::east)].send = {west + s.tile.nx - h, south, h, s.tile.ny};
  st[int(Side::east)].receive = {west + s.tile.nx, south, h, s.tile.ny};
  st[int(Side::south)].send = {0, south, s.local.nx, h};
  st[int(Side::south)].receive = {0, 0, s.local.nx, h};
  st[int(Side::north)].send = {0, south + s.tile.ny - h, s.local.nx, h};
  st[int(Side::north)].receive = {0, south + s.tile.ny, s.local.nx, h};
  s.device_memory_to_mpi = mpi_takes_device_memory(device);
  for (int side = 0; side < 4; ++side) {
    if (!s.has(static_cast<Side>(side))) continue;
    Strip& strip = st[static_cast<std::size_t>(side)];
    const std::size_t cells = strip.send.cells();
    strip.send_device.emplace(device, cells);
    strip.receive_device.emplace(device, cells);
  }
  connect_neighbours(s);
  for (Strip& strip : st) {
    if (strip.path != HaloPath::host_staged) continue;
    strip.send_host.emplace(device, strip.send.cells());
    for (auto& landing : strip.receive_host) landing.emplace(device, strip.send.cells());
    // West and east strips are packed into the pinned buffers in place where kernels reach them
    // (halo.cpp, in_place); south and north ones, whole rows, go by one copy.
    const bool rows = strip.send.x0 == 0 && strip.send.nx == s.local.nx;
    if (rows || !strip.send_host->raw().device_view_unavailable().empty()) continue;
    strip.send_view.emplace(strip.send_host->device_view());
    for (std::size_t p = 0; p < 2; ++p) strip.receive_view[p].emplace(strip.receive_host[p]->device_view());
  }
}

Grid2D::State::~State() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  disconnect_neighbours(*this);
  for (MPI_Request& r : receives)
    if (r != MPI_REQUEST_NULL) {
      MPI_Cancel(&r);
      MPI_Request_free(&r);
    }
  if (cart != MPI_COMM_NULL) MPI_Comm_free(&cart);
}

Grid2D::~Grid2D() = default;

Grid2D::Grid2D(Grid2D&&) noexcept = default;
Grid2D& Grid2D::operator=(Grid2D&&) noexcept = default;

std::size_t Grid2D::nx() const { return state_->nx; }
std::size_t Grid2D::ny() const { return state_->ny; }
int Grid2D::halo() const { return state_->halo; }
std::array<int, 2> Grid2D::dims() const { return state_->dims; }
std::array<int, 2> Grid2D::coords() const { return state_->coords; }
MPI_Comm Grid2D::comm() const { return state_->cart; }
int Grid2D::rank() const { return state_->rank; }
const Device& Grid2D::device() const { return state_->device; }
Rect Grid2D::tile() const { return state_->tile; }
Rect Grid2D::local() const { return state_->local; }
int Grid2D::neighbour(Side side) const { return state_->neighbours[static_cast<int>(side)]; }
HaloPath Grid2D::path(Side side) const { return state_->strips[static_cast<std::size_t>(side)].path; }

std::size_t Grid2D::local_index(std::size_t x, std::size_t y) const {
  const Rect& l = state_->local;
  if (x < l.x0 || x >= l.x0 + l.nx || y < l.y0 || y >= l.y0 + l.ny)
    throw ArgumentError("Grid2D::local_index: cell (" + std::to_string(x) + ", " + std::to_string(y) +
                        ") is outside rank " + std::to_string(state_->rank) + "'s local array [" +
                        std::to_string(l.x0) + ", " + std::to_string(l.x0 + l.nx) + ") x [" +
                        std::to_string(l.y0) + ", " + std::to_string(l.y0 + l.ny) + ")");
  return (y - l.y0) * l.nx + (x - l.x0);
}

bool Grid2D::owns(std::size_t x, std::size_t y) const {
  const Rect& t = state_->tile;
  return x >= t.x0 && x < t.x0 + t.nx && y >= t.y0 && y < t.y0 + t.ny;
}

Buffer<float> Grid2D::make_local() const { return Buffer<float>(state_->device, state_->local.cells()); }

}  // namespace duet::mpi
