// duet::random on duet.Arrays (duet/random.py builds the Pythonic API on these), and the host
// reference, for tests and for users who want the same numbers on the CPU.
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>

#include "bindings.hpp"

namespace duet::python {

void bind_random(nb::module_& m) {
  m.def("_random_fill", [](const std::string& kind, Array& out, std::uint64_t seed, std::uint64_t offset, double a,
                           double b, nb::handle queue) {
    Queue& q = queue_or_default(queue, out.device());
    if (kind == "bits") {
      Buffer<std::uint32_t> o = typed<std::uint32_t>(out, "out");
      return random::bits(q, o, seed, offset);
    }
    if (out.dtype() == ScalarType::f32) {
      Buffer<float> o = typed<float>(out, "out");
      return kind == "uniform" ? random::uniform(q, o, seed, offset, static_cast<float>(a), static_cast<float>(b))
                               : random::normal(q, o, seed, offset, static_cast<float>(a), static_cast<float>(b));
    }
    Buffer<double> o = typed<double>(out, "out");
    return kind == "uniform" ? random::uniform(q, o, seed, offset, a, b) : random::normal(q, o, seed, offset, a, b);
  }, nb::arg("kind"), nb::arg("out"), nb::arg("seed"), nb::arg("offset"), nb::arg("a"), nb::arg("b"),
     nb::arg("queue").none());
  m.def("_random_host", [](const std::string& kind, nb::ndarray<nb::c_contig, nb::device::cpu> out,
                           std::uint64_t seed, std::uint64_t offset, double a, double b) {
    const std::size_t n = out.size();
    const auto code = out.dtype();
    if (kind == "bits" && out.dtype() == nb::dtype<std::uint32_t>()) {
      random::host::bits(Span<std::uint32_t>(static_cast<std::uint32_t*>(out.data()), n), seed, offset);
    } else if (code == nb::dtype<float>()) {
      Span<float> s(static_cast<float*>(out.data()), n);
      kind == "uniform" ? random::host::uniform(s, seed, offset, static_cast<float>(a), static_cast<float>(b))
                        : random::host::normal(s, seed, offset, static_cast<float>(a), static_cast<float>(b));
    } else if (code == nb::dtype<double>()) {
      Span<double> s(static_cast<double*>(out.data()), n);
      kind == "uniform" ? random::host::uniform(s, seed, offset, a, b) : random::host::normal(s, seed, offset, a, b);
    } else {
      throw ArgumentError("the host reference fills uint32 (bits), float32 and float64 arrays");
    }
  });
  m.def("philox4x32_10", &random::host::philox4x32_10, nb::arg("counter"), nb::arg("key"),
        "One Philox4x32-10 block on the host: four 32-bit words from a counter of four and a key of two");
  m.def("_random_source", [] { return std::string(random::source()); });
}

}  // namespace duet::python
