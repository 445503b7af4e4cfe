#include "round_trace.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace duet::mpi {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

RoundTrace::RoundTrace() {
  const char* value = std::getenv("DUET_MPI_TRACE");
  on_ = value != nullptr && std::string(value) == "1";
  if (on_) made_ = std::chrono::steady_clock::now();
}

void RoundTrace::call_begins(Queue& q) {
  if (!on_) return;
  call_begin_host_ = std::chrono::steady_clock::now();
  call_begin_ = q.record();
}
void RoundTrace::call_ends(Queue& q) {
  if (on_) call_end_ = q.record();
}
void RoundTrace::tile_begins(Queue& q) {
  if (on_) begins_.push_back(q.record());
}
void RoundTrace::tile_ends(Queue& q) {
  if (on_) ends_.push_back(q.record());
}
void RoundTrace::edges_begin(Queue& edges) {
  if (on_) edge_begins_.push_back(edges.record());
}
void RoundTrace::edges_end(Queue& edges) {
  if (on_) edge_ends_.push_back(edges.record());
}

void RoundTrace::report(int rank, const char* schedule) const {
  if (!on_ || begins_.empty() || begins_.size() != ends_.size()) return;
  std::vector<double> tile, gap, edges;
  double tiles = 0.0, gaps = 0.0;
  for (std::size_t i = 0; i < begins_.size(); ++i) {
    tile.push_back(elapsed_ms(begins_[i], ends_[i]));
    tiles += tile.back();
    if (i + 1 < begins_.size()) gap.push_back(elapsed_ms(ends_[i], begins_[i + 1]) * 1e3), gaps += gap.back();
  }
  const double host_before = std::chrono::duration<double, std::micro>(call_begin_host_ - made_).count();
  for (std::size_t i = 0; i < edge_begins_.size() && i < edge_ends_.size(); ++i)
    edges.push_back(elapsed_ms(edge_begins_[i], edge_ends_[i]) * 1e3);
  const double largest_gap = gap.empty() ? 0.0 : *std::max_element(gap.begin(), gap.end());
  double lead_in = 0.0, tail = 0.0, total = 0.0;
  if (call_begin_.valid() && call_end_.valid()) {
    lead_in = elapsed_ms(call_begin_, begins_.front()) * 1e3;
    tail = elapsed_ms(ends_.back(), call_end_) * 1e3;
    total = elapsed_ms(call_begin_, call_end_);
  }
  std::fprintf(
      stderr,
      "duet mpi trace: rank %d, %s, %zu rounds in %.3f ms: tile pass %.3f ms, gap to the next tile pass "
      "%.1f us (largest %.1f), edges %.1f us (medians); lead-in %.1f us, tail %.1f us; tile passes %.3f ms "
      "and gaps %.1f us in all; the host's %.1f us from the call to its first event\n",
      rank, schedule, begins_.size(), total, median(tile), median(gap), largest_gap, median(edges), lead_in,
      tail, tiles, gaps, host_before);
}

}  // namespace duet::mpi
