// The backends this build knows, in order of preference: each built one with its Backend object,
// each left out with the reason. Generated into backend_list.cpp by core/CMakeLists.txt from the
// backends/<name>/backend.cmake files, so adding a backend touches only its folder and the one line
// there that includes its backend.cmake.
#pragma once

#include <vector>

#include "backend.hpp"

namespace duet::backend {

struct BackendEntry {
  const char* name;                 // "cuda": DUET_BACKEND's value and the prefix of device ids
  const Backend& (*backend)();      // null when the backend was left out of this build
  const char* left_out_reason;      // why it was left out; "" when built
};

const std::vector<BackendEntry>& backend_list();

}  // namespace duet::backend
