// Which kernels a queue may still be running, for naming the one at fault (kernel_faults.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace duet::detail {

// The kernels a queue launched since its work last completed, the latest kKept by name. A fault
// surfaces asynchronously, at a later call, so these are the candidates; when there is one, it is
// the kernel at fault.
class LaunchLog {
 public:
  void launched(const std::string& kernel);
  // The launches so far; completed(mark) says those have all completed.
  std::uint64_t mark() const;
  void completed(std::uint64_t mark);
  // The names of the launches not known to have completed, oldest first, and how many of those are
  // older than the names kept.
  std::vector<std::string> in_flight(std::uint64_t* older_not_named = nullptr) const;

 private:
  static constexpr std::size_t kKept = 8;
  mutable std::mutex mutex_;
  std::array<std::string, kKept> names_;
  std::uint64_t launched_ = 0;
  std::uint64_t completed_ = 0;
};

}  // namespace duet::detail
