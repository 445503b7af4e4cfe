// What the kernel generators (ElementwiseKernel, ReductionKernel) share: parsing parameter lists and
// types, writing dialect source with the user's snippets behind #line marks, compiling it so that a
// CompileError points into the snippet that failed, and checking and converting call arguments.
// Everything here uses only the public API, so the generators stay backend-neutral.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "duet/device.hpp"
#include "duet/elementwise.hpp"
#include "duet/generated.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"
#include "duet/scalar_type.hpp"

namespace duet::detail::gen {

// Parses "float x, const int k". `what` names the list in messages ("elementwise kernel 'f'
// inputs"). An empty list is an ArgumentError unless allow_empty.
std::vector<GeneratedParam> parse_params(std::string_view list, const std::string& what, bool allow_empty);
// One type name ("float", "unsigned int"); ArgumentError naming `what` otherwise.
ScalarType parse_type(std::string_view text, const std::string& what);
// A kernel name: an identifier that is not reserved.
std::string check_kernel_name(std::string_view name, const std::string& what);
// No name may appear twice across the lists.
void check_unique(const std::vector<const std::vector<GeneratedParam>*>& lists, const std::string& what);
// A non-empty snippet (body or expression), trimmed; ArgumentError naming `what` when empty.
std::string check_snippet(std::string_view text, const std::string& what);
// ArgumentError when `code` uses the identifier `word` outside comments and literals.
void forbid_word(const std::string& code, const char* word, const std::string& what, const std::string& hint);

// The dialect spelling of a type ("float", "uint", "long").
const char* dialect_type(ScalarType t);
// "float x, float slope"
std::string describe(const std::vector<GeneratedParam>& params);
// "aas": one letter per kind, for cache keys.
std::string kinds_key(const std::vector<ArgKind>& kinds);

// A generator's compiled variants, one per combination of argument kinds (keyed by kinds_key),
// each compiled once even when threads make their first calls at once.
template <class Compiled>
class Variants {
 public:
  template <class Compile>
  Compiled get(const std::vector<ArgKind>& kinds, Compile&& compile) {
    return *table_.get(kinds_key(kinds), std::forward<Compile>(compile));
  }
  std::size_t size() const { return table_.size(); }

 private:
  generated::OnceTable<Compiled> table_;
};

// Writes generated source line by line. The generated lines belong to the pseudo-file `file`
// ("f.elementwise") and keep their own line numbers; each user snippet is placed behind
// `#line 1 "<snippet file>"`, so compiler messages count the snippet's own lines.
class SourceWriter {
 public:
  explicit SourceWriter(std::string file);
  void line(const std::string& text);                              // one generated line (no '\n' inside)
  void snippet(const std::string& file, const std::string& code);  // user code, any number of lines
  const std::string& text() const { return text_; }
  const std::string& file() const { return file_; }

 private:
  std::string file_, text_;
  int lines_ = 0;
};

// Compiles generated source (a SourceWriter's text, its generated lines in `file`) on `device`. A
// CompileError is rethrown pointing at the snippet the first error is in (source_name() the
// snippet's file, line() its line); an error reported right after a snippet (an unclosed
// parenthesis) is put on the snippet's last line.
Program compile(const Device& device, const std::string& source, const std::string& file);

// The work-group size generated kernels use on `info`: 256, or the largest power of two the device
// allows.
std::size_t group_size(const DeviceInfo& info);

// ArgumentError when `type` (of `subject`, e.g. "parameter 'x'") is double and the device has no
// double precision; `what` names the kernel.
void require_type_support(const DeviceInfo& info, ScalarType type, const std::string& what,
                          const std::string& subject);

// Checking call arguments against parameters. `what` is the kernel's description for messages.
struct CheckedArgs {
  std::vector<ArgKind> kinds;
  std::vector<KernelArg> launch;  // buffers as given, scalars converted to the parameter types
  std::size_t length = 0;         // the common length of the arrays
  bool any_array = false;
};
// params: every parameter in call order; outputs_from: the index of the first output (outputs must
// be arrays).
CheckedArgs check_generated_args(const Device& device, const Queue& q, const std::vector<GeneratedParam>& params,
                                 std::size_t outputs_from, const std::vector<KernelArg>& args,
                                 const std::string& what);
// A scalar converted to `to` when that loses nothing; ArgumentError (`what`) otherwise.
KernelArg convert_scalar(const KernelArg& a, ScalarType to, const std::string& what);

}  // namespace duet::detail::gen
