// Halo exchange. Each edge takes the path its two ranks agreed on (peer.cpp, HaloPath): device to
// device, where the strip is packed straight into the neighbour's memory and the devices signal each
// other (peer.cpp); or through MPI, where each strip is packed on the device into one contiguous
// buffer, copied to pinned host memory, sent with non-blocking MPI, and copied and unpacked into the
// neighbour's halo (rows go by copies alone; column strips are packed into pinned memory in place
// where kernels reach it, and go by strided copies in heat()'s one-queue overlap). West
// and east go first, then south and north over the whole local width, which carries the corners the
// first pair brought: diagonal neighbours need no messages of their own.
//
// MPI sees host memory here unless it says it takes CUDA device memory itself (MPIX_Query_cuda_support,
// asked at run time: a library built CUDA-aware may still run without it); the pinned staging makes
// the device copies asynchronous, so they queue behind the kernels that produced the edges.
#include <mpi.h>

#include <algorithm>
#include <array>
#include <string>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support; needs mpi.h first
#endif

#include "duet/error.hpp"
#include "duet/extension.hpp"
#include "duet_embedded_kernels.hpp"
#include "grid_state.hpp"

namespace duet::mpi {

void pack(Queue& q, const Buffer<float>& local, std::size_t local_nx, const Rect& rect,
          Buffer<float>& packed) {
  const Kernel kernel = embedded_kernels.kernel(q.device(), "halo", "pack_rect");
  q.launch(kernel, Range(rect.cells()), Range(), local, static_cast<int>(local_nx), static_cast<int>(rect.x0),
           static_cast<int>(rect.y0), static_cast<int>(rect.nx), static_cast<int>(rect.ny), packed);
}

void unpack(Queue& q, const Buffer<float>& packed, std::size_t local_nx, const Rect& rect,
            Buffer<float>& local) {
  const Kernel kernel = embedded_kernels.kernel(q.device(), "halo", "unpack_rect");
  q.launch(kernel, Range(rect.cells()), Range(), packed, static_cast<int>(local_nx),
           static_cast<int>(rect.x0), static_cast<int>(rect.y0), static_cast<int>(rect.nx),
           static_cast<int>(rect.ny), local);
}

bool mpi_takes_device_memory(const Device& device) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return device.info().backend == "cuda" && MPIX_Query_cuda_support() == 1;
#else
  (void)device;
  return false;
#endif
}

namespace {

// Where MPI reads a strip from and writes one to: the pinned host copy, or the packed device buffer
// itself (a CUdeviceptr is an address MPI can take) when MPI takes device memory.
void* send_memory(Strip& strip) {
  return strip.path == HaloPath::device_mpi ? reinterpret_cast<void*>(strip.send_device->native_handle())
                                            : static_cast<void*>(strip.send_host->data());
}
void* receive_memory(Strip& strip, unsigned parity) {
  return strip.path == HaloPath::device_mpi ? reinterpret_cast<void*>(strip.receive_device->native_handle())
                                            : static_cast<void*>(strip.receive_host[parity]->data());
}
unsigned parity(const Grid2D::State& s) { return s.sequence & 1u; }

// South and north strips span the local array's whole width: their cells lie in one contiguous
// run, which the host-staged path copies to and from the host directly, with no pack or unpack.
bool whole_rows(const Grid2D::State& s, const Rect& rect) { return rect.x0 == 0 && rect.nx == s.local.nx; }
std::size_t first_cell(const Grid2D::State& s, const Rect& rect) { return rect.y0 * s.local.nx; }

bool through_mpi(const Strip& strip) {
  return strip.path == HaloPath::host_staged || strip.path == HaloPath::device_mpi;
}

// Whether a host-staged column strip skips the copy commands: where the device's kernels reach the
// pinned host buffers (CUDA with unified addressing), the pack writes them and the unpack reads them
// in place, one kernel each way instead of a kernel and a copy. Not for rows, which one copy moves
// without a kernel, faster than a kernel over the bus; nor where heat()'s one-queue overlap gives
// the copies a queue of their own: there the copy engines move the bytes beside the tile's pass,
// where kernels reading over the bus would add that time between two passes.
bool in_place(const Grid2D::State& s, const Strip& strip) {
  return strip.path == HaloPath::host_staged && strip.send_view && !s.stage_on_copies;  // views: grid.cpp
}
// Whether a host-staged strip goes by one copy command straight between the local array and the
// host buffers: south and north strips, whose cells lie in one contiguous run; and in heat()'s
// one-queue overlap west and east ones too, as strided transfers, so that no pack or unpack kernel
// comes between two tile passes (elsewhere they take a pack kernel and one contiguous copy).
bool copied_directly(const Grid2D::State& s, const Strip& strip, const Rect& rect) {
  return strip.path == HaloPath::host_staged && !in_place(s, strip) &&
         (whole_rows(s, rect) || s.stage_on_copies);
}

// A strip's cells from the local array to a host buffer, or back, by one copy command.
void copy_to_host(const Grid2D::State& s, Queue& q, const Buffer<float>& local, const Rect& rect,
                  HostBuffer<float>& host) {
  if (whole_rows(s, rect))
    q.read(local, Span<float>(host.data(), rect.cells()), first_cell(s, rect));
  else
    q.read_rect(local, Pitched{first_cell(s, rect) + rect.x0, s.local.nx},
                Span<float>(host.data(), rect.cells()), Pitched{0, rect.nx}, Extent2D{rect.nx, rect.ny});
}
void copy_from_host(const Grid2D::State& s, Queue& q, const HostBuffer<float>& host, const Rect& rect,
                    Buffer<float>& local) {
  if (whole_rows(s, rect))
    q.write(local, Span<const float>(host.data(), rect.cells()), first_cell(s, rect));
  else
    q.write_rect(local, Pitched{first_cell(s, rect) + rect.x0, s.local.nx},
                 Span<const float>(host.data(), rect.cells()), Pitched{0, rect.nx},
                 Extent2D{rect.nx, rect.ny});
}

int count_of(const Rect& rect) { return static_cast<int>(rect.cells()); }

void check_local(const Grid2D::State& s, const Buffer<float>& local, const char* call) {
  extension::require_elements(call, "the local array", local, s.local.cells());
  if (local.raw().device() != s.device)
    throw DeviceMismatchError(std::string(call) + ": the local array belongs to " +
                              local.raw().device().info().id() + " but the grid to " + s.device.info().id());
}

// The packs (or unpacks) of a pair of sides' strips, launched together: one launch where both
// strips have one.
struct PairPacking {
  std::array<Rect, 2> rects;
  std::array<Buffer<float>*, 2> packed{};
  int count = 0;
  void add(const Rect& rect, Buffer<float>& buffer) {
    rects[count] = rect;
    packed[count] = &buffer;
    ++count;
  }
};
int to_int(std::size_t v) { return static_cast<int>(v); }

void pack_pair(Queue& q, const Buffer<float>& local, std::size_t local_nx, const PairPacking& p) {
  if (p.count == 1) pack(q, local, local_nx, p.rects[0], *p.packed[0]);
  if (p.count != 2) return;
  const Rect &a = p.rects[0], &b = p.rects[1];
  q.launch(embedded_kernels.kernel(q.device(), "halo", "pack_rects2"), Range(a.cells() + b.cells()), Range(),
           local, to_int(local_nx), to_int(a.x0), to_int(a.y0), to_int(a.nx), to_int(a.ny), *p.packed[0],
           to_int(b.x0), to_int(b.y0), to_int(b.nx), to_int(b.ny), *p.packed[1]);
}

void unpack_pair(Queue& q, const PairPacking& p, std::size_t local_nx, Buffer<float>& local) {
  if (p.count == 1) unpack(q, *p.packed[0], local_nx, p.rects[0], local);
  if (p.count != 2) return;
  const Rect &a = p.rects[0], &b = p.rects[1];
  q.launch(embedded_kernels.kernel(q.device(), "halo", "unpack_rects2"), Range(a.cells() + b.cells()),
           Range(), *p.packed[0], to_int(local_nx), to_int(a.x0), to_int(a.y0), to_int(a.nx), to_int(a.ny),
           *p.packed[1], to_int(b.x0), to_int(b.y0), to_int(b.nx), to_int(b.ny), local);
}

// A message travelling in direction `side` (towards the neighbour on that side) carries tag `side`;
// the neighbour receives it from its opposite side under the same tag.
//
// Packs the strips of one pair of sides: into the neighbour's memory on peer edges (where the edge
// runs in one kernel, that kernel also waits for and unpacks the neighbour's strip), else copied to
// the host with their receives posted. The event marks the end of the copies MPI waits for; it is
// empty when no edge of the pair goes through MPI.
Event stage_out(Grid2D::State& s, Queue& q, Buffer<float>& local, Side a, Side b) {
  bool mpi = false;
  PairPacking packs;
  for (Side side : {a, b}) {
    Strip& strip = s.strips[static_cast<int>(side)];
    if (strip.path == HaloPath::peer && !strip.one_kernel) peer_send(s, q, local, side);
    if (!through_mpi(strip)) continue;
    mpi = true;
    if (in_place(s, strip))
      packs.add(strip.send, *strip.send_view);
    else if (!copied_directly(s, strip, strip.send))
      packs.add(strip.send, *strip.send_device);
  }
  pack_pair(q, local, s.local.nx, packs);
  Queue& copies = s.stage_on_copies ? *s.copies : q;
  if (mpi && s.stage_on_copies) copies.wait(q.record());  // after the packs and what wrote the edges
  for (Side side : {a, b}) {
    Strip& strip = s.strips[static_cast<int>(side)];
    if (!through_mpi(strip)) continue;
    if (copied_directly(s, strip, strip.send))
      copy_to_host(s, copies, local, strip.send, *strip.send_host);
    else if (strip.path == HaloPath::host_staged && !in_place(s, strip))
      copies.read(*strip.send_device, *strip.send_host);
    // What comes from this side travels towards the opposite one.
    check_mpi(MPI_Irecv(receive_memory(strip, parity(s)), count_of(strip.receive), MPI_FLOAT,
                        s.neighbours[static_cast<int>(side)], static_cast<int>(opposite(side)), s.cart,
                        &s.receives[static_cast<int>(side)]),
              "MPI_Irecv");
  }
  const Event staged = mpi ? copies.record() : Event();
  // After the event MPI waits for, so that the host sends while the devices exchange.
  peer_exchange(s, q, local, a, b);
  return staged;
}

// Sends the staged strips of one pair once their copies are done, waits for the neighbours' strips
// and enqueues them into the halo; peer edges only enqueue their unpacks.
void stage_in(Grid2D::State& s, Queue& q, Buffer<float>& local, Side a, Side b, const Event& staged_out) {
  MPI_Request sends[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (staged_out.valid()) {
    staged_out.wait();
    int k = 0;
    for (Side side : {a, b}) {
      Strip& strip = s.strips[static_cast<int>(side)];
      if (through_mpi(strip))
        check_mpi(MPI_Isend(send_memory(strip), count_of(strip.send), MPI_FLOAT,
                            s.neighbours[static_cast<int>(side)], static_cast<int>(side), s.cart, &sends[k]),
                  "MPI_Isend");
      ++k;
    }
    MPI_Request receives[2] = {s.receives[static_cast<int>(a)], s.receives[static_cast<int>(b)]};
    check_mpi(MPI_Waitall(2, receives, MPI_STATUSES_IGNORE), "MPI_Waitall");
    s.receives[static_cast<int>(a)] = s.receives[static_cast<int>(b)] = MPI_REQUEST_NULL;
  }
  Queue& copies = s.stage_on_copies ? *s.copies : q;
  bool copied = false;
  for (Side side : {a, b}) {
    Strip& strip = s.strips[static_cast<int>(side)];
    if (strip.path == HaloPath::peer && !strip.one_kernel) peer_receive(s, q, local, side);
    if (strip.path != HaloPath::host_staged || in_place(s, strip)) continue;
    const HostBuffer<float>& landed = *strip.receive_host[parity(s)];
    if (copied_directly(s, strip, strip.receive))
      copy_from_host(s, copies, landed, strip.receive, local);
    else
      copies.write(*strip.receive_device, landed);
    copied = true;
  }
  if (copied && s.stage_on_copies) q.wait(copies.record());  // the unpacks, and all after, read the copies
  PairPacking unpacks;
  for (Side side : {a, b}) {
    Strip& strip = s.strips[static_cast<int>(side)];
    if (in_place(s, strip))
      unpacks.add(strip.receive, *strip.receive_view[parity(s)]);
    else if (through_mpi(strip) && !copied_directly(s, strip, strip.receive))
      unpacks.add(strip.receive, *strip.receive_device);
  }
  unpack_pair(q, unpacks, s.local.nx, local);
  // A send ends when the neighbour has its strip, which may be told us after our own strips came:
  // waited for once the copies in are queued, which need only the receives. The sent buffers are
  // free again for the next exchange's copies out.
  check_mpi(MPI_Waitall(2, sends, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

// A pair of sides without neighbours costs nothing: no staging, no event, and above all no wait on
// the host, which would stop the host from running ahead of the device. A single rank, and the
// pair across strips (1 x N, N x 1), skip it.
bool pair_active(const Grid2D::State& s, Side a, Side b) { return s.has(a) || s.has(b); }

}  // namespace

bool any_through_mpi(const Grid2D::State& s) { return strips_through_mpi(s) > 0; }

int strips_through_mpi(const Grid2D::State& s) {
  int n = 0;
  for (const Strip& strip : s.strips) n += through_mpi(strip) ? 1 : 0;
  return n;
}

void Grid2D::begin_exchange(Queue& q, Buffer<float>& local) {
  State& s = *state_;
  check_local(s, local, "Grid2D::begin_exchange");
  if (s.exchanging)
    throw ArgumentError(
        "Grid2D::begin_exchange: the previous exchange was not finished; call finish_exchange first");
  s.exchanging = true;
  if (!pair_active(s, Side::west, Side::east) && !pair_active(s, Side::south, Side::north)) return;
  if (s.peers_anywhere) {
    const auto same = [](const Queue& x, const Queue& y) {
      const auto a = x.lifetime(), b = y.lifetime();
      return !a.owner_before(b) && !b.owner_before(a);
    };
    if (!s.exchange_queue && !(s.edges && same(*s.edges, q))) s.exchange_queue.emplace(q);
    if (!(s.edges && same(*s.edges, q)) && !same(*s.exchange_queue, q))
      throw ArgumentError(
          "Grid2D::begin_exchange: this grid's exchanges ran on another queue; the peer path "
          "orders exchanges on the devices and needs every exchange of a grid on one queue");
  }
  ++s.sequence;
  // The receives about to be posted land where an earlier exchange's strips may still be on their
  // way to the device: on the host, in the buffers of this parity, which the exchange before the
  // last one used (the last one's are left to finish behind the work queued since, so the host need
  // not wait for the device here); where MPI takes device memory, in the packed buffers themselves,
  // which the last exchange's unpack reads.
  const Event& reused = s.landed[s.device_memory_to_mpi ? 1u - parity(s) : parity(s)];
  if (reused.valid()) reused.wait();
  // Without west and east neighbours, no corners wait to be brought: south and north leave now, so
  // that work enqueued before finish_exchange overlaps their MPI time too.
  if (pair_active(s, Side::west, Side::east))
    s.staged_x = stage_out(s, q, local, Side::west, Side::east);
  else if (pair_active(s, Side::south, Side::north))
    s.staged_y = stage_out(s, q, local, Side::south, Side::north);
}

void Grid2D::continue_exchange(Queue& q, Buffer<float>& local) {
  State& s = *state_;
  check_local(s, local, "Grid2D::continue_exchange");
  if (!s.exchanging || s.continued)
    throw ArgumentError(
        "Grid2D::continue_exchange: call it at most once between begin_exchange and finish_exchange");
  s.continued = true;
  if (!pair_active(s, Side::west, Side::east)) return;  // south and north left in begin_exchange
  stage_in(s, q, local, Side::west, Side::east, s.staged_x);
  // South and north carry the corners that west and east just brought.
  if (pair_active(s, Side::south, Side::north)) s.staged_y = stage_out(s, q, local, Side::south, Side::north);
}

void Grid2D::finish_exchange(Queue& q, Buffer<float>& local) {
  State& s = *state_;
  check_local(s, local, "Grid2D::finish_exchange");
  if (!s.exchanging)
    throw ArgumentError("Grid2D::finish_exchange: no exchange was begun; call begin_exchange first");
  if (!s.continued) continue_exchange(q, local);
  s.exchanging = false;
  s.continued = false;
  const bool x = pair_active(s, Side::west, Side::east), y = pair_active(s, Side::south, Side::north);
  if (!x && !y) return;
  if (y) stage_in(s, q, local, Side::south, Side::north, s.staged_y);
  s.staged_x = s.staged_y = Event();
  s.landed[parity(s)] = any_through_mpi(s) ? q.record() : Event();
}

void Grid2D::exchange_halos(Queue& q, Buffer<float>& local) {
  begin_exchange(q, local);
  finish_exchange(q, local);
}

}  // namespace duet::mpi
