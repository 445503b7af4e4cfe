// The embedded shared-kernel sources, and compiling dialect source for a CUDA architecture without a
// GPU (NVRTC only), which CI uses to check the CUDA side of the dialect.
#include "duet/kernels.hpp"
#include "embedded_kernels.hpp"
#include "probes.hpp"
#include "source.hpp"

namespace duet {

const char* shared_kernel_source(const char* name) { return embedded::kernel_source(name); }
const char* const* shared_kernel_names() { return embedded::kernel_names(); }

std::size_t compile_for_cuda_arch(const std::string& source, const Defines& defines,
                                  const std::string& arch, const std::string& name) {
#ifdef DUET_HAVE_CUDA
  const detail::AssembledSource full = detail::assemble_source("cuda", source, defines, name);
  std::vector<char> cubin;
  std::string log;
  std::vector<std::string> options;
  if (!backend::nvrtc_compile_cubin(full.text(), name, arch, {}, cubin, log, options))
    throw CompileError("cuda", name, log, options, full.map().error_line(log, name));
  return cubin.size();
#else
  (void)source, (void)defines, (void)arch, (void)name;
  throw BackendUnavailableError("duet was built without the CUDA toolkit, so NVRTC is not available");
#endif
}

}  // namespace duet
