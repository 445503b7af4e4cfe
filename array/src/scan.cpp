// cumsum() and cumprod() of duet/array_scan.hpp: one generated kernel per operation and input dtype.
// Work-group g scans row g (its position along the other axes, collapsed as reduce.cpp's kept axes, at most
// 6): a chunk of kChunk elements is read into shared memory (consecutive work-items, consecutive elements),
// each work-item adds up its kPerItem neighbours in order, the kGroup partial totals are scanned
// Hillis-Steele style, and every element is written as carry + the totals before its piece + its
// sum within the piece (for cumprod, products the same way). Every order is fixed, hence
// deterministic.
#include <sstream>

#include "duet/array_reduce.hpp"
#include "duet/array_scan.hpp"
#include "duet/extension.hpp"
#include "duet/generated.hpp"
#include "kernel_type.hpp"

namespace duet {
namespace {

constexpr std::size_t kAxes = 6;
constexpr std::size_t kGroup = 256;
constexpr std::size_t kPerItem = 8;
constexpr std::size_t kChunk = kGroup * kPerItem;

// The type the sums are made in: sum's dtype, float16's and bfloat16's in float32.
ScalarType accumulator(ScalarType in) {
  return compute_type(reduction_dtype(ReduceOp::sum, in));
}

// The scan of `product` (cumprod) or not (cumsum): its kernel's name, identity and operator.
struct ScanOp {
  bool product = false;
  const char* name() const { return product ? "cumprod" : "cumsum"; }
};

std::string kernel_source(ScanOp op, ScalarType in, ScalarType out) {
  const std::string I = detail::kernel_type_name(in), O = detail::kernel_type_name(out),
                    A = detail::kernel_type_name(accumulator(in));
  // The complex types are structs: their identity is made, their values combined by the dialect's
  // functions (cfloat_add, ...), and an element needs no cast to its own type.
  const bool complex = is_complex(in);
  const std::string one = op.product ? "1" : "0";
  const std::string zero = complex ? A + "_make(" + one + ", 0)" : "(" + A + ")" + one;  // the identity
  const std::string cast = complex ? "" : "(" + A + ")";
  auto with = [&](const std::string& a, const std::string& b) {
    if (complex) return A + (op.product ? "_mul(" : "_add(") + a + ", " + b + ")";
    return "(" + a + (op.product ? " * " : " + ") + b + ")";
  };
  std::ostringstream s;
  s << "KERNEL void duet_" << op.name() << "(GLOBAL const " << I << "* src, const long src_off, GLOBAL " << O
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
    << "      duet_x[j] = r < run ? " << cast << "LOAD(" << I
    << ", src + src_at + (long)r * src_step) : " << zero << ";\n    }\n    BARRIER();\n"
    << "    " << A << " piece = " << zero << ";\n"
    << "    for (uint j = lid * " << kPerItem << "u; j < (lid + 1u) * " << kPerItem << "u; ++j) {\n"
    << "      piece = " << with("piece", "duet_x[j]") << ";\n      duet_x[j] = piece;\n    }\n"
    << "    duet_t[lid] = piece;\n    BARRIER();\n"
    << "    for (uint step = 1u; step < " << kGroup << "u; step <<= 1) {\n"
    << "      const " << A << " left = lid >= step ? duet_t[lid - step] : " << zero << ";\n"
    << "      BARRIER();\n      duet_t[lid] = " << with("duet_t[lid]", "left") << ";\n      BARRIER();\n    }\n"
    << "    for (uint j = lid; j < " << kChunk << "u; j += " << kGroup << "u) {\n"
    << "      const ulong r = start + j;\n"
    << "      const " << A << " before = j >= " << kPerItem << "u ? duet_t[j / " << kPerItem
    << "u - 1u] : " << zero << ";\n"
    << "      if (r < run) STORE(" << O << ", dst + dst_at + (long)r * dst_step, "
    << with("carry", with("before", "duet_x[j]")) << ");\n"
    << "    }\n"
    << "    carry = " << with("carry", "duet_t[" + std::to_string(kGroup - 1) + "]") << ";\n"
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

// What a kernel is given for an array (see extension::kernel_range): its memory from an aligned
// start, and the elements from there to the buffer's start.
std::pair<RawBuffer, std::int64_t> passable(const Queue& q, const Array& a) {
  RawBuffer arg = a.buffer().aligned_back(q.device().info().view_alignment);
  const std::int64_t skipped = static_cast<std::int64_t>((a.buffer().offset() - arg.offset()) / a.itemsize());
  return {std::move(arg), skipped};
}

// The array scanned (`in`, or its flattened contiguous copy) and the axis along which.
std::pair<Array, std::size_t> scanned(ScanOp op, Queue& q, const Array& in,
                                      std::optional<std::int64_t> axis) {
  if (!in.valid()) throw ReleasedError(std::string(op.name()) + ": the array is empty (default-constructed)");
  if (!axis) {
    const Array flat = in.contiguous() ? in : in.copy(q);
    return {*flat.reshape_view({std::int64_t(flat.size())}), 0};
  }
  const std::int64_t n = static_cast<std::int64_t>(in.ndim());
  if (*axis < -n || *axis >= n)
    throw ArgumentError(std::string(op.name()) + ": axis " + std::to_string(*axis) +
                        " is out of range for an array of " + std::to_string(in.ndim()) + " dimensions " +
                        shape_text(in.shape()) + "; leave the axis out to scan every element");
  return {in, static_cast<std::size_t>(*axis < 0 ? *axis + n : *axis)};
}

// The scan of src along axis k into out (src's shape, not empty).
Event launch(ScanOp op, Queue& q, const Array& src, std::size_t k, const Array& out) {
  for (ScalarType t : {accumulator(src.dtype()), out.dtype()})
    if ((t == ScalarType::f64 || t == ScalarType::c128) && !q.device().info().supports_double)
      throw ArgumentError(std::string(op.name()) + " of " + std::string(to_string(src.dtype())) + " into " +
                          to_string(out.dtype()) + " needs double precision, which " +
                          q.device().info().id() + " lacks; convert the array to float32 first");
  const std::vector<Layout> walk =
      collapsed_together({without_axis(src.layout(), k), without_axis(out.layout(), k)});
  if (walk[0].ndim() > kAxes)
    throw ArgumentError(std::string(op.name()) + ": the other axes need " + std::to_string(walk[0].ndim()) +
                        " uneven axes; at most 6 are supported (copy the array first)");
  const std::size_t rows = out.size() / src.shape()[k];
  // Keyed by what the source depends on: no source written on a repeat.
  const Kernel kernel = generated::cached_kernel(
      q.device(), std::string("scan/") + op.name() + "/" + to_string(src.dtype()) + "/" + to_string(out.dtype()),
      [&] {
        return q.device()
            .compile(kernel_source(op, src.dtype(), out.dtype()), {}, std::string(op.name()) + ".duet")
            .kernel(std::string("duet_") + op.name());
      });
  const auto [src_arg, src_skipped] = passable(q, src);
  const auto [out_arg, out_skipped] = passable(q, out);
  std::vector<KernelArg> args{KernelArg::from_raw(src_arg, detail::kernel_type(src.dtype())),
                              KernelArg::from(src_skipped + walk[0].offset),
                              KernelArg::from_raw(out_arg, detail::kernel_type(out.dtype())),
                              KernelArg::from(out_skipped + walk[1].offset),
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
  return q.launch_args(kernel, Range(rows * kGroup), Range(kGroup), args);
}

// cumsum and cumprod: a new array of the result dtype (sum's and prod's are the same), or into `out`.
Array scan(ScanOp op, Queue& q, const Array& in, std::optional<std::int64_t> axis) {
  const auto [src, k] = scanned(op, q, in, axis);
  Array out = empty(q.device(), src.shape(), reduction_dtype(ReduceOp::sum, in.dtype()));
  if (out.size() > 0) launch(op, q, src, k, out);
  return out;
}

Event scan_into(ScanOp op, Queue& q, const Array& in, std::optional<std::int64_t> axis, const Array& out) {
  const std::string call = op.name();
  if (!out.valid()) throw ReleasedError(call + ": out is empty (default-constructed)");
  if (out.device() != q.device())
    throw DeviceMismatchError(call + ": out is on " + out.device().info().id() + ", the queue on " +
                              q.device().info().id());
  const auto [src, k] = scanned(op, q, in, axis);
  // A complex scan stores its own type (the dialect converts no complex struct on the way).
  const ScalarType result = reduction_dtype(ReduceOp::sum, in.dtype());
  if ((is_complex(result) || is_complex(out.dtype())) && out.dtype() != result)
    throw ArgumentError(call + ": out is " + numpy_name(out.dtype()) + ", the scan of " +
                        numpy_name(in.dtype()) + " is " + numpy_name(result) +
                        "; pass an out of that dtype (or convert afterwards with astype)");
  if (out.shape() != src.shape())
    throw ArgumentError(call + ": out has the shape " + shape_text(out.shape()) + ", the result " +
                        shape_text(src.shape()) + (axis ? "" : " (the flattened array)"));
  const bool same_view = out.buffer().offset() == in.buffer().offset() && out.offset() == in.offset() &&
                         out.shape() == in.shape() && out.strides() == in.strides() &&
                         out.itemsize() == in.itemsize();
  if (out.buffer().same_allocation(in.buffer()) && !same_view)
    throw ArgumentError(
        call +
        ": out shares memory with the input without being the same view (elements would be read "
        "after others overwrote them); pass the input itself for an in-place scan, or a separate array");
  if (out.size() == 0) return q.record();
  return launch(op, q, src, k, out);
}

}  // namespace

std::string cumsum_source(ScalarType dtype) {
  return kernel_source(ScanOp{false}, dtype, reduction_dtype(ReduceOp::sum, dtype));
}
std::string cumprod_source(ScalarType dtype) {
  return kernel_source(ScanOp{true}, dtype, reduction_dtype(ReduceOp::prod, dtype));
}

Array cumsum(Queue& q, const Array& in, std::optional<std::int64_t> axis) {
  return scan(ScanOp{false}, q, in, axis);
}
Event cumsum(Queue& q, const Array& in, std::optional<std::int64_t> axis, const Array& out) {
  return scan_into(ScanOp{false}, q, in, axis, out);
}
Array cumprod(Queue& q, const Array& in, std::optional<std::int64_t> axis) {
  return scan(ScanOp{true}, q, in, axis);
}
Event cumprod(Queue& q, const Array& in, std::optional<std::int64_t> axis, const Array& out) {
  return scan_into(ScanOp{true}, q, in, axis, out);
}

}  // namespace duet
