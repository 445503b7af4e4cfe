#include "native_signature.hpp"

#include <algorithm>
#include <cctype>

#include "duet/error.hpp"
#include "signature.hpp"

namespace duet::detail {
namespace {

std::string trimmed(const std::string& s) {
  std::size_t first = 0, last = s.size();
  while (first < last && std::isspace(static_cast<unsigned char>(s[first]))) ++first;
  while (last > first && std::isspace(static_cast<unsigned char>(s[last - 1]))) --last;
  return s.substr(first, last - first);
}

// "float*" -> "float"; empty when the text is not one pointer.
std::string pointee(const std::string& type_name) {
  const std::string t = trimmed(type_name);
  if (t.empty() || t.back() != '*') return {};
  const std::string inner = trimmed(t.substr(0, t.size() - 1));
  return inner.find('*') == std::string::npos ? inner : std::string();
}

bool is_buffer_space(backend::ParamInfo::Space s) {
  return s == backend::ParamInfo::Space::global || s == backend::ParamInfo::Space::constant;
}

std::string describe(const KernelParam& p) {
  return p.kind == KernelParam::Kind::buffer ? p.type_name + "* " + p.name : p.type_name + " " + p.name;
}

}  // namespace

std::optional<KernelSignature> signature_from_driver(const std::string& kernel,
                                                     const std::vector<backend::ParamInfo>& params,
                                                     int count) {
  if (count < 0 || params.size() != static_cast<std::size_t>(count)) return std::nullopt;
  KernelSignature sig;
  sig.name = kernel;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const backend::ParamInfo& info = params[i];
    KernelParam p;
    p.name = info.name.empty() ? "parameter" + std::to_string(i + 1) : info.name;
    if (is_buffer_space(info.space)) {
      p.kind = KernelParam::Kind::buffer;
      p.type_name = pointee(info.type_name);
      p.is_const = info.is_const;
    } else if (info.space == backend::ParamInfo::Space::value &&
               info.type_name.find('*') == std::string::npos) {
      p.kind = KernelParam::Kind::scalar;
      p.type_name = trimmed(info.type_name);
    } else {
      return std::nullopt;  // local memory, or a driver that does not say
    }
    if (p.type_name.empty()) return std::nullopt;  // images, samplers, pipes
    p.type = scalar_type_from_name(p.type_name);
    sig.params.push_back(std::move(p));
  }
  return sig;
}

std::optional<std::string> driver_disagreement(const KernelSignature& sig,
                                               const std::vector<backend::ParamInfo>& driver,
                                               int driver_count) {
  if (driver_count >= 0 && static_cast<std::size_t>(driver_count) != sig.params.size())
    return "lists " + std::to_string(sig.params.size()) + " parameters, but the compiled kernel has " +
           std::to_string(driver_count);
  for (std::size_t i = 0; i < sig.params.size() && i < driver.size(); ++i) {
    const KernelParam& p = sig.params[i];
    const backend::ParamInfo& d = driver[i];
    const bool buffer = p.kind == KernelParam::Kind::buffer;
    const std::string which = "parameter " + std::to_string(i + 1) + " ('" + describe(p) + "') ";
    // Device pointers are 8 bytes wherever duet runs (64-bit CUDA and OpenCL devices).
    const std::size_t want = buffer ? 8 : size_of(p.type);
    if (d.size != 0 && want != 0 && d.size != want)
      return which + "is " + std::to_string(want) + " bytes, but the compiled kernel's is " +
             std::to_string(d.size) + " bytes";
    if (d.space != backend::ParamInfo::Space::unknown && is_buffer_space(d.space) != buffer)
      return which + "is a " + (buffer ? "buffer" : "value") + ", but the compiled kernel's is " +
             (buffer ? "the value " : "the pointer ") + d.type_name;
    if (!d.type_name.empty() && p.type != ScalarType::unknown) {
      const ScalarType has = scalar_type_from_name(buffer ? pointee(d.type_name) : trimmed(d.type_name));
      if (has != ScalarType::unknown && has != p.type)
        return which + "has type " + p.type_name + ", but the compiled kernel's is " + d.type_name;
    }
  }
  return std::nullopt;
}

KernelSignature declared_signature(const std::string& kernel, const std::string& parameters,
                                   const std::vector<backend::ParamInfo>& driver, int driver_count) {
  const std::string shown = parameters.substr(0, parameters.find('\0'));
  const std::string example =
      "; write them as in the kernel's declaration, e.g. \"int n, const float* x, float* y\"";
  // Anything that could end the list and start another declaration is not a parameter.
  if (parameters.find_first_of("(){};#") != std::string::npos || shown.size() != parameters.size())
    throw ArgumentError("the parameters declared for kernel '" + kernel + "' (\"" + shown +
                        "\") hold one of ( ) { } ; # or a NUL byte" + example);
  const auto read = parse_kernel_signatures("KERNEL void " + kernel + "(" + parameters + ") {}", {});
  const auto found = read.find(kernel);
  if (found == read.end())
    throw ArgumentError("the parameters declared for kernel '" + kernel + "' (\"" + parameters +
                        "\") could not be read: each must be a type and a name" + example);
  if (auto differs = driver_disagreement(found->second, driver, driver_count))
    throw ArgumentError("kernel '" + kernel + "' declared as (" + parameters + "): " + *differs +
                        "; declare the parameters as the kernel has them");
  return found->second;
}

std::optional<KernelSignature> native_signature(const std::string& kernel, const KernelSignature* parsed,
                                                const std::vector<backend::ParamInfo>& driver,
                                                int driver_count) {
  // A value of a type duet does not know may be a pointer behind a compiler option's define
  // (-DPTR=float*): only a driver that tells address spaces can rule that out.
  const bool spaces_known = !driver.empty() && driver[0].space != backend::ParamInfo::Space::unknown;
  const bool certain =
      parsed &&
      (spaces_known || std::none_of(parsed->params.begin(), parsed->params.end(), [](const KernelParam& p) {
         return p.kind == KernelParam::Kind::scalar && p.type == ScalarType::unknown;
       }));
  if (!certain || driver_disagreement(*parsed, driver, driver_count))
    return signature_from_driver(kernel, driver, driver_count);
  // A type the source hides (a typedef, a define) the driver may still name.
  KernelSignature sig = *parsed;
  for (std::size_t i = 0; i < sig.params.size() && i < driver.size(); ++i) {
    KernelParam& p = sig.params[i];
    if (p.type != ScalarType::unknown || driver[i].type_name.empty()) continue;
    const std::string named =
        p.kind == KernelParam::Kind::buffer ? pointee(driver[i].type_name) : trimmed(driver[i].type_name);
    if (scalar_type_from_name(named) == ScalarType::unknown) continue;
    p.type = scalar_type_from_name(named);
    p.type_name = named;
  }
  return sig;
}

}  // namespace duet::detail
