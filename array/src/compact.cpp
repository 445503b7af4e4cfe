// The stream compaction of compact.hpp (nonzero's positions, unique's run starts) in three launches
// and one small read, with no per-element array in global memory.
//
// The input is cut into tiles of kGroup x items elements. count: each work-group reads its tile
// (work-item t takes elements t, t + kGroup, ...: every load coalesced), tests each element in
// registers and writes the tile's number of kept elements, one uint per tile. scan: one work-group
// turns those counts into each tile's first place in the result (a loop over the tiles, which are
// few: one per several thousand elements) and writes the total after them, where the host reads it
// to size the result. scatter: each work-group reads and tests its tile again, the same coalesced
// way, and puts a byte per element in shared memory; work-item t then takes the run of `items`
// consecutive elements t * items ..., counts its bytes, and an exclusive scan of the kGroup counts
// ranks every kept element within the tile in ascending order. The kept elements' positions are
// listed in shared memory at their ranks and written out by consecutive work-items to consecutive
// addresses (the tile's first place + rank). unique_all's inverse takes every element's rank the
// same way and writes inverse[perm[i]] with coalesced reads of perm. Every order is fixed, so the
// result is the same on every device and every run, and equals the ascending positions.
//
// Each tile's flags take `items` bytes per work-item, padded to an odd number of 4-byte words, so
// that when every work-item reads byte j of its own run the reads fall in distinct banks.
#include "compact.hpp"

#include <cstdlib>
#include <sstream>

#include "bits_type.hpp"
#include "duet/array_select.hpp"
#include "duet/generated.hpp"

namespace duet {
namespace {

using detail::bits_scalar;
using detail::bits_type;

constexpr std::uint64_t kGroup = 256;
// Elements per work-item of a tile: 32 independent loads in flight per work-item in the count
// kernel, and 8192-element tiles, so 2^26 elements make only 8192 tile counts for the one-group
// scan while a tile's shared memory (its flags and ranks, about 26 KiB) still lets several
// work-groups share a multiprocessor; unique_values ran faster so than with 16 (bench/RESULTS.md).
// DUET_COMPACT_ITEMS overrides it, to compare sizes on a device.
constexpr std::size_t kDefaultItems = 32;
constexpr std::size_t kMaxItems = 32;  // keeps a tile's ranks in ushort and its shared memory small

// The elements per work-item: DUET_COMPACT_ITEMS where set, else the default.
std::size_t items_per_work_item() {
  const char* text = std::getenv("DUET_COMPACT_ITEMS");
  if (!text || !*text) return kDefaultItems;
  char* end = nullptr;
  const unsigned long items = std::strtoul(text, &end, 10);
  if (*end != '\0' || items == 0 || items % 4 != 0 || items > kMaxItems)
    throw ArgumentError(std::string("DUET_COMPACT_ITEMS is '") + text +
                        "'; it must be the elements per work-item of the compaction behind nonzero and "
                        "unique: a multiple of 4 from 4 to " +
                        std::to_string(kMaxItems) + " (or unset for " + std::to_string(kDefaultItems) + ")");
  return items;
}

Kernel kernel(Queue& q, ScalarType dtype, std::size_t items, const char* name) {
  // Integers share a variant by size; floats and complex numbers have their own zeros.
  const ScalarType keyed = is_float(dtype) || is_complex(dtype) ? dtype : bits_scalar(size_of(dtype));
  return generated::cached_kernel(
      q.device(), std::string("compact/") + to_string(keyed) + "/" + std::to_string(items) + "/" + name,
      [&] { return q.device().compile(compaction_source(keyed, items), {}, "compact.duet").kernel(name); });
}

std::pair<RawBuffer, std::int64_t> passable(const Queue& q, const Array& a) {
  RawBuffer arg = a.buffer().aligned_back(q.device().info().view_alignment);
  const std::int64_t skipped = static_cast<std::int64_t>((a.buffer().offset() - arg.offset()) / a.itemsize());
  return {std::move(arg), skipped + a.offset()};
}

KernelArg arg(const Array& a, ScalarType as) { return KernelArg::from_raw(a.buffer(), as); }

}  // namespace

std::string compaction_source(ScalarType dtype, std::size_t items) {
  if (items == 0 || items % 4 != 0 || items > kMaxItems)
    throw ArgumentError("compaction_source: " + std::to_string(items) +
                        " elements per work-item; give a multiple of 4 from 4 to " +
                        std::to_string(kMaxItems));
  // Elements are read as DUET_LANES words of bits B each: one word for every dtype up to 8 bytes,
  // two 8-byte words for complex128 (the dialect has no wider integer). A word's magnitude bits
  // leave out its sign bits (one per part of a complex number, so -0 and -0-0j are zero).
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
  s << "#define DUET_B " << B << "\n#define DUET_FLOAT " << (is_float(dtype) ? 1 : 0)
    << "\n#define DUET_LANES " << lanes << "\n#define DUET_MAGNITUDE ((DUET_B)0x" << std::hex
    << (signed_zero ? mask & ~signs : mask) << "UL)\n#define DUET_INF ((DUET_B)0x" << inf << "UL)\n"
    << std::dec << "#define DUET_GROUP " << kGroup << "u\n#define DUET_ITEMS " << items << "u\n";
  s << R"DUET(#define DUET_TILE (DUET_GROUP * DUET_ITEMS)
// A work-item's run of flags in shared memory: DUET_ITEMS bytes padded to an odd number of words.
#define DUET_STRIDE ((DUET_ITEMS / 4u) | 1u)
#define DUET_FLAG_AT(p) (((p) / DUET_ITEMS) * DUET_STRIDE * 4u + (p) % DUET_ITEMS)
// Tile counts per work-item per step of the scan.
#define DUET_SCAN_ITEMS 16u

// Inclusive Hillis-Steele scan of a[0..DUET_GROUP) by the whole group (t: the work-item); a barrier
// must precede it (a is written), and one ends it.
#define DUET_GROUP_SCAN(T, a, t)                                \
  for (uint step = 1u; step < DUET_GROUP; step <<= 1) {         \
    const T left = (t) >= step ? a[(t) - step] : (T)0;          \
    BARRIER();                                                  \
    a[t] += left;                                               \
    BARRIER();                                                  \
  }

// Whether element i is kept: nonzero (mode 0; NaN is, -0 is not), or the first of a run of equal
// sorted values (mode 1; every NaN starts its own; sorted keys are never of more than one word).
DEVICE uint duet_keep(GLOBAL const DUET_B* src, const long src_off, const ulong i, const uint mode) {
  const long at = (src_off + (long)i) * DUET_LANES;
  const ulong v = (ulong)src[at];
  if (mode == 0u) {
    ulong any = v;
    for (int l = 1; l < DUET_LANES; ++l) any |= (ulong)src[at + l];
    return (any & DUET_MAGNITUDE) != 0 ? 1u : 0u;
  }
  uint flag = i == 0 || v != (ulong)src[at - DUET_LANES];
#if DUET_FLOAT
  flag = flag || (v & DUET_MAGNITUDE) > DUET_INF;
#endif
  return flag ? 1u : 0u;
}

// counts[tile]: how many of the tile's elements are kept.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_compact_count(GLOBAL const DUET_B* RESTRICT src,
                                                                const long src_off, GLOBAL uint* counts,
                                                                const ulong n, const uint mode) {
  SHARED uint part[DUET_GROUP];
  const uint t = LOCAL_ID(0);
  const ulong start = (ulong)GROUP_ID(0) * DUET_TILE;
  uint mine = 0;
  if (n - start >= (ulong)DUET_TILE) {  // a whole tile: no bound to test, every load issued at once
    for (uint j = 0; j < DUET_ITEMS; ++j) mine += duet_keep(src, src_off, start + j * DUET_GROUP + t, mode);
  } else {
    for (uint j = 0; j < DUET_ITEMS; ++j) {
      const ulong i = start + j * DUET_GROUP + t;
      if (i < n) mine += duet_keep(src, src_off, i, mode);
    }
  }
  part[t] = mine;
  BARRIER();
  for (uint width = DUET_GROUP / 2u; width > 0u; width >>= 1) {
    if (t < width) part[t] += part[t + width];
    BARRIER();
  }
  if (t == 0u) counts[GROUP_ID(0)] = part[0];
}

// offsets[tile] = the counts of the tiles before it, offsets[tiles] their total: one work-group,
// DUET_GROUP x DUET_SCAN_ITEMS counts a step (work-item t the run t * DUET_SCAN_ITEMS ...).
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_compact_scan(GLOBAL const uint* counts,
                                                               GLOBAL ulong* offsets, const ulong tiles) {
  SHARED ulong part[DUET_GROUP];
  const uint t = LOCAL_ID(0);
  ulong carry = 0;
  for (ulong base = 0; base < tiles; base += DUET_GROUP * DUET_SCAN_ITEMS) {
    uint v[DUET_SCAN_ITEMS];
    ulong sum = 0;
    for (uint j = 0; j < DUET_SCAN_ITEMS; ++j) {
      const ulong i = base + t * DUET_SCAN_ITEMS + j;
      v[j] = i < tiles ? counts[i] : 0u;
      sum += v[j];
    }
    part[t] = sum;
    BARRIER();
    DUET_GROUP_SCAN(ulong, part, t)
    ulong at = carry + (t > 0u ? part[t - 1u] : 0UL);
    carry += part[DUET_GROUP - 1u];
    for (uint j = 0; j < DUET_SCAN_ITEMS; ++j) {
      const ulong i = base + t * DUET_SCAN_ITEMS + j;
      if (i < tiles) offsets[i] = at;
      at += v[j];
    }
    BARRIER();
  }
  if (t == 0u) offsets[tiles] = carry;
}

// The tile's kept positions written from offsets[tile] on, ascending; with_inverse: for every
// element i, inverse[perm[i]] = the place of the last kept position at or before i.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_compact_scatter(
    GLOBAL const DUET_B* RESTRICT src, const long src_off, GLOBAL const ulong* offsets, GLOBAL long* to,
    const ulong n, const uint mode, GLOBAL const long* perm, GLOBAL long* inverse, const uint with_inverse) {
  SHARED uint flag_words[DUET_GROUP * DUET_STRIDE];
  SHARED ushort list[DUET_TILE];
  SHARED uint sums[DUET_GROUP];
  SHARED_MEM uchar* flags = (SHARED_MEM uchar*)flag_words;
  const uint t = LOCAL_ID(0);
  const ulong start = (ulong)GROUP_ID(0) * DUET_TILE;
  const uint valid = n - start < (ulong)DUET_TILE ? (uint)(n - start) : DUET_TILE;
  // Every load issued before the first store to shared memory, which they then need not wait for.
  uint keep[DUET_ITEMS];
  if (valid == DUET_TILE) {
    for (uint j = 0; j < DUET_ITEMS; ++j) keep[j] = duet_keep(src, src_off, start + j * DUET_GROUP + t, mode);
  } else {
    for (uint j = 0; j < DUET_ITEMS; ++j) {
      const uint p = j * DUET_GROUP + t;
      keep[j] = p < valid ? duet_keep(src, src_off, start + p, mode) : 0u;
    }
  }
  for (uint j = 0; j < DUET_ITEMS; ++j) flags[DUET_FLAG_AT(j * DUET_GROUP + t)] = (uchar)keep[j];
  BARRIER();
  // Work-item t's run: its flags as bits, their count, then its first rank.
  uint bits = 0, mine = 0;
  for (uint j = 0; j < DUET_ITEMS; ++j) {
    const uint f = flags[t * DUET_STRIDE * 4u + j];
    bits |= f << j;
    mine += f;
  }
  sums[t] = mine;
  BARRIER();
  DUET_GROUP_SCAN(uint, sums, t)
  const uint first = sums[t] - mine, kept = sums[DUET_GROUP - 1u];
  uint rank = first;
  for (uint j = 0; j < DUET_ITEMS; ++j)
    if ((bits >> j) & 1u) list[rank++] = (ushort)(t * DUET_ITEMS + j);
  BARRIER();
  const ulong base = offsets[GROUP_ID(0)];
  for (uint k = t; k < kept; k += DUET_GROUP) to[base + k] = (long)(start + list[k]);
  if (!with_inverse) return;
  // Every element's count of kept ones up to and including it, then its place: that count less one.
  BARRIER();
  rank = first;
  for (uint j = 0; j < DUET_ITEMS; ++j) {
    rank += (bits >> j) & 1u;
    list[t * DUET_ITEMS + j] = (ushort)rank;
  }
  BARRIER();
  for (uint j = 0; j < DUET_ITEMS; ++j) {
    const uint p = j * DUET_GROUP + t;
    if (p < valid) inverse[perm[start + p]] = (long)(base + list[p]) - 1;
  }
}
)DUET";
  return s.str();
}

namespace detail {

Array compact(Queue& q, const Array& src, CompactMode mode, const Array* perm, Array* inverse) {
  const std::uint64_t n = src.size();
  if (n == 0) return empty(q.device(), {0}, ScalarType::i64);
  const std::size_t items = items_per_work_item();
  const std::uint64_t tile = kGroup * items;
  const std::uint64_t tiles = (n + tile - 1) / tile;
  const ScalarType dtype = src.dtype();
  const std::uint32_t m = static_cast<std::uint32_t>(mode);
  Array counts = empty(q.device(), {tiles}, ScalarType::u32);
  Array offsets = empty(q.device(), {tiles + 1}, ScalarType::u64);
  const auto [buf, off] = passable(q, src);
  const KernelArg source = KernelArg::from_raw(buf, bits_scalar(src.itemsize()));
  q.launch_args(
      kernel(q, dtype, items, "duet_compact_count"), Range(tiles * kGroup), Range(kGroup),
      {source, KernelArg::from(off), arg(counts, ScalarType::u32), KernelArg::from(n), KernelArg::from(m)});
  q.launch_args(kernel(q, dtype, items, "duet_compact_scan"), Range(kGroup), Range(kGroup),
                {arg(counts, ScalarType::u32), arg(offsets, ScalarType::u64), KernelArg::from(tiles)});
  const std::uint64_t count = offsets.index({std::int64_t(tiles)}).to_vector<std::uint64_t>(q)[0];
  Array to = empty(q.device(), {count}, ScalarType::i64);
  const bool with_inverse = perm != nullptr;
  if (count == 0) return to;  // nothing kept (never for run starts, the first element starts one)
  q.launch_args(
      kernel(q, dtype, items, "duet_compact_scatter"), Range(tiles * kGroup), Range(kGroup),
      {source, KernelArg::from(off), arg(offsets, ScalarType::u64), arg(to, ScalarType::i64),
       KernelArg::from(n), KernelArg::from(m), arg(with_inverse ? *perm : to, ScalarType::i64),
       arg(with_inverse ? *inverse : to, ScalarType::i64), KernelArg::from(std::uint32_t(with_inverse))});
  return to;
}

}  // namespace detail
}  // namespace duet
