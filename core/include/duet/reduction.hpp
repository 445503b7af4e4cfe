// Reductions generated from a map expression, a reduce expression and an identity:
//
//   duet::ReductionKernel sum(device, "float", "float x", "x", "a + b", "0", "sum");
//   duet::ReductionKernel dot(device, "float", "float x, float y", "x * y", "a + b", "0", "dot");
//   duet::ReductionKernel max(device, "float", "float x", "x", "fmax(a, b)", "-INFINITY", "max");
//   float total = sum.reduce<float>(queue, x);   // blocking: returns the value
//   sum.reduce_into(queue, result, x);           // asynchronous: writes result[0]
//
// The result is reduce(... reduce(identity, map(0)) ..., map(n - 1)) in some order: duet maps every
// element, accumulates several elements per work-item (on GPUs with a grid-stride loop; on CPUs 32
// of them, pairwise, in a block per group, with no loop, so that PoCL vectorises across
// work-items), combines each work-group's values into one partial result, and combines the
// partials with one group: for up to single_pass_limit() elements in the same launch (the last
// group to finish does it), above that in a second launch. The reduce expression must therefore be
// associative and commutative and `identity` its neutral element (reduce(identity, x) == x); for
// floating-point sums the rounding depends on that order (and so on the device), but a given device
// and length always give the same result: which group finishes last changes nothing.
//
// Types. The result type is one of the dialect's scalar types (see elementwise.hpp); every value is
// accumulated in the result type: a float sum accumulates in float, a double or long result in
// double or long. The map expression sees the inputs (as in ElementwiseKernel), `i` (size_t, the
// element index) and `n` (ulong, the common length) and is converted to the result type. The reduce
// expression sees `a` and `b` of the result type. An optional preamble is dialect code placed before
// the kernels, for DEVICE helpers the expressions call. On CUDA duet defines INFINITY and NAN when
// the compiler does not.
//
// Calling. Arguments are the inputs in order: a Buffer<T> is an array, a plain value is broadcast
// (converted as in ElementwiseKernel). At least one input must be an array; every array must have
// the same length, which may be 0 (the result is the identity) or 1. reduce<R> and reduce_into need
// R to be exactly the result type.
//
// Errors. A malformed parameter list or result type, an unknown type, reserved or duplicate names, or
// an empty map, reduce or identity expression throw ArgumentError when the kernel is constructed.
// An expression that does not compile throws CompileError at the first call for those argument
// kinds, with source_name() "<name>.map", "<name>.reduce", "<name>.identity" or "<name>.preamble"
// and line() counting lines of that expression. Wrong arguments throw ArgumentError, arrays of
// different lengths and a result buffer of 0 elements BufferSizeError.
//
// Handles and memory. A ReductionKernel is a cheap handle: copies share the compiled variants and
// the scratch memory. It may be used from several threads at once, on their own queues or on one
// they share (calls on a shared queue take turns at its scratch while they enqueue). It keeps
// a small scratch buffer (the groups' partial results, a result slot and the one-launch pass's
// count of finished groups) for each queue it was called on, so that calls on one queue reuse it
// without allocating and calls on different queues never share it; it holds those queues (at most 8,
// the least recently used is dropped) until the kernel is destroyed. On CPUs the partials grow with
// the largest input (one value per elements_per_group() elements), allocated by the call that
// first needs them.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/elementwise.hpp"
#include "duet/export.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"
#include "duet/scalar_type.hpp"

namespace duet {

class DUET_API ReductionKernel {
 public:
  ReductionKernel() = default;
  // Parses and checks everything but the expressions' C syntax (ArgumentError); compiles nothing yet.
  ReductionKernel(const Device& device, std::string_view result_type, std::string_view inputs,
                  std::string_view map_expr, std::string_view reduce_expr, std::string_view identity,
                  std::string_view name = "reduction", std::string_view preamble = {});

  // Blocking: enqueues the reduction on q, waits for q to finish, returns the value.
  template <class R, class... Args>
  R reduce(Queue& q, const Args&... args) const {
    R value{};
    reduce_args(q, &value, scalar_type_of<R>(), sizeof(R), {KernelArg::from(args)...});
    return value;
  }
  // Asynchronous: enqueues the reduction on q, writing the value into result[0]; returns the event
  // that completes when result[0] is written.
  template <class R, class... Args>
  Event reduce_into(Queue& q, Buffer<R>& result, const Args&... args) const {
    return reduce_into_args(q, KernelArg::from(result), {KernelArg::from(args)...});
  }

  // Type-erased forms of the two calls. `result` points at `result_bytes` bytes of `result_type`.
  void reduce_args(Queue& q, void* result, ScalarType result_type, std::size_t result_bytes,
                   const std::vector<KernelArg>& args) const;
  Event reduce_into_args(Queue& q, const KernelArg& result, const std::vector<KernelArg>& args) const;

  // Compiling ahead, as in ElementwiseKernel: a call compiles the program for its input kinds the
  // first time those kinds are seen; compile_ahead does it now, so that the first call only
  // enqueues. One kind per input (the result is always a buffer or the returned value).
  //   sum.compile_ahead();                 // every input an array
  //   dot.compile_ahead({{A, A}, {A, S}}); // x and y arrays; x an array and y one value
  void compile_ahead() const;
  void compile_ahead(const std::vector<ArgKind>& kinds) const;
  void compile_ahead(const std::vector<std::vector<ArgKind>>& variants) const;
  // How many input-kind variants this kernel and its copies hold compiled; a call that compiled
  // nothing leaves it unchanged.
  std::size_t compiled_variants() const;

  // The dialect source for these input kinds (one per input), with the device's group size.
  std::string source(const std::vector<ArgKind>& kinds) const;
  // The same generator without a device, for a work-group size `group_size` (a power of two) and a
  // device of kind `device_kind` (GPUs: a grid-stride loop; CPUs: a block of 32 x group_size
  // elements per group); ArgumentError like the constructor. The program has two kernels:
  // `duet_<name>` (each group reduces its share of the inputs into partials[group]; with `single`
  // set the last group also reduces the partials into out[0]) and `duet_<name>_finish` (one group
  // reduces the partials into out[0]). Compiler logs name the expressions' lines "<name>.map:1" and
  // so on.
  static std::string generate_source(std::string_view result_type, std::string_view inputs,
                                     std::string_view map_expr, std::string_view reduce_expr,
                                     std::string_view identity, std::string_view name,
                                     const std::vector<ArgKind>& kinds, std::size_t group_size,
                                     std::string_view preamble = {}, DeviceKind device_kind = DeviceKind::gpu);

  const std::string& name() const;
  ScalarType result_type() const;
  const std::vector<GeneratedParam>& inputs() const;
  const Device& device() const;
  // Work-items per group (a power of two: at most 256 on GPUs, 1024 on CPUs); the most groups of the
  // first pass (on CPUs no limit: SIZE_MAX, a group per block); the elements one group takes per
  // sweep (on CPUs its whole block); and the most elements reduced in one launch.
  std::size_t group_size() const;
  std::size_t max_groups() const;
  std::size_t elements_per_group() const;
  std::size_t single_pass_limit() const;
  bool valid() const noexcept { return state_ != nullptr; }

  struct State;

 private:
  const State& state() const;
  std::shared_ptr<State> state_;
};

}  // namespace duet
