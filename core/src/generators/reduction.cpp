// ReductionKernel: writes one program per combination of array and scalar inputs with two kernels.
// `<name>` maps and accumulates its group's elements, combines the group's values and writes one
// partial per group. On GPUs a capped grid strides over the input (four independent loads per step,
// so enough memory requests are in flight to reach the device's bandwidth) and groups combine in a
// SHARED-memory tree; on CPUs each group takes one block of 32 elements per work-item, written out
// without a loop so that PoCL vectorises across work-items, and work-item 0 combines (see
// generated::Layout). Up to single_pass_limit elements the last group to finish reduces the
// partials too, so a small reduction is one launch; above it `<name>_finish` does that in a second
// launch of one group. Partials and the arrival count live in a scratch buffer per queue: calls on
// one queue run in order, so they can share it without waiting, and calls on different queues never
// touch each other's. Threads sharing a queue take turns at the scratch while they enqueue, so two
// reductions' launches never interleave over the same partials.
#include "duet/reduction.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <mutex>

#include "../access.hpp"
#include "common.hpp"
#include "duet/error.hpp"

namespace duet {
namespace {

constexpr std::size_t kScratchQueues = 8;  // queues whose scratch buffers are kept
// Up to this many elements a reduction is one launch. Above it the second launch costs little next
// to the first; below it the launch is much of the time (H100: a 2^20 float sum in two launches ran
// at 169 GB/s, a 2^28 one at 2836 GB/s).
constexpr std::size_t kSinglePassLimit = std::size_t{1} << 20;
constexpr std::size_t kCpuGroupLimit = 1024;  // PoCL, 2 cores: 1024 x 32 elements per group ran best

struct Spec {
  std::string name, what, map, reduce, identity, preamble;
  ScalarType result = ScalarType::unknown;
  std::vector<GeneratedParam> inputs;
};

Spec parse_spec(std::string_view result_type, std::string_view inputs, std::string_view map_expr,
                std::string_view reduce_expr, std::string_view identity, std::string_view name,
                std::string_view preamble) {
  Spec s;
  s.name = detail::gen::check_kernel_name(name, "reduction kernel");
  s.what = "reduction kernel '" + s.name + "'";
  s.result = detail::gen::parse_type(result_type, s.what + ": the result type");
  s.inputs = detail::gen::parse_params(inputs, s.what + " inputs", false);
  detail::gen::check_unique({&s.inputs}, s.what);
  s.map = detail::gen::check_snippet(map_expr, s.what + ": the map expression");
  s.reduce = detail::gen::check_snippet(reduce_expr, s.what + ": the reduce expression");
  s.identity = detail::gen::check_snippet(
      identity, s.what + ": the identity (the neutral element of the reduce expression, e.g. 0 for a + b)");
  s.preamble = std::string(preamble);
  return s;
}

std::string file_of(const Spec& s) { return s.name + ".reduction"; }
// The entry points are prefixed: a kernel may not share its name with an OpenCL built-in (dot, max).
// The helpers carry the name too, so that no kernel name makes an entry point equal to a helper.
std::string entry_of(const Spec& s) { return "duet_" + s.name; }
std::string map_of(const Spec& s) { return "duet_map_" + s.name; }
std::string reduce_of(const Spec& s) { return "duet_reduce_" + s.name; }
std::string identity_of(const Spec& s) { return "duet_identity_" + s.name; }

// `R name(params) { return (R)(<snippet>); }` with the snippet behind its own #line mark.
void write_function(detail::gen::SourceWriter& w, const std::string& signature, const std::string& r,
                    const std::string& file, const std::string& code) {
  w.line("DEVICE " + signature + " {");
  w.line("  return (" + r + ")(");
  w.snippet(file, code);
  w.line("  );");
  w.line("}");
}

// Elements each work-item of a blocked (CPU) first pass takes, written out one by one: a loop there
// would stop PoCL from vectorising across work-items. They come in runs of kRun consecutive
// elements, the runs group * kRun apart, so a vectorised step reads a few long stretches of memory
// (PoCL, 2 cores, 2^22 floats: 21 GB/s, against 16 GB/s for single elements 2048 apart). The
// group's block is kPerItem * group long.
constexpr std::size_t kPerItem = 32;
constexpr std::size_t kRun = 4;

// How a group combines its work-items' values, each in duet_acc; the result ends in duet_shared[0].
// GPUs: a tree over SHARED memory, one level per barrier. CPUs: work-item 0 folds the values in
// halves alone: one barrier instead of log2(group) (each barrier splits PoCL's loop over the
// work-items), and the same rounding depth as the tree.
void write_combine(detail::gen::SourceWriter& w, const std::string& reduce, std::size_t group,
                   generated::Layout layout, const std::string& indent) {
  const std::string half = std::to_string(group / 2) + "u";
  w.line(indent + "duet_shared[duet_lid] = duet_acc;");
  w.line(indent + "BARRIER();");
  if (layout == generated::Layout::grid_stride) {
    w.line(indent + "for (uint duet_s = " + half + "; duet_s > 0u; duet_s >>= 1) {");
    w.line(indent + "  if (duet_lid < duet_s)");
    w.line(indent + "    duet_shared[duet_lid] = " + reduce + "(duet_shared[duet_lid], duet_shared[duet_lid + duet_s]);");
    w.line(indent + "  BARRIER();");
    w.line(indent + "}");
  } else {
    w.line(indent + "if (duet_lid == 0u)");
    w.line(indent + "  for (uint duet_s = " + half + "; duet_s > 0u; duet_s >>= 1)");
    w.line(indent + "    for (uint duet_k = 0u; duet_k < duet_s; ++duet_k)");
    w.line(indent + "      duet_shared[duet_k] = " + reduce + "(duet_shared[duet_k], duet_shared[duet_k + duet_s]);");
  }
}

// Reduces partials[0 .. count) into duet_shared[0] with the whole group, in an order that depends
// only on count: the finishing kernel and the last group of a single pass give the same bits.
void write_partials_sum(detail::gen::SourceWriter& w, const std::string& reduce, const std::string& identity,
                        const std::string& partials, const std::string& count, std::size_t group,
                        generated::Layout layout, const std::string& indent) {
  w.line(indent + "duet_acc = " + identity + ";");
  w.line(indent + "for (size_t duet_j = duet_lid; duet_j < " + count + "; duet_j += " + std::to_string(group) + ")");
  w.line(indent + "  duet_acc = " + reduce + "(duet_acc, " + partials + "[duet_j]);");
  write_combine(w, reduce, group, layout, indent);
}

// "red(red(a, b), red(c, d))": the values combined pairwise, which also keeps a float sum's
// rounding depth at log2 of their number.
std::string pairwise(const std::string& reduce, std::vector<std::string> values) {
  while (values.size() > 1) {
    std::vector<std::string> next;
    for (std::size_t k = 0; k + 1 < values.size(); k += 2)
      next.push_back(reduce + "(" + values[k] + ", " + values[k + 1] + ")");
    if (values.size() % 2) next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

std::string generate(const Spec& s, const std::vector<ArgKind>& kinds, std::size_t group,
                     generated::Layout layout) {
  using detail::gen::dialect_type;
  if (kinds.size() != s.inputs.size())
    throw ArgumentError(s.what + ": " + std::to_string(kinds.size()) + " argument kinds given for " +
                        std::to_string(s.inputs.size()) + " inputs");
  if (std::find(kinds.begin(), kinds.end(), ArgKind::array) == kinds.end())
    throw ArgumentError(s.what + " needs at least one array input: the arrays give the length");
  for (std::size_t k = 0; k < s.inputs.size(); ++k)
    if (is_storage_only(s.inputs[k].type) && kinds[k] != ArgKind::array)
      throw ArgumentError(s.what + ": " + dialect_type(s.inputs[k].type) + " parameter '" + s.inputs[k].name +
                          "' needs a Buffer<duet::" + dialect_type(s.inputs[k].type) +
                          ">; a single value is passed as float (declare it float)");
  if (group == 0 || (group & (group - 1)) != 0)
    throw ArgumentError(s.what + ": the group size " + std::to_string(group) + " is not a power of two");
  const std::string r = dialect_type(s.result);
  const std::string g = std::to_string(group);
  const bool blocked = layout == generated::Layout::blocked;

  detail::gen::SourceWriter w(file_of(s));
  w.line("// Generated by duet::ReductionKernel '" + s.name + "': " + r + " from " +
         detail::gen::describe(s.inputs) + ", work-groups of " + g +
         (blocked ? ", a block of " + std::to_string(kPerItem * group) + " elements per group."
                  : ", a grid-stride loop."));
  std::string kinds_text;
  for (std::size_t k = 0; k < s.inputs.size(); ++k)
    kinds_text += (k ? ", " : "") + s.inputs[k].name + (kinds[k] == ArgKind::array ? " array" : " scalar");
  w.line("// inputs: " + kinds_text);
  // The single pass's last group must see every group's partial: each group's partial is visible
  // device-wide before its arrival is counted.
  w.line("#if defined(DUET_CUDA)");
  w.line("#define DUET_FENCE() __threadfence()");
  w.line("#else");
  w.line("#define DUET_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)");
  w.line("#endif");
  if (!s.preamble.empty()) w.snippet(s.name + ".preamble", s.preamble);

  const std::string red = reduce_of(s), id = identity_of(s) + "()";
  write_function(w, r + " " + identity_of(s) + "(void)", r, s.name + ".identity", s.identity);
  write_function(w, r + " " + red + "(const " + r + " a, const " + r + " b)", r, s.name + ".reduce",
                 s.reduce);
  std::string map_params;
  for (const GeneratedParam& p : s.inputs)
    map_params += "const " + std::string(dialect_type(compute_type(p.type))) + " " + p.name + ", ";
  write_function(w, r + " " + map_of(s) + "(" + map_params + "const size_t i, const ulong n)", r,
                 s.name + ".map", s.map);

  // duet_map's arguments at element index `at`.
  auto map_call = [&](const std::string& at) {
    std::string call = map_of(s) + "(";
    for (std::size_t k = 0; k < s.inputs.size(); ++k)
      call += kinds[k] != ArgKind::array ? s.inputs[k].name + ", "
              // bfloat16 is loaded as a float: the map and the accumulation work in float.
              : is_storage_only(s.inputs[k].type)
                  ? "LOAD(" + std::string(dialect_type(s.inputs[k].type)) + ", duet_" + s.inputs[k].name + " + (" +
                        at + ")), "
                  : "duet_" + s.inputs[k].name + "[" + at + "], ";
    return call + at + ", n)";
  };
  std::string params;
  for (std::size_t k = 0; k < s.inputs.size(); ++k) {
    const GeneratedParam& p = s.inputs[k];
    params += kinds[k] == ArgKind::array
                  ? "GLOBAL const " + std::string(dialect_type(p.type)) + "* duet_" + p.name
                  : "const " + std::string(dialect_type(p.type)) + " " + p.name;
    params += ", ";
  }

  // First pass: every group reduces its elements into duet_partials[group]. With duet_single set,
  // the last group to arrive also reduces the partials into duet_out[0] and resets the count for
  // the next call; which group is last changes nothing in the result.
  w.line("KERNEL void " + entry_of(s) + "(" + params + "GLOBAL " + r + "* duet_partials, GLOBAL " + r +
         "* duet_out, GLOBAL uint* duet_arrived, const ulong n, const uint duet_single) {");
  w.line("  SHARED " + r + " duet_shared[" + g + "];");
  w.line("  SHARED uint duet_last;");
  w.line("  const uint duet_lid = (uint)LOCAL_ID(0);");
  w.line("  " + r + " duet_acc = " + id + ";");
  if (blocked) {
    // Work-item j takes the runs starting at base + kRun j, base + kRun (j + group), ...: together
    // the work-items' runs tile the block.
    const std::string block = std::to_string(kPerItem * group);
    w.line("  const size_t duet_block = (size_t)GROUP_ID(0) * " + block + "u;");
    w.line("  const size_t duet_i = duet_block + " + std::to_string(kRun) + "u * duet_lid;");
    std::vector<std::string> whole, edge;
    for (std::size_t k = 0; k < kPerItem; ++k) {
      const std::string at = "duet_i + " + std::to_string(k / kRun * kRun * group + k % kRun) + "u";
      whole.push_back(map_call(at));
      edge.push_back("(" + at + " < n ? " + map_call(at) + " : " + id + ")");
    }
    w.line("  if (duet_block + " + block + "u <= n)");
    w.line("    duet_acc = " + pairwise(red, whole) + ";");
    w.line("  else");
    w.line("    duet_acc = " + pairwise(red, edge) + ";");
  } else {
    w.line("  const size_t duet_stride = GLOBAL_SIZE(0);");
    w.line("  size_t duet_i = GLOBAL_ID(0);");
    w.line("  for (; duet_i + 3 * duet_stride < n; duet_i += 4 * duet_stride) {");
    w.line("    const " + r + " duet_m0 = " + map_call("duet_i") + ";");
    w.line("    const " + r + " duet_m1 = " + map_call("duet_i + duet_stride") + ";");
    w.line("    const " + r + " duet_m2 = " + map_call("duet_i + 2 * duet_stride") + ";");
    w.line("    const " + r + " duet_m3 = " + map_call("duet_i + 3 * duet_stride") + ";");
    w.line("    duet_acc = " + red + "(duet_acc, " + red + "(" + red + "(duet_m0, duet_m1), " + red +
           "(duet_m2, duet_m3)));");
    w.line("  }");
    w.line("  for (; duet_i < n; duet_i += duet_stride) duet_acc = " + red + "(duet_acc, " +
           map_call("duet_i") + ");");
  }
  write_combine(w, red, group, layout, "  ");
  w.line("  if (duet_lid == 0u) {");
  w.line("    duet_partials[GROUP_ID(0)] = duet_shared[0];");
  w.line("    duet_last = 0u;");
  w.line("    if (duet_single != 0u) {");
  w.line("      DUET_FENCE();");
  w.line("      duet_last = ATOMIC_ADD_UINT(duet_arrived, 1u) == (uint)NUM_GROUPS(0) - 1u ? 1u : 0u;");
  w.line("    }");
  w.line("  }");
  w.line("  BARRIER();");
  // duet_last is the same for the whole group, so the barriers inside are reached by all or none.
  w.line("  if (duet_last != 0u) {");
  w.line("    DUET_FENCE();");
  // volatile: read from memory, not from a cache that may predate the other groups' writes.
  write_partials_sum(w, red, id, "((GLOBAL volatile " + r + "*)duet_partials)", "(size_t)NUM_GROUPS(0)", group,
                     layout, "    ");
  w.line("    if (duet_lid == 0u) {");
  w.line("      duet_out[0] = duet_shared[0];");
  w.line("      duet_arrived[0] = 0u;");
  w.line("    }");
  w.line("  }");
  w.line("}");

  // Second pass of a large reduction: one group reduces the partials into duet_out[0].
  w.line("KERNEL void " + entry_of(s) + "_finish(GLOBAL const " + r + "* duet_partials, GLOBAL " + r +
         "* duet_out, const ulong duet_count) {");
  w.line("  SHARED " + r + " duet_shared[" + g + "];");
  w.line("  const uint duet_lid = (uint)LOCAL_ID(0);");
  w.line("  " + r + " duet_acc;");
  write_partials_sum(w, red, id, "duet_partials", "duet_count", group, layout, "  ");
  w.line("  if (duet_lid == 0u) duet_out[0] = duet_shared[0];");
  w.line("}");
  return w.text();
}

}  // namespace

struct ReductionKernel::State {
  Device device;
  Spec spec;
  generated::Layout layout = generated::Layout::grid_stride;
  std::size_t group = 256;
  std::size_t max_groups = 1;  // grid_stride; blocked has a group per block

  // Elements one group takes per sweep: the blocked layout's block; a grid_stride group's first step.
  std::size_t per_group() const {
    return (layout == generated::Layout::blocked ? kPerItem : 4) * group;
  }
  std::size_t groups_for(std::size_t n) const {
    const std::size_t groups = std::max<std::size_t>(1, (n + per_group() - 1) / per_group());
    return layout == generated::Layout::blocked ? groups : std::min(max_groups, groups);
  }

  struct Kernels {
    Kernel first, finish;
  };
  detail::gen::Variants<Kernels> variants;

  // Per-queue scratch: the queue is held so that its address stays unique while the entry lives.
  struct Scratch {
    Queue queue;
    RawBuffer partials, result, arrived;  // arrived: the single pass's count of finished groups
    std::uint64_t last_use = 0;
    std::mutex enqueueing;  // held until a reduction's last work on the scratch is enqueued
  };
  // The scratch a reduction used (none when it needed none), held by it until `turn` is released.
  struct Used {
    std::shared_ptr<Scratch> scratch;
    std::unique_lock<std::mutex> turn;
  };
  std::mutex scratch_mutex;
  std::vector<std::shared_ptr<Scratch>> scratch;
  std::uint64_t clock = 0;

  Kernels variant(const std::vector<ArgKind>& kinds) {
    return variants.get(kinds, [&] {
      const Program p = detail::gen::compile(device, generate(spec, kinds, group, layout), file_of(spec));
      return Kernels{p.kernel(entry_of(spec)), p.kernel(entry_of(spec) + "_finish")};
    });
  }

  std::shared_ptr<Scratch> scratch_for(Queue& q) {
    std::lock_guard<std::mutex> lock(scratch_mutex);
    const void* key = &detail::Access::queue(q);
    for (const auto& s : scratch)
      if (&detail::Access::queue(s->queue) == key) {
        s->last_use = ++clock;
        return s;
      }
    auto s = std::make_shared<Scratch>();
    s->queue = q;
    const std::size_t bytes = size_of(spec.result);
    s->partials = RawBuffer(device, groups_for(kSinglePassLimit) * bytes);
    s->result = RawBuffer(device, bytes);
    s->arrived = RawBuffer(device, sizeof(std::uint32_t));
    // Zero before any reduction on q (which runs in order); the last group of each single pass
    // leaves it zero again.
    const std::uint32_t zero = 0;
    q.fill_bytes(s->arrived, 0, sizeof zero, &zero, sizeof zero);
    s->last_use = ++clock;
    if (scratch.size() >= kScratchQueues) {
      // Dropping a scratch buffer still in use is safe: its memory is freed after the work using it.
      auto oldest = std::min_element(scratch.begin(), scratch.end(),
                                     [](const auto& a, const auto& b) { return a->last_use < b->last_use; });
      scratch.erase(oldest);
    }
    scratch.push_back(s);
    return s;
  }

  // Checks the inputs and enqueues their reduction into `target`, a buffer of the result type with
  // at least one element, or with none into this queue's result slot. Returns the scratch it used,
  // still held: the caller enqueues its read of the result slot before letting it go.
  Used enqueue(Queue& q, const std::vector<KernelArg>& args, const KernelArg* target_or_null) {
    detail::gen::CheckedArgs checked =
        detail::gen::check_generated_args(device, q, spec.inputs, spec.inputs.size(), args, spec.what);
    if (!checked.any_array)
      throw ArgumentError(spec.what +
                          " needs at least one input passed as a Buffer: the arrays give the length");
    const Kernels k = variant(checked.kinds);
    const std::size_t n = checked.length;
    const std::size_t groups = groups_for(n);
    const bool single = n <= kSinglePassLimit;
    Used used;
    used.scratch = scratch_for(q);
    used.turn = std::unique_lock<std::mutex>(used.scratch->enqueueing);
    Scratch& scratch = *used.scratch;
    const std::size_t bytes = size_of(spec.result);
    if (scratch.partials.bytes() < groups * bytes)
      scratch.partials = RawBuffer(device, groups * bytes);  // the old one lives until its work is done
    const KernelArg partials = KernelArg::from_raw(scratch.partials, spec.result);
    const KernelArg target = target_or_null ? *target_or_null : KernelArg::from_raw(scratch.result, spec.result);
    checked.launch.push_back(partials);
    checked.launch.push_back(target);
    checked.launch.push_back(KernelArg::from_raw(scratch.arrived, ScalarType::u32));
    checked.launch.push_back(KernelArg::from(static_cast<std::uint64_t>(n)));
    checked.launch.push_back(KernelArg::from(static_cast<std::uint32_t>(single ? 1 : 0)));
    q.launch_args(k.first, Range(groups * group), Range(group), checked.launch);
    if (!single)
      q.launch_args(k.finish, Range(group), Range(group),
                    {partials, target, KernelArg::from(static_cast<std::uint64_t>(groups))});
    return used;
  }
};

ReductionKernel::ReductionKernel(const Device& device, std::string_view result_type, std::string_view inputs,
                                 std::string_view map_expr, std::string_view reduce_expr,
                                 std::string_view identity, std::string_view name,
                                 std::string_view preamble) {
  auto state = std::make_shared<State>();
  const DeviceInfo& info = device.info();  // throws on an empty handle
  state->device = device;
  state->spec = parse_spec(result_type, inputs, map_expr, reduce_expr, identity, name, preamble);
  auto no_half = [&](ScalarType t, const std::string& what) {
    if (t == ScalarType::f16)
      throw ArgumentError(state->spec.what + ": " + what +
                          " is half, which reductions do not support; reduce float (half is a storage "
                          "type: convert with an ElementwiseKernel first)");
  };
  no_half(state->spec.result, "the result type");
  auto bfloat16_result = [&](ScalarType t, const std::string& what) {
    if (t == ScalarType::bf16)
      throw ArgumentError(state->spec.what + ": " + what +
                          " is bfloat16, which reductions do not produce; reduce to float (bfloat16 "
                          "inputs are read as float, and the reduction accumulates in float)");
  };
  bfloat16_result(state->spec.result, "the result type");
  for (const GeneratedParam& p : state->spec.inputs) no_half(p.type, "parameter '" + p.name + "'");
  detail::gen::require_type_support(info, state->spec.result, state->spec.what, "the result type");
  for (const GeneratedParam& p : state->spec.inputs)
    detail::gen::require_type_support(info, p.type, state->spec.what, "parameter '" + p.name + "'");
  state->layout = generated::layout_for(info.kind);
  state->group = detail::gen::group_size(info);
  if (state->layout == generated::Layout::blocked) {
    // Larger groups on a CPU: a group's fixed cost (starting it, its barrier, work-item 0's combine)
    // is paid per block, and PoCL runs a group's work-items as one vectorised loop anyway. The
    // SHARED array must fit in half the local memory.
    const std::size_t bytes = size_of(state->spec.result);
    std::size_t g = kCpuGroupLimit;
    while (g > state->group && (g > info.max_group_size || g * bytes > info.local_memory_bytes / 2)) g /= 2;
    state->group = g;
  }
  // About one group per 256 resident work-items on a GPU; the second pass takes at most 1024 partials.
  state->max_groups = state->layout == generated::Layout::blocked
                          ? std::numeric_limits<std::size_t>::max()
                          : std::min<std::size_t>(1024, std::max<std::size_t>(1, info.compute_units) * 8);
  state_ = std::move(state);
}

const ReductionKernel::State& ReductionKernel::state() const {
  if (!state_)
    throw ReleasedError("the ReductionKernel is empty; construct it from a device and its expressions");
  return *state_;
}

const std::string& ReductionKernel::name() const { return state().spec.name; }
ScalarType ReductionKernel::result_type() const { return state().spec.result; }
const std::vector<GeneratedParam>& ReductionKernel::inputs() const { return state().spec.inputs; }
const Device& ReductionKernel::device() const { return state().device; }
std::size_t ReductionKernel::group_size() const { return state().group; }
std::size_t ReductionKernel::max_groups() const { return state().max_groups; }
std::size_t ReductionKernel::elements_per_group() const { return state().per_group(); }
std::size_t ReductionKernel::single_pass_limit() const { return kSinglePassLimit; }

std::string ReductionKernel::source(const std::vector<ArgKind>& kinds) const {
  return generate(state().spec, kinds, state().group, state().layout);
}

std::string ReductionKernel::generate_source(std::string_view result_type, std::string_view inputs,
                                             std::string_view map_expr, std::string_view reduce_expr,
                                             std::string_view identity, std::string_view name,
                                             const std::vector<ArgKind>& kinds, std::size_t group_size,
                                             std::string_view preamble, DeviceKind device_kind) {
  return generate(parse_spec(result_type, inputs, map_expr, reduce_expr, identity, name, preamble), kinds,
                  group_size, generated::layout_for(device_kind));
}

void ReductionKernel::compile_ahead() const {
  compile_ahead(std::vector<ArgKind>(state().spec.inputs.size(), ArgKind::array));
}

void ReductionKernel::compile_ahead(const std::vector<ArgKind>& kinds) const {
  const_cast<State&>(state()).variant(kinds);
}

void ReductionKernel::compile_ahead(const std::vector<std::vector<ArgKind>>& variants) const {
  for (const std::vector<ArgKind>& kinds : variants) compile_ahead(kinds);
}

std::size_t ReductionKernel::compiled_variants() const { return state().variants.size(); }

void ReductionKernel::reduce_args(Queue& q, void* result, ScalarType result_type, std::size_t result_bytes,
                                  const std::vector<KernelArg>& args) const {
  State& s = const_cast<State&>(state());
  if (result_type != s.spec.result || result_bytes != size_of(s.spec.result))
    throw ArgumentError(s.spec.what + " returns " + to_string(s.spec.result) + ", but reduce was asked for " +
                        (result_type == ScalarType::unknown ? std::to_string(result_bytes) + "-byte values"
                                                            : std::string(to_string(result_type))) +
                        "; call reduce<" + detail::gen::dialect_type(s.spec.result) + "> (" +
                        to_string(s.spec.result) + " is the dialect name)");
  {
    const State::Used used = s.enqueue(q, args, nullptr);
    q.read_bytes(used.scratch->result, 0, result, result_bytes, "reduction result");
  }
  q.finish();
}

Event ReductionKernel::reduce_into_args(Queue& q, const KernelArg& result,
                                       const std::vector<KernelArg>& args) const {
  State& s = const_cast<State&>(state());
  if (result.kind != KernelArg::Kind::buffer)
    throw ArgumentError(s.spec.what + ": the result must be a Buffer<" + to_string(s.spec.result) + ">");
  result.buffer->check_live("result buffer");
  if (result.type != s.spec.result)
    throw ArgumentError(s.spec.what + " returns " + to_string(s.spec.result) +
                        ", but the result buffer is a Buffer<" + to_string(result.type) + ">");
  if (result.buffer->bytes() < size_of(s.spec.result))
    throw BufferSizeError(s.spec.what + ": the result buffer holds 0 elements; it needs 1");
  s.enqueue(q, args, &result);
  return q.record();
}

}  // namespace duet
