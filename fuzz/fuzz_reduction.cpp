// Fuzzes ReductionKernel's parsing of its result type, input list, name and snippets
// (core/src/generators/common.cpp, reduction.cpp) through ReductionKernel::generate_source, which
// parses and writes the kernels without a device. The input is nine fields, one per line, the
// preamble taking the rest: result type, inputs, map, reduce, identity, name, argument kinds ('a' an
// array, anything else a scalar), group size (decimal), preamble. Accepted lists must read back the
// same from describe(), and the signature reader must read the generated kernel as it was written.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "duet/reduction.hpp"
#include "generated.hpp"
#include "lines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> f = duet::fuzz::fields(data, size, 9);
  const std::string &result = f[0], &inputs = f[1], &map = f[2], &reduce = f[3], &identity = f[4],
                    &name = f[5], &preamble = f[8];
  std::vector<duet::ArgKind> kinds;
  for (char c : f[6]) kinds.push_back(c == 'a' ? duet::ArgKind::array : duet::ArgKind::scalar);
  const std::size_t group = std::strtoull(f[7].c_str(), nullptr, 10);

  std::string source;
  if (!duet::fuzz::returns_or_duet_error([&] {
        source = duet::ReductionKernel::generate_source(result, inputs, map, reduce, identity, name, kinds, group,
                                                        preamble);
      }))
    return 0;

  const std::vector<duet::GeneratedParam> ins = duet::fuzz::params_round_trip(inputs, false);
  duet::fuzz::check(ins.size() == kinds.size(), "a kernel was generated for the wrong number of kinds");
  for (const std::string* snippet : {&map, &reduce, &identity, &preamble})
    if (!duet::fuzz::plain(*snippet)) return 0;
  duet::ScalarType r = duet::ScalarType::unknown;
  duet::fuzz::check(duet::fuzz::returns_or_duet_error([&] { r = duet::detail::gen::parse_type(result, "fuzz"); }),
                    "parse_type refused '" + result + "', which the generator accepted");
  std::vector<duet::KernelParam> expected;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    const bool array = kinds[k] == duet::ArgKind::array;
    expected.push_back(duet::fuzz::expected_param(ins[k].type, array ? "duet_" + ins[k].name : ins[k].name, array, true));
  }
  expected.push_back(duet::fuzz::expected_param(r, "duet_partials", true, false));
  expected.push_back(duet::fuzz::expected_param(r, "duet_out", true, false));
  expected.push_back(duet::fuzz::expected_param(duet::ScalarType::u32, "duet_arrived", true, false));
  expected.push_back(duet::fuzz::expected_param(duet::ScalarType::u64, "n", false, true));
  expected.push_back(duet::fuzz::expected_param(duet::ScalarType::u32, "duet_single", false, true));
  const std::string kernel = "duet_" + duet::detail::gen::check_kernel_name(name, "fuzz");
  duet::fuzz::check_signature(source, kernel, expected);
  duet::fuzz::check_signature(source, kernel + "_finish",
                              {duet::fuzz::expected_param(r, "duet_partials", true, true),
                               duet::fuzz::expected_param(r, "duet_out", true, false),
                               duet::fuzz::expected_param(duet::ScalarType::u64, "duet_count", false, true)});
  return 0;
}
