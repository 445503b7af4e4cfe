// sort, argsort and searchsorted of duet/array_sort.hpp: an LSD radix sort in the dialect.
//
// Keys. Each element becomes an unsigned key whose unsigned order is the wanted order: integers
// with the sign bit flipped, floats with every bit flipped for negatives and the sign bit set for
// positives (NaNs first made the one positive quiet NaN, so they all land after +inf; for argsort
// and searching -0 made +0 too, so equal values stay equal), all bits inverted for descending,
// which keeps equal keys in order: a descending sort stays stable. Inputs are read as raw bits, so
// float64 sorts on devices without double.
//
// One pass per 4-bit digit, least significant first, each pass stable: the count kernel gives each
// tile of kTile elements its 16 digit counts (hist, digit-major: hist[d][tile]); duet::cumsum along
// the tiles scans them, one work-group per digit in parallel; the scatter kernel then ranks its
// tile's elements locally and writes each to digit start + tiles before + rank. The local ranking
// is a counting sort with a counter per (digit, work-item) in shared memory: work-item t counts its
// run of kItems consecutive elements, an exclusive scan of the 16 x kGroup counters in (digit,
// work-item) order gives every element its place, in input order within a digit: stable with no
// atomics, the same on every device. 4-bit digits keep those counters at 16 KiB of shared memory
// (8-bit ones would need 256 per work-item).
//
// Axes. sort along an axis sorts the rows of a contiguous copy with that axis last. Rows are
// separated by a key of (row, value): the values' passes first, then passes over the row's bits
// taken from the carried flat index (index / row length), so one set of launches sorts every row
// at once, whatever their number and length (row-by-row launches would leave a GPU idle on many
// short rows). A single row needs no index carried unless argsort asks for it.
#include <algorithm>
#include <sstream>

#include "duet/array_reduce.hpp"
#include "duet/array_scan.hpp"
#include "duet/array_sort.hpp"
#include "duet/extension.hpp"
#include "duet/generated.hpp"

namespace duet {
namespace {

constexpr std::uint64_t kGroup = 256;
constexpr std::uint64_t kItems = 16;
constexpr std::uint64_t kTile = kGroup * kItems;
constexpr unsigned kDigitBits = 4;
constexpr unsigned kRadix = 1u << kDigitBits;

// What a sort's source depends on.
struct Config {
  ScalarType dtype = ScalarType::f32;
  bool values = false;       // an index carried with each key
  bool wide_values = false;  // the index as ulong (more than 2^32 elements)
  bool descending = false;
  bool canon_zero = false;  // -0 as +0 (argsort, searching)

  unsigned width() const { return unsigned(size_of(dtype) * 8); }
  const char* bits_type() const {
    switch (width()) {
      case 8:
        return "uchar";
      case 16:
        return "ushort";
      case 32:
        return "uint";
      default:
        return "ulong";
    }
  }
  ScalarType bits_scalar() const {
    switch (width()) {
      case 8:
        return ScalarType::u8;
      case 16:
        return ScalarType::u16;
      case 32:
        return ScalarType::u32;
      default:
        return ScalarType::u64;
    }
  }
  bool wide_keys() const { return width() == 64; }
  std::string key() const {
    return std::string("sort/") + to_string(dtype) + (values ? (wide_values ? "/v64" : "/v32") : "/keys") +
           (descending ? "/desc" : "/asc") + (canon_zero ? "/z" : "");
  }
};

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v << "UL";
  return s.str();
}

std::string kernel_source(const Config& c) {
  const unsigned w = c.width();
  const std::uint64_t mask = w == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << w) - 1;
  const std::uint64_t sign = std::uint64_t(1) << (w - 1);
  const unsigned mantissa = c.dtype == ScalarType::f16    ? 10
                            : c.dtype == ScalarType::bf16 ? 7
                            : c.dtype == ScalarType::f32  ? 23
                                                          : 52;
  const std::uint64_t inf = ((mask >> (mantissa + 1)) << mantissa) & mask;  // exponent all ones
  const std::uint64_t qnan = inf | (std::uint64_t(1) << (mantissa - 1));
  const int kind = is_float(c.dtype) ? 2 : is_signed(c.dtype) ? 1 : 0;
  const char* K = c.wide_keys() ? "ulong" : "uint";
  std::ostringstream s;
  s << "#define DUET_B " << c.bits_type() << "\n#define DUET_K " << K << "\n#define DUET_V "
    << (c.wide_values ? "ulong" : "uint") << "\n#define DUET_VALUES " << (c.values ? 1 : 0)
    << "\n#define DUET_KIND " << kind << "\n#define DUET_DESC " << (c.descending ? 1 : 0)
    << "\n#define DUET_CANON_ZERO " << (c.canon_zero ? 1 : 0) << "\n#define DUET_MASK ((DUET_K)" << hex(mask)
    << ")\n#define DUET_SIGN ((DUET_K)" << hex(sign) << ")\n#define DUET_INF ((DUET_K)" << hex(inf)
    << ")\n#define DUET_QNAN ((DUET_K)" << hex(qnan) << ")\n#define DUET_GROUP " << kGroup
    << "\n#define DUET_ITEMS " << kItems << "\n#define DUET_TILE " << kTile << "\n#define DUET_RADIX "
    << kRadix << "\n#define DUET_DIGIT_MASK " << (kRadix - 1) << "u\n";
  s << R"DUET(
// The order-preserving key of an element's bits.
DEVICE DUET_K duet_encode(DUET_B bits) {
  DUET_K k = (DUET_K)bits;
#if DUET_KIND == 2
  if ((k & ~DUET_SIGN & DUET_MASK) > DUET_INF) k = DUET_QNAN;
#if DUET_CANON_ZERO
  if (k == DUET_SIGN) k = 0;
#endif
  k = (k & DUET_SIGN) ? (~k & DUET_MASK) : (k | DUET_SIGN);
#elif DUET_KIND == 1
  k ^= DUET_SIGN;
#endif
#if DUET_DESC
  k = ~k & DUET_MASK;
#endif
  return k;
}

DEVICE DUET_B duet_decode(DUET_K k) {
#if DUET_DESC
  k = ~k & DUET_MASK;
#endif
#if DUET_KIND == 2
  k = (k & DUET_SIGN) ? (k ^ DUET_SIGN) : (~k & DUET_MASK);
#elif DUET_KIND == 1
  k ^= DUET_SIGN;
#endif
  return (DUET_B)k;
}

#if DUET_VALUES
#define DUET_DIGIT(i) (by_row ? (uint)(((ulong)vals[i] / run) >> shift) & DUET_DIGIT_MASK \
                              : (uint)(keys[i] >> shift) & DUET_DIGIT_MASK)
#else
#define DUET_DIGIT(i) ((uint)(keys[i] >> shift) & DUET_DIGIT_MASK)
#endif

// Work-item t's counts of its run's digits, in its own column of counts[digit][work-item].
#define DUET_COUNT_TILE()                                                              \
  const uint t = LOCAL_ID(0);                                                          \
  const ulong start = (ulong)GROUP_ID(0) * DUET_TILE + (ulong)t * DUET_ITEMS;          \
  for (uint d = 0; d < DUET_RADIX; ++d) counts[d * DUET_GROUP + t] = 0;                \
  for (uint j = 0; j < DUET_ITEMS; ++j)                                                \
    if (start + j < n) counts[DUET_DIGIT(start + j) * DUET_GROUP + t] += 1u;
)DUET";
  const std::string B = c.bits_type(), V = c.wide_values ? "ulong" : "uint";
  const std::string vals_in =
      c.values ? ", GLOBAL const " + V + "* vals, const uint by_row, const ulong run" : "";
  s << "KERNEL void duet_sort_encode(GLOBAL const " << B << "* src, const long src_off, GLOBAL " << K
    << "* keys" << (c.values ? ", GLOBAL " + V + "* vals" : "") << ", const ulong n) {\n"
    << "  const ulong i = GLOBAL_ID(0);\n  if (i >= n) return;\n"
    << "  keys[i] = duet_encode(src[src_off + (long)i]);\n"
    << (c.values ? "  vals[i] = (DUET_V)i;\n" : "") << "}\n\n";
  s << "KERNEL void duet_sort_decode(GLOBAL const " << K << "* keys, GLOBAL " << B
    << "* dst, const ulong n) {\n"
    << "  const ulong i = GLOBAL_ID(0);\n  if (i < n) dst[i] = duet_decode(keys[i]);\n}\n\n";
  if (c.values)
    s << "KERNEL void duet_sort_indices(GLOBAL const " << V << "* vals, GLOBAL long* dst, const ulong n, "
      << "const ulong run) {\n  const ulong i = GLOBAL_ID(0);\n"
      << "  if (i < n) dst[i] = (long)((ulong)vals[i] % run);\n}\n\n";
  s << "KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_count(GLOBAL const " << K << "* keys"
    << vals_in << ", GLOBAL uint* hist, const ulong n, const uint shift, const ulong tiles) {\n"
    << "  SHARED uint counts[DUET_RADIX * DUET_GROUP];\n  DUET_COUNT_TILE();\n"
    << R"DUET(  BARRIER();
  if (t < DUET_RADIX) {
    uint sum = 0;
    for (uint i = 0; i < DUET_GROUP; ++i) sum += counts[t * DUET_GROUP + i];
    hist[(ulong)t * tiles + GROUP_ID(0)] = sum;
  }
}

)DUET";
  // hist: the tiles' digit counts; scanned: their inclusive sums along the tiles, per digit.
  s << "KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_scatter(GLOBAL const " << K << "* keys"
    << vals_in << ", GLOBAL " << K << "* keys_out" << (c.values ? ", GLOBAL " + V + "* vals_out" : "")
    << ", GLOBAL const uint* hist, GLOBAL const ulong* scanned, const ulong n, const uint shift, "
    << "const ulong tiles) {\n"
    << R"DUET(  SHARED uint counts[DUET_RADIX * DUET_GROUP];
  SHARED uint totals[DUET_GROUP];
  SHARED ulong base[DUET_RADIX];
  DUET_COUNT_TILE();
  BARRIER();
  // Exclusive scan of the counters in (digit, work-item) order: work-item t scans its 16, the
  // groups' totals are scanned Hillis-Steele, then added back.
  uint sum = 0;
  for (uint j = 0; j < DUET_RADIX; ++j) {
    const uint c = counts[t * DUET_RADIX + j];
    counts[t * DUET_RADIX + j] = sum;
    sum += c;
  }
  totals[t] = sum;
  BARRIER();
  for (uint step = 1u; step < DUET_GROUP; step <<= 1) {
    const uint left = t >= step ? totals[t - step] : 0u;
    BARRIER();
    totals[t] += left;
    BARRIER();
  }
  const uint before = t > 0 ? totals[t - 1] : 0u;
  for (uint j = 0; j < DUET_RADIX; ++j) counts[t * DUET_RADIX + j] += before;
  BARRIER();
  if (t < DUET_RADIX) {
    // Where this tile's elements of digit t start: every smaller digit's total, the tiles before,
    // less the tile's own elements of smaller digits (which the counters already count).
    ulong digit_start = 0;
    for (uint d = 0; d < t; ++d) digit_start += scanned[(ulong)d * tiles + tiles - 1];
    const ulong at = (ulong)t * tiles + GROUP_ID(0);
    base[t] = digit_start + (scanned[at] - (ulong)hist[at]) - (ulong)counts[t * DUET_GROUP];
  }
  BARRIER();
  for (uint j = 0; j < DUET_ITEMS; ++j) {
    const ulong i = start + j;
    if (i < n) {
      const uint d = DUET_DIGIT(i);
      const uint rank = counts[d * DUET_GROUP + t];
      counts[d * DUET_GROUP + t] = rank + 1u;
      const ulong to = base[d] + (ulong)rank;
      keys_out[to] = keys[i];
#if DUET_VALUES
      vals_out[to] = vals[i];
#endif
    }
  }
}

)DUET";
  // For each needle, the first (right: past the last) place in the ascending hay it may go.
  s << "KERNEL void duet_searchsorted(GLOBAL const " << K << "* hay, const ulong n, GLOBAL const " << K
    << "* needles, GLOBAL long* out, const ulong m, const uint right) {\n"
    << R"DUET(  const ulong i = GLOBAL_ID(0);
  if (i >= m) return;
  const DUET_K v = needles[i];
  ulong lo = 0, hi = n;
  while (lo < hi) {
    const ulong mid = lo + (hi - lo) / 2;
    const DUET_K h = hay[mid];
    if (right ? h <= v : h < v) lo = mid + 1;
    else hi = mid;
  }
  out[i] = (long)lo;
}
)DUET";
  return s.str();
}

Kernel kernel(Queue& q, const Config& c, const char* name) {
  if (is_complex(c.dtype))
    throw ArgumentError(std::string("sorting and searching ") + numpy_name(c.dtype) +
                        " arrays: complex numbers have no order; sort abs(), real() or imag() instead");
  return generated::cached_kernel(q.device(), c.key() + "/" + name, [&] {
    return q.device().compile(kernel_source(c), {}, "sort.duet").kernel(name);
  });
}

std::pair<RawBuffer, std::int64_t> passable(const Queue& q, const Array& a) {
  RawBuffer arg = a.buffer().aligned_back(q.device().info().view_alignment);
  const std::int64_t skipped = static_cast<std::int64_t>((a.buffer().offset() - arg.offset()) / a.itemsize());
  return {std::move(arg), skipped + a.offset()};
}

Range cover(std::uint64_t n) { return Range((n + kGroup - 1) / kGroup * kGroup); }

unsigned bits_for(std::uint64_t v) {
  unsigned b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return b;
}

KernelArg arg(const Array& a, ScalarType as) { return KernelArg::from_raw(a.buffer(), as); }

// The radix sort of `src` (contiguous in C order, rows of `run` elements) by keys: the sorted keys
// (still encoded, as the key type's unsigned ScalarType) and, with c.values, the carried flat
// indices.
std::pair<Array, Array> radix(Queue& q, const Config& c, const Array& src, std::uint64_t run) {
  const std::uint64_t n = src.size();
  const ScalarType K = c.wide_keys() ? ScalarType::u64 : ScalarType::u32;
  const ScalarType V = c.wide_values ? ScalarType::u64 : ScalarType::u32;
  Array keys[2] = {empty(q.device(), {n}, K), empty(q.device(), {n}, K)};
  Array vals[2];
  if (c.values) vals[0] = empty(q.device(), {n}, V), vals[1] = empty(q.device(), {n}, V);
  const auto [src_buf, src_off] = passable(q, src);
  {
    std::vector<KernelArg> args{KernelArg::from_raw(src_buf, c.bits_scalar()), KernelArg::from(src_off),
                                arg(keys[0], K)};
    if (c.values) args.push_back(arg(vals[0], V));
    args.push_back(KernelArg::from(n));
    q.launch_args(kernel(q, c, "duet_sort_encode"), cover(n), Range(kGroup), args);
  }
  const std::uint64_t tiles = (n + kTile - 1) / kTile;
  const std::uint64_t rows = run == 0 ? 0 : n / run;
  const unsigned key_passes = c.width() / kDigitBits;
  const unsigned row_passes = rows > 1 ? (bits_for(rows - 1) + kDigitBits - 1) / kDigitBits : 0;
  Array hist = empty(q.device(), {kRadix, tiles}, ScalarType::u32);
  const Kernel count = kernel(q, c, "duet_sort_count"), scatter = kernel(q, c, "duet_sort_scatter");
  int from = 0;
  for (unsigned pass = 0; pass < key_passes + row_passes; ++pass) {
    const bool by_row = pass >= key_passes;
    const std::uint32_t shift = (by_row ? pass - key_passes : pass) * kDigitBits;
    auto value_args = [&](std::vector<KernelArg>& args) {
      if (!c.values) return;
      args.push_back(arg(vals[from], V));
      args.push_back(KernelArg::from(std::uint32_t(by_row)));
      args.push_back(KernelArg::from(std::uint64_t(run)));
    };
    std::vector<KernelArg> count_args{arg(keys[from], K)};
    value_args(count_args);
    count_args.insert(count_args.end(), {arg(hist, ScalarType::u32), KernelArg::from(n),
                                         KernelArg::from(shift), KernelArg::from(tiles)});
    q.launch_args(count, Range(tiles * kGroup), Range(kGroup), count_args);
    const Array scanned = cumsum(q, hist, 1);
    std::vector<KernelArg> scatter_args{arg(keys[from], K)};
    value_args(scatter_args);
    scatter_args.push_back(arg(keys[1 - from], K));
    if (c.values) scatter_args.push_back(arg(vals[1 - from], V));
    scatter_args.insert(scatter_args.end(),
                        {arg(hist, ScalarType::u32), arg(scanned, ScalarType::u64), KernelArg::from(n),
                         KernelArg::from(shift), KernelArg::from(tiles)});
    q.launch_args(scatter, Range(tiles * kGroup), Range(kGroup), scatter_args);
    from = 1 - from;
  }
  return {keys[from], vals[from]};
}

// a with `axis` moved last, contiguous (a itself where it already is), and that axis.
std::pair<Array, std::size_t> rows_of(Queue& q, const Array& a, std::int64_t axis, const char* call) {
  if (!a.valid()) throw ReleasedError(std::string(call) + ": the array is empty (default-constructed)");
  const std::int64_t nd = static_cast<std::int64_t>(a.ndim());
  if (nd == 0)
    throw ArgumentError(std::string(call) +
                        ": the array is 0-d; sort needs at least one axis (reshape it to (1,))");
  if (axis < -nd || axis >= nd)
    throw ArgumentError(std::string(call) + ": axis " + std::to_string(axis) +
                        " is out of range for an array of " + std::to_string(nd) + " dimensions " +
                        shape_text(a.shape()));
  const std::size_t k = static_cast<std::size_t>(axis < 0 ? axis + nd : axis);
  std::vector<std::size_t> perm;
  for (std::size_t d = 0; d < a.ndim(); ++d)
    if (d != k) perm.push_back(d);
  perm.push_back(k);
  Array moved = a.transpose(perm);
  if (!moved.contiguous()) moved = moved.copy(q);
  return {moved, k};
}

// The array of `moved`'s layout (axis k last) put back in a's axis order, contiguous.
Array restore(Queue& q, const Array& moved, std::size_t k) {
  const std::size_t nd = moved.ndim();
  if (k == nd - 1) return moved;
  std::vector<std::size_t> back(nd);
  for (std::size_t d = 0, from = 0; d < nd; ++d) back[d] = d == k ? nd - 1 : from++;
  return moved.transpose(back).copy(q);
}

Array sort_or_argsort(Queue& q, const Array& a, std::int64_t axis, bool descending, bool indices) {
  const char* call = indices ? "argsort" : "sort";
  const auto [moved, k] = rows_of(q, a, axis, call);
  const std::uint64_t n = moved.size(), run = moved.shape().back();
  Array out = empty(q.device(), moved.shape(), indices ? ScalarType::i64 : a.dtype());
  if (n == 0) return restore(q, out, k);
  Config c;
  c.dtype = a.dtype();
  c.values = indices || n != run;
  c.wide_values = n > 0xffffffffULL;
  c.descending = descending;
  c.canon_zero = indices;
  const auto [keys, vals] = radix(q, c, moved, run);
  if (indices)
    q.launch_args(kernel(q, c, "duet_sort_indices"), cover(n), Range(kGroup),
                  {arg(vals, c.wide_values ? ScalarType::u64 : ScalarType::u32), arg(out, ScalarType::i64),
                   KernelArg::from(n), KernelArg::from(run)});
  else
    q.launch_args(kernel(q, c, "duet_sort_decode"), cover(n), Range(kGroup),
                  {arg(keys, c.wide_keys() ? ScalarType::u64 : ScalarType::u32), arg(out, c.bits_scalar()),
                   KernelArg::from(n)});
  return restore(q, out, k);
}

// The keys of a's elements (C order), as searchsorted compares them.
Array encoded(Queue& q, const Config& c, const Array& a) {
  const Array flat = a.contiguous() ? a : a.copy(q);
  const ScalarType K = c.wide_keys() ? ScalarType::u64 : ScalarType::u32;
  Array keys = empty(q.device(), {flat.size()}, K);
  if (flat.size() == 0) return keys;
  const auto [buf, off] = passable(q, flat);
  q.launch_args(kernel(q, c, "duet_sort_encode"), cover(flat.size()), Range(kGroup),
                {KernelArg::from_raw(buf, c.bits_scalar()), KernelArg::from(off), arg(keys, K),
                 KernelArg::from(std::uint64_t(flat.size()))});
  return keys;
}

}  // namespace

Array sort(Queue& q, const Array& a, std::int64_t axis, bool descending) {
  return sort_or_argsort(q, a, axis, descending, false);
}

Array argsort(Queue& q, const Array& a, std::int64_t axis, bool descending) {
  return sort_or_argsort(q, a, axis, descending, true);
}

SortedKeys sort_flat(Queue& q, const Array& keys, bool with_indices, bool descending) {
  if (!keys.valid()) throw ReleasedError("sort_flat: the array is empty (default-constructed)");
  if (keys.ndim() != 1)
    throw ArgumentError("sort_flat: the keys must be 1-D, not " + shape_text(keys.shape()));
  SortedKeys out;
  const Array src = keys.contiguous() ? keys : keys.copy(q);
  const std::uint64_t n = src.size();
  out.keys = empty(q.device(), {n}, keys.dtype());
  if (with_indices) out.indices = empty(q.device(), {n}, ScalarType::i64);
  if (n == 0) return out;
  Config c;
  c.dtype = keys.dtype();
  c.values = with_indices;
  c.wide_values = n > 0xffffffffULL;
  c.descending = descending;
  c.canon_zero = with_indices;
  const auto [sorted, vals] = radix(q, c, src, n);
  q.launch_args(kernel(q, c, "duet_sort_decode"), cover(n), Range(kGroup),
                {arg(sorted, c.wide_keys() ? ScalarType::u64 : ScalarType::u32),
                 arg(out.keys, c.bits_scalar()), KernelArg::from(n)});
  if (with_indices)
    q.launch_args(kernel(q, c, "duet_sort_indices"), cover(n), Range(kGroup),
                  {arg(vals, c.wide_values ? ScalarType::u64 : ScalarType::u32),
                   arg(out.indices, ScalarType::i64), KernelArg::from(n), KernelArg::from(n)});
  return out;
}

Array searchsorted(Queue& q, const Array& a, const Array& values, bool right) {
  if (!a.valid() || !values.valid())
    throw ReleasedError("searchsorted: an array is empty (default-constructed)");
  if (a.ndim() != 1)
    throw ArgumentError("searchsorted: the sorted array must be 1-D, not " + shape_text(a.shape()));
  if (a.dtype() != values.dtype())
    throw ArgumentError(std::string("searchsorted: the sorted array holds ") + to_string(a.dtype()) +
                        ", the values " + to_string(values.dtype()) + "; convert them to one dtype first");
  Config c;
  c.dtype = a.dtype();
  c.canon_zero = true;
  Array out = empty(q.device(), values.shape(), ScalarType::i64);
  if (values.size() == 0) return out;
  const Array hay = encoded(q, c, a), needles = encoded(q, c, values);
  const ScalarType K = c.wide_keys() ? ScalarType::u64 : ScalarType::u32;
  q.launch_args(
      kernel(q, c, "duet_searchsorted"), cover(values.size()), Range(kGroup),
      {arg(hay, K), KernelArg::from(std::uint64_t(a.size())), arg(needles, K), arg(out, ScalarType::i64),
       KernelArg::from(std::uint64_t(values.size())), KernelArg::from(std::uint32_t(right))});
  return out;
}

std::string sort_source(ScalarType dtype, bool with_values, bool descending) {
  Config c;
  c.dtype = dtype;
  c.values = with_values;
  c.descending = descending;
  return kernel_source(c);
}

}  // namespace duet
