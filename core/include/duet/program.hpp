// Programs and kernels. A Program is dialect source compiled for one device; a Kernel is one entry
// point of it, found by name. Both are cheap, copyable, thread-safe handles.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "duet/device.hpp"
#include "duet/export.hpp"
#include "duet/scalar_type.hpp"

namespace duet {

namespace backend {
class ProgramImpl;
class KernelImpl;
}  // namespace backend

class Kernel;
namespace detail {
struct Access;
}  // namespace detail

// A kernel parameter as the dialect source declares it.
struct KernelParam {
  enum class Kind { buffer, scalar };
  Kind kind = Kind::scalar;
  ScalarType type = ScalarType::unknown;  // element type for buffers; unknown when not resolvable
  std::string type_name;                  // as written, after defines are substituted
  std::string name;
  bool is_const = false;                  // buffer the kernel only reads
};

struct KernelSignature {
  std::string name;
  std::vector<KernelParam> params;
  // REQD_GROUP_SIZE(x, y, z) of the declaration: the one local size the kernel may be launched
  // with (Queue::launch uses it when given Range(), and refuses any other); all 0 when it has none.
  std::array<std::size_t, 3> required_group_size{0, 0, 0};
  bool requires_group_size() const noexcept { return required_group_size[0] != 0; }
};

class DUET_API Kernel {
 public:
  Kernel() = default;
  const std::string& name() const;
  // The parameters every launch is checked against: parsed from dialect source; for native source,
  // read from the driver where it names each parameter's type (OpenCL) or as declared with
  // Program::kernel(name, parameters). Empty optional when none of these could tell: then only the
  // argument count (and on CUDA each argument's size) is checked.
  const std::optional<KernelSignature>& signature() const;
  const Device& device() const;
  // Whether two handles launch the same compiled kernel: copies, and kernels found again in a
  // program compiled once and shared (Device::compile of the same source and defines), compare
  // equal. Two empty handles are equal.
  bool operator==(const Kernel& o) const noexcept;
  bool operator!=(const Kernel& o) const noexcept { return !(*this == o); }

  struct State;

 private:
  friend struct detail::Access;
  friend class Program;
  explicit Kernel(std::shared_ptr<const State> s) : state_(std::move(s)) {}
  backend::KernelImpl& impl() const;
  std::shared_ptr<const State> state_;
};

class DUET_API Program {
 public:
  Program() = default;
  // Throws KernelNotFoundError (listing the kernels the program has) when there is no such kernel.
  Kernel kernel(const std::string& name) const;
  // A kernel of native source with its parameters declared as in its declaration ("int n, const
  // float* x, float* y": pointers are buffers, with or without an address space), for drivers that
  // cannot tell them (CUDA knows only their sizes): launches are then checked by type. The
  // declaration is checked against what the driver does tell (count, sizes, address spaces, types);
  // ArgumentError when it differs, cannot be read, or the kernel is dialect source (whose
  // parameters duet reads itself).
  Kernel kernel(const std::string& name, const std::string& parameters) const;
  std::vector<std::string> kernel_names() const;
  const Device& device() const;
  bool valid() const noexcept { return state_ != nullptr; }
  void release() noexcept { state_.reset(); }

  struct State;

 private:
  friend struct detail::Access;
  explicit Program(std::shared_ptr<State> s) : state_(std::move(s)) {}
  const State& state() const;
  std::shared_ptr<State> state_;
};

}  // namespace duet
