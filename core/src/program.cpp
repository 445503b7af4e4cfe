// Program and Kernel handles: kernel lookup by name, with the list of real names on a miss.
#include "duet/program.hpp"

#include "duet/error.hpp"
#include "native_signature.hpp"
#include "state.hpp"

namespace duet {

const Program::State& Program::state() const {
  if (!state_)
    throw ReleasedError("the program was released or never compiled; compile it with Device::compile");
  return *state_;
}

std::vector<std::string> Program::kernel_names() const {
  auto names = state().impl->kernel_names();
  if (names.empty())
    for (const auto& [name, sig] : state().signatures) names.push_back(name);
  if (names.empty()) names = state().native_names;
  return names;
}

const Device& Program::device() const { return state().device; }

Kernel Program::kernel(const std::string& name) const {
  state();  // throws on a released program
  State& s = *state_;
  std::lock_guard<std::mutex> lock(s.kernels_mutex);
  auto found = s.kernels.find(name);
  if (found != s.kernels.end()) return Kernel(found->second);

  auto sig = s.signatures.find(name);
  const auto offsets = s.view_offsets.find(name);
  const std::size_t hidden = offsets != s.view_offsets.end() ? offsets->second.size() : 0;
  const int declared = sig != s.signatures.end() ? static_cast<int>(sig->second.params.size() + hidden) : -1;
  // The drivers take C strings: an empty name is not theirs to judge, and one with a NUL byte would
  // find the kernel named by its first part.
  const bool plain = !name.empty() && name.find('\0') == std::string::npos;
  auto impl = plain ? s.impl->kernel(name, declared) : nullptr;
  if (!impl) {
    std::string list;
    for (const auto& n : kernel_names()) list += (list.empty() ? "" : ", ") + n;
    std::string shown;  // what() is a C string: a NUL byte would end the message there
    for (char c : name) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
    throw KernelNotFoundError("the program has no kernel named '" + shown +
                              "'; its kernels are: " + (list.empty() ? "(none)" : list));
  }
  auto k = std::make_shared<Kernel::State>();
  k->device = s.device;
  k->program = s.impl;
  k->impl = impl;
  k->name = name;
  if (sig != s.signatures.end()) {
    k->signature = sig->second;
  } else {
    const auto parsed = s.native_signatures.find(name);
    k->signature =
        detail::native_signature(name, parsed != s.native_signatures.end() ? &parsed->second : nullptr,
                                 impl->params(), impl->arg_count());
  }
  if (hidden) k->view_offset_params = offsets->second;
  s.kernels.emplace(name, k);
  return Kernel(std::move(k));
}

Kernel Program::kernel(const std::string& name, const std::string& parameters) const {
  const Kernel found = kernel(name);
  if (state_->signatures.count(name))
    throw ArgumentError(
        "kernel '" + name +
        "' is dialect source, whose parameters duet reads from the source; "
        "declare parameters only for native kernels (Device::compile_native), or call kernel(name)");
  backend::KernelImpl& impl = found.impl();
  auto k = std::make_shared<Kernel::State>(*found.state_);
  k->signature = detail::declared_signature(name, parameters, impl.params(), impl.arg_count());
  return Kernel(std::move(k));
}

namespace {
const Kernel::State& kernel_state(const std::shared_ptr<const Kernel::State>& s) {
  if (!s) throw ReleasedError("the kernel handle is empty; get one with Program::kernel(name)");
  return *s;
}
}  // namespace

const std::string& Kernel::name() const { return kernel_state(state_).name; }
const std::optional<KernelSignature>& Kernel::signature() const { return kernel_state(state_).signature; }
const Device& Kernel::device() const { return kernel_state(state_).device; }
backend::KernelImpl& Kernel::impl() const { return *kernel_state(state_).impl; }

bool Kernel::operator==(const Kernel& o) const noexcept {
  if (!state_ || !o.state_) return state_ == o.state_;
  return state_->impl == o.state_->impl;
}

const std::vector<std::size_t>& detail::Access::view_offset_params(const Kernel& kernel) {
  return kernel_state(kernel.state_).view_offset_params;
}

}  // namespace duet
