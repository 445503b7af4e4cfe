// Memory shared between processes (duet/interprocess.hpp): the checks, around the backend's export
// and import (backend.hpp).
#include "duet/interprocess.hpp"

#include <string>

#include "access.hpp"
#include "backend.hpp"
#include "duet/error.hpp"
#include "guard_zones.hpp"
#include "queue_order.hpp"
#include "state.hpp"

namespace duet {
namespace {

backend::DeviceImpl& sharing_device(const Device& device, const char* call) {
  backend::DeviceImpl& impl = *detail::Access::core(device)->impl;
  const std::string why = impl.interprocess_unavailable();
  if (!why.empty())
    throw ArgumentError(std::string(call) + ": " + device.info().id() +
                        " cannot share memory with other processes: " + why);
  return impl;
}

}  // namespace

std::string interprocess_unavailable(const Device& device) {
  device.info();  // ReleasedError for an empty handle
  return detail::Access::core(device)->impl->interprocess_unavailable();
}

std::string export_to_process(const RawBuffer& buffer) {
  const backend::BufferImpl& impl = detail::Access::buffer(buffer, "buffer to export");
  backend::DeviceImpl& device = sharing_device(buffer.device(), "export_to_process");
  if (!impl.owns_memory())
    throw ArgumentError(
        "export_to_process: the buffer wraps memory another library allocated; export memory "
        "duet allocated (copy it into a duet buffer first)");
  return device.export_memory(impl, buffer.offset());
}

RawBuffer import_from_process(const Device& device, const std::string& handle, std::size_t bytes) {
  backend::DeviceImpl& impl = sharing_device(device, "import_from_process");
  if (bytes == 0) throw ArgumentError("import_from_process: the imported range needs at least one byte");
  std::shared_ptr<backend::BufferImpl> imported = impl.import_memory(handle, bytes);
  if (detail::checked_mode()) imported->accesses.set_mode(detail::BufferAccesses::Mode::checked);
  return detail::Access::make_buffer(device, std::move(imported), bytes);
}

}  // namespace duet
