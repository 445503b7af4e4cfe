// DUET_LOG is read once; writes are serialised so lines from several threads do not interleave.
#include "log.hpp"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>

namespace duet::detail {

bool debug_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("DUET_LOG");
    return v && std::strcmp(v, "debug") == 0;
  }();
  return enabled;
}

namespace {

void print(const std::string& line) {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::cerr << line << '\n';
}

}  // namespace

void log_debug(const std::string& message) {
  if (debug_enabled()) print("duet: " + message);
}

void log_warning(const std::string& message) { print("duet: warning: " + message); }

}  // namespace duet::detail
