// take, nonzero and unique_all of duet/array_select.hpp.
//
// take gathers with one work-item per output element, and put scatters the same way, moving elements as raw
// bits of their size (so any dtype, float64 included, needs no double support; complex128 as two 8-byte
// words). nonzero and unique compact: a
// flag per element is written into tiles of kChunk (the last one padded with zeros), duet::cumsum scans the
// tiles along their rows (a work-group each, all in parallel) and then the tiles' totals (one short row), and
// each flagged element goes to its running count less one. unique_all sorts the flattened array with its
// positions (duet::sort_flat: equal values then have equal bits, -0 made +0 and every NaN the one quiet NaN),
// flags where a run of equal values starts (every NaN starts its own), compacts those starts, and reads
// values, first indices, counts and the inverse from them; unique_values sorts the values alone.
#include <sstream>

#include "bits_type.hpp"
#include "duet/array_expr.hpp"
#include "duet/array_scan.hpp"
#include "duet/array_select.hpp"
#include "duet/array_sort.hpp"
#include "duet/generated.hpp"

namespace duet {
namespace {

using detail::bits_scalar;
using detail::bits_type;

constexpr std::uint64_t kGroup = 256;
constexpr std::uint64_t kChunk = 2048;  // elements a compaction tile holds: one cumsum chunk

// The kernels for elements of `dtype`, read as DUET_LANES words of bits B each: one word for
// every dtype up to 8 bytes, two 8-byte words for complex128 (the dialect has no wider integer).
// A word's magnitude bits leave out its sign bits (one per part of a complex number, so -0 and
// -0+0j are zero).
std::string kernel_source(ScalarType dtype) {
  const std::size_t bytes = size_of(dtype);
  const std::size_t lanes = bytes > 8 ? bytes / 8 : 1;
  const std::size_t word = bytes / lanes;
  const std::string B = bits_type(word);
  const unsigned w = unsigned(word * 8);
  const std::uint64_t mask = w == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << w) - 1;
  const std::uint64_t sign = std::uint64_t(1) << (w - 1);
  // complex64's word holds two float32s: both their sign bits.
  const std::uint64_t signs = dtype == ScalarType::c64 ? sign | (sign >> 32) : sign;
  const unsigned mantissa = dtype == ScalarType::f16    ? 10
                            : dtype == ScalarType::bf16 ? 7
                            : dtype == ScalarType::f32  ? 23
                                                        : 52;
  const std::uint64_t inf = ((mask >> (mantissa + 1)) << mantissa) & mask;
  const bool signed_zero = is_float(dtype) || is_complex(dtype);
  std::ostringstream s;
  s << "#define DUET_FLOAT " << (is_float(dtype) ? 1 : 0) << "\n#define DUET_LANES " << lanes
    << "\n#define DUET_MAGNITUDE ((" << B << ")0x" << std::hex << (signed_zero ? mask & ~signs : mask)
    << "UL)\n#define DUET_INF ((" << B << ")0x" << inf << "UL)\n"
    << std::dec;
  s << "// Whether element i is flagged: nonzero (mode 0; NaN is, -0 is not), or the first of a run of\n"
       "// equal sorted values (mode 1; every NaN starts its own).\n"
       "KERNEL void duet_select_flags(GLOBAL const "
    << B
    << "* src, const long src_off, GLOBAL uint* flags, const ulong n, const ulong padded, const uint mode) "
       "{\n"
    << R"DUET(  const ulong i = GLOBAL_ID(0);
  if (i >= padded) return;
  uint flag = 0;
  if (i < n) {
    const ulong v = (ulong)src[(src_off + (long)i) * DUET_LANES];
    if (mode == 0) {
      ulong any = v;
      for (int l = 1; l < DUET_LANES; ++l) any |= (ulong)src[(src_off + (long)i) * DUET_LANES + l];
      flag = (any & DUET_MAGNITUDE) != 0;
    } else {  // sorted keys: never of more than one word
      flag = i == 0 || v != (ulong)src[src_off + (long)i - 1];
#if DUET_FLOAT
      flag = flag || (v & DUET_MAGNITUDE) > DUET_INF;
#endif
    }
  }
  flags[i] = flag;
}

// Flagged element i goes to (its running count within its tile) + (the tiles' before it) - 1:
// `to` gets i (where), `inverse[perm[i]]` every element's place (unique's inverse).
KERNEL void duet_select_scatter(GLOBAL const uint* flags, GLOBAL const ulong* within, GLOBAL const ulong* tiles,
                                GLOBAL long* to, const ulong n, const ulong chunk, GLOBAL const long* perm,
                                GLOBAL long* inverse, const uint with_inverse) {
  const ulong i = GLOBAL_ID(0);
  if (i >= n) return;
  const ulong tile = i / chunk;
  const long place = (long)(within[i] + (tile > 0 ? tiles[tile - 1] : 0)) - 1;
  if (flags[i]) to[place] = (long)i;
  if (with_inverse) inverse[perm[i]] = place;
}

// counts[j] = starts[j + 1] - starts[j], the last one's end n.
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
  // Integers share a variant by size; floats and complex numbers have their own zeros.
  const ScalarType keyed = is_float(dtype) || is_complex(dtype) ? dtype : bits_scalar(size_of(dtype));
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

// The compaction of a contiguous 1-D `src` by flags of `mode`: the flagged positions (int64), and
// with `perm` given, inverse[perm[i]] = the place of i's run.
Array compact(Queue& q, const Array& src, std::uint32_t mode, const Array* perm, Array* inverse) {
  const std::uint64_t n = src.size();
  if (n == 0) return empty(q.device(), {0}, ScalarType::i64);
  const std::uint64_t tiles = (n + kChunk - 1) / kChunk;
  Array flags = empty(q.device(), {tiles, kChunk}, ScalarType::u32);
  const auto [buf, off] = passable(q, src);
  q.launch_args(kernel(q, src.dtype(), "duet_select_flags"), cover(tiles * kChunk), Range(kGroup),
                {KernelArg::from_raw(buf, bits_scalar(src.itemsize())), KernelArg::from(off),
                 arg(flags, ScalarType::u32), KernelArg::from(n), KernelArg::from(tiles * kChunk),
                 KernelArg::from(mode)});
  const Array within = cumsum(q, flags, 1);
  const Array totals = cumsum(q, within.index({Slice{}, std::int64_t(kChunk - 1)}));
  const std::uint64_t count = totals.index({std::int64_t(tiles - 1)}).to_vector<std::uint64_t>(q)[0];
  Array to = empty(q.device(), {count}, ScalarType::i64);
  const bool with_inverse = perm != nullptr;
  if (count == 0) return to;  // nothing flagged (never for unique, whose first element starts a run)
  q.launch_args(
      kernel(q, src.dtype(), "duet_select_scatter"), cover(n), Range(kGroup),
      {arg(flags, ScalarType::u32), arg(within, ScalarType::u64), arg(totals, ScalarType::u64),
       arg(to, ScalarType::i64), KernelArg::from(n), KernelArg::from(kChunk),
       arg(with_inverse ? *perm : to, ScalarType::i64), arg(with_inverse ? *inverse : to, ScalarType::i64),
       KernelArg::from(std::uint32_t(with_inverse))});
  return to;
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
  return compact(q, flat_contiguous(q, a), 0, nullptr, nullptr);
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
  const Array starts = compact(q, sorted.keys, 1, &sorted.indices, &inverse_arg);
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
  const Array starts = compact(q, sorted.keys, 1, nullptr, nullptr);
  return take(q, sorted.keys, starts, 0);
}

}  // namespace duet
