// duet's diagnostics on stderr, off unless DUET_LOG=debug: compiler warnings, program-cache hits
// and misses, and why the on-disk cache turned itself off.
#pragma once

#include <string>

namespace duet::detail {

bool debug_enabled();
void log_debug(const std::string& message);
// Always printed: for what the user must act on (a program cache folder others can write).
void log_warning(const std::string& message);

}  // namespace duet::detail
