// The heat equation on a Grid2D: every `halo` steps the halo is refreshed, and each rank runs that
// many steps of duet::heat on its local array. The local array's edge cells stay fixed through those
// steps: at the grid's edge they are the boundary, elsewhere they are halo cells whose staleness
// moves inward one cell per step and so never reaches the tile. Every owned cell thus goes through
// the same operations on the same values as on one device, which makes the result bitwise equal.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>

#include "duet/error.hpp"
#include "duet/extension.hpp"
#include "duet/graph.hpp"
#include "duet/reduction.hpp"
#include "duet/stencil.hpp"
#include "grid_state.hpp"
#include "round_trace.hpp"

namespace duet::mpi {

namespace {

// The tile, and the ring of cells along each neighbour's side, as windows of the local array.
struct Layout {
  std::size_t lnx, lny, tx0, ty0, tnx, tny, h;
};

Layout layout_of(const Grid2D::State& s) {
  const Rect t = s.tile_in_local();
  return {s.local.nx, s.local.ny, t.x0, t.y0, t.nx, t.ny, static_cast<std::size_t>(s.halo)};
}

// The tile stepped k steps with its edge cells fixed, keeping only the cells at least k from each
// neighbour's side: the staleness of the fixed edge moves in one cell per step, so those are exact,
// and the rings (ring_window) store the rest. At the grid's edge the tile's edge cells are the
// boundary, which stays fixed anyway, and the tile keeps them.
HeatWindow inner_window(const Layout& l, const Grid2D::State& s, std::size_t k) {
  HeatWindow w;
  w.pitch = l.lnx, w.x0 = l.tx0, w.y0 = l.ty0, w.nx = l.tnx, w.ny = l.tny;
  const std::size_t west = s.has(Side::west) ? std::min(k, l.tnx) : 0;
  const std::size_t east = s.has(Side::east) ? std::min(k, l.tnx - west) : 0;
  const std::size_t south = s.has(Side::south) ? std::min(k, l.tny) : 0;
  const std::size_t north = s.has(Side::north) ? std::min(k, l.tny - south) : 0;
  w.store_x0 = west, w.store_nx = l.tnx - west - east;
  w.store_y0 = south, w.store_ny = l.tny - south - north;
  return w;
}

// The ring of `k` tile cells along `side`, computed from a strip that reaches k cells further into
// the tile and through the halo: every fixed edge of the strip is at least k cells from what it
// stores, so what it stores is exact.
HeatWindow ring_window(const Layout& l, Side side, std::size_t k) {
  HeatWindow w;
  w.pitch = l.lnx;
  const std::size_t ring_x = std::min(k, l.tnx), ring_y = std::min(k, l.tny);
  const std::size_t reach_x = std::min(l.lnx, l.h + 2 * k), reach_y = std::min(l.lny, l.h + 2 * k);
  switch (side) {
    case Side::west:
      w.x0 = 0, w.nx = reach_x, w.y0 = 0, w.ny = l.lny;
      w.store_x0 = l.tx0, w.store_nx = ring_x, w.store_y0 = l.ty0, w.store_ny = l.tny;
      break;
    case Side::east:
      w.x0 = l.lnx - reach_x, w.nx = reach_x, w.y0 = 0, w.ny = l.lny;
      w.store_x0 = l.tx0 + l.tnx - ring_x - w.x0, w.store_nx = ring_x, w.store_y0 = l.ty0, w.store_ny = l.tny;
      break;
    case Side::south:
      w.x0 = 0, w.nx = l.lnx, w.y0 = 0, w.ny = reach_y;
      w.store_x0 = l.tx0, w.store_nx = l.tnx, w.store_y0 = l.ty0, w.store_ny = ring_y;
      break;
    case Side::north:
      w.x0 = 0, w.nx = l.lnx, w.y0 = l.lny - reach_y, w.ny = reach_y;
      w.store_x0 = l.tx0, w.store_nx = l.tnx, w.store_y0 = l.ty0 + l.tny - ring_y - w.y0, w.store_ny = ring_y;
      break;
  }
  return w;
}

// The band along `side` for a round of k steps whose halo is thinner than k (see step_edges): the
// window of ring_window, all of it stored except the cells that its inner edge (kept fixed, and so
// wrong after the first step) has reached after `stepped` steps of the round. The window's other
// edges are halo cells, refreshed before every part of the round, or the grid's fixed boundary.
HeatWindow band_window(const Layout& l, Side side, std::size_t k, std::size_t stepped) {
  HeatWindow w = ring_window(l, side, k);
  const bool across_x = side == Side::west || side == Side::east;
  const std::size_t reach = across_x ? w.nx : w.ny;
  const bool inner_edge = reach < (across_x ? l.lnx : l.lny);
  const std::size_t lost = inner_edge ? std::min(stepped, reach) : 0;
  w.store_x0 = 0, w.store_nx = w.nx, w.store_y0 = 0, w.store_ny = w.ny;
  switch (side) {
    case Side::west:
      w.store_nx = reach - lost;
      break;
    case Side::east:
      w.store_x0 = lost, w.store_nx = reach - lost;
      break;
    case Side::south:
      w.store_ny = reach - lost;
      break;
    case Side::north:
      w.store_y0 = lost, w.store_ny = reach - lost;
      break;
  }
  return w;
}

// Automatic overlap splits each round into the tile and the rings where a strip goes through MPI,
// whose host waits it hides, and where the halo is thinner than a pass, whose rounds without
// overlap would each be a pass as shallow as the halo (reading and writing the whole tile every
// `halo` steps) where with it the tile keeps passes of full depth. Peer edges with a deep enough
// halo are device work the queue runs in a few microseconds without the host: splitting the round
// would only add launches and recompute the rings.
bool overlapping(const Grid2D::State& s, Overlap overlap) {
  if (overlap == Overlap::off) return false;
  if (overlap == Overlap::on) return true;
  if (s.device.info().kind == DeviceKind::cpu) return false;
  if (s.halo < heat_pass_depth(s.device)) return true;
  return any_through_mpi(s);
}

// Whether every edge of this rank exchanges in the one-kernel form (peer.duet): then an exchange is
// device work with no host step and no argument that changes from one exchange to the next (the
// kernel counts exchanges on the device), and rounds of exchanges and passes can be recorded once
// and replayed.
bool exchanges_replayable(const Grid2D::State& s) {
  for (const Side side : {Side::west, Side::east, Side::south, Side::north}) {
    const Strip& strip = s.strips[static_cast<std::size_t>(side)];
    if (s.has(side) && !strip.one_kernel) return false;
  }
  return true;
}

// The windows of this rank's sides, made by `window(side)`, stepped together: heat_passes launches
// the rings along opposite sides, which take one shape, as one.
template <class Window>
void pass_sides(const Grid2D::State& s, Queue& q, const Buffer<float>& u, Buffer<float>& v, float r,
                int steps, Window window) {
  HeatWindow windows[4];
  std::size_t n = 0;
  for (Side side : {Side::west, Side::east, Side::south, Side::north})
    if (s.has(side)) windows[n++] = window(side);
  heat_passes(q, u, v, Span<const HeatWindow>(windows, n), r, steps);
}

// Rounds per recorded graph, and the fewest full rounds that record one (as duet::heat's graphs:
// even, so that a replay leaves u and v where it found them, and paid back by two replays or more).
constexpr int kGraphRounds = 16;

// The rings of a round of k steps from `u`, whose halo is fresh, into v. With a halo of k cells or
// more, one pass over each ring's window. With a thinner one (k = the pass depth, halo h < k), the
// band of each ring's window steps h steps at a time through the grid's two band buffers, the halo
// of each exchanged before its steps, so that the tile's pass stays k steps deep while the halo is
// still exchanged every h steps: the band's cells along its inner edge go wrong one cell per step,
// but a band twice the ring's depth keeps the ring exact, and the strips it sends lie within h of
// the tile's edge. Where two bands cross (a corner), both hold the exact values there.
void step_edges(Grid2D& grid, const Grid2D::State& s, Queue& edges, const Layout& l, Buffer<float>& u,
                Buffer<float>& v, float r, int k) {
  const int h = grid.halo();
  const auto ks = static_cast<std::size_t>(k);
  Buffer<float>* src = &u;
  if (k > h) {
    if (s.bands.empty()) {
      for (int i = 0; i < 2; ++i) {
        s.bands.push_back(grid.make_local());
        edges.fill(s.bands.back(), 0.0f);  // cells no band stores stay defined
      }
    }
    Buffer<float>* dst = &s.bands[0];
    int stepped = 0;
    while (stepped + h < k) {
      if (stepped > 0) grid.exchange_halos(edges, *src);
      stepped += h;
      pass_sides(s, edges, *src, *dst, r, h,
                 [&](Side side) { return band_window(l, side, ks, static_cast<std::size_t>(stepped)); });
      src = dst;
      dst = dst == &s.bands[0] ? &s.bands[1] : &s.bands[0];
    }
    grid.exchange_halos(edges, *src);
    const int last = k - stepped;
    pass_sides(s, edges, *src, v, r, last, [&](Side side) { return ring_window(l, side, ks); });
    return;
  }
  pass_sides(s, edges, *src, v, r, k, [&](Side side) { return ring_window(l, side, ks); });
}

// Which schedule overlaps rounds whose edges go through MPI: 1 one queue (overlap_on_one_queue),
// 2 two queues, 0 the rule in heat(). DUET_MPI_OVERLAP_QUEUES=1 or 2 forces one, for benchmarks
// that compare the two on one machine and for the tests, which prove both bitwise; -1 for any other
// value, which every rank then reports (heat() agrees on it first, so no rank waits for another).
int overlap_queues_asked(const char* value) {
  if (value == nullptr || *value == '\0') return 0;
  const std::string v = value;
  return v == "1" ? 1 : v == "2" ? 2 : -1;
}

// The overlap on one queue, where edges go through MPI and the halo is a round deep: the tile's
// pass, then the rings, while the strips' copies to and from the host (on their own queue, column
// strips as strided transfers, so no pack or unpack kernel) and the host's MPI waits
// (continue_exchange, finish_exchange) happen as the tile's pass runs. With both pairs of sides,
// the tile's pass runs in two halves of rows, so that the south and north strips, which carry the
// corners the west and east ones brought, leave between them and their MPI time hides behind the
// second half. The rings still come between two tile passes, where the two-queue schedule runs
// them beside the tile's pass; which of the two is faster depends on the neighbours (heat()
// chooses).
void overlap_on_one_queue(Grid2D& grid, const Grid2D::State& s, Queue& q, Buffer<float>& u, Buffer<float>& v,
                          float r, int steps, const Layout& l, int round, RoundTrace& trace) {
  const bool both_pairs = (s.has(Side::west) || s.has(Side::east)) && (s.has(Side::south) || s.has(Side::north));
  // The strips' copies to and from the host run on a queue of their own (halo.cpp), so that the
  // copy engines move them during the tile's pass: between two passes only the rings remain.
  if (!s.copies) s.copies.emplace(s.device.queue());
  struct Staging {
    const Grid2D::State& s;
    explicit Staging(const Grid2D::State& state) : s(state) { s.stage_on_copies = true; }
    ~Staging() { s.stage_on_copies = false; }
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;
  } staging(s);
  // The copies write halo cells of u while the tile's pass reads other cells of it, which DUET_CHECK's
  // detector (judging each launch by its whole buffer) cannot tell apart.
  u.raw().exempt_from_queue_check();
  v.raw().exempt_from_queue_check();
  trace.call_begins(q);
  for (int done = 0; done < steps;) {
    const int k = std::min(round, steps - done);
    const HeatWindow inner = inner_window(l, s, static_cast<std::size_t>(k));
    grid.begin_exchange(q, u);
    trace.tile_begins(q);
    if (both_pairs) {
      HeatWindow first = inner, second = inner;
      first.store_ny = inner.store_ny / 2;
      second.store_y0 = inner.store_y0 + first.store_ny, second.store_ny = inner.store_ny - first.store_ny;
      heat_pass(q, u, v, first, r, k);
      grid.continue_exchange(q, u);
      heat_pass(q, u, v, second, r, k);
    } else {
      heat_pass(q, u, v, inner, r, k);
    }
    trace.tile_ends(q);
    trace.edges_begin(q);
    grid.finish_exchange(q, u);
    pass_sides(s, q, u, v, r, k,
               [&](Side side) { return ring_window(l, side, static_cast<std::size_t>(k)); });
    trace.edges_end(q);
    std::swap(u, v);
    done += k;
  }
  trace.call_ends(q);
  trace.report(s.rank, "one queue");
}

}  // namespace

void heat(Grid2D& grid, Queue& q, Buffer<float>& u, Buffer<float>& v, float r, int steps, Overlap overlap) {
  if (steps < 0) throw ArgumentError("mpi::heat: steps must be >= 0, not " + std::to_string(steps));
  const Grid2D::State& s = grid.state();
  const std::size_t nx = grid.local_nx(), ny = grid.local_ny();
  // A rank without neighbours (one rank) has no halo to wait for: its local array is the whole grid,
  // and duet::heat steps it exactly as on one device, in passes as deep as the device allows rather
  // than `halo` steps at a time.
  if (!s.has(Side::west) && !s.has(Side::east) && !s.has(Side::south) && !s.has(Side::north)) {
    duet::heat(q, u, v, nx, ny, r, steps);
    return;
  }
  RoundTrace trace;  // from here: the host's time before the first event counts the agreement below
  // The ranks' exchanges pair up in order, so every rank must take the same rounds: whether to
  // overlap (automatic decides from a rank's own edges and device) and the depth of a round (its
  // own device's) are agreed, the overlap if any rank wants it and the shallowest depth.
  // The schedule for edges through MPI is agreed too (the rule below weighs every rank's strips), and
  // so is a bad DUET_MPI_OVERLAP_QUEUES, so that every rank throws rather than one.
  const char* queues_env = std::getenv("DUET_MPI_OVERLAP_QUEUES");
  const int asked = overlap_queues_asked(queues_env);
  int mine[5] = {overlapping(s, overlap) ? 1 : 0, -heat_pass_depth(s.device), strips_through_mpi(s), asked,
                 asked < 0 ? 1 : 0};
  int agreed[5] = {0, 0, 0, 0, 0};
  check_mpi(MPI_Allreduce(mine, agreed, 5, MPI_INT, MPI_MAX, s.cart), "MPI_Allreduce");
  if (agreed[4])
    throw ArgumentError(std::string("mpi::heat: DUET_MPI_OVERLAP_QUEUES must be 1 (one queue), 2 (two queues) or "
                                    "unset (the rule) on every rank; this rank has '") +
                        (queues_env ? queues_env : "") + "'");
  const int round = -agreed[1];
  if (agreed[0] == 0) {
    int done = 0;
    // A round's launches take the host longer than the device takes to run them on small tiles;
    // replaying rounds from a graph takes that floor away. The same kernels run on the same
    // buffers in the same order either way, so the field is bitwise the same.
    const int rounds = steps / grid.halo();
    if (rounds >= 2 * kGraphRounds && exchanges_replayable(s) && !q.capturing()) {
      const Graph g = q.record_graph([&] {
        for (int i = 0; i < kGraphRounds; ++i) {
          grid.exchange_halos(q, u);
          duet::heat(q, u, v, nx, ny, r, grid.halo());
        }
      });
      for (int i = rounds / kGraphRounds; i > 0; --i) g.replay(q);
      done = rounds / kGraphRounds * kGraphRounds * grid.halo();
    }
    while (done < steps) {
      const int run = std::min(grid.halo(), steps - done);
      grid.exchange_halos(q, u);
      duet::heat(q, u, v, nx, ny, r, run);
      done += run;
    }
    return;
  }
  // The caller's queue steps the tile; the grid's edge queue exchanges the halo and then steps the
  // ring of cells along each neighbour from it. Round n's tile pass and round n's exchange and rings
  // run side by side: the tile pass keeps only cells at least k from a neighbour's edge, which need
  // no halo, and the rings store the rest. What orders them, besides each queue's own order:
  //   - the tile pass of round n reads the rings of round n - 1 and overwrites cells those rings
  //     read, so it waits for them;
  //   - the rings of round n read cells the tile pass of round n - 1 stored and overwrite cells it
  //     read, so they wait for it; so does the exchange of round n where the halo is deeper than a
  //     round (its strips reach cells that pass stored).
  // The edge queue has high priority: its small kernels (the exchange's pack and unpack, the rings)
  // take multiprocessors as the tile pass's groups finish instead of after the last of them starts,
  // so the next tile pass, which waits for the rings, finds them done.
  const Layout l = layout_of(s);
  // Rounds as deep as a pass goes, whatever the halo: a thinner halo is exchanged several times a
  // round, beside the tile's pass (step_edges).
  // Edges through MPI: two queues where no rank has more than one such strip, one queue where some
  // rank has two or more: on NVIDIA's OpenCL the first is the faster on 2 GPUs (one strip a rank),
  // the second on 4 (two strips on most ranks; bench/RESULTS.md). Every rank takes the same schedule.
  const int queues = agreed[3] > 0 ? agreed[3] : agreed[2] >= 2 ? 1 : 2;
  if (grid.halo() >= round && any_through_mpi(s) && queues == 1) {
    overlap_on_one_queue(grid, s, q, u, v, r, steps, l, round, trace);
    return;
  }
  if (!s.edges) s.edges.emplace(s.device.queue(QueueOptions{false, QueuePriority::high}));
  Queue& edges = *s.edges;
  // The two queues update different cells of the same buffers, which DUET_CHECK's detector (judging
  // each launch by its whole buffer) cannot tell.
  u.raw().exempt_from_queue_check();
  v.raw().exempt_from_queue_check();
  trace.call_begins(q);
  edges.wait(q.record());  // the caller's work on u and v comes first
  Event rings_done = edges.record(), tile_done = q.record();
  for (int done = 0; done < steps;) {
    const int k = std::min(round, steps - done);
    // The strips leave first, so that their copies start before the tile pass fills the device. Where
    // the halo is deeper than a round, they carry cells the tile's pass of the round before stored
    // (that round was a whole one: only the last is shorter), so they wait for it first.
    trace.edges_begin(edges);
    if (grid.halo() > round) edges.wait(q.record());
    grid.begin_exchange(edges, u);
    q.wait(rings_done);
    trace.tile_begins(q);
    heat_pass(q, u, v, inner_window(l, s, static_cast<std::size_t>(k)), r, k);
    trace.tile_ends(q);
    const Event tile_now = q.record();
    grid.finish_exchange(edges, u);
    edges.wait(tile_done);
    step_edges(grid, s, edges, l, u, v, r, k);
    rings_done = edges.record();
    trace.edges_end(edges);
    tile_done = tile_now;
    std::swap(u, v);
    done += k;
  }
  q.wait(rings_done);
  trace.call_ends(q);
  trace.report(s.rank, "two queues");
}

float max_change(const Grid2D& grid, Queue& q, const Buffer<float>& before, const Buffer<float>& after) {
  const Grid2D::State& s = grid.state();
  // Only the tiles count: the halos hold neighbours' cells (or stale ones).
  const Rect tile = s.tile_in_local();
  Buffer<float> a(s.device, tile.cells()), b(s.device, tile.cells());
  pack(q, before, s.local.nx, tile, a);
  pack(q, after, s.local.nx, tile, b);
  // A NaN must win the maximum (fmax would drop it), so a blown-up field never looks converged.
  const auto largest = extension::device_state<ReductionKernel>(s.device, "duet.mpi.max_change", [&] {
    return std::make_shared<ReductionKernel>(s.device, "float", "float x, float y", "fabs(x - y)",
                                             "(a > b || a != a) ? a : b", "0.0f", "max_change");
  });
  const float mine = largest->reduce<float>(q, a, b);
  float all = 0.0f;
  // MPI_MAX drops NaN on some implementations: a NaN anywhere is passed as a flag beside it.
  const float pair[2] = {mine != mine ? 0.0f : mine, mine != mine ? 1.0f : 0.0f};
  float result[2] = {0.0f, 0.0f};
  check_mpi(MPI_Allreduce(pair, result, 2, MPI_FLOAT, MPI_MAX, s.cart), "MPI_Allreduce");
  all = result[1] > 0.0f ? std::numeric_limits<float>::quiet_NaN() : result[0];
  return all;
}

}  // namespace duet::mpi
