// What the array tests share: a view's elements read on the host through its layout, and a run
// of a check in the GPUs' kernel forms on every device.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <duet/array_layout.hpp>
#include <vector>

#include "support.hpp"

// Runs `check` in the forms each device takes, then again with the GPUs' forms of the array
// layer's kernels forced (DUET_ELEMENTWISE_LAYOUT=vector4: vector4 flat kernels, 4 elements of a
// row per work-item a group's width apart), so a CPU device runs those too.
template <class Check>
void with_gpu_forms(Check check) {
  check();
  EnvGuard layout("DUET_ELEMENTWISE_LAYOUT", "vector4");
  check();
}

// The shapes a new dtype's creation and read-back are tried at: 0-d, empty (alone and between other
// extents), a single element, a prime and a 2-D matrix.
inline const std::vector<duet::Shape>& awkward_shapes() {
  static const std::vector<duet::Shape> shapes{duet::Shape{},  duet::Shape{0},       duet::Shape{1},
                                               duet::Shape{97}, duet::Shape{3, 0, 5}, duet::Shape{7, 13}};
  return shapes;
}

// Whether the array tests also compile their generated kernels for sm_90 through NVRTC (which needs
// no GPU). DUET_TEST_NVRTC=0 leaves those compiles out: the AddressSanitizer build sets it, since
// recording each of NVRTC's many allocations there made them most of the run's time, and the plain
// build compiles the same sources.
inline bool offline_nvrtc_checks() {
  const char* v = std::getenv("DUET_TEST_NVRTC");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// The elements of the view `l` over the host copy `base` of its buffer, in C order, as Out.
template <class Out, class T>
std::vector<Out> through_layout(const std::vector<T>& base, const duet::Layout& l) {
  std::vector<Out> out;
  const std::size_t n = l.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t rest = i;
    std::int64_t at = l.offset;
    for (std::size_t k = l.ndim(); k-- > 0;) {
      at += static_cast<std::int64_t>(rest % l.shape[k]) * l.strides[k];
      rest /= l.shape[k];
    }
    out.push_back(static_cast<Out>(base[static_cast<std::size_t>(at)]));
  }
  return out;
}
