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
  for (std::size_t i = 0; i < begins_.size(); ++i) {
    tile.push_back(elapsed_ms(begins_[i], ends_[i]));
    if (i + 1 < begins_.size()) gap.push_back(elapsed_ms(ends_[i], begins_[i + 1]) * 1e3);
  }
  for (std::size_t i = 0; i < edge_begins_.size() && i < edge_ends_.size(); ++i)
    edges.push_back(elapsed_ms(edge_begins_[i], edge_ends_[i]) * 1e3);
  const double largest_gap = gap.empty() ? 0.0 : *std::max_element(gap.begin(), gap.end());
  std::fprintf(stderr,
               "duet mpi trace: rank %d, %s, %zu rounds: tile pass %.3f ms, gap to the next tile pass %.1f us "
               "(largest %.1f), edges %.1f us (medians)\n",
               rank, schedule, begins_.size(), median(tile), median(gap), largest_gap, median(edges));
}

}  // namespace duet::mpi
