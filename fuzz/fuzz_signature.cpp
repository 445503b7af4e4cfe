// Fuzzes the reader of dialect kernel signatures (core/src/signature.cpp), which every
// Device::compile runs over the user's source to check later launches. The input is the source.
// It must never throw; each kernel it reads must read back the same when written out again as
// `KERNEL [REQD_GROUP_SIZE(x, y, z)] void name(GLOBAL const type* name, ...)` with no defines (its
// types and sizes are already substituted). A required group size is never 0 in some dimensions
// and not in others. native_kernel_names, the reader of native sources' kernel names, must not throw.
// The view-offset rewrite (view_offsets.cpp) must leave a source whose signatures are the input's,
// with the rewritten kernels' buffers renamed and their offsets appended.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <string>

#include "check.hpp"
#include "native_signature.hpp"
#include "signature.hpp"
#include "view_offsets.hpp"

namespace {

using duet::KernelParam;
using duet::KernelSignature;

std::string write(const std::map<std::string, KernelSignature>& kernels) {
  std::string out;
  for (const auto& [name, sig] : kernels) {
    out += "KERNEL ";
    if (sig.requires_group_size())
      out += "REQD_GROUP_SIZE(" + std::to_string(sig.required_group_size[0]) + ", " +
             std::to_string(sig.required_group_size[1]) + ", " + std::to_string(sig.required_group_size[2]) + ") ";
    out += "void " + name + "(";
    for (std::size_t k = 0; k < sig.params.size(); ++k) {
      const KernelParam& p = sig.params[k];
      out += k ? ", " : "";
      if (p.kind == KernelParam::Kind::buffer) out += "GLOBAL ";
      if (p.is_const) out += "const ";
      out += p.type_name + (p.kind == KernelParam::Kind::buffer ? "* " : " ") + p.name;
    }
    out += ") {}\n";
  }
  return out;
}

bool same(const KernelParam& a, const KernelParam& b) {
  return a.kind == b.kind && a.type == b.type && a.type_name == b.type_name && a.name == b.name &&
         a.is_const == b.is_const;
}

bool same(const std::map<std::string, KernelSignature>& a, const std::map<std::string, KernelSignature>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, sig] : a) {
    const auto other = b.find(name);
    if (other == b.end() || other->second.name != sig.name || other->second.params.size() != sig.params.size() ||
        other->second.required_group_size != sig.required_group_size)
      return false;
    for (std::size_t k = 0; k < sig.params.size(); ++k)
      if (!same(sig.params[k], other->second.params[k])) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string source(reinterpret_cast<const char*>(data), size);
  // Defines as a caller passes them to Device::compile; the seeds use their names.
  const duet::Defines defines = {{"REAL", "float"}, {"INDEX", "unsigned int"}, {"OUT", "GLOBAL float*"}};
  std::map<std::string, KernelSignature> kernels;
  duet::fuzz::never_throws([&] { kernels = duet::detail::parse_kernel_signatures(source, defines); },
                           "parse_kernel_signatures");
  for (const auto& [name, sig] : kernels) {
    const auto& size = sig.required_group_size;
    duet::fuzz::check((size[0] == 0) == (size[1] == 0) && (size[1] == 0) == (size[2] == 0),
                      "kernel " + name + " has a required group size with some dimensions 0");
  }
  const std::string written = write(kernels);
  std::map<std::string, KernelSignature> again;
  duet::fuzz::never_throws([&] { again = duet::detail::parse_kernel_signatures(written, {}); },
                           "parse_kernel_signatures of its own output");
  duet::fuzz::check(same(kernels, again), "the signatures read from the input do not read back the same from\n" +
                                              written + "(read back: " + write(again) + ")");
  duet::fuzz::never_throws([&] { duet::detail::native_kernel_names(source); }, "native_kernel_names");

  // The view-offset rewrite changes nothing but the kernels it lists, and those only by renaming
  // their buffer parameters and appending one ulong offset for each.
  duet::detail::ViewOffsetSource rewritten;
  duet::fuzz::never_throws([&] { rewritten = duet::detail::add_view_offsets(source, defines); }, "add_view_offsets");
  std::map<std::string, KernelSignature> expected = kernels;
  for (const auto& [name, params] : rewritten.offset_params) {
    duet::fuzz::check(kernels.count(name) == 1, "add_view_offsets rewrote " + name + ", which has no signature");
    KernelSignature& sig = expected[name];
    for (std::size_t k : params) {
      duet::fuzz::check(k < sig.params.size() && sig.params[k].kind == KernelParam::Kind::buffer,
                        "add_view_offsets gave " + name + " an offset for a parameter that is not a buffer");
      KernelParam offset;
      offset.type = duet::ScalarType::u64;
      offset.type_name = "ulong";
      offset.is_const = true;
      offset.name = "duet_view_offset_" + sig.params[k].name;
      sig.params[k].name = "duet_view_" + sig.params[k].name;
      sig.params.push_back(offset);
    }
  }
  std::map<std::string, KernelSignature> reread;
  duet::fuzz::never_throws([&] { reread = duet::detail::parse_kernel_signatures(rewritten.source, defines); },
                           "parse_kernel_signatures of the rewritten source");
  duet::fuzz::check(same(expected, reread), "the rewritten source reads back other signatures:\n" +
                                                rewritten.source + "\n(read back: " + write(reread) +
                                                ", expected: " + write(expected) + ")");

  // A declaration of native parameters is the user's text: it is read or refused, never more.
  try {
    duet::detail::declared_signature("k", source, {}, -1);
  } catch (const duet::ArgumentError&) {
  } catch (const std::exception& e) {
    duet::fuzz::check(false, std::string("declared_signature threw something other than ArgumentError: ") + e.what());
  }
  return 0;
}
