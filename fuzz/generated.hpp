// What the generator harnesses (fuzz_elementwise.cpp, fuzz_reduction.cpp) share: the parameter-list
// round trip and the check that the signature reader reads a generated kernel as the generator
// wrote it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "check.hpp"
#include "duet/elementwise.hpp"
#include "generators/common.hpp"
#include "signature.hpp"

namespace duet::fuzz {

inline bool same(const std::vector<GeneratedParam>& a, const std::vector<GeneratedParam>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].type != b[k].type || a[k].name != b[k].name) return false;
  return true;
}

// The parameters of `list` (which the generator accepted), and that describe() of them parses back
// the same.
inline std::vector<GeneratedParam> params_round_trip(const std::string& list, bool allow_empty) {
  std::vector<GeneratedParam> params;
  check(returns_or_duet_error([&] { params = detail::gen::parse_params(list, "fuzz", allow_empty); }),
        "parse_params refused '" + list + "', which the generator accepted");
  if (params.empty()) return params;
  const std::string written = detail::gen::describe(params);
  std::vector<GeneratedParam> again;
  check(returns_or_duet_error([&] { again = detail::gen::parse_params(written, "fuzz", false); }) &&
            same(params, again),
        "the parameters of '" + list + "' do not read back the same from '" + written + "'");
  return params;
}

// True when user text cannot change what the signature reader sees around it: no preprocessor
// lines, comments or kernels of its own.
inline bool plain(const std::string& snippet) {
  return snippet.find_first_of("#/\\") == std::string::npos && snippet.find("KERNEL") == std::string::npos;
}

// A parameter as the generated kernel should declare it.
inline KernelParam expected_param(ScalarType type, const std::string& name, bool array, bool is_const) {
  KernelParam p;
  p.kind = array ? KernelParam::Kind::buffer : KernelParam::Kind::scalar;
  p.type = type;
  p.type_name = detail::gen::dialect_type(type);
  p.name = name;
  p.is_const = is_const;
  return p;
}

// The signature reader must find `kernel` in `source` with exactly `expected`.
inline void check_signature(const std::string& source, const std::string& kernel,
                            const std::vector<KernelParam>& expected) {
  std::map<std::string, KernelSignature> found;
  never_throws([&] { found = detail::parse_kernel_signatures(source, {}); }, "parse_kernel_signatures");
  const auto it = found.find(kernel);
  check(it != found.end(), "the signature reader does not find the generated kernel " + kernel + " in\n" + source);
  const std::vector<KernelParam>& got = it->second.params;
  bool ok = got.size() == expected.size();
  for (std::size_t k = 0; ok && k < got.size(); ++k)
    ok = got[k].kind == expected[k].kind && got[k].type == expected[k].type &&
         got[k].type_name == expected[k].type_name && got[k].name == expected[k].name &&
         got[k].is_const == expected[k].is_const;
  check(ok, "the signature reader reads the generated kernel " + kernel + " differently from how it was written:\n" +
                source);
}

}  // namespace duet::fuzz
