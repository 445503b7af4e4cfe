// duet._duet: the compiled half of the Python package (python/duet/ is the other half, which
// re-exports these names). One bind_<topic>() per file.
#include "bindings.hpp"

NB_MODULE(_duet, m) {
  using namespace duet::python;
  m.doc() = "duet's C++ API, bound with nanobind; import duet, not this module";
  m.attr("__version__") = DUET_PYTHON_VERSION;
  bind_errors(m);
  bind_device(m);
  bind_program(m);
  bind_queue(m);
  bind_array(m);
  bind_generators(m);
  bind_kernels(m);
  bind_builtins(m);
  bind_gemm(m);
  bind_dlpack(m);
  bind_random(m);
  bind_sort(m);
  bind_linalg(m);
}
