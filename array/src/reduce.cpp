// The reductions of duet/array_reduce.hpp: one generated source per (operation, dtypes), with several
// layouts, choose_layout picking one per shape and device. duet_reduce: work-group g makes output g:
// its work-items walk the reduced run (or every element, for a reduction over all) with a stride of
// the group's size, then combine their values in a shared-memory tree in a fixed order.
// duet_reduce_columns: work-item g makes output g, walking the run in order. duet_reduce_lanes and
// duet_reduce_tiles: the CPU layouts. The split layouts cut each run into chunks, a partial result
// per output and chunk, then fold each output's chunks in a second launch. Whichever runs, results
// repeat bit for bit. The kept axes are the output's, collapsed, at most 6 (as array_copy.duet's);
// the reduced run is one axis with a stride, or the whole array made contiguous first.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>

#include "duet/array_reduce.hpp"
#include "duet/extension.hpp"
#include "duet/generated.hpp"
#include "kernel_type.hpp"
#include "queue_scratch.hpp"

namespace duet {
namespace {

constexpr std::size_t kAxes = 6;
constexpr std::size_t kGroup = 256;

// The dialect's name of a kernel's element type (bool stored as uchar).
std::string name_of(ScalarType t) { return detail::kernel_type_name(t); }

// numpy's result dtype, and the type the values are combined in. Complex values sum, multiply and
// average in their own type; they have no order, so min, max and the arg* refuse them.
std::pair<ScalarType, ScalarType> types(ReduceOp op, ScalarType in) {
  if (is_complex(in) && op != ReduceOp::all && op != ReduceOp::any) {
    if (op != ReduceOp::sum && op != ReduceOp::prod && op != ReduceOp::mean)
      throw ArgumentError(std::string(to_string(op)) + " of " + numpy_name(in) +
                          ": complex numbers have no order; reduce abs(), real() or imag() instead");
    return {in, in};
  }
  // A bool sums and multiplies as numpy's, in the default integer type (a sum counts the trues).
  const ScalarType wide = is_float(in)                   ? in
                          : is_signed(in) || is_bool(in) ? ScalarType::i64
                                                         : ScalarType::u64;
  const ScalarType acc_of_float = compute_type(in);  // half and bfloat16 in float
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::prod:
      return {wide, is_float(in) ? acc_of_float : wide};
    case ReduceOp::mean:
      return {is_float(in) ? in : ScalarType::f64, is_float(in) ? acc_of_float : ScalarType::f64};
    case ReduceOp::min:
    case ReduceOp::max:
      return {in, is_float(in) ? acc_of_float : detail::kernel_type(in)};
    case ReduceOp::argmin:
    case ReduceOp::argmax:
      return {ScalarType::i64, is_float(in) ? acc_of_float : in};
    default:
      return {ScalarType::b8, ScalarType::u8};
  }
}

// The identity of `op` in `acc`, as dialect source.
std::string identity(ReduceOp op, ScalarType acc) {
  if (is_complex(acc)) return name_of(acc) + (op == ReduceOp::prod ? "_make(1, 0)" : "_make(0, 0)");
  const std::string t = "(" + name_of(acc) + ")";
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::mean:
    case ReduceOp::any:
      return t + "0";
    case ReduceOp::prod:
    case ReduceOp::all:
      return t + "1";
    default:
      break;
  }
  const bool low = op == ReduceOp::min || op == ReduceOp::argmin;  // the identity is the highest value
  if (is_float(acc)) return low ? t + "INFINITY" : t + "(-INFINITY)";
  auto text = [&](auto lo, auto hi) {
    std::ostringstream s;
    if (low)
      s << t << "(" << +hi << (is_signed(acc) ? "L" : "UL") << ")";
    else if (is_signed(acc))
      s << t << "(" << +(lo + 1) << "L - 1L)";  // the lowest signed value has no literal of its own
    else
      s << t << "0";
    return s.str();
  };
  switch (acc) {
    case ScalarType::i8:
      return text(std::numeric_limits<std::int8_t>::min(), std::numeric_limits<std::int8_t>::max());
    case ScalarType::u8:
      return text(0, std::numeric_limits<std::uint8_t>::max());
    case ScalarType::i16:
      return text(std::numeric_limits<std::int16_t>::min(), std::numeric_limits<std::int16_t>::max());
    case ScalarType::u16:
      return text(0, std::numeric_limits<std::uint16_t>::max());
    case ScalarType::i32:
      return text(std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
    case ScalarType::u32:
      return text(0u, std::numeric_limits<std::uint32_t>::max());
    case ScalarType::i64:
      return text(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max());
    default:
      return text(0ull, std::numeric_limits<std::uint64_t>::max());
  }
}

// The element at `at` as an `acc` (its truth, for all and any): complex values are structs, which
// take no cast, and are true where either part is nonzero.
std::string loaded(ScalarType in, ScalarType acc, bool truth, const std::string& at) {
  const std::string value = "LOAD(" + name_of(in) + ", " + at + ")";
  if (is_complex(in) && truth)
    return "(" + name_of(acc) + ")" + name_of(in) + "_ne(" + value + ", " + name_of(in) + "_make(0, 0))";
  if (is_complex(in)) return value;
  return "(" + name_of(acc) + ")(" + value + (truth ? " != 0" : "") + ")";
}

// Both kernels' parameters: the source (at an element offset), the output, the number of outputs,
// the reduced run (its length and stride) and the kept axes (sizes d0..d5, strides s0..s5, the
// innermost last).
std::string parameter_list(ScalarType in, ScalarType out) {
  std::ostringstream s;
  s << "GLOBAL const " << name_of(in) << "* src, const long src_off, GLOBAL " << name_of(out)
    << "* dst, const ulong outputs, const ulong run, const long run_stride";
  for (std::size_t d = 0; d < kAxes; ++d) s << ", const ulong d" << d;
  for (std::size_t d = 0; d < kAxes; ++d) s << ", const long s" << d;
  return s.str();
}

// `base`, the offset of output g's first element of the run, from g over the kept axes.
std::string base_of_output() {
  std::ostringstream s;
  s << "  ulong rest = g;\n  long base = src_off;\n";
  for (std::size_t d = kAxes; d-- > 0;)
    s << "  base += (long)(rest % d" << d << ") * s" << d << ";\n  rest /= d" << d << ";\n";
  return s.str();
}

// The store of output g from its value (and index, for arg*).
std::string store(ReduceOp op, ScalarType out, const std::string& acc, const std::string& value,
                  const std::string& index) {
  if (op == ReduceOp::argmin || op == ReduceOp::argmax) return "  dst[g] = (long)" + index + ";\n";
  if (op == ReduceOp::mean && is_complex(out))
    return "  STORE(" + name_of(out) + ", dst + g, " + name_of(out) + "_make(" + value + ".re / (" +
           to_string(real_type(out)) + ")run, " + value + ".im / (" + to_string(real_type(out)) + ")run));\n";
  if (op == ReduceOp::mean)
    return "  STORE(" + name_of(out) + ", dst + g, " + value + " / (" + acc + ")run);\n";
  return "  STORE(" + name_of(out) + ", dst + g, " + value + ");\n";
}

// Partial results per work-item in the CPU layouts: 64 floats are four AVX-512 vectors, which keep
// PoCL's vector units busier than 16 lanes do (bench/RESULTS.md, "kLanes").
constexpr unsigned kLanes = 64;

// One element `x` at index `r` into the partial result (v, vi): the fold of the CPU layouts.
std::string fold(bool arg, const std::string& v, const std::string& vi, const std::string& x,
                 const std::string& r) {
  if (arg)
    return "if (duet_better(" + x + ", " + r + ", " + v + ", " + vi + ")) { " + v + " = " + x + "; " + vi +
           " = " + r + "; }";
  return v + " = duet_combine(" + v + ", " + x + ");";
}

// The CPU layouts. PoCL runs a work-group's work-items one after another and vectorises a loop only
// where the innermost source loop walks consecutive addresses, so each work-item gets a contiguous
// inner loop of kLanes elements. duet_reduce_lanes (a contiguous run, many outputs): work-item g
// makes output g, folding its run into kLanes partial results (lane l takes elements l, l + kLanes,
// ...), then combines the lanes in a fixed tree. duet_reduce_tiles (a run with a stride, a
// contiguous innermost kept axis): work-item t makes kLanes neighbouring outputs of one innermost
// kept row, walking the run and folding a contiguous slice of kLanes elements per step; each output
// still folds its run in order, as duet_reduce_columns does, so the two agree bit for bit.
std::string cpu_kernels(ReduceOp op, ScalarType in, ScalarType out, ScalarType acc) {
  const bool arg = op == ReduceOp::argmin || op == ReduceOp::argmax;
  const bool truth = op == ReduceOp::all || op == ReduceOp::any;
  const std::string A = name_of(acc), lanes = std::to_string(kLanes);
  auto load = [&](const std::string& at) { return loaded(in, acc, truth, "src + " + at); };
  const std::string init =
      "  " + A + " v[" + lanes + "];\n  ulong vi[" + lanes + "];\n  for (uint l = 0; l < " + lanes +
      "u; ++l) {\n    v[l] = " + identity(op, acc) + ";\n    vi[l] = (ulong)0 - 1;\n  }\n";
  const std::string params = parameter_list(in, out);
  const std::string element = load("base + (long)(r + l) * run_stride");
  // Elements [first, last) of the run folded into kLanes lanes (lane l takes first + l, first + l
  // + kLanes, ...), then the lanes combined in a fixed tree into v[0] (vi[0]).
  auto fold_lanes = [&](const std::string& first, const std::string& last) {
    std::ostringstream w;
    w << "  ulong r = " << first << ";\n"
      << "  for (; r + " << lanes << " <= " << last << "; r += " << lanes << ") {\n"
      << "    for (uint l = 0; l < " << lanes << "u; ++l) {\n"
      << "      const " << A << " x = " << element << ";\n"
      << "      " << fold(arg, "v[l]", "vi[l]", "x", "r + l") << "\n    }\n  }\n"
      << "  for (uint l = 0; r + l < " << last << "; ++l) {\n"
      << "    const " << A << " x = " << element << ";\n"
      << "    " << fold(arg, "v[l]", "vi[l]", "x", "r + l") << "\n  }\n"
      << "  for (uint step = " << kLanes / 2 << "u; step > 0u; step >>= 1) {\n"
      << "    for (uint l = 0; l < step; ++l) {\n"
      << "      " << fold(arg, "v[l]", "vi[l]", "v[l + step]", "vi[l + step]") << "\n    }\n  }\n";
    return w.str();
  };
  std::ostringstream s;
  s << "KERNEL void duet_reduce_lanes(" << params << ") {\n"
    << "  const ulong g = (ulong)GLOBAL_ID(0);\n  if (g >= outputs) return;\n"
    << base_of_output() << init << fold_lanes("0", "run") << store(op, out, A, "v[0]", "vi[0]") << "}\n";

  // Split lanes (a contiguous run with fewer outputs than cores, the reduction over every element
  // among them): work-item t folds chunk t / outputs of output g = t % outputs's run as
  // duet_reduce_lanes folds a whole run, into part[t]; duet_reduce_join folds each output's chunks
  // in order.
  s << "KERNEL void duet_reduce_split_lanes(" << params << ", GLOBAL " << A
    << "* part, GLOBAL ulong* part_i, const ulong chunk, const ulong chunks) {\n"
    << "  const ulong t = (ulong)GLOBAL_ID(0);\n  if (t >= outputs * chunks) return;\n"
    << "  const ulong g = t % outputs, first = (t / outputs) * chunk;\n"
    << "  const ulong last = run - first < chunk ? run : first + chunk;\n"
    << base_of_output() << init << fold_lanes("first", "last") << "  part[t] = v[0];\n"
    << (arg ? "  part_i[t] = vi[0];\n" : "") << "}\n";

  // The full tile's loop has a constant trip count (a vector); the last tile of a row, shorter.
  auto walk = [&](const std::string& count) {
    std::ostringstream w;
    w << "    for (ulong r = 0; r < run; ++r) {\n"
      << "      const long at = base + (long)r * run_stride;\n"
      << "      for (uint l = 0; l < " << count << "; ++l) {\n"
      << "        const " << A << " x = " << load("at + (long)l") << ";\n"
      << "        " << fold(arg, "v[l]", "vi[l]", "x", "r") << "\n      }\n    }\n";
    return w.str();
  };
  s << "KERNEL void duet_reduce_tiles(" << params << ") {\n"
    << "  const ulong t = (ulong)GLOBAL_ID(0);\n"
    << "  const ulong tiles = (d5 + " << kLanes - 1 << ") / " << lanes << ";\n"
    << "  const ulong row = t / tiles;\n"
    << "  if (row >= outputs / d5) return;\n"
    << "  const ulong first = (t - row * tiles) * " << lanes << ";\n"
    << "  const ulong g0 = row * d5 + first;\n"
    << "  const uint count = (uint)(d5 - first < " << lanes << " ? d5 - first : " << lanes << ");\n"
    << "  const ulong g = g0;\n"
    << base_of_output() << init << "  if (count == " << lanes << "u) {\n"
    << walk(lanes + "u") << "  } else {\n"
    << walk("count") << "  }\n"
    << "  for (uint l = 0; l < count; ++l) {\n"
    << "    const ulong g = g0 + l;\n"
    << "  " << store(op, out, A, "v[l]", "vi[l]") << "  }\n}\n";
  return s.str();
}

// The two dialect kernels, duet_reduce (a work-group per output, for long contiguous runs and few
// outputs) and duet_reduce_columns (a work-item per output): a (value, index) pair per work-item
// where the op is arg*, else a value.
std::string kernel_source(ReduceOp op, ScalarType in, ScalarType out, ScalarType acc) {
  const bool arg = op == ReduceOp::argmin || op == ReduceOp::argmax;
  const bool low = op == ReduceOp::min || op == ReduceOp::argmin;
  const std::string A = name_of(acc);
  std::ostringstream s;
  // better(a, ia, b, ib): whether (a, ia) wins over (b, ib): NaN first, then the extreme, then the
  // lower index; for min and max the index is ignored.
  if (!is_complex(acc)) {
    s << "DEVICE int duet_better(const " << A << " a, const ulong ia, const " << A
      << " b, const ulong ib) {\n";
    if (is_float(acc)) s << "  if (a != a || b != b) return a != a && (b == b || ia < ib);\n";
    s << "  return a " << (low ? "<" : ">") << " b || (a == b && ia < ib);\n}\n";
  }
  s << "DEVICE " << A << " duet_combine(const " << A << " a, const " << A << " b) {\n  return ";
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::mean:
      s << (is_complex(acc) ? A + "_add(a, b)" : std::string("a + b"));
      break;
    case ReduceOp::prod:
      s << (is_complex(acc) ? A + "_mul(a, b)" : std::string("a * b"));
      break;
    case ReduceOp::all:
      s << "(" << A << ")(a != 0 && b != 0)";
      break;
    case ReduceOp::any:
      s << "(" << A << ")(a != 0 || b != 0)";
      break;
    default:
      s << "duet_better(a, 0, b, 0) ? a : b";
      break;
  }
  s << ";\n}\n";
  const std::string params = parameter_list(in, out);
  // all and any test each element against 0 before it becomes a uchar: 0.5 converted first would
  // count as 0.
  const bool truth = op == ReduceOp::all || op == ReduceOp::any;
  auto load_at = [&](const std::string& r) {
    return loaded(in, acc, truth, "src + base + (long)(" + r + ") * run_stride");
  };
  const std::string load = load_at("r");
  // A work-group's values (v, vi) combined in a shared-memory tree of kGroup in a fixed order, then
  // `finish` by work-item 0 with the result in duet_v[0] (duet_i[0]). The groups and split groups
  // layouts, and the latter's join.
  const std::string shared = "  SHARED " + A + " duet_v[" + std::to_string(kGroup) + "];\n" +
                             (arg ? "  SHARED ulong duet_i[" + std::to_string(kGroup) + "];\n" : "");
  auto tree = [&](const std::string& finish) {
    std::ostringstream t;
    t << "  duet_v[lid] = v;\n"
      << (arg ? "  duet_i[lid] = vi;\n" : "") << "  BARRIER();\n"
      << "  for (uint step = " << kGroup / 2 << "u; step > 0u; step >>= 1) {\n"
      << "    if (lid < step) {\n      "
      << fold(arg, "duet_v[lid]", "duet_i[lid]", "duet_v[lid + step]", "duet_i[lid + step]")
      << "\n    }\n    BARRIER();\n  }\n  if (lid != 0u) return;\n"
      << finish;
    return t.str();
  };
  s << "KERNEL void duet_reduce(" << params << ") {\n"
    << shared << "  const ulong g = (ulong)GROUP_ID(0);\n  const uint lid = (uint)LOCAL_ID(0);\n"
    << "  if (g >= outputs) return;\n"
    << base_of_output() << "  " << A << " v = " << identity(op, acc) << ";\n  ulong vi = (ulong)0 - 1;\n"
    << "  for (ulong r = lid; r < run; r += " << kGroup << ") {\n"
    << "    const " << A << " x = " << load << ";\n"
    << "    " << fold(arg, "v", "vi", "x", "r") << "\n  }\n"
    << tree(store(op, out, A, "duet_v[0]", "duet_i[0]")) << "}\n";

  // Columns: work-item g makes output g alone, walking the run in order. Neighbouring work-items
  // make neighbouring outputs, so where the kept innermost axis is contiguous their loads are too
  // (coalesced on GPUs, vectors on CPUs); a run with a stride (a column of a matrix) is read the way
  // memory lies, not one element per row.
  s << "KERNEL void duet_reduce_columns(" << params << ") {\n"
    << "  const ulong g = (ulong)GLOBAL_ID(0);\n"
    << "  if (g >= outputs) return;\n"
    << base_of_output() << "  " << A << " v = " << identity(op, acc) << ";\n  ulong vi = (ulong)0 - 1;\n"
    << "  for (ulong r = 0; r < run; ++r) {\n"
    << "    const " << A << " x = " << load << ";\n"
    << "    " << fold(arg, "v", "vi", "x", "r") << "\n  }\n"
    << store(op, out, A, "v", "vi") << "}\n";

  // Split (GPUs, a strided run with too few outputs to fill the device as columns): work-item t
  // makes output g = t % outputs over chunk c = t / outputs of the run, walking it in order into
  // part[t] (and part_i[t], the position, for arg*); duet_reduce_join then folds output g's chunks
  // in order. The chunking depends only on the shape and device, so results repeat bit for bit.
  s << "KERNEL void duet_reduce_split(" << params << ", GLOBAL " << A
    << "* part, GLOBAL ulong* part_i, const ulong chunk, const ulong chunks) {\n"
    << "  const ulong t = (ulong)GLOBAL_ID(0);\n"
    << "  if (t >= outputs * chunks) return;\n"
    << "  const ulong g = t % outputs, first = (t / outputs) * chunk;\n"
    << "  const ulong last = run - first < chunk ? run : first + chunk;\n"
    << base_of_output() << "  " << A << " v = " << identity(op, acc) << ";\n  ulong vi = (ulong)0 - 1;\n"
    << "  for (ulong r = first; r < last; ++r) {\n"
    << "    const " << A << " x = " << load << ";\n"
    << "    " << fold(arg, "v", "vi", "x", "r") << "\n"
    << "  }\n  part[t] = v;\n"
    << (arg ? "  part_i[t] = vi;\n" : "") << "}\n";
  s << "KERNEL void duet_reduce_join(GLOBAL const " << A << "* part, GLOBAL const ulong* part_i, GLOBAL "
    << name_of(out) << "* dst, const ulong outputs, const ulong run, const ulong chunks) {\n"
    << "  const ulong g = (ulong)GLOBAL_ID(0);\n"
    << "  if (g >= outputs) return;\n"
    << "  " << A << " v = " << identity(op, acc) << ";\n  ulong vi = (ulong)0 - 1;\n"
    << "  for (ulong c = 0; c < chunks; ++c) {\n"
    << "    const " << A << " x = part[c * outputs + g];\n"
    << (arg ? "    const ulong xi = part_i[c * outputs + g];\n" : "") << "    "
    << fold(arg, "v", "vi", "x", "xi") << "\n  }\n"
    << store(op, out, A, "v", "vi") << "}\n";

  // Split groups (GPUs, a contiguous run with too few outputs to fill the device a work-group
  // each, the reduction over every element among them): work-group t makes output g = t % outputs
  // from tiles c, c + chunks, c + 2 chunks, ... (c = t / outputs) of 4 x kGroup elements of the
  // run, into part[t]; duet_reduce_join_groups then folds output g's chunks with a work-group, in a
  // fixed tree. Interleaved tiles keep the groups together sweeping the run front to back, four
  // loads in flight per work-item, where a contiguous chunk per group (a thousand streams a megabyte
  // apart), one load at a time, fell well short of the copy bandwidth (bench/RESULTS.md, "split
  // groups"). `chunk`
  // is unused here: the parameters are duet_reduce_split's, so the host passes one list to either.
  const std::string tile = std::to_string(4 * kGroup);
  s << "KERNEL void duet_reduce_split_groups(" << params << ", GLOBAL " << A
    << "* part, GLOBAL ulong* part_i, const ulong chunk, const ulong chunks) {\n"
    << shared << "  const ulong t = (ulong)GROUP_ID(0);\n  const uint lid = (uint)LOCAL_ID(0);\n"
    << "  if (t >= outputs * chunks) return;\n"
    << "  const ulong g = t % outputs;\n"
    << base_of_output() << "  " << A << " v = " << identity(op, acc) << ";\n  ulong vi = (ulong)0 - 1;\n"
    << "  ulong r = (t / outputs) * " << tile << " + lid;\n"
    << "  for (; r + " << 3 * kGroup << " < run; r += chunks * " << tile << ") {\n";
  for (std::size_t k = 0; k < 4; ++k)
    s << "    const " << A << " x" << k << " = " << load_at("r + " + std::to_string(k * kGroup)) << ";\n";
  for (std::size_t k = 0; k < 4; ++k)
    s << "    " << fold(arg, "v", "vi", "x" + std::to_string(k), "r + " + std::to_string(k * kGroup)) << "\n";
  s << "  }\n"
    << "  for (; r < run; r += " << kGroup << ") {  // the run's last tile, short of 4 x kGroup\n"
    << "    const " << A << " x = " << load << ";\n"
    << "    " << fold(arg, "v", "vi", "x", "r") << "\n  }\n"
    << tree(std::string("  part[t] = duet_v[0];\n") + (arg ? "  part_i[t] = duet_i[0];\n" : "")) << "}\n";
  s << "KERNEL void duet_reduce_join_groups(GLOBAL const " << A
    << "* part, GLOBAL const ulong* part_i, GLOBAL " << name_of(out)
    << "* dst, const ulong outputs, const ulong run, const ulong chunks) {\n"
    << shared << "  const ulong g = (ulong)GROUP_ID(0);\n  const uint lid = (uint)LOCAL_ID(0);\n"
    << "  if (g >= outputs) return;\n"
    << "  " << A << " v = " << identity(op, acc) << ";\n  ulong vi = (ulong)0 - 1;\n"
    << "  for (ulong c = lid; c < chunks; c += " << kGroup << ") {\n"
    << "    const " << A << " x = part[c * outputs + g];\n"
    << (arg ? "    const ulong xi = part_i[c * outputs + g];\n" : "") << "    "
    << fold(arg, "v", "vi", "x", "xi") << "\n  }\n"
    << tree(store(op, out, A, "duet_v[0]", "duet_i[0]")) << "}\n";
  s << cpu_kernels(op, in, out, acc);
  return s.str();
}

// The layouts of a reduction, each one kernel of the generated source (the splits: two).
enum class ReduceLayout { groups, columns, lanes, tiles, split, split_groups, split_lanes };

// The split layout: each chunk of a run at least this long, and enough work-items (outputs x
// chunks) to keep every unit's lanes busy several times over.
constexpr std::size_t kSplitMinChunk = 32;
constexpr std::size_t kSplitItemsPerUnit = 8 * kGroup;
// The split groups layout: a chunk gives each of a group's work-items at least 16 elements, and
// the groups (outputs x chunks) number 8 per unit, 2048 work-items, as many as one unit of a large
// NVIDIA GPU holds, so one wave covers the run and one group folds the partial results.
constexpr std::size_t kSplitGroupsMinChunk = 16 * kGroup;
constexpr std::size_t kSplitGroupsPerUnit = 8;
// The split lanes layout (CPUs): 64 steps of the lanes at least per chunk, 4 chunks per core.
constexpr std::size_t kSplitLanesMinChunk = 64 * 64;
constexpr std::size_t kSplitLanesPerUnit = 4;

// Chunks of `run` for `outputs` outputs: on a forced split (tests), 7 or fewer, so that short runs
// split unevenly too.
std::size_t split_chunks(const DeviceInfo& info, ReduceLayout layout, std::size_t outputs, std::size_t run,
                         bool forced) {
  if (forced) return std::max<std::size_t>(1, std::min<std::size_t>(run, 7));
  const std::size_t units = std::max<std::size_t>(info.compute_units, 1);
  const std::size_t per_unit = layout == ReduceLayout::split_groups  ? kSplitGroupsPerUnit
                               : layout == ReduceLayout::split_lanes ? kSplitLanesPerUnit
                                                                     : kSplitItemsPerUnit;
  const std::size_t min_chunk = layout == ReduceLayout::split_groups  ? kSplitGroupsMinChunk
                                : layout == ReduceLayout::split_lanes ? kSplitLanesMinChunk
                                                                      : kSplitMinChunk;
  const std::size_t want = (per_unit * units + outputs - 1) / outputs;
  return std::max<std::size_t>(1, std::min(want, run / min_chunk));
}

// The local size of a launch of `items` work-items, one per output or (output, chunk): kGroup on
// GPUs, and on CPUs groups small enough that every core gets several.
std::size_t items_per_group(const DeviceInfo& info, std::size_t items) {
  const std::size_t units = std::max<std::size_t>(info.compute_units, 1);
  const std::size_t cap =
      info.kind == DeviceKind::gpu ? kGroup : std::max<std::size_t>(1, items / (4 * units));
  return std::min({kGroup, info.max_group_size, cap});
}

// Per queue: the split layout's partial results, grown as needed; calls on one queue run in order,
// and threads sharing the queue take turns from their first launch on it to their last.
struct SplitScratch {
  std::mutex enqueueing;
  RawBuffer part, part_i;
};

const char* kernel_name(ReduceLayout layout) {
  switch (layout) {
    case ReduceLayout::columns:
      return "duet_reduce_columns";
    case ReduceLayout::split:
      return "duet_reduce_split";
    case ReduceLayout::split_groups:
      return "duet_reduce_split_groups";
    case ReduceLayout::split_lanes:
      return "duet_reduce_split_lanes";
    case ReduceLayout::lanes:
      return "duet_reduce_lanes";
    case ReduceLayout::tiles:
      return "duet_reduce_tiles";
    default:
      return "duet_reduce";
  }
}

// The layout per shape. GPUs: a work-item per output (columns) where the run has a stride (a
// work-group would read it one element per row, uncoalesced) and the outputs fill the device, else
// a work-group per output (its loads of a contiguous run coalesce). CPUs: lanes for a contiguous run
// with at least an output per core, tiles for a strided run over contiguous outputs (as columns, but
// each step of a work-item reads kLanes consecutive elements: PoCL runs one work-item's whole column
// before the next, so columns or groups read memory a row apart at every step);
// else groups. GPUs split a strided run over contiguous outputs that are too few for columns into
// chunks (split: two launches, a partial result per output and chunk, then each output's chunks in
// order): columns on few outputs leave most lanes idle, and groups read each column one element per
// row (bench/RESULTS.md, "split"). `tiles_fit`: the innermost kept axis is
// contiguous. DUET_REDUCE_LAYOUT=groups, columns, lanes, tiles or split forces one (tiles only where
// it fits; the tests run each on every device).
ReduceLayout choose_layout(const DeviceInfo& info, std::size_t outputs, std::size_t run,
                           std::int64_t run_stride, bool tiles_fit) {
  if (const char* forced = std::getenv("DUET_REDUCE_LAYOUT"); forced && *forced) {
    if (std::strcmp(forced, "columns") == 0) return ReduceLayout::columns;
    if (std::strcmp(forced, "groups") == 0) return ReduceLayout::groups;
    if (std::strcmp(forced, "lanes") == 0) return ReduceLayout::lanes;
    if (std::strcmp(forced, "tiles") == 0) return tiles_fit ? ReduceLayout::tiles : ReduceLayout::columns;
    if (std::strcmp(forced, "split") == 0) return ReduceLayout::split;
    if (std::strcmp(forced, "split_groups") == 0) return ReduceLayout::split_groups;
    if (std::strcmp(forced, "split_lanes") == 0) return ReduceLayout::split_lanes;
    throw ArgumentError(
        std::string("DUET_REDUCE_LAYOUT=") + forced +
        " names no reduction layout: use groups, columns, lanes, tiles, split, split_groups or "
        "split_lanes, or unset it");
  }
  const std::size_t units = std::max<std::size_t>(info.compute_units, 1);
  if (info.kind == DeviceKind::gpu) {
    if (run_stride == 1)
      return outputs < 2 * units && run >= 2 * kSplitGroupsMinChunk ? ReduceLayout::split_groups
                                                                    : ReduceLayout::groups;
    if (outputs >= 64 * units) return ReduceLayout::columns;
    return tiles_fit && run >= 2 * kSplitMinChunk ? ReduceLayout::split : ReduceLayout::groups;
  }
  if (run_stride == 1)
    return outputs >= units                 ? ReduceLayout::lanes
           : run >= 2 * kSplitLanesMinChunk ? ReduceLayout::split_lanes
                                            : ReduceLayout::groups;
  return tiles_fit && outputs >= units * kLanes ? ReduceLayout::tiles : ReduceLayout::groups;
}

// `axis` of `in` counted from 0; ArgumentError when it is out of range.
std::size_t axis_index(const char* call, std::int64_t axis, const Array& in) {
  const std::int64_t n = static_cast<std::int64_t>(in.ndim());
  if (axis < -n || axis >= n)
    throw ArgumentError(std::string(call) + ": axis " + std::to_string(axis) +
                        " is out of range for an array of " + std::to_string(in.ndim()) + " dimensions " +
                        shape_text(in.shape()));
  return static_cast<std::size_t>(axis < 0 ? axis + n : axis);
}

}  // namespace

ScalarType reduction_dtype(ReduceOp op, ScalarType dtype) { return types(op, dtype).first; }

std::string reduction_source(ReduceOp op, ScalarType dtype) {
  const auto [out, acc] = types(op, dtype);
  return kernel_source(op, dtype, out, acc);
}

const char* to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return "sum";
    case ReduceOp::prod:
      return "prod";
    case ReduceOp::mean:
      return "mean";
    case ReduceOp::min:
      return "min";
    case ReduceOp::max:
      return "max";
    case ReduceOp::argmin:
      return "argmin";
    case ReduceOp::argmax:
      return "argmax";
    case ReduceOp::all:
      return "all";
    default:
      return "any";
  }
}

Array reduce(Queue& q, ReduceOp op, const Array& in, std::optional<std::int64_t> axis, bool keepdims) {
  const char* call = to_string(op);
  if (!in.valid()) throw ReleasedError(std::string(call) + ": the array is empty (default-constructed)");
  const auto [out_type, acc] = types(op, in.dtype());
  if ((real_type(out_type) == ScalarType::f64 || real_type(acc) == ScalarType::f64) &&
      !q.device().info().supports_double)
    throw ArgumentError(std::string(call) + " of " + numpy_name(in.dtype()) + " computes in " +
                        numpy_name(acc) + ", which " + q.device().info().id() +
                        " lacks; convert the array to float32 or complex64 first");
  // The reduced run: one axis, or every element (of a contiguous copy where the view is not).
  Array src = in;
  std::size_t k = 0;
  if (axis) {
    k = axis_index(call, *axis, in);
  } else {
    if (!in.contiguous()) src = in.copy(q);
    src = *src.reshape_view({std::int64_t(src.size())});
  }
  const std::size_t run = src.ndim() == 0 ? 1 : src.shape()[k];
  const bool arg = op == ReduceOp::argmin || op == ReduceOp::argmax;
  if (run == 0 && (arg || op == ReduceOp::min || op == ReduceOp::max))
    throw ArgumentError(std::string(call) + " of no elements (array " + shape_text(in.shape()) +
                        (axis ? ", axis " + std::to_string(*axis) : std::string()) + ") has no result");
  // The output's shape, and the kept axes of the source walked in its order.
  Shape shape;
  Layout kept;
  kept.offset = src.offset();
  for (std::size_t d = 0; d < src.ndim(); ++d) {
    if (d == k) continue;
    kept.shape.push_back(src.shape()[d]);
    kept.strides.push_back(src.strides()[d]);
  }
  if (axis) {
    shape = in.shape();
    if (keepdims)
      shape[k] = 1;
    else
      shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(k));
  } else if (keepdims) {
    shape.assign(in.ndim(), 1);
  }
  Array out = empty(q.device(), shape, out_type);
  if (out.size() == 0) return out;
  const Layout walk = collapsed(kept);
  if (walk.ndim() > kAxes)
    throw ArgumentError(std::string(call) + ": the kept axes need " + std::to_string(walk.ndim()) +
                        " uneven axes; at most 6 are supported (copy the array first)");
  const DeviceInfo& info = q.device().info();
  const std::int64_t run_stride = src.ndim() == 0 ? 0 : src.strides()[k];
  const bool tiles_fit = walk.ndim() == 0 || walk.strides.back() == 1 || walk.shape.back() == 1;
  const ReduceLayout layout = choose_layout(info, out.size(), run, run_stride, tiles_fit);
  // Keyed by what the source depends on (op, dtype) and the kernel: no source made on a repeat.
  const std::string signature =
      std::string("reduce/") + call + "/" + to_string(in.dtype()) + "/" + kernel_name(layout);
  const Kernel kernel = generated::cached_kernel(q.device(), signature, [&] {
    return q.device()
        .compile(reduction_source(op, in.dtype()), {}, std::string(call) + ".duet")
        .kernel(kernel_name(layout));
  });
  const RawBuffer src_arg = src.buffer().aligned_back(q.device().info().view_alignment);
  const std::int64_t skipped =
      static_cast<std::int64_t>((src.buffer().offset() - src_arg.offset()) / src.itemsize());
  std::vector<KernelArg> args{KernelArg::from_raw(src_arg, detail::kernel_type(src.dtype())),
                              KernelArg::from(skipped + walk.offset),
                              KernelArg::from_raw(out.buffer(), detail::kernel_type(out_type)),
                              KernelArg::from(std::uint64_t(out.size())),
                              KernelArg::from(std::uint64_t(run)),
                              KernelArg::from(run_stride)};
  const std::size_t skip = kAxes - walk.ndim();
  for (std::size_t d = 0; d < kAxes; ++d)
    args.push_back(KernelArg::from(std::uint64_t(d < skip ? 1 : walk.shape[d - skip])));
  for (std::size_t d = 0; d < kAxes; ++d)
    args.push_back(KernelArg::from(std::int64_t(d < skip ? 0 : walk.strides[d - skip])));
  if (layout == ReduceLayout::groups) {
    q.launch_args(kernel, Range(out.size() * kGroup), Range(kGroup), args);
  } else if (layout == ReduceLayout::split || layout == ReduceLayout::split_groups ||
             layout == ReduceLayout::split_lanes) {
    const bool groups = layout == ReduceLayout::split_groups;
    const char* forced = std::getenv("DUET_REDUCE_LAYOUT");
    const std::size_t outputs = out.size();
    std::size_t chunks = split_chunks(info, layout, outputs, run, forced && *forced);
    const std::size_t chunk = run == 0 ? 1 : (run + chunks - 1) / chunks;
    chunks = run == 0 ? 1 : (run + chunk - 1) / chunk;  // no empty chunk at the end
    const std::size_t items = outputs * chunks;
    const std::size_t acc_size = size_of(acc);
    const bool arg = op == ReduceOp::argmin || op == ReduceOp::argmax;
    const char* join_name = groups ? "duet_reduce_join_groups" : "duet_reduce_join";
    const Kernel join = generated::cached_kernel(q.device(), signature + "/join", [&] {
      return q.device()
          .compile(reduction_source(op, in.dtype()), {}, std::string(call) + ".duet")
          .kernel(join_name);
    });
    const auto scratch = extension::queue_state<SplitScratch>(
        q, "duet.array.reduce", [] { return std::make_shared<SplitScratch>(); });
    std::lock_guard<std::mutex> turn(scratch->enqueueing);
    // Grown to the need with room.
    detail::grown_scratch(q.device(), scratch->part, items * acc_size, std::size_t{1} << 16);
    const std::size_t index_bytes = arg ? items * sizeof(std::uint64_t) : sizeof(std::uint64_t);
    detail::grown_scratch(q.device(), scratch->part_i, index_bytes, std::size_t{1} << 12);
    args.push_back(KernelArg::from_raw(scratch->part, acc));
    args.push_back(KernelArg::from_raw(scratch->part_i, ScalarType::u64));
    args.push_back(KernelArg::from(std::uint64_t(chunk)));
    args.push_back(KernelArg::from(std::uint64_t(chunks)));
    // split and split lanes: a work-item per (output, chunk), then per output; split groups: a
    // group for each, always kGroup work-items (the kernels' shared trees are that size).
    const std::size_t local = items_per_group(info, items);
    if (groups)
      q.launch_args(kernel, Range(items * kGroup), Range(kGroup), args);
    else
      q.launch_args(kernel, Range((items + local - 1) / local * local), Range(local), args);
    q.launch_args(
        join, groups ? Range(outputs * kGroup) : Range((outputs + local - 1) / local * local),
        Range(groups ? kGroup : local),
        std::vector<KernelArg>{KernelArg::from_raw(scratch->part, acc),
                               KernelArg::from_raw(scratch->part_i, ScalarType::u64),
                               KernelArg::from_raw(out.buffer(), detail::kernel_type(out_type)),
                               KernelArg::from(std::uint64_t(outputs)), KernelArg::from(std::uint64_t(run)),
                               KernelArg::from(std::uint64_t(chunks))});
  } else {
    // A work-item per output, or per tile of kLanes outputs of an innermost row.
    const std::size_t rows_len = walk.ndim() == 0 ? 1 : walk.shape.back();
    const std::size_t items = layout == ReduceLayout::tiles
                                  ? out.size() / rows_len * ((rows_len + kLanes - 1) / kLanes)
                                  : out.size();
    q.launch_args(kernel, Range(items), Range(items_per_group(info, items)), args);
  }
  return out;
}

Array reduce(Queue& q, ReduceOp op, const Array& in, const std::vector<std::int64_t>& axes, bool keepdims) {
  const char* call = to_string(op);
  if (!in.valid()) throw ReleasedError(std::string(call) + ": the array is empty (default-constructed)");
  if ((op == ReduceOp::argmin || op == ReduceOp::argmax) && axes.size() != 1)
    throw ArgumentError(std::string(call) + " takes one axis or none, not " + std::to_string(axes.size()) +
                        " (as numpy's); reshape the array to merge the axes first");
  std::vector<bool> reduced(in.ndim(), false);
  for (std::int64_t axis : axes) {
    const std::size_t k = axis_index(call, axis, in);
    if (reduced[k])
      throw ArgumentError(std::string(call) + ": axis " + std::to_string(axis) + " is listed twice (axis " +
                          std::to_string(k) + " of " + shape_text(in.shape()) + ")");
    reduced[k] = true;
  }
  if (axes.size() == 1) return reduce(q, op, in, std::optional<std::int64_t>(axes[0]), keepdims);
  // The kept axes in order, then the reduced ones merged into one last axis of `run` elements.
  std::vector<std::size_t> order;
  std::vector<std::int64_t> merged_shape, kept_dims;
  std::int64_t run = 1;
  for (std::size_t k = 0; k < in.ndim(); ++k) {
    const std::int64_t len = static_cast<std::int64_t>(in.shape()[k]);
    kept_dims.push_back(reduced[k] ? 1 : len);
    if (reduced[k]) continue;
    order.push_back(k);
    merged_shape.push_back(len);
  }
  for (std::size_t k = 0; k < in.ndim(); ++k)
    if (reduced[k]) order.push_back(k), run *= static_cast<std::int64_t>(in.shape()[k]);
  merged_shape.push_back(run);
  if (run == 0 && (op == ReduceOp::min || op == ReduceOp::max))
    throw ArgumentError(std::string(call) + " of no elements (array " + shape_text(in.shape()) +
                        ", the listed axes hold none) has no result");
  const Array moved = in.ndim() == 0 ? in : in.transpose(order);
  std::optional<Array> merged = moved.reshape_view(merged_shape);
  if (!merged) merged = moved.copy(q).reshape_view(merged_shape);
  const Array out = reduce(q, op, *merged, std::optional<std::int64_t>(-1), false);
  return keepdims ? *out.reshape_view(kept_dims) : out;
}

}  // namespace duet
