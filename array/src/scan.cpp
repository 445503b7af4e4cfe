// cumsum() of duet/array_scan.hpp: one generated kernel per input dtype. Work-group g scans row g
// (its position along the other axes, collapsed as reduce.cpp's kept axes, at most 6): a chunk of
// kChunk elements is read into shared memory (consecutive work-items, consecutive elements), each
// work-item adds up its kPerItem neighbours in order, the kGroup partial totals are scanned
// Hillis-Steele style, and every element is written as carry + the totals before its piece + its
// sum within the piece. Every order is fixed, hence deterministic.
#include <sstream>

#include "duet/array_reduce.hpp"
#include "duet/array_scan.hpp"
#include "duet/extension.hpp"

namespace duet {
namespace {

constexpr std::size_t kAxes = 6;
constexpr std::size_t kGroup = 256;
constexpr std::size_t kPerItem = 8;
constexpr std::size_t kChunk = kGroup * kPerItem;

ScalarType accumulator(ScalarType out) { return out == ScalarType::f16 ? ScalarType::f32 : out; }

std::string kernel_source(ScalarType in, ScalarType out) {
  const std::string I = to_string(in), O = to_string(out), A = to_string(accumulator(out));
  const std::string zero = "(" + A + ")0";
  std::ostringstream s;
  s << "KERNEL void duet_cumsum(GLOBAL const " << I << "* src, const long src_off, GLOBAL " << O
    << "* dst, const long dst_off, const ulong rows, const ulong run, const long src_step, const long "
       "dst_step";
  for (std::size_t d = 0; d < kAxes; ++d) s << ", const ulong d" << d;
  for (std::size_t d = 0; d < kAxes; ++d) s << ", const long s" << d;
  for (std::size_t d = 0; d < kAxes; ++d) s << ", const long o" << d;
  s << ") {\n"
    << "  SHARED " << A << " duet_x[" << kChunk << "];\n"
    << "  SHARED " << A << " duet_t[" << kGroup << "];\n"
    << "  const ulong g = (ulong)GROUP_ID(0);\n"
    << "  const uint lid = (uint)LOCAL_ID(0);\n"
    << "  if (g >= rows) return;\n"
    << "  ulong rest = g;\n  long src_at = src_off, dst_at = dst_off;\n";
  for (std::size_t d = kAxes; d-- > 0;)
    s << "  {\n    const long at = (long)(rest % d" << d << ");\n    rest /= d" << d
      << ";\n    src_at += at * s" << d << ";\n    dst_at += at * o" << d << ";\n  }\n";
  s << "  " << A << " carry = " << zero << ";\n"
    << "  for (ulong start = 0; start < run; start += " << kChunk << ") {\n"
    << "    for (uint j = lid; j < " << kChunk << "u; j += " << kGroup << "u) {\n"
    << "      const ulong r = start + j;\n"
    << "      duet_x[j] = r < run ? (" << A << ")LOAD(" << I
    << ", src + src_at + (long)r * src_step) : " << zero << ";\n    }\n    BARRIER();\n"
    << "    " << A << " piece = " << zero << ";\n"
    << "    for (uint j = lid * " << kPerItem << "u; j < (lid + 1u) * " << kPerItem << "u; ++j) {\n"
    << "      piece += duet_x[j];\n      duet_x[j] = piece;\n    }\n"
    << "    duet_t[lid] = piece;\n    BARRIER();\n"
    << "    for (uint step = 1u; step < " << kGroup << "u; step <<= 1) {\n"
    << "      const " << A << " left = lid >= step ? duet_t[lid - step] : " << zero << ";\n"
    << "      BARRIER();\n      duet_t[lid] += left;\n      BARRIER();\n    }\n"
    << "    for (uint j = lid; j < " << kChunk << "u; j += " << kGroup << "u) {\n"
    << "      const ulong r = start + j;\n"
    << "      const " << A << " before = j >= " << kPerItem << "u ? duet_t[j / " << kPerItem
    << "u - 1u] : " << zero << ";\n"
    << "      if (r < run) STORE(" << O
    << ", dst + dst_at + (long)r * dst_step, carry + (before + duet_x[j]));\n"
    << "    }\n"
    << "    carry += duet_t[" << kGroup - 1 << "];\n"
    << "    BARRIER();\n  }\n}\n";
  return s.str();
}

// The layout without axis k.
Layout without_axis(const Layout& l, std::size_t k) {
  Layout out = l;
  out.shape.erase(out.shape.begin() + static_cast<std::ptrdiff_t>(k));
  out.strides.erase(out.strides.begin() + static_cast<std::ptrdiff_t>(k));
  return out;
}

}  // namespace

std::string cumsum_source(ScalarType dtype) {
  return kernel_source(dtype, reduction_dtype(ReduceOp::sum, dtype));
}

Array cumsum(Queue& q, const Array& in, std::optional<std::int64_t> axis) {
  if (!in.valid()) throw ReleasedError("cumsum: the array is empty (default-constructed)");
  const ScalarType out_type = reduction_dtype(ReduceOp::sum, in.dtype());
  if (out_type == ScalarType::f64 && !q.device().info().supports_double)
    throw ArgumentError("cumsum of float64 needs double precision, which " + q.device().info().id() +
                        " lacks; convert the array to float32 first");
  // The scanned axis k of src: the one given, or the only axis of the flattened array.
  Array src = in;
  std::size_t k = 0;
  if (axis) {
    const std::int64_t n = static_cast<std::int64_t>(in.ndim());
    if (*axis < -n || *axis >= n)
      throw ArgumentError("cumsum: axis " + std::to_string(*axis) + " is out of range for an array of " +
                          std::to_string(in.ndim()) + " dimensions " + shape_text(in.shape()) +
                          "; leave the axis out to scan every element");
    k = static_cast<std::size_t>(*axis < 0 ? *axis + n : *axis);
  } else {
    if (!in.contiguous()) src = in.copy(q);
    src = *src.reshape_view({std::int64_t(src.size())});
  }
  Array out = empty(q.device(), src.shape(), out_type);
  if (out.size() == 0) return out;
  const std::vector<Layout> walk =
      collapsed_together({without_axis(src.layout(), k), without_axis(out.layout(), k)});
  if (walk[0].ndim() > kAxes)
    throw ArgumentError("cumsum: the other axes need " + std::to_string(walk[0].ndim()) +
                        " uneven axes; at most 6 are supported (copy the array first)");
  const std::size_t rows = out.size() / src.shape()[k];
  const Kernel kernel =
      q.device().compile(kernel_source(src.dtype(), out_type), {}, "cumsum.duet").kernel("duet_cumsum");
  const RawBuffer src_arg = src.buffer().aligned_back(q.device().info().view_alignment);
  const std::int64_t skipped =
      static_cast<std::int64_t>((src.buffer().offset() - src_arg.offset()) / src.itemsize());
  std::vector<KernelArg> args{KernelArg::from_raw(src_arg, src.dtype()),
                              KernelArg::from(skipped + walk[0].offset),
                              KernelArg::from_raw(out.buffer(), out_type),
                              KernelArg::from(std::int64_t(0)),
                              KernelArg::from(std::uint64_t(rows)),
                              KernelArg::from(std::uint64_t(src.shape()[k])),
                              KernelArg::from(std::int64_t(src.strides()[k])),
                              KernelArg::from(std::int64_t(out.strides()[k]))};
  const std::size_t skip = kAxes - walk[0].ndim();
  for (std::size_t d = 0; d < kAxes; ++d)
    args.push_back(KernelArg::from(std::uint64_t(d < skip ? 1 : walk[0].shape[d - skip])));
  for (const Layout& l : walk)
    for (std::size_t d = 0; d < kAxes; ++d)
      args.push_back(KernelArg::from(std::int64_t(d < skip ? 0 : l.strides[d - skip])));
  q.launch_args(kernel, Range(rows * kGroup), Range(kGroup), args);
  return out;
}

}  // namespace duet
