// Elementwise kernels generated from a one-line body. duet writes the dialect kernel around the body,
// compiles it on first use (or ahead: compile_ahead) for each combination of array and scalar
// arguments, and runs it over the common length of the arrays:
//
//   duet::ElementwiseKernel leaky(device, "float x, float slope", "float y",
//                                 "y = x > 0 ? x : slope * x", "leaky_relu");
//   leaky(queue, x, 0.1f, y);  // x, y: Buffer<float> of the same length; 0.1f is broadcast
//
// Parameters. The input and output lists are comma-separated `type name` pairs. Types are the
// dialect's scalar types: char, uchar, short, ushort, int, uint, long, ulong (long and ulong are
// 64-bit), float and double (double only on devices with DeviceInfo::supports_double), and half
// for arrays only (Buffer<duet::half>: the body sees a float local, stored back rounded to nearest
// even; a single half value is passed as float); the C
// spellings `unsigned int`, `unsigned char`, `long long`, ... are accepted too. A leading `const`
// is allowed and ignored. Names are identifiers; `i`, `n`, names starting with `duet_` and C or
// dialect keywords are reserved. The input list may be empty; the output list may not.
//
// The body. One or more statements (a final `;` may be left out) that see every input as a local
// constant of its type, every output as a local variable that starts at 0, `i` (size_t, the element
// index) and `n` (ulong, the common length). After the body each output is stored to its array at
// index i. An output is never read from its array: to update an array in place, pass the same
// buffer as an input and as an output. An optional preamble is dialect code placed before the
// kernel, for DEVICE helper functions the body calls. On CUDA duet defines INFINITY and NAN when
// the compiler does not.
//
// Calling. Arguments come in the order inputs then outputs. An input given as a Buffer<T> is an
// array read at index i; an input given as a plain value is broadcast to every element. Outputs must
// be buffers. Buffers must hold exactly the declared element type; plain values are converted to
// the declared type when that loses nothing (an integer in range; a whole number for an integer
// parameter; any number for float and double). Every array must have the same length, which may be
// 0 (nothing runs) or 1.
//
// Errors. A malformed parameter list, an unknown type, a reserved or duplicate name or an empty
// body throw ArgumentError when the kernel is constructed. A body that does not compile throws
// CompileError at the first call for those argument kinds; its line() counts lines of the body
// (line 1 is the body's first line) and source_name() is "<name>.body" (or "<name>.preamble").
// Wrong argument count, kind or type throw ArgumentError; arrays of different lengths throw
// BufferSizeError naming both parameters.
//
// Launch. Where every array has 4-byte elements and starts 16 bytes aligned, each work-item takes
// four elements as 16-byte vectors, the form of the hand-written vector_add, on every device.
// Otherwise, on GPUs a grid of at most 32 groups per compute unit strides over the elements; on
// CPUs each work-item takes one element with no loop around the body, which lets PoCL vectorise
// across work-items.
//
// Handles. An ElementwiseKernel is a cheap handle: copies share the compiled variants. It may be
// used from several threads at once. Calls are asynchronous like Queue::launch.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/export.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"
#include "duet/scalar_type.hpp"

namespace duet {

// How one argument of a generated kernel is passed: an array (Buffer<T>) read or written at index
// i, or a scalar broadcast to every element.
enum class ArgKind { array, scalar };

// A parameter of a generated kernel, as parsed from its parameter list.
struct GeneratedParam {
  ScalarType type = ScalarType::unknown;
  std::string name;
};

class DUET_API ElementwiseKernel {
 public:
  ElementwiseKernel() = default;
  // Parses and checks the lists, the body and the name (ArgumentError); compiles nothing yet.
  ElementwiseKernel(const Device& device, std::string_view inputs, std::string_view outputs,
                    std::string_view body, std::string_view name = "elementwise",
                    std::string_view preamble = {});

  // Asynchronous: enqueues the kernel on q and returns its event. Inputs, then outputs.
  template <class... Args>
  Event operator()(Queue& q, const Args&... args) const {
    return call(q, {KernelArg::from(args)...});
  }
  Event call(Queue& q, const std::vector<KernelArg>& args) const;

  // The compiled kernel for one combination of argument kinds (inputs then outputs; outputs are
  // always arrays), compiling it on first use. Calling it early reports a CompileError before any
  // data is involved.
  Kernel kernel(const std::vector<ArgKind>& kinds) const;

  // Compiling ahead. A call compiles the variant for its argument kinds the first time those kinds
  // are seen, which takes milliseconds to seconds; compile_ahead does it now, so that the first call
  // (a timed one, say) only enqueues. Blocking; CompileError and ArgumentError as for kernel().
  //   k.compile_ahead();                     // every argument an array: k(q, x, y, z)
  //   k.compile_ahead({A, S, A});            // x an array, the second input a value: k(q, x, 0.1f, y)
  //   k.compile_ahead({{A, A, A}, {A, S, A}});  // both
  // (A = ArgKind::array, S = ArgKind::scalar; one kind per parameter, inputs then outputs.)
  void compile_ahead() const;
  void compile_ahead(const std::vector<ArgKind>& kinds) const;
  void compile_ahead(const std::vector<std::vector<ArgKind>>& variants) const;
  // How many variants this kernel and its copies hold compiled. A call whose variant is compiled
  // already leaves it unchanged: that is how to tell that a call compiled nothing.
  std::size_t compiled_variants() const;
  // The dialect source duet generates for these argument kinds.
  std::string source(const std::vector<ArgKind>& kinds) const;

  // The same generator without a device (for offline compiles, e.g. compile_for_cuda_arch), for a
  // device of kind `device_kind`: GPUs get a grid-stride loop (any grid covers every element), CPUs
  // one element per work-item (the grid must have a work-item for every element), and both, where
  // every array has 4-byte elements, a second kernel `duet_<name>_v4` that takes four elements per
  // work-item as 16-byte vectors (calls whose arrays start 16 bytes aligned run it). Throws
  // ArgumentError like the constructor. The kernel is called `duet_<name>` (a prefix, so that no name
  // collides with an OpenCL built-in such as dot or max); compiler logs name the body's lines
  // "<name>.body:1" (NVRTC: "<name>.body(1)").
  static std::string generate_source(std::string_view inputs, std::string_view outputs, std::string_view body,
                                     std::string_view name, const std::vector<ArgKind>& kinds,
                                     std::string_view preamble = {}, DeviceKind device_kind = DeviceKind::gpu);

  const std::string& name() const;
  const std::vector<GeneratedParam>& inputs() const;
  const std::vector<GeneratedParam>& outputs() const;
  const Device& device() const;
  bool valid() const noexcept { return state_ != nullptr; }

  struct State;

 private:
  const State& state() const;
  std::shared_ptr<State> state_;
};

}  // namespace duet
