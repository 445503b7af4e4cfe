// Compiling dialect source for an architecture without a device, through the backend that offers
// it (Backend::compile_offline): CI checks the CUDA side of every kernel with NVRTC this way.
#include "duet/kernels.hpp"
#include "backend_list.hpp"
#include "source.hpp"

namespace duet {

std::size_t compile_offline(const std::string& backend_name, const std::string& source, const Defines& defines,
                            const std::string& target, const std::string& name) {
  for (const backend::BackendEntry& entry : backend::backend_list()) {
    if (backend_name != entry.name) continue;
    if (!entry.backend)
      throw BackendUnavailableError(std::string(entry.left_out_reason) + ", so it cannot compile offline");
    const detail::AssembledSource full = detail::assemble_source(backend_name, source, defines, name);
    std::optional<backend::OfflineBuild> built = entry.backend().compile_offline(full.text(), name, target);
    if (!built)
      throw BackendUnavailableError("the " + backend_name + " backend compiles only for a device it has open; "
                                    "open one with Device::open and use Device::compile");
    if (!built->compiled)
      throw CompileError(backend_name, name, built->log, built->options,
                         full.map().error_line(built->log, name));
    return built->binary_bytes;
  }
  throw ConfigError("unknown backend '" + backend_name + "' for an offline compile");
}

}  // namespace duet
