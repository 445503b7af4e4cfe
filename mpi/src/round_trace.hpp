// DUET_MPI_TRACE=1: where an overlapped heat's rounds lose time, measured on the device. Each round
// records events around its tile pass (on the tile's queue) and around the work on its edges (on the
// edge queue; with one queue, what follows the tile pass: the exchange's end and the rings). At the
// end every rank prints the medians: the tile pass, the gap from one tile pass's end to the next
// one's start (the time the overlap failed to hide), and the edges' span; and, on the tile's queue,
// the lead-in from the call's start to its first tile pass and the tail from its last tile pass to
// its end (what the rounds' medians leave out); the sums of the tile passes and of the gaps, so
// that lead-in + passes + gaps + tail is the call's span on the device; and the host's time from
// the trace's making (the call's start, before the ranks agree on the schedule) to the call's first
// event, which the device spends waiting for the host. Each span is timed within one queue: events
// of two queues have no common clock on every backend. Off, it records nothing: the events are
// commands of their own on some backends.
#pragma once

#include <chrono>
#include <vector>

#include "duet/queue.hpp"

namespace duet::mpi {

class RoundTrace {
 public:
  RoundTrace();
  bool on() const { return on_; }
  void call_begins(Queue& q);
  void call_ends(Queue& q);
  void tile_begins(Queue& q);
  void tile_ends(Queue& q);
  void edges_begin(Queue& edges);
  void edges_end(Queue& edges);
  // Prints the rank's medians to stderr (waits for the events).
  void report(int rank, const char* schedule) const;

 private:
  bool on_ = false;
  std::chrono::steady_clock::time_point made_, call_begin_host_;
  Event call_begin_, call_end_;
  std::vector<Event> begins_, ends_, edge_begins_, edge_ends_;
};

}  // namespace duet::mpi
