// take, put, nonzero and unique_all of duet/array_select.hpp.
//
// take gathers with one work-item per output element, and put scatters the same way, moving elements as raw
// bits of their size (so any dtype, float64 included, needs no double support; complex128 as two 8-byte
// words). nonzero and unique compact (compact.cpp: a count per tile, a scan of the counts, a scatter that
// ranks each tile's kept elements). unique_all sorts the flattened array with its positions
// (duet::sort_flat: equal values then have equal bits, -0 made +0 and every NaN the one quiet NaN), keeps
// where a run of equal values starts (every NaN starts its own), and reads values, first indices, counts
// and the inverse from those starts; unique_values sorts the values alone.
#include <sstream>

#include "bits_type.hpp"
#include "compact.hpp"
#include "duet/array_expr.hpp"
#include "duet/array_select.hpp"
#include "duet/array_sort.hpp"
#include "duet/generated.hpp"

namespace duet {
namespace {

using detail::bits_scalar;
using detail::bits_type;

constexpr std::uint64_t kGroup = 256;

// The kernels for elements of `dtype`, moved as DUET_LANES words of bits B each: one word for
// every dtype up to 8 bytes, two 8-byte words for complex128 (the dialect has no wider integer).
std::string kernel_source(ScalarType dtype) {
  const std::size_t bytes = size_of(dtype);
  const std::size_t lanes = bytes > 8 ? bytes / 8 : 1;
  const std::string B = bits_type(bytes / lanes);
  std::ostringstream s;
  s << "#define DUET_LANES " << lanes << "\n";
  s << R"DUET(// counts[j] = starts[j + 1] - starts[j], the last one's end n.
KERNEL void duet_select_counts(GLOBAL const long* starts, GLOBAL long* counts, const ulong m, const ulong n) {
  const ulong j = GLOBAL_ID(0);
  if (j < m) counts[j] = (j + 1 < m ? starts[j + 1] : (long)n) - starts[j];
}

// Position flat[i]'s coordinate along an axis of `len` elements, `inner` apart.
KERNEL void duet_unravel(GLOBAL const long* flat, GLOBAL long* out, const ulong count, const ulong inner,
                         const ulong len) {
  const ulong i = GLOBAL_ID(0);
  if (i < count) out[i] = (long)(((ulong)flat[i] / inner) % len);
}

// out[o, j, i] = a[o, idx[j], i], the index wrapped once and clamped.
KERNEL void duet_take(GLOBAL const )DUET"
    << B << "* a, const long a_off, GLOBAL const long* idx, const long idx_off, GLOBAL " << B
    << "* out, const ulong total, const ulong inner, const ulong m, const ulong len) {\n"
    << R"DUET(  const ulong g = GLOBAL_ID(0);
  if (g >= total) return;
  const ulong i = g % inner, j = (g / inner) % m, o = g / (inner * m);
  long ix = idx[idx_off + (long)j];
  if (ix < 0) ix += (long)len;
  ix = ix < 0 ? 0 : (ix >= (long)len ? (long)len - 1 : ix);
  const long from = (a_off + (long)((o * len + (ulong)ix) * inner + i)) * DUET_LANES;
  for (int l = 0; l < DUET_LANES; ++l) out[g * DUET_LANES + l] = a[from + l];
}

// a[a_off + pos[i]] = v[i]: an indexed assignment, its element offsets computed from a view's strides.
KERNEL void duet_put(GLOBAL )DUET"
    << B << "* a, const long a_off, GLOBAL const long* pos, const long pos_off, GLOBAL const " << B
    << "* v, const long v_off, const ulong n) {\n"
    << R"DUET(  const ulong i = GLOBAL_ID(0);
  if (i >= n) return;
  const long to = (a_off + pos[pos_off + (long)i]) * DUET_LANES, from = (v_off + (long)i) * DUET_LANES;
  for (int l = 0; l < DUET_LANES; ++l) a[to + l] = v[from + l];
}
)DUET";
  return s.str();
}

Kernel kernel(Queue& q, ScalarType dtype, const char* name) {
  // Only an element's size matters: every dtype of one size shares a variant (complex128 its own).
  const ScalarType keyed = size_of(dtype) > 8 ? dtype : bits_scalar(size_of(dtype));
  return generated::cached_kernel(q.device(), std::string("select/") + to_string(keyed) + "/" + name, [&] {
    return q.device().compile(kernel_source(keyed), {}, "select.duet").kernel(name);
  });
}

std::pair<RawBuffer, std::int64_t> passable(const Queue& q, const Array& a) {
  RawBuffer arg = a.buffer().aligned_back(q.device().info().view_alignment);
  const std::int64_t skipped = static_cast<std::int64_t>((a.buffer().offset() - arg.offset()) / a.itemsize());
  return {std::move(arg), skipped + a.offset()};
}

Range cover(std::uint64_t n) { return Range((n + kGroup - 1) / kGroup * kGroup); }
KernelArg arg(const Array& a, ScalarType as) { return KernelArg::from_raw(a.buffer(), as); }

Array flat_contiguous(Queue& q, const Array& a) {
  const Array c = a.contiguous() ? a : a.copy(q);
  return *c.reshape_view({std::int64_t(c.size())});
}

}  // namespace

Array take(Queue& q, const Array& a, const Array& indices, std::int64_t axis) {
  if (!a.valid() || !indices.valid()) throw ReleasedError("take: an array is empty (default-constructed)");
  if (!is_integer(indices.dtype()))
    throw ArgumentError(std::string("take: the indices hold ") + to_string(indices.dtype()) +
                        "; they must be integers");
  const std::int64_t nd = static_cast<std::int64_t>(a.ndim());
  if (nd == 0) throw ArgumentError("take: the array is 0-d; take needs an axis to index");
  if (axis < -nd || axis >= nd)
    throw ArgumentError("take: axis " + std::to_string(axis) + " is out of range for an array of " +
                        std::to_string(nd) + " dimensions " + shape_text(a.shape()));
  const std::size_t k = static_cast<std::size_t>(axis < 0 ? axis + nd : axis);
  Shape shape(a.shape().begin(), a.shape().begin() + std::ptrdiff_t(k));
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), a.shape().begin() + std::ptrdiff_t(k) + 1, a.shape().end());
  Array out = empty(q.device(), shape, a.dtype());
  if (out.size() == 0) return out;
  if (a.shape()[k] == 0)
    throw ArgumentError("take: axis " + std::to_string(axis) + " of " + shape_text(a.shape()) +
                        " is empty; there is nothing to take");
  Array idx = flat_contiguous(q, indices);
  if (idx.dtype() != ScalarType::i64) {
    Array wide = empty(q.device(), {idx.size()}, ScalarType::i64);
    assign(q, wide, Expr(idx));
    idx = wide;
  }
  const Array src = a.contiguous() ? a : a.copy(q);
  std::uint64_t inner = 1;
  for (std::size_t d = k + 1; d < a.ndim(); ++d) inner *= a.shape()[d];
  const auto [buf, off] = passable(q, src);
  const auto [ibuf, ioff] = passable(q, idx);
  const ScalarType B = bits_scalar(a.itemsize());
  q.launch_args(
      kernel(q, a.dtype(), "duet_take"), cover(out.size()), Range(kGroup),
      {KernelArg::from_raw(buf, B), KernelArg::from(off), KernelArg::from_raw(ibuf, ScalarType::i64),
       KernelArg::from(ioff), arg(out, B), KernelArg::from(std::uint64_t(out.size())), KernelArg::from(inner),
       KernelArg::from(std::uint64_t(indices.size())), KernelArg::from(std::uint64_t(a.shape()[k]))});
  return out;
}

void put(Queue& q, const Array& a, const Array& offsets, const Array& values) {
  if (!a.valid() || !offsets.valid() || !values.valid())
    throw ReleasedError("put: an array is empty (default-constructed)");
  if (!is_integer(offsets.dtype()))
    throw ArgumentError(std::string("put: the offsets hold ") + to_string(offsets.dtype()) +
                        "; they must be integers");
  if (values.dtype() != a.dtype())
    throw ArgumentError(std::string("put: the values are ") + to_string(values.dtype()) + ", the array " +
                        to_string(a.dtype()) + "; convert them first (astype)");
  if (values.size() != offsets.size())
    throw ArgumentError("put: " + std::to_string(values.size()) + " values for " +
                        std::to_string(offsets.size()) + " offsets");
  if (offsets.size() == 0) return;
  Array pos = flat_contiguous(q, offsets);
  if (pos.dtype() != ScalarType::i64) {
    Array wide = empty(q.device(), {pos.size()}, ScalarType::i64);
    assign(q, wide, Expr(pos));
    pos = wide;
  }
  const Array v = flat_contiguous(q, values);
  const auto [buf, off] = passable(q, a);
  const auto [pbuf, poff] = passable(q, pos);
  const auto [vbuf, voff] = passable(q, v);
  const ScalarType B = bits_scalar(a.itemsize());
  q.launch_args(
      kernel(q, a.dtype(), "duet_put"), cover(pos.size()), Range(kGroup),
      {KernelArg::from_raw(buf, B), KernelArg::from(off), KernelArg::from_raw(pbuf, ScalarType::i64),
       KernelArg::from(poff), KernelArg::from_raw(vbuf, B), KernelArg::from(voff),
       KernelArg::from(std::uint64_t(pos.size()))});
}

Array flatnonzero(Queue& q, const Array& a) {
  if (!a.valid()) throw ReleasedError("nonzero: the array is empty (default-constructed)");
  return detail::compact(q, flat_contiguous(q, a), detail::CompactMode::nonzero);
}

std::vector<Array> nonzero(Queue& q, const Array& a) {
  if (!a.valid()) throw ReleasedError("nonzero: the array is empty (default-constructed)");
  if (a.ndim() == 0)
    throw ArgumentError("nonzero: the array is 0-d; the standard leaves that out (reshape it to (1,) first)");
  const Array flat = flatnonzero(q, a);
  std::vector<Array> out;
  if (a.ndim() == 1) return {flat};
  // Unravel in C order: the coordinate along axis d is (flat / inner_d) % shape[d].
  std::uint64_t inner = 1;
  std::vector<std::uint64_t> inners(a.ndim());
  for (std::size_t d = a.ndim(); d-- > 0;) inners[d] = inner, inner *= a.shape()[d];
  for (std::size_t d = 0; d < a.ndim(); ++d) {
    Array coordinate = empty(q.device(), {flat.size()}, ScalarType::i64);
    if (flat.size())
      q.launch_args(kernel(q, ScalarType::i64, "duet_unravel"), cover(flat.size()), Range(kGroup),
                    {arg(flat, ScalarType::i64), arg(coordinate, ScalarType::i64),
                     KernelArg::from(std::uint64_t(flat.size())), KernelArg::from(inners[d]),
                     KernelArg::from(std::uint64_t(a.shape()[d]))});
    out.push_back(coordinate);
  }
  return out;
}

Unique unique_all(Queue& q, const Array& a) {
  if (!a.valid()) throw ReleasedError("unique: the array is empty (default-constructed)");
  const Array flat = flat_contiguous(q, a);
  const SortedKeys sorted = sort_flat(q, flat, true);
  Unique u;
  u.inverse = empty(q.device(), a.shape(), ScalarType::i64);
  const Array inverse_flat = *u.inverse.reshape_view({std::int64_t(a.size())});
  Array inverse_arg = inverse_flat;
  const Array starts =
      detail::compact(q, sorted.keys, detail::CompactMode::run_starts, &sorted.indices, &inverse_arg);
  const std::uint64_t m = starts.size();
  u.values = take(q, sorted.keys, starts, 0);
  u.indices = m ? take(q, sorted.indices, starts, 0) : empty(q.device(), {0}, ScalarType::i64);
  u.counts = empty(q.device(), {m}, ScalarType::i64);
  if (m)
    q.launch_args(kernel(q, ScalarType::i64, "duet_select_counts"), cover(m), Range(kGroup),
                  {arg(starts, ScalarType::i64), arg(u.counts, ScalarType::i64), KernelArg::from(m),
                   KernelArg::from(std::uint64_t(a.size()))});
  return u;
}

Array unique_values(Queue& q, const Array& a) {
  if (!a.valid()) throw ReleasedError("unique: the array is empty (default-constructed)");
  const SortedKeys sorted = sort_flat(q, flat_contiguous(q, a), false, false, true);
  const Array starts = detail::compact(q, sorted.keys, detail::CompactMode::run_starts);
  return take(q, sorted.keys, starts, 0);
}

}  // namespace duet
