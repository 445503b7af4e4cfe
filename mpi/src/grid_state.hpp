// What a Grid2D holds (mpi.hpp), shared by the files that implement it: the decomposition, this
// rank's rectangles, and the buffers a halo exchange stages through.
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "duet/host_buffer.hpp"
#include "duet/mpi.hpp"

namespace duet::mpi {

// The side facing `side`: where the neighbour on `side` sees this rank.
constexpr Side opposite(Side side) {
  switch (side) {
    case Side::west:
      return Side::east;
    case Side::east:
      return Side::west;
    case Side::south:
      return Side::north;
    case Side::north:
      return Side::south;
  }
  return side;
}

// [first, first + count) of n cells split into `parts` pieces that differ by at most one cell.
struct Split {
  std::size_t first = 0, count = 0;
};
Split split(std::size_t n, int parts, int index);

// Where one side's strip lies in the local array, and its staging buffers: packed on the device,
// pinned on the host, for what is sent and for what is received. What is received lands on the host
// in one of two buffers, by the exchange's parity (Grid2D::State::sequence): an exchange posts its
// receives while the copies of the one before may still be taking the other buffer to the device.
struct Strip {
  Rect send, receive;  // in local-array coordinates (x0, y0 from the local array's corner)
  std::optional<Buffer<float>> send_device, receive_device;
  std::optional<HostBuffer<float>> send_host;
  std::array<std::optional<HostBuffer<float>>, 2> receive_host;
  // The same host memory as buffers of the device, for west and east strips where the device's
  // kernels reach pinned memory (HostBuffer::device_view): the pack writes and the unpack reads it in
  // place (halo.cpp, in_place).
  std::optional<Buffer<float>> send_view;
  std::array<std::optional<Buffer<float>>, 2> receive_view;
  HaloPath path = HaloPath::none;
  // Peer path: the neighbour's receive buffer for this strip (imported), which the pack writes into;
  // and whether the edge, a peer edge, joins two GPUs no other rank shares, which exchange in one
  // kernel (peer.duet) rather than through stream operations (never set on other paths). That kernel
  // sends through mailboxes: two slots of 64-bit cells (a float and the number of the exchange that
  // wrote it), ours for the strip received and the neighbour's (imported) for the strip sent.
  std::optional<Buffer<float>> neighbour_receive;
  bool one_kernel = false;
  std::optional<Buffer<std::uint64_t>> mailbox, neighbour_mailbox;
};

struct Grid2D::State {
  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  // Cancels receives still posted and frees the communicator: a grid replaced or abandoned
  // (move-assigned over, or a constructor that threw) must not leak MPI resources.
  ~State();

  MPI_Comm cart = MPI_COMM_NULL;
  int rank = 0, size = 1;
  Device device;
  std::size_t nx = 0, ny = 0;
  int halo = 1;
  std::array<int, 2> dims{1, 1}, coords{0, 0};
  std::array<int, 4> neighbours{MPI_PROC_NULL, MPI_PROC_NULL, MPI_PROC_NULL, MPI_PROC_NULL};
  Rect tile, local;
  std::array<Strip, 4> strips;  // by Side
  std::array<MPI_Request, 4> receives{MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  bool exchanging = false;
  bool continued = false;  // continue_exchange was called for the exchange under way
  Event staged_x, staged_y;  // the west and east, and the south and north strips' copies out
  // MPI takes this device's memory itself (CUDA-aware MPI on the CUDA backend): strips go from and to
  // the packed device buffers, with no host staging.
  bool device_memory_to_mpi = false;
  // The copies of an exchange into the halo, by parity: its receive staging is reused after them.
  std::array<Event, 2> landed;
  // Peer path (peer.cpp): this rank's signal words, which neighbours store into, and each peer
  // neighbour's, imported; the number of the exchange under way; the queue exchanges run on.
  std::optional<RawBuffer> signals;
  std::array<std::optional<RawBuffer>, 4> neighbour_signals;
  std::uint32_t sequence = 0;
  bool peers_anywhere = false;  // some rank of the grid has a peer edge
  std::optional<Queue> exchange_queue;
  // Where heat() exchanges the halo and steps the rings next to it while the caller's queue steps
  // the tile (high priority: see heat.cpp). Ordered against the caller's queue with events, so its
  // exchanges keep the order the peer path needs as if they ran on exchange_queue.
  mutable std::optional<Queue> edges;
  // Where heat()'s one-queue overlap copies the strips that go through the host (stage_on_copies set
  // for the length of that loop): a queue of their own, ordered against the caller's by events, so
  // that the copy engines move them while the tile's pass runs and only the kernels come between two
  // passes.
  mutable std::optional<Queue> copies;
  mutable bool stage_on_copies = false;
  // Two more local arrays, made when heat() first overlaps with a halo thinner than its rounds: the
  // bands along the neighbours step through them (heat.cpp, step_edges).
  mutable std::vector<Buffer<float>> bands;

  bool has(Side side) const { return neighbours[static_cast<int>(side)] != MPI_PROC_NULL; }
  // Where the owned cells lie in the local array.
  Rect tile_in_local() const { return {tile.x0 - local.x0, tile.y0 - local.y0, tile.nx, tile.ny}; }
  // The tile of the rank at `coords` (x, y).
  Rect tile_at(const std::array<int, 2>& at) const;
};

// Peer paths (peer.cpp): agrees with each neighbour on the path of their edge and, for peer edges,
// shares the memory both need. Collective over the grid's ranks; called by the constructor last.
void connect_neighbours(Grid2D::State& s);
// The peer half of an exchange of one side's strip: into the neighbour's memory, and out of ours.
// Edges whose strip is `one_kernel` leave these to peer_exchange, which moves both strips of the
// pair (a, b) there are, both ways, in one launch.
void peer_send(Grid2D::State& s, Queue& q, const Buffer<float>& local, Side side);
void peer_receive(Grid2D::State& s, Queue& q, Buffer<float>& local, Side side);
void peer_exchange(Grid2D::State& s, Queue& q, Buffer<float>& local, Side a, Side b);
// Lets go of the neighbours' memory (after this rank's exchanges are done) and waits until every
// neighbour has let go of this rank's: called first when a grid with peer edges is destroyed.
void disconnect_neighbours(Grid2D::State& s) noexcept;

// Throws duet::DriverError (backend "mpi", the call, MPI's code and text) for an MPI call that failed.
void check_mpi(int code, const char* call);

// Whether this MPI library says at run time that it reads and writes `device`'s memory itself.
bool mpi_takes_device_memory(const Device& device);

// Whether some edge of the grid goes through MPI (host-staged, or MPI on device memory), not
// device to device: the exchange then waits on the host, and its staging buffers are reused.
bool any_through_mpi(const Grid2D::State& s);
// How many of this rank's strips go through MPI.
int strips_through_mpi(const Grid2D::State& s);

// Moving a rectangle of the local array to or from a packed device buffer (mpi/kernels/halo.duet).
void pack(Queue& q, const Buffer<float>& local, std::size_t local_nx, const Rect& rect,
          Buffer<float>& packed);
void unpack(Queue& q, const Buffer<float>& packed, std::size_t local_nx, const Rect& rect,
            Buffer<float>& local);

// This rank's tile of `local`, row after row, on the host (blocking); and the way back, leaving the
// halo as it was (blocking too, so `tile` may go at once). gather/scatter and checkpoints use them.
std::vector<float> read_tile(const Grid2D::State& s, Queue& q, const Buffer<float>& local);
void write_tile(const Grid2D::State& s, Queue& q, const std::vector<float>& tile, Buffer<float>& local);

}  // namespace duet::mpi
