#include "launch_log.hpp"

namespace duet::detail {

void LaunchLog::launched(const std::string& kernel) {
  std::lock_guard<std::mutex> lock(mutex_);
  names_[launched_ % kKept] = kernel;  // reuses the string's storage: no allocation once warm
  ++launched_;
}

std::uint64_t LaunchLog::mark() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return launched_;
}

void LaunchLog::completed(std::uint64_t mark) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (mark > completed_) completed_ = mark;
}

std::vector<std::string> LaunchLog::in_flight(std::uint64_t* older_not_named) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::uint64_t pending = launched_ - completed_;
  const std::uint64_t named = pending < kKept ? pending : kKept;
  if (older_not_named) *older_not_named = pending - named;
  std::vector<std::string> out;
  for (std::uint64_t i = launched_ - named; i < launched_; ++i) out.push_back(names_[i % kKept]);
  return out;
}

}  // namespace duet::detail
