// duet::mpi: one device per MPI rank, and 2D grids decomposed over the ranks (CMake target
// duet::mpi, built where MPI is found; `find_package(duet COMPONENTS mpi)`).
//
// The shape follows PETSc's DMDA and AMReX: each rank owns a rectangle of the global grid (its
// tile) and keeps it in a local array with a ghost border (the halo) of width h on every side that
// has a neighbour; exchanging halos fills that border from the neighbours' tiles, and a kernel run
// on the local array never sees MPI. The heat solver below is one user of this API; a stencil of
// your own is written the same way (examples/mpi_stencil.cpp).
//
// Everything here is collective over the grid's communicator unless it says otherwise: every rank
// calls it, in the same order, with the same arguments. A Grid2D is used by one thread at a time.
#pragma once

#include "duet/export.hpp"

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/queue.hpp"

namespace duet::mpi {

// ---- devices ---------------------------------------------------------------------------------

struct DUET_API DeviceOptions {
  // Let several ranks of one node share a GPU (each rank still opens one device). Without it, more
  // ranks on a node than GPUs is a ConfigError naming both counts. CPU devices are always shared.
  // DUET_MPI_SHARE_DEVICES=1 sets it too.
  bool allow_sharing = false;
};

// This rank's device: the node-local rank's device among those of the backend and kind that
// Device::open() would pick (so DUET_BACKEND applies), counting only devices whose name, vendor or
// platform contains DUET_DEVICE when it is a name, or the one device DUET_DEVICE numbers. Ranks of
// one node are told apart with MPI_Comm_split_type(MPI_COMM_TYPE_SHARED). Collective over `comm`.
DUET_API Device open_device(MPI_Comm comm, const DeviceOptions& options = {});

// Runs `body` on every rank of `comm`. An exception on any rank ends the whole job: that rank prints
// "duet: error on rank R of N: <message>" on stderr and calls MPI_Abort, so the other ranks never
// wait for it in a collective. Returns body's value when it returns normally.
DUET_API int run_or_abort(MPI_Comm comm, const std::function<int()>& body);

// ---- grids -----------------------------------------------------------------------------------

enum class Side { west = 0, east = 1, south = 2, north = 3 };  // -x, +x, -y, +y

// How a halo strip travels between this rank and a neighbour (Grid2D::path):
//   peer          device to device: the strip is packed straight into the neighbour's memory (CUDA
//                 IPC, over NVLink or PCIe, or within one GPU) and the two queues signal each other
//                 on the devices; neither host waits. Ranks of one node on the CUDA backend, where
//                 the driver maps the neighbour's memory.
//   device_mpi    MPI carries the packed device buffers itself (CUDA-aware MPI, as MPI reports it).
//   host_staged   packed, copied to pinned host memory, sent with MPI and copied back: ranks on
//                 different nodes, OpenCL, and wherever the others are not to be had.
//   none          no neighbour on that side.
// DUET_MPI_SEPARATE_NODES=1 makes every rank act as a node of its own, so the paths between nodes
// run on one machine too.
enum class HaloPath { none, peer, device_mpi, host_staged };
DUET_API const char* to_string(HaloPath path);

struct DUET_API GridOptions {
  int halo = 1;                 // ghost cells on each side that has a neighbour, >= 1
  std::array<int, 2> dims{};    // ranks along x and y; 0: chosen (MPI_Dims_create, then whatever fits)
};

// A rectangle of cells: [x0, x0 + nx) x [y0, y0 + ny).
struct DUET_API Rect {
  std::size_t x0 = 0, y0 = 0, nx = 0, ny = 0;
  std::size_t cells() const { return nx * ny; }
};

// An nx x ny grid of floats (row-major, x fastest), decomposed over the ranks of `comm` on a
// Cartesian topology. Tiles differ in size by at most one cell along each direction. A
// decomposition whose tiles would be thinner than the halo is passed over; a grid too small for
// any is a ConfigError naming the sizes, the halo and the rank count.
class DUET_API Grid2D {
 public:
  Grid2D(MPI_Comm comm, const Device& device, std::size_t nx, std::size_t ny,
         const GridOptions& options = {});
  ~Grid2D();
  Grid2D(Grid2D&&) noexcept;
  Grid2D& operator=(Grid2D&&) noexcept;

  std::size_t nx() const;
  std::size_t ny() const;
  int halo() const;
  std::array<int, 2> dims() const;    // ranks along x and y
  std::array<int, 2> coords() const;  // this rank's place in them
  MPI_Comm comm() const;              // the Cartesian communicator (ranks may be renumbered)
  int rank() const;                   // in comm()
  const Device& device() const;

  // The cells this rank owns, in global coordinates.
  Rect tile() const;
  // The local array: the tile with the halo on each side that has a neighbour, in global
  // coordinates (x0 = tile().x0 - halo where there is a west neighbour, ...).
  Rect local() const;
  std::size_t local_nx() const { return local().nx; }
  std::size_t local_ny() const { return local().ny; }
  // The neighbour's rank in comm() on `side`, or MPI_PROC_NULL at the grid's edge.
  int neighbour(Side side) const;
  // How the strips to and from that neighbour travel; both ranks of an edge agree.
  HaloPath path(Side side) const;

  // Global (x, y) -> index into the local array; the cell must be inside local().
  std::size_t local_index(std::size_t x, std::size_t y) const;
  // Whether this rank owns the global cell (x, y).
  bool owns(std::size_t x, std::size_t y) const;

  // A device buffer of the local array's size (not initialised).
  Buffer<float> make_local() const;

  // Fills the halo of `local` from the neighbours' tiles, corners included (so k steps of a 5- or
  // 9-point stencil may run between exchanges when k <= halo). begin_exchange enqueues the copies of
  // this rank's edges on `q` and posts the receives; finish_exchange sends, waits and enqueues the
  // copies into the halo on `q`. Work enqueued on other queues between the two overlaps the
  // exchange. One exchange at a time per grid. On the peer path nothing waits on the host: the
  // exchange is work on `q` like any other, ordered against the neighbours' queues on the devices.
  // Every rank must use the same queue for every exchange of a grid, and destroying a grid with peer
  // paths is collective (each rank lets go of its neighbours' memory before its own is freed).
  void begin_exchange(Queue& q, Buffer<float>& local);
  // Optional, once between the two: brings the west and east strips in and sends the south and north
  // ones, which carry the corners the first pair brought. Work enqueued between begin_exchange and
  // here overlaps the first pair's MPI time, and work enqueued between here and finish_exchange the
  // second pair's; finish_exchange does it first where it was not called. A rank without west and
  // east neighbours sends its south and north strips in begin_exchange already (nothing to wait for).
  void continue_exchange(Queue& q, Buffer<float>& local);
  void finish_exchange(Queue& q, Buffer<float>& local);
  void exchange_halos(Queue& q, Buffer<float>& local);

  // The whole grid on `root` (row-major nx * ny; empty on the other ranks) from every rank's tile.
  std::vector<float> gather(Queue& q, const Buffer<float>& local, int root = 0) const;
  // The tiles of `global` (read on `root` only, nx * ny floats) into every rank's `local`; the halo
  // is left as it was (exchange_halos fills it).
  void scatter(Queue& q, const std::vector<float>& global, Buffer<float>& local, int root = 0) const;

  // Internal: the implementation's state (mpi/src/grid_state.hpp).
  struct State;
  const State& state() const { return *state_; }

 private:
  std::unique_ptr<State> state_;
};

// ---- checkpoints -----------------------------------------------------------------------------
//
// A checkpoint is one file for the whole grid, written by every rank at once with MPI-IO: a header
// (sizes, the solver's r, the step, a checksum of the field that does not depend on how the grid was
// decomposed) and the field, row-major. It is written under a temporary name, synced, and renamed
// when complete, so a file with a checkpoint's name is always whole; the previous checkpoint is
// removed only after that, so a run killed at any moment leaves at least one good checkpoint. A
// restart may use any number of ranks.

struct DUET_API CheckpointHeader {
  std::size_t nx = 0, ny = 0;
  float r = 0.0f;
  long long step = 0;
  std::uint64_t checksum = 0;
};

// Writes `local`'s tiles into `directory` (created if missing) as the checkpoint of `step`, then
// removes older checkpoints but the one before it. Returns the file's path. Collective.
DUET_API std::string save_checkpoint(const Grid2D& grid, Queue& q, const Buffer<float>& local,
                                     const std::string& directory, long long step, float r);

// The header of the newest checkpoint in `directory` whose header reads back (read on rank 0 and
// broadcast); empty when there is none. Files passed over are added to `refused` as "path: why".
// Collective over `comm`.
DUET_API std::optional<CheckpointHeader> newest_checkpoint(MPI_Comm comm, const std::string& directory,
                                                  std::vector<std::string>* refused = nullptr);

// Reads the newest checkpoint of `directory` that is whole (its size and its checksum match its
// header) and of the grid's size into `local`'s tiles (the halo is left as it was). A truncated or
// damaged file is passed over, named with the reason in `refused`, for the one before it.
// ConfigError when none is usable. Collective.
DUET_API CheckpointHeader load_checkpoint(const Grid2D& grid, Queue& q, Buffer<float>& local,
                                          const std::string& directory,
                                          std::vector<std::string>* refused = nullptr);

// ---- the heat solver on a grid ---------------------------------------------------------------

// How heat() spends the time of a halo exchange.
//   off: exchange, then run the steps on the whole local array (duet::heat, temporal blocking).
//   on:  rounds of heat_pass_depth steps: step the tile on `q` (duet::heat_pass, keeping the cells
//        that need no halo) while a second, high-priority queue of the grid exchanges the halo and
//        steps the ring of cells next to each neighbour from it; the exchange and the rings hide
//        behind the tile's pass (where edges go through MPI and the halo is a round deep, one queue
//        runs it all: the copies out, the tile, the copies in and the rings after it, while the
//        host's MPI waits happen as the tile runs). A halo thinner than the round is exchanged every `halo` steps
//        within it, while the band along each neighbour steps through two more local arrays that
//        the grid makes the first time.
//   automatic: on for GPUs whose edges go through MPI (host-staged or CUDA-aware) or whose halo is
//   thinner than heat_pass_depth; off on the peer path with a deeper halo (nothing waits on the
//   host there) and for CPUs (whose heat_pass is slower than their one-step kernel).
enum class Overlap { automatic, on, off };

// `steps` steps of duet::heat's scheme on the whole grid (the grid's edge cells fixed), with u and v
// local arrays of `grid`: the halo is exchanged every `grid.halo()` steps (or every pass, see
// Overlap) and each rank steps its local array between exchanges. On return u holds the final
// field, and `q` has all the work after it. The result is bitwise the one duet::heat gives on one
// device, whatever the overlap.
DUET_API void heat(Grid2D& grid, Queue& q, Buffer<float>& u, Buffer<float>& v, float r, int steps,
          Overlap overlap = Overlap::automatic);

// max |after - before| over the whole grid's cells (a NaN anywhere gives NaN): each rank reduces
// its tile on the device, then MPI_Allreduce. Collective.
DUET_API float max_change(const Grid2D& grid, Queue& q, const Buffer<float>& before,
                          const Buffer<float>& after);

}  // namespace duet::mpi
