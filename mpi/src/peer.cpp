// The peer path of a halo exchange: ranks of one node on the CUDA backend pack each strip straight
// into the neighbour's receive buffer, mapped through CUDA IPC (duet/interprocess.hpp), and tell
// each other on the devices, through 32-bit signal words, when a strip has arrived and when it has
// been unpacked. The host never waits, so a solver's host runs ahead of its device as it does on one
// device, and a 64 KB strip costs a kernel and two stream memory operations rather than three copies,
// two host synchronisations and an MPI message.
//
// Why CUDA IPC rather than NCCL: NCCL would be a second library to find at run time, with a
// communicator to build and its own streams and kernels, for what is one copy between two known
// buffers; IPC needs only the driver duet already loads, and the pack kernel itself does the copy
// (stores over NVLink), so the exchange adds no launch to the pack and unpack it needs anyway.
//
// The protocol, for the edge between A and B and the exchange numbered n (State::sequence, 1 for the
// first; every rank counts the same exchanges):
//   A: wait until its word consumed[side] is n - 1 (B has unpacked A's strip of the last exchange,
//      so its receive buffer is free), pack into B's receive buffer, store n into B's arrived word.
//   B: wait until its word arrived[side] is n, unpack, store n into A's consumed word.
// Neither side can get two values ahead of the other, so waiting for equality is exact and never
// meets the 32-bit wrap. The store comes after a memory barrier of the stream (Queue::signal), so the
// strip is visible before the word changes.
//
// Between two distinct GPUs an exchange of a pair of sides is one kernel on each device
// (mpi/kernels/peer.duet), and for strips up to a mebibyte no signal word: each cell travels with
// the number of its exchange into the neighbour's mailbox, and the receiving threads wait on the
// cells themselves. So an exchange costs one launch and the link's one-way latency, instead of a
// launch and two stream operations per strip and direction, each of which the device front end
// takes microseconds to turn around, or a fence and a signal store per strip, each a round trip over
// the link (which only longer strips, whose bytes take longer, still pay). Ranks that share
// one GPU keep the stream operations: their contexts take turns on the GPU, and a kernel spinning for
// the other context's kernel would wait out whole time slices.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "duet/error.hpp"
#include "duet/interprocess.hpp"
#include "duet_embedded_kernels.hpp"
#include "grid_state.hpp"

namespace duet::mpi {

const char* to_string(HaloPath path) {
  switch (path) {
    case HaloPath::none:
      return "none";
    case HaloPath::peer:
      return "device to device (CUDA IPC)";
    case HaloPath::device_mpi:
      return "CUDA-aware MPI";
    case HaloPath::host_staged:
      return "host-staged MPI";
  }
  return "?";
}

namespace {

// Byte offsets of the signal words in a rank's signal buffer: one "arrived" and one "consumed" word
// per side, each stored by the neighbour on that side; then the words only peer_exchange's kernel
// uses (its counter of groups, and its count of exchanges of each pair: peer.duet). That kernel
// counts a bulk strip's arrival in the side's "arrived" word, which the stream operations, never
// used on the same edge, leave alone.
std::size_t arrived_word(Side side) { return 4 * static_cast<std::size_t>(side); }
std::size_t consumed_word(Side side) { return 16 + 4 * static_cast<std::size_t>(side); }
constexpr std::size_t kSignalBytes = 64;

constexpr std::size_t kHandleCapacity = 128;
constexpr int kOfferTag = 101, kAcceptTag = 102;

// What a rank tells a neighbour before they choose the path of their edge.
struct Offer {
  char node[MPI_MAX_PROCESSOR_NAME + 1] = {};
  std::int32_t candidate = 0;  // this rank could take the peer path
  std::int32_t alone = 0;      // no other rank of the node runs on this rank's device
  std::uint32_t receive_bytes = 0, signals_bytes = 0, mailbox_bytes = 0;
  char receive[kHandleCapacity] = {};  // the receive buffer of the strip the neighbour sends us
  char signals[kHandleCapacity] = {};
  char mailbox[kHandleCapacity] = {};  // offered by a rank alone on its device (the one-kernel form)
};

// A mailbox's two slots of 64-bit cells (peer.duet) for a strip of `cells` cells.
std::size_t mailbox_cells(std::size_t cells) { return 2 * cells; }

// Whether a strip of `cells` cells travels in peer.duet's bulk form rather than as cells: past a
// mebibyte, where moving twice its bytes takes longer than a fence and a wait per group (the two
// forms cost alike at a mebibyte; below, the cells form wins by the fence's round trip). Both sides
// of an edge decide alike, from the strip's size.
bool bulk(std::size_t cells) { return cells > (std::size_t(1) << 18); }

bool env_is_one(const char* name) {
  const char* value = std::getenv(name);
  return value && std::string(value) == "1";
}

// The node this rank runs on, as far as the peer path is concerned.
std::string node_name(int rank) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  check_mpi(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
  std::string node(name, static_cast<std::size_t>(length));
  if (env_is_one("DUET_MPI_SEPARATE_NODES")) node += "#rank" + std::to_string(rank);
  return node;
}

void put(char (&field)[kHandleCapacity], std::uint32_t& size, const std::string& bytes) {
  if (bytes.size() > kHandleCapacity)
    throw DriverError(
        "mpi", "export_to_process", 0,
        "a memory handle of " + std::to_string(bytes.size()) + " bytes does not fit the exchange's offer");
  std::memcpy(field, bytes.data(), bytes.size());
  size = static_cast<std::uint32_t>(bytes.size());
}

// Sends `mine[side]` to each neighbour and receives theirs, all at once (no order to deadlock on).
template <class T>
void swap_with_neighbours(const Grid2D::State& s, std::array<T, 4>& mine, std::array<T, 4>& theirs, int tag) {
  std::array<MPI_Request, 8> requests;
  requests.fill(MPI_REQUEST_NULL);
  for (int side = 0; side < 4; ++side) {
    if (!s.has(static_cast<Side>(side))) continue;
    const int other = s.neighbours[static_cast<std::size_t>(side)];
    check_mpi(MPI_Irecv(&theirs[side], sizeof(T), MPI_BYTE, other, tag, s.cart, &requests[2 * side]),
              "MPI_Irecv");
    check_mpi(MPI_Isend(&mine[side], sizeof(T), MPI_BYTE, other, tag, s.cart, &requests[2 * side + 1]),
              "MPI_Isend");
  }
  check_mpi(MPI_Waitall(8, requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

// Whether no other rank of this node has this rank's device. The one-kernel exchange spins on one
// device for another's kernel; a rank that shares its device with another would spin while the
// other's context waits for its time slice. The ordinal names the device for every rank of a node
// launched alike; ranks given different CUDA_VISIBLE_DEVICES may see one GPU under two ordinals,
// which this cannot tell.
bool alone_on_device(const Grid2D::State& s) {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(s.cart, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int size = 1;
  MPI_Comm_size(node, &size);
  const std::int32_t mine = s.device.info().native_index;
  std::vector<std::int32_t> all(static_cast<std::size_t>(size));
  const int code = MPI_Allgather(&mine, 1, MPI_INT32_T, all.data(), 1, MPI_INT32_T, node);
  MPI_Comm_free(&node);
  check_mpi(code, "MPI_Allgather");
  return std::count(all.begin(), all.end(), mine) == 1;
}

}  // namespace

void connect_neighbours(Grid2D::State& s) {
  const HaloPath fallback = s.device_memory_to_mpi ? HaloPath::device_mpi : HaloPath::host_staged;
  const std::string node = node_name(s.rank);
  const bool candidate = interprocess_unavailable(s.device).empty();
  const bool alone = alone_on_device(s) && candidate;  // collective: every rank asks
  // Signal words and mailboxes start at zero (the number of no exchange), on the device before any
  // neighbour may map them.
  std::optional<Queue> zeroing;
  if (candidate) {
    s.signals.emplace(s.device, kSignalBytes);
    zeroing.emplace(s.device.queue());
    const std::uint32_t zero = 0;
    zeroing->fill_bytes(*s.signals, 0, kSignalBytes, &zero, sizeof zero);
  }
  std::array<Offer, 4> offers{}, theirs{};
  for (int side = 0; side < 4; ++side) {
    if (!s.has(static_cast<Side>(side))) continue;
    Offer& o = offers[static_cast<std::size_t>(side)];
    std::memcpy(o.node, node.data(), std::min(node.size(), sizeof o.node - 1));
    if (!candidate) continue;
    o.candidate = 1;
    o.alone = alone ? 1 : 0;
    put(o.receive, o.receive_bytes,
        export_to_process(s.strips[static_cast<std::size_t>(side)].receive_device->raw()));
    put(o.signals, o.signals_bytes, export_to_process(*s.signals));
    if (alone) {
      Strip& strip = s.strips[static_cast<std::size_t>(side)];
      strip.mailbox.emplace(s.device, mailbox_cells(strip.receive.cells()));
      zeroing->fill(*strip.mailbox, std::uint64_t(0));
      put(o.mailbox, o.mailbox_bytes, export_to_process(strip.mailbox->raw()));
    }
  }
  if (zeroing) zeroing->finish();
  swap_with_neighbours(s, offers, theirs, kOfferTag);

  // Both must be able to take the path, on one node, and each must manage to map the other's memory.
  std::array<std::int32_t, 4> mapped{}, accepted{};
  for (int side = 0; side < 4; ++side) {
    if (!s.has(static_cast<Side>(side))) continue;
    const Offer& o = theirs[static_cast<std::size_t>(side)];
    Strip& strip = s.strips[static_cast<std::size_t>(side)];
    if (!candidate || !o.candidate || node != std::string(o.node)) continue;
    try {
      // The neighbour's receive buffer for the strip we send it: the one it offered on our edge.
      RawBuffer receive = import_from_process(s.device, std::string(o.receive, o.receive_bytes),
                                              strip.send.cells() * sizeof(float));
      strip.neighbour_receive.emplace(Buffer<float>::from_raw(std::move(receive)));
      s.neighbour_signals[static_cast<std::size_t>(side)].emplace(
          import_from_process(s.device, std::string(o.signals, o.signals_bytes), kSignalBytes));
      if (alone && o.alone) {
        RawBuffer mailbox = import_from_process(s.device, std::string(o.mailbox, o.mailbox_bytes),
                                                mailbox_cells(strip.send.cells()) * sizeof(std::uint64_t));
        strip.neighbour_mailbox.emplace(Buffer<std::uint64_t>::from_raw(std::move(mailbox)));
      }
      mapped[static_cast<std::size_t>(side)] = 1;
    } catch (const duet::Error&) {
      // No peer path between the two devices (or a driver that refuses): the edge goes through MPI.
      strip.neighbour_receive.reset();
      strip.neighbour_mailbox.reset();
      s.neighbour_signals[static_cast<std::size_t>(side)].reset();
    }
  }
  swap_with_neighbours(s, mapped, accepted, kAcceptTag);
  for (int side = 0; side < 4; ++side) {
    Strip& strip = s.strips[static_cast<std::size_t>(side)];
    if (!s.has(static_cast<Side>(side))) {
      strip.path = HaloPath::none;
      continue;
    }
    const bool peer = mapped[static_cast<std::size_t>(side)] && accepted[static_cast<std::size_t>(side)];
    strip.path = peer ? HaloPath::peer : fallback;
    strip.one_kernel = peer && alone && theirs[static_cast<std::size_t>(side)].alone;
    if (!peer) {
      strip.neighbour_receive.reset();
      s.neighbour_signals[static_cast<std::size_t>(side)].reset();
    }
    if (!strip.one_kernel) {
      strip.neighbour_mailbox.reset();
      strip.mailbox.reset();
    }
  }
  // Whether any rank has a peer edge: then every rank waits for the others when the grid goes.
  std::int32_t mine = 0, anywhere = 0;
  for (const Strip& strip : s.strips) mine = mine || strip.path == HaloPath::peer;
  check_mpi(MPI_Allreduce(&mine, &anywhere, 1, MPI_INT32_T, MPI_MAX, s.cart), "MPI_Allreduce");
  s.peers_anywhere = anywhere != 0;
}

void peer_send(Grid2D::State& s, Queue& q, const Buffer<float>& local, Side side) {
  Strip& strip = s.strips[static_cast<std::size_t>(side)];
  q.wait_signal(*s.signals, consumed_word(side), s.sequence - 1);
  pack(q, local, s.local.nx, strip.send, *strip.neighbour_receive);
  q.signal(*s.neighbour_signals[static_cast<std::size_t>(side)], arrived_word(opposite(side)), s.sequence);
}

void peer_receive(Grid2D::State& s, Queue& q, Buffer<float>& local, Side side) {
  Strip& strip = s.strips[static_cast<std::size_t>(side)];
  q.wait_signal(*s.signals, arrived_word(side), s.sequence);
  unpack(q, *strip.receive_device, s.local.nx, strip.receive, local);
  q.signal(*s.neighbour_signals[static_cast<std::size_t>(side)], consumed_word(opposite(side)), s.sequence);
}

void peer_exchange(Grid2D::State& s, Queue& q, Buffer<float>& local, Side a, Side b) {
  const auto one_kernel = [&](Side side) { return s.strips[static_cast<std::size_t>(side)].one_kernel; };
  if (!one_kernel(a) && !one_kernel(b)) return;
  std::vector<KernelArg> args{KernelArg::from(local), KernelArg::from(static_cast<int>(s.local.nx)),
                              KernelArg::from_raw(*s.signals, ScalarType::u32),
                              KernelArg::from(a == Side::west ? 0 : 1)};
  std::size_t largest = 1;
  const Strip& some = s.strips[static_cast<std::size_t>(one_kernel(a) ? a : b)];
  for (const Side side : {a, b}) {
    const Strip& strip = s.strips[static_cast<std::size_t>(side)];
    const bool active = one_kernel(side);
    // An edge left out still passes mailboxes and signal words, which the kernel never touches.
    const Strip& from = active ? strip : some;
    const RawBuffer& remote_signals =
        active ? *s.neighbour_signals[static_cast<std::size_t>(side)] : *s.signals;
    const Rect none{};
    const Rect& send = active ? strip.send : none;
    const Rect& in = active ? strip.receive : none;
    if (active) largest = std::max({largest, send.cells(), in.cells()});
    for (const KernelArg& arg :
         {KernelArg::from(active ? 1 : 0), KernelArg::from(bulk(send.cells()) ? 1 : 0),
          KernelArg::from(bulk(in.cells()) ? 1 : 0), KernelArg::from(static_cast<int>(side)),
          KernelArg::from(static_cast<int>(opposite(side))), KernelArg::from(static_cast<int>(send.x0)),
          KernelArg::from(static_cast<int>(send.y0)), KernelArg::from(static_cast<int>(send.nx)),
          KernelArg::from(static_cast<int>(send.ny)), KernelArg::from(*from.neighbour_mailbox),
          KernelArg::from_raw(remote_signals, ScalarType::u32), KernelArg::from(static_cast<int>(in.x0)),
          KernelArg::from(static_cast<int>(in.y0)), KernelArg::from(static_cast<int>(in.nx)),
          KernelArg::from(static_cast<int>(in.ny)), KernelArg::from(*from.mailbox)})
      args.push_back(arg);
  }
  // At most one group per multiprocessor (and 128), so that every group packing a strip is
  // resident (peer.duet); below that, a thread for every cell: the more threads store and wait at
  // once, the sooner the last cell is across (two or four cells a thread were slower).
  constexpr std::size_t kGroup = 256;
  const std::size_t most = std::clamp<std::size_t>(s.device.info().compute_units, 1, 128);
  const std::size_t groups = std::clamp<std::size_t>((largest + kGroup - 1) / kGroup, 1, most);
  q.launch_args(embedded_kernels.kernel(q.device(), "peer", "peer_exchange"), Range(groups * kGroup),
                Range(kGroup), args);
}

void disconnect_neighbours(Grid2D::State& s) noexcept {
  if (!s.peers_anywhere) return;
  try {
    // Work still queued may write into the neighbours' memory: it ends before the mappings go.
    if (s.exchange_queue) s.exchange_queue->finish();
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "duet: Grid2D: finishing the exchange queue before unmapping the neighbours' memory "
                 "failed: %s\n",
                 e.what());
  }
  for (Strip& strip : s.strips) {
    strip.neighbour_receive.reset();
    strip.neighbour_mailbox.reset();
  }
  for (auto& words : s.neighbour_signals) words.reset();
  // Our own memory may be freed only once no neighbour maps it. A grid dropped while an exception
  // unwinds skips the wait: the other ranks may never come, and run_or_abort ends the job anyway.
  if (std::uncaught_exceptions() == 0) MPI_Barrier(s.cart);
}

}  // namespace duet::mpi
