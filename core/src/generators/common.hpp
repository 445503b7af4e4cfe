// What the kernel generators (ElementwiseKernel, ReductionKernel) share: parsing parameter lists and
// types, writing dialect source with the user's snippets behind #line marks, compiling it so that a
// CompileError points into the snippet that failed, and checking and converting call arguments.
// Everything here uses only the public API, so the generators stay backend-neutral.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "duet/device.hpp"
#include "duet/elementwise.hpp"
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

// A generator's compiled variants, one per combination of argument kinds. Each is compiled once,
// under the lock, so that threads making their first calls at once compile it once.
template <class Compiled>
class Variants {
 public:
  template <class Compile>
  Compiled get(const std::vector<ArgKind>& kinds, Compile&& compile) {
    const std::string key = kinds_key(kinds);
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = compiled_.find(key);
    if (found != compiled_.end()) return found->second;
    Compiled c = compile();
    compiled_.emplace(key, c);
    return c;
  }
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return compiled_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Compiled> compiled_;  // by kinds_key
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

// How a generated kernel spreads the elements over work-items.
//   grid_stride (GPUs): a capped grid strides over the elements, so a launch never has more groups
//     than fill the device. Kept as it was measured (H100, CUDA: an elementwise z = x + y at 0.90 of
//     vector_add, a sum at 0.93 of it); a change there needs a GPU to measure it.
//   blocked (CPUs): each work-item takes its own elements with no loop around the user's code.
//     PoCL runs a group as a loop over its work-items and vectorises that loop only when nothing
//     inside it loops; behind a grid-stride loop it ran 30x slower than vector_add on 2 cores.
//   vector4 (GPUs, ElementwiseKernel): where every array argument has 4-byte elements and starts
//     16 bytes aligned, a work-item per four elements, each array read and written as one 16-byte
//     vector, as vector_add does; the grid_stride kernel stays for other calls. One element per
//     load kept too few bytes in flight: z = x + y ran at 0.92 of copy where vector_add ran at 1.02
//     (H100, 2^28 floats, both backends).
// DUET_ELEMENTWISE_LAYOUT=grid_stride|blocked|vector4 forces one (the tests run each on every device).
enum class Layout { grid_stride, blocked, vector4 };
Layout layout_for(DeviceKind kind);
// The layout DUET_ELEMENTWISE_LAYOUT forces, if any (ArgumentError for an unknown name).
std::optional<Layout> forced_layout();

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
CheckedArgs check_args(const Device& device, const Queue& q, const std::vector<GeneratedParam>& params,
                       std::size_t outputs_from, const std::vector<KernelArg>& args, const std::string& what);
// A scalar converted to `to` when that loses nothing; ArgumentError (`what`) otherwise.
KernelArg convert_scalar(const KernelArg& a, ScalarType to, const std::string& what);

}  // namespace duet::detail::gen
