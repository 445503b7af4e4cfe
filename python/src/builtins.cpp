// The table of built-in kernels (builtins/builtins.hpp) for `python -m duet run`: the kernels' names,
// one case run and checked in C++ (the same sizes, limits and CPU reference as `duet run`), and the
// double-precision heat reference for checking heat from Python. cli.py only formats the figures.
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <exception>
#include <vector>

#include "bindings.hpp"
#include "builtins.hpp"
#include "cpu_reference.hpp"

namespace duet::python {

void bind_builtins(nb::module_& m) {
  m.def("_builtin_kernels", [] { return builtins::names(); },
        "The names of the built-in kernels, in the order `python -m duet run` runs them");

  m.def("_builtin_error_note", [] { return builtins::error_note(); },
        "The line under the run table that says how each kernel's error is measured");

  m.def("_run_builtin", [](const std::string& name, const Device& device, bool quick, int runs) {
    const builtins::Kernel* kernel = builtins::find(name);
    if (!kernel) throw ArgumentError("no built-in kernel named '" + name + "'");
    builtins::Row row;
    {
      nb::gil_scoped_release release;
      // A failure is a row, as in `duet run`: the others still run. Each case gets a queue of its own.
      try {
        Queue queue = device.queue();
        builtins::run_case(*kernel, device, queue, builtins::scale_for(device.info(), quick), runs, row);
      } catch (const std::exception& e) {
        row.failure = e.what();
      }
    }
    nb::dict figures;
    figures["kernel"] = row.kernel;
    figures["size"] = row.size;
    figures["runs"] = row.timing.runs;
    figures["median_ms"] = row.timing.median_ms;
    figures["min_ms"] = row.timing.min_ms;
    figures["work"] = row.work;
    figures["unit"] = std::string(row.unit());
    figures["rate"] = row.rate();
    figures["error"] = row.error;
    figures["tolerance"] = row.tolerance;
    figures["failure"] = row.failure;
    figures["ok"] = row.ok();
    return figures;
  }, nb::arg("name"), nb::arg("device"), nb::arg("quick") = false, nb::arg("runs") = 0,
     "Runs one built-in kernel's case on `device` (warm-up, check against the CPU reference, timed runs) "
     "and returns its figures as a dict; a failure is in 'failure', never raised");

  using Grid = nb::ndarray<const float, nb::ndim<2>, nb::c_contig, nb::device::cpu>;
  m.def("_heat_reference", [](Grid u, double r, int steps) {
    const std::size_t ny = u.shape(0), nx = u.shape(1);
    const std::vector<float> initial(u.data(), u.data() + nx * ny);
    auto* out = new std::vector<double>(
        reference::heat_reference(initial, nx, ny, static_cast<float>(r), steps));
    nb::capsule owner(out, [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
    return nb::ndarray<nb::numpy, double, nb::ndim<2>>(out->data(), {ny, nx}, owner);
  }, nb::arg("u"), nb::arg("r"), nb::arg("steps"),
     "`steps` explicit heat steps in double on a float32 (ny, nx) grid, boundary fixed: the C++ reference "
     "duet run checks heat with");
}

}  // namespace duet::python
