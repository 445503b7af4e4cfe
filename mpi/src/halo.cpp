// Halo exchange: each strip is packed on the device into one contiguous buffer, copied to pinned
// host memory, sent with non-blocking MPI, and copied and unpacked into the neighbour's halo. West
// and east go first, then south and north over the whole local width, which carries the corners
// the first pair brought: diagonal neighbours need no messages of their own.
//
// MPI sees host memory here unless it says it takes CUDA device memory itself (MPIX_Query_cuda_support,
// asked at run time: a library built CUDA-aware may still run without it); the pinned staging makes
// the device copies asynchronous, so they queue behind the kernels that produced the edges.
#include <mpi.h>

#include <algorithm>
#include <string>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support; needs mpi.h first
#endif

#include "duet/error.hpp"
#include "duet/extension.hpp"
#include "duet_embedded_kernels.hpp"
#include "grid_state.hpp"

namespace duet::mpi {

void pack(Queue& q, const Buffer<float>& local, std::size_t local_nx, const Rect& rect, Buffer<float>& packed) {
  const Kernel kernel = embedded_kernels.kernel(q.device(), "halo", "pack_rect");
  q.launch(kernel, Range(rect.cells()), Range(), local, static_cast<int>(local_nx),
           static_cast<int>(rect.x0), static_cast<int>(rect.y0), static_cast<int>(rect.nx),
           static_cast<int>(rect.ny), packed);
}

void unpack(Queue& q, const Buffer<float>& packed, std::size_t local_nx, const Rect& rect, Buffer<float>& local) {
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
void* send_memory(const Grid2D::State& s, Strip& strip) {
  return s.device_memory_to_mpi ? reinterpret_cast<void*>(strip.send_device->native_handle())
                                : static_cast<void*>(strip.send_host->data());
}
void* receive_memory(const Grid2D::State& s, Strip& strip) {
  return s.device_memory_to_mpi ? reinterpret_cast<void*>(strip.receive_device->native_handle())
                                : static_cast<void*>(strip.receive_host->data());
}

// A message travelling in direction `side` (towards the neighbour on that side) carries tag `side`;
// the neighbour receives it from its opposite side under the same tag.
constexpr Side opposite(Side side) {
  switch (side) {
    case Side::west: return Side::east;
    case Side::east: return Side::west;
    case Side::south: return Side::north;
    case Side::north: return Side::south;
  }
  return side;
}

int count_of(const Rect& rect) { return static_cast<int>(rect.cells()); }

void check_local(const Grid2D::State& s, const Buffer<float>& local, const char* call) {
  extension::require_elements(call, "the local array", local, s.local.cells());
  if (local.raw().device() != s.device)
    throw DeviceMismatchError(std::string(call) + ": the local array belongs to " + local.raw().device().info().id() +
                              " but the grid to " + s.device.info().id());
}

// Packs and copies to the host the strips of one pair of sides, and posts their receives.
Event stage_out(Grid2D::State& s, Queue& q, Buffer<float>& local, Side a, Side b) {
  for (Side side : {a, b}) {
    if (!s.has(side)) continue;
    Strip& strip = s.strips[static_cast<int>(side)];
    pack(q, local, s.local.nx, strip.send, *strip.send_device);
    if (!s.device_memory_to_mpi) q.read(*strip.send_device, *strip.send_host);
    // What comes from this side travels towards the opposite one.
    check_mpi(MPI_Irecv(receive_memory(s, strip), count_of(strip.receive), MPI_FLOAT,
                        s.neighbours[static_cast<int>(side)], static_cast<int>(opposite(side)), s.cart,
                        &s.receives[static_cast<int>(side)]),
              "MPI_Irecv");
  }
  return q.record();
}

// Sends the staged strips of one pair once their copies are done, waits for the neighbours' strips
// and enqueues them into the halo.
void stage_in(Grid2D::State& s, Queue& q, Buffer<float>& local, Side a, Side b, const Event& staged_out) {
  staged_out.wait();
  MPI_Request sends[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int k = 0;
  for (Side side : {a, b}) {
    if (s.has(side)) {
      Strip& strip = s.strips[static_cast<int>(side)];
      check_mpi(MPI_Isend(send_memory(s, strip), count_of(strip.send), MPI_FLOAT,
                          s.neighbours[static_cast<int>(side)], static_cast<int>(side), s.cart, &sends[k]),
                "MPI_Isend");
    }
    ++k;
  }
  MPI_Request receives[2] = {s.receives[static_cast<int>(a)], s.receives[static_cast<int>(b)]};
  check_mpi(MPI_Waitall(2, receives, MPI_STATUSES_IGNORE), "MPI_Waitall");
  s.receives[static_cast<int>(a)] = s.receives[static_cast<int>(b)] = MPI_REQUEST_NULL;
  for (Side side : {a, b}) {
    if (!s.has(side)) continue;
    Strip& strip = s.strips[static_cast<int>(side)];
    if (!s.device_memory_to_mpi) q.write(*strip.receive_device, *strip.receive_host);
    unpack(q, *strip.receive_device, s.local.nx, strip.receive, local);
  }
  check_mpi(MPI_Waitall(2, sends, MPI_STATUSES_IGNORE), "MPI_Waitall");
}

// A pair of sides without neighbours costs nothing: no staging, no event, and above all no wait on
// the host, which would stop the host from running ahead of the device. A single rank, and the
// pair across strips (1 x N, N x 1), skip it.
bool pair_active(const Grid2D::State& s, Side a, Side b) { return s.has(a) || s.has(b); }

}  // namespace

void Grid2D::begin_exchange(Queue& q, Buffer<float>& local) {
  State& s = *state_;
  check_local(s, local, "Grid2D::begin_exchange");
  if (s.exchanging)
    throw ArgumentError("Grid2D::begin_exchange: the previous exchange was not finished; call finish_exchange first");
  s.exchanging = true;
  if (!pair_active(s, Side::west, Side::east) && !pair_active(s, Side::south, Side::north)) return;
  // The host staging of the last exchange may still be on its way to the device.
  if (s.staged.valid()) s.staged.wait();
  if (pair_active(s, Side::west, Side::east)) s.staged = stage_out(s, q, local, Side::west, Side::east);
}

void Grid2D::finish_exchange(Queue& q, Buffer<float>& local) {
  State& s = *state_;
  check_local(s, local, "Grid2D::finish_exchange");
  if (!s.exchanging) throw ArgumentError("Grid2D::finish_exchange: no exchange was begun; call begin_exchange first");
  s.exchanging = false;
  const bool x = pair_active(s, Side::west, Side::east), y = pair_active(s, Side::south, Side::north);
  if (!x && !y) return;
  if (x) stage_in(s, q, local, Side::west, Side::east, s.staged);
  if (y) {
    const Event north_south = stage_out(s, q, local, Side::south, Side::north);
    stage_in(s, q, local, Side::south, Side::north, north_south);
  }
  s.staged = q.record();
}

void Grid2D::exchange_halos(Queue& q, Buffer<float>& local) {
  begin_exchange(q, local);
  finish_exchange(q, local);
}

}  // namespace duet::mpi
