// Fuzzes ElementwiseKernel's parsing of its parameter lists, name and body
// (core/src/generators/common.cpp, elementwise.cpp) through ElementwiseKernel::generate_source, which
// parses and writes the kernel without a device. The input is six fields, one per line, the body
// taking the rest: inputs, outputs, name, argument kinds ('a' an array, anything else a scalar, one
// character each), preamble, body. Accepted lists must read back the same from describe(), and the
// signature reader must read the generated kernel as it was written.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "generated.hpp"
#include "lines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> f = duet::fuzz::fields(data, size, 6);
  const std::string &inputs = f[0], &outputs = f[1], &name = f[2], &preamble = f[4], &body = f[5];
  std::vector<duet::ArgKind> kinds;
  for (char c : f[3]) kinds.push_back(c == 'a' ? duet::ArgKind::array : duet::ArgKind::scalar);

  std::string source;
  if (!duet::fuzz::returns_or_duet_error([&] {
        source = duet::ElementwiseKernel::generate_source(inputs, outputs, body, name, kinds, preamble);
      }))
    return 0;

  const std::vector<duet::GeneratedParam> ins = duet::fuzz::params_round_trip(inputs, true);
  const std::vector<duet::GeneratedParam> outs = duet::fuzz::params_round_trip(outputs, false);
  duet::fuzz::check(ins.size() + outs.size() == kinds.size(), "a kernel was generated for the wrong number of kinds");
  if (!duet::fuzz::plain(preamble) || !duet::fuzz::plain(body)) return 0;
  std::vector<duet::KernelParam> expected;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    const bool input = k < ins.size();
    const duet::GeneratedParam& p = input ? ins[k] : outs[k - ins.size()];
    const bool array = kinds[k] == duet::ArgKind::array;
    expected.push_back(duet::fuzz::expected_param(p.type, array ? "duet_" + p.name : p.name, array, input));
  }
  expected.push_back(duet::fuzz::expected_param(duet::ScalarType::u64, "n", false, true));
  const std::string kernel = "duet_" + duet::detail::gen::check_kernel_name(name, "fuzz");
  duet::fuzz::check_signature(source, kernel, expected);
  return 0;
}
