// sort, argsort and searchsorted of duet/array_sort.hpp: an LSD radix sort in the dialect.
//
// Keys. Each element becomes an unsigned key whose unsigned order is the wanted order: integers
// with the sign bit flipped, floats with every bit flipped for negatives and the sign bit set for
// positives (NaNs first made the one positive quiet NaN, so they all land after +inf; for argsort
// and searching -0 made +0 too, so equal values stay equal), all bits inverted for descending,
// which keeps equal keys in order: a descending sort stays stable. Inputs are read as raw bits, so
// float64 sorts on devices without double. The first pass encodes as it reads the input and the
// last decodes as it writes the output (or writes only the indices, for argsort): no pass of its
// own for either.
//
// One pass per 8-bit digit, least significant first (four for float32), each pass stable. Two
// schemes; DUET_SORT_ONESWEEP (read at each sort) picks one: the one sweep by default, which beats
// the three launches a pass on both of NVIDIA's backends at every size the benchmark sorts
// (bench/RESULTS.md); DUET_SORT_ONESWEEP=0 the three launches, kept as the simpler reference.
//
// One sweep: a launch a pass, so a pass reads and writes the keys once, as the memory floor asks.
// duet_sort_histogram reads the input once and counts every pass's digits (the row passes' from
// the flat index), duet_sort_starts makes them each digit's start, and then each pass is one
// duet_sort_onesweep: a work-group takes its tile from a global counter (tile order is launch
// order, so every tile before it belongs to a running group and waiting on it cannot deadlock, on a
// GPU or on a CPU's threads), ranks its elements by the digit, publishes its digit counts, looks
// back over the tiles before it for the counts before it (decoupled look-back: a tile's word says
// its own count or its inclusive prefix, in one store, so no fence is needed between flag and
// count), publishes its inclusive prefix, and writes its elements from shared memory, sorted by
// digit, to consecutive addresses within each digit. The look-back words live in two arrays used
// by alternate passes, and each tile zeroes its words in the other one: no fill between passes.
// Ranking: where inline PTX has the warp's votes (CUDA and NVIDIA's OpenCL, sm_70 on;
// DUET_SORT_RANK=counting declines it) a warp multi-split: each warp ranks its run of the tile in
// input order, a ballot per digit bit giving the lanes with the same digit, popc of those below a
// lane its place among them, and the warp's counter of the digit those of earlier loads; the keys
// stay in registers until they are placed in shared memory by rank. That replaces the two counting
// sorts below (about 40 barriers and a 17 KiB counter array) with a few dozen instructions an
// element. Elsewhere the tile is
// ranked with those counting sorts, which are correct on every device. DUET_SORT_ITEMS sets the
// elements per work-item of a tile (default: for the warp ranking as many as fit 48 KiB of shared
// memory, 20 at most; for the counting ranking 80 bytes of key and index, 16 at most, so that its
// shared memory stays under 40 KiB).
//
// Three launches a pass (the older scheme). count: each tile of kGroup x items elements counts
// its 256 digits (local atomics on 8 copies of the counters, so equal keys do not all queue on one
// counter) into hist[digit][tile]. scan: one work-group per digit scans its row of tiles in place (exclusive)
// and writes the digit's total. scatter: each tile, read with coalesced loads into shared memory,
// is sorted there by its digit with two stable 4-bit counting sorts (a counter per (nibble,
// work-item), work-item t ranking its run of consecutive elements: an exclusive scan of the 16 x
// kGroup counters in (nibble, work-item) order gives every element its place in input order within
// its nibble, with no atomics, the same on every device); then consecutive work-items write
// consecutive elements, which within a digit go to consecutive addresses: digit start (the totals
// scanned) + the tiles before (the scanned row) + the place within the tile's run of that digit.
// Shared arrays are padded (one word in 32, one counter in 16) so that the strided accesses of a
// work-item's run fall in distinct banks. A tile holds 64 bytes of key and value per work-item,
// which keeps shared memory under 40 KiB, inside CUDA's static limit with several groups per SM.
//
// Axes. sort along an axis sorts the rows of a contiguous copy with that axis last. Rows are
// separated by a key of (row, value): the values' passes first, then passes over the row's bits
// taken from the carried flat index (index / row length), so one set of launches sorts every row
// at once, whatever their number and length (row-by-row launches would leave a GPU idle on many
// short rows). A single row needs no index carried unless argsort asks for it: keys alone move.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "duet/array_reduce.hpp"
#include "duet/array_scan.hpp"
#include "duet/array_sort.hpp"
#include "duet/extension.hpp"
#include "duet/generated.hpp"
#include "queue_scratch.hpp"

namespace duet {
namespace {

constexpr std::uint64_t kGroup = 256;
constexpr unsigned kDigitBits = 8;
constexpr unsigned kRadix = 1u << kDigitBits;
constexpr std::uint64_t kScanItems = 8;      // row entries per work-item per step of the scan kernel
constexpr std::uint64_t kHistItems = 8;      // loads in flight per work-item in the one-sweep histogram
// Its work-groups at most (they stride over the input): several waves of them on a large GPU, so
// that groups which finish early make room for others; on an H200 the sort ran faster and steadier
// with 2048 than with one wave of them or with 1024 (bench/RESULTS.md).
constexpr std::uint64_t kHistGroups = 2048;

// What a sort's source depends on.
struct Config {
  ScalarType dtype = ScalarType::f32;
  bool values = false;       // an index carried with each key
  bool wide_values = false;  // indices and offsets as ulong (more than 2^32 - 1 elements)
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
  bool wide_keys() const { return width() >= 64; }
  ScalarType key_scalar() const { return wide_keys() ? ScalarType::u64 : ScalarType::u32; }
  ScalarType value_scalar() const { return wide_values ? ScalarType::u64 : ScalarType::u32; }
  // Elements per work-item in a tile: 64 bytes of key and value each.
  std::uint64_t items() const { return 64 / ((wide_keys() ? 8 : 4) + (values ? (wide_values ? 8 : 4) : 0)); }
  std::uint64_t tile() const { return kGroup * items(); }

  // The one-sweep kernels' choices (read from the environment by sort_knobs).
  bool match = true;           // warp multi-split ranking where inline PTX has the warp's votes
  std::uint64_t os_items = 0;  // elements per work-item of a one-sweep tile; 0: the default
  bool wide_status = false;    // look-back words of 64 bits: 2^30 elements or more
  bool onesweep = true;        // one launch a pass (DUET_ONESWEEP: the source holds one scheme's kernels)
  unsigned max_passes() const { return width() / kDigitBits + (wide_values ? 8 : 4); }
  // Copies of the histogram's counters: as many as 32 KiB of them hold, from 1 to 8, a power of 2.
  unsigned hist_copies() const {
    unsigned copies = 1;
    while (copies < 8 && 2 * copies * max_passes() * kRadix * 4 <= 32 * 1024) copies *= 2;
    return copies;
  }
  std::uint64_t element_bytes() const { return (wide_keys() ? 8 : 4) + (values ? (wide_values ? 8 : 4) : 0); }
  // A one-sweep work-group's shared memory for `items` elements a work-item: the padded tile, the
  // ranking's counters (8 KiB a warp's 256 and 2 bytes an element, or the counting sort's 17 KiB),
  // 4 KiB more.
  std::uint64_t sweep_shared_bytes(std::uint64_t items) const {
    return kGroup * items * (element_bytes() * 33 / 32 + (match ? 2 : 0)) + (match ? 8192 : 17408) + 4096;
  }
  // The warp ranking's tile: as many elements a work-item as fit CUDA's static 48 KiB, up to 20. A
  // larger tile spreads the look-back and the write-out's setup over more elements: 20 keys alone
  // and 14 keys with indices sorted 10-15 % faster than 16 and 10 (bench/RESULTS.md); more keeps
  // too many keys in registers. The counting ranking: 80 bytes of key and value, 16 elements at
  // most, its shared memory under 40 KiB as the three-launch kernels' is.
  std::uint64_t sweep_items() const {
    if (os_items) return os_items;
    if (!match) return std::min<std::uint64_t>(16, 80 / element_bytes());
    std::uint64_t items = 20;
    while (items > 1 && sweep_shared_bytes(items) > 48 * 1024) --items;
    return items;
  }
  std::uint64_t sweep_tile() const { return kGroup * sweep_items(); }
  const char* status_type() const { return wide_status ? "ulong" : "uint"; }
  std::string key() const {
    return std::string("sort8/") + to_string(dtype) + (values ? "/v" : "/keys") +
           (wide_values ? "64" : "32") + (descending ? "/desc" : "/asc") + (canon_zero ? "/z" : "") +
           (onesweep ? std::string(match ? "/sweep/match/" : "/sweep/count/") + std::to_string(sweep_items()) +
                           (wide_status ? "/s64" : "")
                     : std::string("/three"));
  }
};

std::string hex(std::uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v << "UL";
  return s.str();
}

std::string kernel_source(const Config& c) {
  const unsigned w = c.width();
  const std::uint64_t mask = w >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << w) - 1;
  const std::uint64_t sign = std::uint64_t(1) << (std::min(w, 64u) - 1);
  const unsigned mantissa = c.dtype == ScalarType::f16    ? 10
                            : c.dtype == ScalarType::bf16 ? 7
                            : c.dtype == ScalarType::f32  ? 23
                                                          : 52;
  const std::uint64_t inf = ((mask >> (mantissa + 1)) << mantissa) & mask;  // exponent all ones
  const std::uint64_t qnan = inf | (std::uint64_t(1) << (mantissa - 1));
  const int kind = is_float(c.dtype) ? 2 : is_signed(c.dtype) ? 1 : 0;
  const char* K = c.wide_keys() ? "ulong" : "uint";
  const char* V = c.wide_values ? "ulong" : "uint";
  const std::string B = c.bits_type();
  std::ostringstream s;
  s << "#define DUET_B " << B << "\n#define DUET_K " << K << "\n#define DUET_V " << V << "\n#define DUET_O "
    << V << "\n#define DUET_VALUES " << (c.values ? 1 : 0) << "\n#define DUET_KIND " << kind
    << "\n#define DUET_DESC " << (c.descending ? 1 : 0) << "\n#define DUET_CANON_ZERO "
    << (c.canon_zero ? 1 : 0) << "\n#define DUET_MASK ((DUET_K)" << hex(mask)
    << ")\n#define DUET_SIGN ((DUET_K)" << hex(sign) << ")\n#define DUET_INF ((DUET_K)" << hex(inf)
    << ")\n#define DUET_QNAN ((DUET_K)" << hex(qnan) << ")\n#define DUET_GROUP " << kGroup
    << "\n#define DUET_ITEMS " << c.items() << "\n#define DUET_TILE " << c.tile()
    << "\n#define DUET_SCAN_ITEMS " << kScanItems << "\n";
  s << "#define DUET_WIDE " << (c.wide_values ? 1 : 0) << "\n#define DUET_ONESWEEP " << (c.onesweep ? 1 : 0)
    << "\n";
  // Only the scheme asked for is compiled (a device compiles the other's kernels for nothing), and
  // only its parameters reach the source, so the other scheme's do not make programs of their own.
  if (c.onesweep) {
    const unsigned status_bits = c.wide_status ? 64 : 32;
    s << "#define DUET_KEY_PASSES " << w / kDigitBits << "\n#define DUET_MAX_PASSES " << c.max_passes()
      << "\n#define DUET_HIST_ITEMS " << kHistItems << "\n#define DUET_HIST_COPIES " << c.hist_copies()
      << "\n#define DUET_RANK_MATCH " << (c.match ? 1 : 0) << "\n#define DUET_OS_ITEMS " << c.sweep_items()
      << "\n#define DUET_OS_TILE " << c.sweep_tile() << "\n#define DUET_S " << c.status_type()
      << "\n#define DUET_S_AGG ((DUET_S)" << hex(std::uint64_t(1) << (status_bits - 2))
      << ")\n#define DUET_S_INCL ((DUET_S)" << hex(std::uint64_t(1) << (status_bits - 1))
      << ")\n#define DUET_S_COUNT ((DUET_S)" << hex((std::uint64_t(1) << (status_bits - 2)) - 1) << ")\n";
  }
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

// A counter in shared memory that many work-items add to at once: its old value returned, v added to
// it in one instruction, on both backends.
#if defined(DUET_CUDA)
#define DUET_LOCAL_ADD(p, v) atomicAdd((uint*)(p), (v))
#else
#define DUET_LOCAL_ADD(p, v) atomic_add((volatile __local uint*)(p), (v))
#endif

// Shared-array index padding: a word in 32 (tiles), a counter in 16 (the nibble counters), so a
// work-item's run of consecutive elements and its neighbours' fall in distinct banks.
#define DUET_PAD(i) ((i) + ((i) >> 5))
#define DUET_CPAD(f) ((f) + ((f) >> 4))

// The digit of a pass: 8 bits of the key at `shift`, or in the row passes 8 bits of the row
// (carried index / run); a padding element (index past n) is 255, so it sorts after its tile's
// elements.
#if DUET_VALUES
#define DUET_DIGIT(k, v)                                                                       \
  (by_row ? ((ulong)(v) >= n ? 255u : (uint)((((ulong)(v)) / run) >> shift) & 255u)            \
          : (uint)((k) >> shift) & 255u)
#else
#define DUET_DIGIT(k, v) ((uint)((k) >> shift) & 255u)
#endif

// Inclusive Hillis-Steele scan of a[0..DUET_GROUP) in shared memory by the whole group; a barrier
// must precede it (a is written), and one ends it.
#define DUET_GROUP_SCAN(T, a)                                      \
  for (uint step = 1u; step < DUET_GROUP; step <<= 1) {            \
    const T left = t >= step ? a[t - step] : (T)0;                 \
    BARRIER();                                                     \
    a[t] += left;                                                  \
    BARRIER();                                                     \
  }

// The tile in tk (and tv) ordered by the pass's digit with two stable counting sorts by 4 bits of
// it, low then high, work-item t ranking its ITEMS consecutive elements: a counter per (nibble,
// work-item) in `counts`, and an exclusive scan of the 16 x DUET_GROUP counters in (nibble,
// work-item) order (work-item t taking counters 16t .. 16t + 15, `sums` their totals) gives every
// element its place in input order within its nibble, with no atomics, the same on every device.
#if DUET_VALUES
#define DUET_RANK_VALUES(ITEMS) DUET_V v[ITEMS];
#define DUET_RANK_LOAD_VALUE(j, q) v[j] = tv[DUET_PAD(q)];
#define DUET_RANK_VALUE(j) v[j]
#define DUET_RANK_STORE_VALUE(j, to) tv[DUET_PAD(to)] = v[j];
#else
#define DUET_RANK_VALUES(ITEMS)
#define DUET_RANK_LOAD_VALUE(j, q)
#define DUET_RANK_VALUE(j) 0
#define DUET_RANK_STORE_VALUE(j, to)
#endif
#define DUET_COUNTING_RANK(ITEMS)                                                 \
  for (uint upper = 0; upper < 2u; ++upper) {                                    \
    DUET_K k[ITEMS];                                                             \
    DUET_RANK_VALUES(ITEMS)                                                      \
    uint nib[ITEMS];                                                             \
    for (uint c = 0; c < 16u; ++c) counts[DUET_CPAD(c * DUET_GROUP + t)] = 0;   \
    BARRIER();                                                                   \
    for (uint j = 0; j < ITEMS; ++j) {                                           \
      const uint q = t * ITEMS + j;                                              \
      k[j] = tk[DUET_PAD(q)];                                                    \
      DUET_RANK_LOAD_VALUE(j, q)                                                 \
      nib[j] = (DUET_DIGIT(k[j], DUET_RANK_VALUE(j)) >> (upper * 4u)) & 15u;     \
      counts[DUET_CPAD(nib[j] * DUET_GROUP + t)] += 1u;                         \
    }                                                                            \
    BARRIER();                                                                   \
    uint sum = 0;                                                                \
    for (uint j = 0; j < 16u; ++j) {                                             \
      const uint f = DUET_CPAD(t * 16u + j);                                     \
      const uint c = counts[f];                                                  \
      counts[f] = sum;                                                           \
      sum += c;                                                                  \
    }                                                                            \
    sums[t] = sum;                                                               \
    BARRIER();                                                                   \
    DUET_GROUP_SCAN(uint, sums)                                                  \
    const uint before = t > 0 ? sums[t - 1] : 0u;                                \
    for (uint j = 0; j < 16u; ++j) counts[DUET_CPAD(t * 16u + j)] += before;     \
    BARRIER();                                                                   \
    for (uint j = 0; j < ITEMS; ++j) {                                           \
      const uint f = DUET_CPAD(nib[j] * DUET_GROUP + t);                         \
      const uint to = counts[f];                                                 \
      counts[f] = to + 1u;                                                       \
      tk[DUET_PAD(to)] = k[j];                                                   \
      DUET_RANK_STORE_VALUE(j, to)                                               \
    }                                                                            \
    BARRIER();                                                                   \
  }

// The sorted tile in tk (and tv) written out, work-item t taking elements t, t + DUET_GROUP, ...
// (TAIL 1: those of them before `valid`):
// element p of digit d goes to base[d] + p (base: where the digit's run of this tile goes in the
// output, less where it starts in the tile). out: 0 keys (and indices) for the next pass; else the
// last pass's outputs, 1 the decoded keys into dst, 2 the indices (carried index % run) into idx, 3
// both. An index below run needs no division (one row: every index).
#if DUET_VALUES
#define DUET_WRITE_VALUE(to, v)                                                                   \
  if (out == 0u) vals_out[to] = v;                                                                \
  else if (out & 2u) idx[to] = (long)((ulong)(v) < run ? (ulong)(v) : (ulong)(v) % run);
#define DUET_TILE_VALUE(p) tv[DUET_PAD(p)]
#else
#define DUET_WRITE_VALUE(to, v)
#define DUET_TILE_VALUE(p) 0
#endif
#define DUET_WRITE_TILE(ITEMS, TAIL)                                                              \
  for (uint j = 0; j < ITEMS; ++j) {                                                              \
    const uint p = j * DUET_GROUP + t;                                                            \
    if ((TAIL) && p >= valid) continue;                                                           \
    const DUET_K k = tk[DUET_PAD(p)];                                                             \
    const DUET_V v = (DUET_V)DUET_TILE_VALUE(p);                                                  \
    (void)v;                                                                                      \
    const ulong to = base[DUET_DIGIT(k, v)] + p;                                                  \
    if (out == 0u) keys_out[to] = k;                                                              \
    else if (out & 1u) dst[to] = duet_decode(k);                                                  \
    DUET_WRITE_VALUE(to, v)                                                                       \
  }

// Element i of the pass's input: the source's bits encoded in the first pass, else the keys (and
// the carried index: i itself in the first pass).
#define DUET_LOAD_KEY(i) (first ? duet_encode(src[src_off + (long)(i)]) : keys[i])
#if DUET_VALUES
#define DUET_LOAD_VALUE(i) (first ? (DUET_V)(i) : vals[i])
#endif

#if !DUET_ONESWEEP
// ---- Three launches a pass: count, scan, scatter. ----

// hist[digit][tile]: how many of the tile's elements have each digit.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_count(
    GLOBAL const DUET_B* src, const long src_off, GLOBAL const DUET_K* keys DUET_VALS_IN, GLOBAL DUET_O* hist,
    const ulong n, const uint shift, const uint by_row, const ulong run, const ulong tiles, const uint first) {
  SHARED uint counts[8 * 256];
  const uint t = LOCAL_ID(0);
  for (uint c = t; c < 8u * 256u; c += DUET_GROUP) counts[c] = 0;
  BARRIER();
  const ulong start = (ulong)GROUP_ID(0) * DUET_TILE;
  const uint copy = (t & 7u) * 256u;
  for (uint j = 0; j < DUET_ITEMS; ++j) {
    const ulong i = start + (ulong)j * DUET_GROUP + t;
    if (i < n) {
      const DUET_K k = DUET_LOAD_KEY(i);
#if DUET_VALUES
      const DUET_V v = by_row ? DUET_LOAD_VALUE(i) : (DUET_V)0;
#endif
      DUET_LOCAL_ADD(&counts[copy + DUET_DIGIT(k, v)], 1u);
    }
  }
  BARRIER();
  uint sum = 0;
  for (uint c = 0; c < 8u; ++c) sum += counts[c * 256u + t];
  hist[(ulong)t * tiles + GROUP_ID(0)] = (DUET_O)sum;
}

// Row `digit` of hist made exclusive sums along the tiles, in place; totals[digit] its sum.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_scan(GLOBAL DUET_O* hist, GLOBAL DUET_O* totals,
                                                            const ulong tiles) {
  SHARED DUET_O part[DUET_GROUP];
  const uint t = LOCAL_ID(0);
  GLOBAL DUET_O* row = hist + (ulong)GROUP_ID(0) * tiles;
  DUET_O carry = 0;
  for (ulong base = 0; base < tiles; base += DUET_GROUP * DUET_SCAN_ITEMS) {
    DUET_O v[DUET_SCAN_ITEMS];
    DUET_O sum = 0;
    for (uint j = 0; j < DUET_SCAN_ITEMS; ++j) {
      const ulong i = base + (ulong)t * DUET_SCAN_ITEMS + j;
      v[j] = i < tiles ? row[i] : (DUET_O)0;
      sum += v[j];
    }
    part[t] = sum;
    BARRIER();
    DUET_GROUP_SCAN(DUET_O, part)
    DUET_O at = carry + (t > 0 ? part[t - 1] : (DUET_O)0);
    carry += part[DUET_GROUP - 1];
    for (uint j = 0; j < DUET_SCAN_ITEMS; ++j) {
      const ulong i = base + (ulong)t * DUET_SCAN_ITEMS + j;
      if (i < tiles) row[i] = at;
      at += v[j];
    }
    BARRIER();
  }
  if (t == 0) totals[GROUP_ID(0)] = carry;
}

// One tile sorted by the pass's digit in shared memory, then written where the digit's elements
// of this tile go. out: 0 keys (and indices) for the next pass; else the last pass's outputs, 1
// the decoded keys into dst, 2 the indices (carried index % run) into idx, 3 both.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_scatter(
    GLOBAL const DUET_B* src, const long src_off, GLOBAL const DUET_K* keys DUET_VALS_IN,
    GLOBAL DUET_K* keys_out DUET_VALS_OUT, GLOBAL DUET_B* dst, GLOBAL long* idx, GLOBAL const DUET_O* hist,
    GLOBAL const DUET_O* totals, const ulong n, const uint shift, const uint by_row, const ulong run,
    const ulong tiles, const uint first, const uint out) {
  SHARED DUET_K tk[DUET_PAD(DUET_TILE)];
#if DUET_VALUES
  SHARED DUET_V tv[DUET_PAD(DUET_TILE)];
#endif
  SHARED uint counts[DUET_CPAD(16u * DUET_GROUP)];
  SHARED uint sums[DUET_GROUP];
  SHARED uint first_at[256];
  SHARED ulong base[256];
  const uint t = LOCAL_ID(0);
  const ulong start = (ulong)GROUP_ID(0) * DUET_TILE;
  const uint valid = n - start < (ulong)DUET_TILE ? (uint)(n - start) : DUET_TILE;
  for (uint j = 0; j < DUET_ITEMS; ++j) {
    const uint p = j * DUET_GROUP + t;
    DUET_K k = ~(DUET_K)0;
#if DUET_VALUES
    DUET_V v = ~(DUET_V)0;
    if (p < valid) v = DUET_LOAD_VALUE(start + p);
    tv[DUET_PAD(p)] = v;
#endif
    if (p < valid) k = DUET_LOAD_KEY(start + p);
    tk[DUET_PAD(p)] = k;
  }
  // Where each digit starts in the output: the totals of the digits before, scanned.
  base[t] = (ulong)totals[t];
  BARRIER();
  DUET_GROUP_SCAN(ulong, base)
  const ulong my_base = (t > 0 ? base[t - 1] : 0UL) + (ulong)hist[(ulong)t * tiles + GROUP_ID(0)];

  // Two stable counting sorts by 4 bits of the digit, low then high.
  DUET_COUNTING_RANK(DUET_ITEMS)

  // Where each digit's run starts in the sorted tile, then base = its place in the output less that.
  for (uint j = 0; j < DUET_ITEMS; ++j) {
    const uint p = j * DUET_GROUP + t;
    if (p < valid) {
#if DUET_VALUES
      const uint d = DUET_DIGIT(tk[DUET_PAD(p)], tv[DUET_PAD(p)]);
      const uint prev = p > 0 ? DUET_DIGIT(tk[DUET_PAD(p - 1)], tv[DUET_PAD(p - 1)]) : 256u;
#else
      const uint d = DUET_DIGIT(tk[DUET_PAD(p)], 0);
      const uint prev = p > 0 ? DUET_DIGIT(tk[DUET_PAD(p - 1)], 0) : 256u;
#endif
      if (d != prev) first_at[d] = p;
    }
  }
  BARRIER();
  base[t] = my_base - (ulong)first_at[t];  // unused (any value) for digits the tile lacks
  BARRIER();
  DUET_WRITE_TILE(DUET_ITEMS, 1)
}

#endif  // !DUET_ONESWEEP

#if DUET_ONESWEEP
// ---- One sweep a pass: a histogram of every pass's digits, then one launch a pass. ----

// A counter in global memory of 64 bits made of two 32-bit words (OpenCL 1.2 has no 64-bit atomics
// without an extension): the low word's atomic add returns the old value, and a wrap carries one
// into the high word. The adds commute, so the pair holds the total once the kernel has ended.
DEVICE void duet_global_add64(GLOBAL uint* lo, GLOBAL uint* hi, const uint add) {
  const uint old = ATOMIC_ADD_UINT(lo, add);
  if (old + add < old) ATOMIC_ADD_UINT(hi, 1u);
}

// counts[pass][0..256) low words, counts[pass][256..512) high words: how many of the n elements
// have each digit in each pass, key passes first (their digits from the encoded key), then the row
// passes (from the flat index's row, index / run). Work-groups stride over the input, counting in
// shared memory, and add their counts to the global ones at the end. Work-items t, t + copies, ...
// share one of DUET_HIST_COPIES copies of the counters, so that equal digits (a float's exponent
// byte, few values) do not all queue on one counter.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_histogram(
    GLOBAL const DUET_B* src, const long src_off, GLOBAL uint* counts, const ulong n, const uint passes,
    const ulong run) {
  SHARED uint local_counts[DUET_HIST_COPIES * DUET_MAX_PASSES * 256];
  const uint t = LOCAL_ID(0);
  for (uint c = t; c < DUET_HIST_COPIES * DUET_MAX_PASSES * 256u; c += DUET_GROUP) local_counts[c] = 0;
  SHARED_MEM uint* mine = local_counts + (t % DUET_HIST_COPIES) * (DUET_MAX_PASSES * 256u);
  BARRIER();
  const ulong stride = (ulong)NUM_GROUPS(0) * DUET_GROUP * DUET_HIST_ITEMS;
  for (ulong at = (ulong)GROUP_ID(0) * DUET_GROUP * DUET_HIST_ITEMS; at < n; at += stride) {
    DUET_K k[DUET_HIST_ITEMS];
    for (uint j = 0; j < DUET_HIST_ITEMS; ++j) {
      const ulong i = at + (ulong)j * DUET_GROUP + t;
      k[j] = i < n ? duet_encode(src[src_off + (long)i]) : (DUET_K)0;
    }
    for (uint j = 0; j < DUET_HIST_ITEMS; ++j) {
      const ulong i = at + (ulong)j * DUET_GROUP + t;
      if (i >= n) continue;
      for (uint s = 0; s < DUET_KEY_PASSES; ++s)
        DUET_LOCAL_ADD(&mine[s * 256u + ((uint)(k[j] >> (s * 8u)) & 255u)], 1u);
      if (passes > DUET_KEY_PASSES) {
        const ulong row = i / run;
        for (uint s = DUET_KEY_PASSES; s < passes; ++s)
          DUET_LOCAL_ADD(&mine[s * 256u + ((uint)(row >> ((s - DUET_KEY_PASSES) * 8u)) & 255u)], 1u);
      }
    }
  }
  BARRIER();
  for (uint c = t; c < passes * 256u; c += DUET_GROUP) {
    uint add = 0;
    for (uint copy = 0; copy < DUET_HIST_COPIES; ++copy) add += local_counts[copy * (DUET_MAX_PASSES * 256u) + c];
    GLOBAL uint* lo = counts + (c >> 8) * 512u + (c & 255u);
    if (add) duet_global_add64(lo, lo + 256u, add);
  }
}

// starts[pass][digit]: where the digit's elements begin in the pass's output (the counts of the
// digits before it). One work-group a pass.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_starts(GLOBAL const uint* counts, GLOBAL DUET_O* starts) {
  SHARED DUET_O part[DUET_GROUP];
  const uint t = LOCAL_ID(0), pass = GROUP_ID(0);
#if DUET_WIDE
  const DUET_O total = (DUET_O)counts[pass * 512u + t] | ((DUET_O)counts[pass * 512u + 256u + t] << 32);
#else
  const DUET_O total = (DUET_O)counts[pass * 512u + t];
#endif
  part[t] = total;
  BARRIER();
  DUET_GROUP_SCAN(DUET_O, part)
  starts[pass * 256u + t] = part[t] - total;
}

#if DUET_RANK_MATCH && defined(DUET_NV_PTX) && DUET_NV_ARCH >= 70
#define DUET_OS_MATCH 1
#else
#define DUET_OS_MATCH 0
#endif
#define DUET_WARPS (DUET_GROUP / 32)
// The one-sweep kernel is bound by the latency of its shared-memory steps, so it wants resident
// groups more than registers: left alone, ptxas gives keys alone 80 registers a work-item, three
// groups a multiprocessor; asking for four keeps it at 64 with no spills, and the sort of 2^28
// float32 keys runs about 7% faster (bench/RESULTS.md). The dialect's REQD_GROUP_SIZE stays the
// token the host reads the group size from; on CUDA it gains the minimum here.
#if defined(DUET_CUDA)
#undef REQD_GROUP_SIZE
#define REQD_GROUP_SIZE(x, y, z) __launch_bounds__((x) * (y) * (z), 4)
#endif

#if DUET_OS_MATCH
#if DUET_VALUES
#define DUET_MATCH_LOAD_VALUE(j, p, TAIL) \
  v[j] = !(TAIL) || (p) < valid ? DUET_LOAD_VALUE(start + (p)) : ~(DUET_V)0;
#define DUET_MATCH_DIGIT(j) DUET_DIGIT(k[j], v[j])
#else
#define DUET_MATCH_LOAD_VALUE(j, p, TAIL)
#define DUET_MATCH_DIGIT(j) DUET_DIGIT(k[j], 0)
#endif
// Warp w's run of the tile ranked (see the kernel), TAIL 1 where the tile ends early: its elements
// past the end load nothing and take digit 256, which no element of the tile shares. The lanes
// holding d: one ballot a bit of it (the lanes that share the bit: the ballot, or its complement).
// match.any does the same in one instruction, but with a throughput so low that the ranking waited
// on it. The highest lane of each set of peers advances the warp's counter of d with a predicated
// atomic (no branch around it) and hands the old count to the others.
#define DUET_MATCH_RANK(TAIL)                                                                      \
  for (uint j = 0; j < DUET_OS_ITEMS; ++j) {                                                       \
    const uint p = run_at + j * 32u + lane;                                                        \
    k[j] = !(TAIL) || p < valid ? DUET_LOAD_KEY(start + p) : ~(DUET_K)0;                            \
    DUET_MATCH_LOAD_VALUE(j, p, TAIL)                                                              \
  }                                                                                                \
  for (uint j = 0; j < DUET_OS_ITEMS; ++j) {                                                       \
    const uint p = run_at + j * 32u + lane;                                                        \
    const uint d = !(TAIL) || p < valid ? DUET_MATCH_DIGIT(j) : 256u;                              \
    uint peers = 0xffffffffu, top, below, before = 0;                                              \
    for (uint b = 0; b < ((TAIL) ? 9u : 8u); ++b) {                                                \
      uint votes;                                                                                  \
      asm volatile(                                                                                \
          "{ .reg .pred p; .reg .b32 m; and.b32 m, %1, %2; setp.ne.u32 p, m, 0;"                   \
          " vote.sync.ballot.b32 %0, p, 0xffffffff; @!p not.b32 %0, %0; }"                         \
          : "=r"(votes)                                                                            \
          : "r"(d), "r"(1u << b));                                                                 \
      peers &= votes;                                                                              \
    }                                                                                              \
    asm("bfind.u32 %0, %1;" : "=r"(top) : "r"(peers));                                             \
    asm("popc.b32 %0, %1;" : "=r"(below) : "r"(peers & below_mask));                               \
    asm volatile(                                                                                  \
        "{ .reg .pred p, q; setp.eq.u32 p, %1, %2; setp.lt.and.u32 q, %5, 256, p;"                 \
        " @q atom.shared.add.u32 %0, [%3], %4; }"                                                  \
        : "+r"(before)                                                                             \
        : "r"(lane), "r"(top), "r"(mine_at + d * 4u), "r"(below + 1u), "r"((TAIL) ? d : 0u));      \
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"                                 \
                 : "=r"(before)                                                                    \
                 : "r"(before), "r"(top));                                                         \
    ranks[p] = (ushort)(before + below);                                                           \
  }
#endif

// One pass of the sort in one launch. A work-group takes the next tile from tile_counter (so every
// tile before it belongs to a group that is already running, on GPUs and on a CPU's threads alike:
// waiting on it cannot deadlock), ranks the tile's elements by their digit, publishes its digit
// counts in status[tile][digit] (DUET_S_AGG: this tile's count), looks back over the tiles before
// it, adding their counts until one has published its inclusive prefix (DUET_S_INCL), publishes its
// own inclusive prefix, and writes its elements, sorted in shared memory by digit, to starts[digit]
// + the tiles before + the place in its run. A status word holds flag and count together, so one
// plain store publishes both (a volatile access, which both backends keep in order and do not
// cache; no word is ever half-written: 32 bits, or an aligned 64). status holds two arrays of
// tiles x 256 words, at status_at this pass's and at next_at the next pass's (which the pass
// before used, and no one reads now): each tile zeroes its words there, so no pass needs a fill.
// out: as duet_sort_scatter.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_onesweep(
    GLOBAL const DUET_B* src, const long src_off, GLOBAL const DUET_K* keys DUET_VALS_IN,
    GLOBAL DUET_K* keys_out DUET_VALS_OUT, GLOBAL DUET_B* dst, GLOBAL long* idx, GLOBAL const DUET_O* starts,
    GLOBAL DUET_S* status, const ulong status_at, const ulong next_at, GLOBAL uint* tile_counter,
    const uint counter, const ulong n, const uint pass, const uint shift, const uint by_row, const ulong run,
    const uint first, const uint out) {
  SHARED DUET_K tk[DUET_PAD(DUET_OS_TILE)];
#if DUET_VALUES
  SHARED DUET_V tv[DUET_PAD(DUET_OS_TILE)];
#endif
#if DUET_OS_MATCH
  SHARED uint warp_counts[DUET_WARPS * 256];
  // Each element's place among its digit's in its warp's run. In shared memory rather than
  // registers: ptxas then keeps the kernel near 64 registers (4 work-groups a multiprocessor), where
  // an array of ranks in registers next to the keys doubles that at 16 elements per work-item.
  SHARED ushort ranks[DUET_OS_TILE];
#else
  SHARED uint counts[DUET_CPAD(16u * DUET_GROUP)];
  SHARED uint sums[DUET_GROUP];
  SHARED uint digit_counts[256];
#endif
  SHARED uint digit_at[256];
  // Under 2^30 elements (32-bit look-back words) an output place fits 32 bits: the write-out's
  // lookups of base by random digits then move half the bytes through shared memory's banks.
  SHARED DUET_S base[256];
  SHARED uint tile_at;
  const uint t = LOCAL_ID(0);
  if (t == 0) tile_at = ATOMIC_ADD_UINT(&tile_counter[counter], 1u);
#if DUET_OS_MATCH
  for (uint c = t; c < DUET_WARPS * 256u; c += DUET_GROUP) warp_counts[c] = 0;
#else
  digit_counts[t] = 0;
#endif
  BARRIER();
  const uint tile = tile_at;
  const ulong start = (ulong)tile * DUET_OS_TILE;
  const uint valid = n - start < (ulong)DUET_OS_TILE ? (uint)(n - start) : DUET_OS_TILE;
  uint total;  // this tile's elements of digit t

#if DUET_OS_MATCH
  // Warp-level multi-split: warp w ranks its run of 32 x items elements (element j * 32 + lane of
  // the run in load j) in input order. Ballots give the lanes holding the same digit, popc of
  // those below a lane its place among them, and the warp's counter of the digit (advanced by the
  // highest of them with one shared atomic, which returns the old count: a load and a dependent
  // store took longer on both NVIDIA backends) the elements of that digit in the warp's earlier
  // loads.
  const uint lane = t & 31u, warp = t >> 5;
  const uint run_at = warp * 32u * DUET_OS_ITEMS;
  // The warp's counters as an address in the shared window, worked out once: through a generic
  // pointer the compiler worked it out again at every element.
#if defined(DUET_CUDA)
  uint mine_at;
  asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }"
      : "=r"(mine_at)
      : "l"(warp_counts + warp * 256u));
#else
  const uint mine_at = (uint)(ulong)(warp_counts + warp * 256u);  // a __local pointer is that address
#endif
  DUET_K k[DUET_OS_ITEMS];
#if DUET_VALUES
  DUET_V v[DUET_OS_ITEMS];
#endif
  uint below_mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below_mask));
  // A full tile (every tile but the last) needs no bounds check on its loads and no vote on
  // whether an element is past the end: the ranking is written twice, and the full form runs.
  if (valid == DUET_OS_TILE) {
    DUET_MATCH_RANK(0)
  } else {
    DUET_MATCH_RANK(1)
  }
  BARRIER();
  // Digit t's count in the tile, and each warp's counter made the warp's first place among them.
  total = 0;
  for (uint w = 0; w < DUET_WARPS; ++w) {
    const uint c = warp_counts[w * 256u + t];
    warp_counts[w * 256u + t] = total;
    total += c;
  }
#else
  // Coalesced loads into shared memory, counting the digits.
  for (uint j = 0; j < DUET_OS_ITEMS; ++j) {
    const uint p = j * DUET_GROUP + t;
    DUET_K k = ~(DUET_K)0;
#if DUET_VALUES
    DUET_V v = ~(DUET_V)0;
    if (p < valid) v = DUET_LOAD_VALUE(start + p);
    tv[DUET_PAD(p)] = v;
#endif
    if (p < valid) {
      k = DUET_LOAD_KEY(start + p);
#if DUET_VALUES
      DUET_LOCAL_ADD(&digit_counts[DUET_DIGIT(k, v)], 1u);
#else
      DUET_LOCAL_ADD(&digit_counts[DUET_DIGIT(k, 0)], 1u);
#endif
    }
    tk[DUET_PAD(p)] = k;
  }
  BARRIER();
  total = digit_counts[t];
#endif

  // Publish this tile's counts first, so that the tiles after it need not wait for its sorting.
  volatile GLOBAL DUET_S* flags = (volatile GLOBAL DUET_S*)(status + status_at);
  flags[(ulong)tile * 256u + t] = (tile == 0 ? DUET_S_INCL : DUET_S_AGG) | (DUET_S)total;

  // Where digit t's run starts in the sorted tile: the counts of the digits before it. With warp
  // shuffles, a scan within each warp and then over the warps' sums (2 barriers); else
  // Hillis-Steele through shared memory (16).
#if DUET_OS_MATCH
  uint upto = total;  // inclusive, within the warp
  for (uint o = 1; o < 32u; o <<= 1) {
    uint other;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(other) : "r"(upto), "r"(o));
    if (lane >= o) upto += other;
  }
  if (lane == 31u) digit_at[warp] = upto;
  BARRIER();
  uint at = upto - total;
  for (uint w = 0; w < warp; ++w) at += digit_at[w];
#else
  digit_at[t] = total;
  BARRIER();
  DUET_GROUP_SCAN(uint, digit_at)
  const uint at = digit_at[t] - total;
#endif

#if DUET_OS_MATCH
  for (uint w = 0; w < DUET_WARPS; ++w) warp_counts[w * 256u + t] += at;
  BARRIER();
  for (uint j = 0; j < DUET_OS_ITEMS; ++j) {
    const uint p = run_at + j * 32u + lane;
    if (p >= valid) continue;
#if DUET_VALUES
    const uint to = warp_counts[warp * 256u + DUET_DIGIT(k[j], v[j])] + ranks[p];
    tv[DUET_PAD(to)] = v[j];
#else
    const uint to = warp_counts[warp * 256u + DUET_DIGIT(k[j], 0)] + ranks[p];
#endif
    tk[DUET_PAD(to)] = k[j];
  }
#else
  // Two stable counting sorts by 4 bits of the digit, low then high, as in duet_sort_scatter.
  DUET_COUNTING_RANK(DUET_OS_ITEMS)
#endif

  // Look back: the counts of digit t in the tiles before this one, one word a step, nearest first.
  // Reading eight words a step (independent loads, one latency) was no faster on NVIDIA's OpenCL
  // and slower on CUDA, timed side by side (bench/RESULTS.md).
  ulong before = 0;
  if (tile > 0) {
    for (uint j = tile - 1u;;) {
      const DUET_S word = flags[(ulong)j * 256u + t];
      if (word == 0) continue;  // not yet published
      before += (ulong)(word & DUET_S_COUNT);
      if ((word & DUET_S_INCL) || j == 0) break;
      --j;
    }
    flags[(ulong)tile * 256u + t] = DUET_S_INCL | (DUET_S)(before + total);
  }
  base[t] = (DUET_S)((ulong)starts[pass * 256u + t] + before - (ulong)at);  // unused for digits the tile lacks
  status[next_at + (ulong)tile * 256u + t] = 0;
  BARRIER();
  if (valid == DUET_OS_TILE) {
    DUET_WRITE_TILE(DUET_OS_ITEMS, 0)
  } else {
    DUET_WRITE_TILE(DUET_OS_ITEMS, 1)
  }
}

#endif  // DUET_ONESWEEP

// The keys of n elements, for searching.
KERNEL void duet_sort_encode(GLOBAL const DUET_B* src, const long src_off, GLOBAL DUET_K* keys, const ulong n) {
  const ulong i = GLOBAL_ID(0);
  if (i < n) keys[i] = duet_encode(src[src_off + (long)i]);
}

// For each needle, the first (right: past the last) place in the ascending hay it may go.
KERNEL void duet_searchsorted(GLOBAL const DUET_K* hay, const ulong n, GLOBAL const DUET_K* needles,
                              GLOBAL long* out, const ulong m, const uint right) {
  const ulong i = GLOBAL_ID(0);
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
  // duet reads kernel signatures as written (it adds view offsets to their buffers), so they name
  // their types and optional parameters literally.
  std::string text = s.str();
  const std::vector<std::pair<std::string, std::string>> literal{
      {"DUET_VALS_IN", c.values ? std::string(", GLOBAL const ") + V + "* vals" : ""},
      {"DUET_VALS_OUT", c.values ? std::string(", GLOBAL ") + V + "* vals_out" : ""},
      {"DUET_B*", B + "*"},
      {"DUET_K*", std::string(K) + "*"},
      {"DUET_V*", std::string(V) + "*"},
      {"DUET_O*", std::string(V) + "*"},
      {"DUET_S*", std::string(c.status_type()) + "*"}};
  for (const auto& [from, to] : literal)
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
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

// The positive integer in environment variable `name`, or 0 where it is unset or empty.
std::uint64_t env_number(const char* name, const char* what) {
  const char* text = std::getenv(name);
  if (!text || !*text) return 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (*end != '\0' || v == 0)
    throw ArgumentError(std::string(name) + " is '" + text + "'; it must be " + what + " (or unset)");
  return v;
}

// c with the environment's choices of scheme and tile for sorting n elements (read at each sort, so
// one process can compare them): DUET_SORT_ONESWEEP=1 (the default) one launch a pass, 0 the
// three; DUET_SORT_RANK=counting the portable ranking also where the warp ranking compiles, match
// (the default) the warp ranking where it compiles; DUET_SORT_ITEMS the one-sweep tile's elements
// per work-item.
// Whether the warp ranking's PTX (vote.sync, sm_70 on) compiles on `device`: CUDA, or NVIDIA's
// OpenCL unless DUET_OPENCL_PTX=0, which leaves the PTX out there (backends/opencl/device.cpp).
bool warp_ranking(const DeviceInfo& device) {
  if (device.arch.rfind("sm_", 0) != 0 || std::atoi(device.arch.c_str() + 3) < 70) return false;
  if (device.backend == "cuda") return true;
  const char* ptx = std::getenv("DUET_OPENCL_PTX");
  return device.backend == "opencl" && device.vendor.find("NVIDIA") != std::string::npos &&
         !(ptx && std::string(ptx) == "0");
}

Config with_knobs(Config c, std::uint64_t n, const DeviceInfo* device) {
  if (const char* v = std::getenv("DUET_SORT_ONESWEEP"); v && *v) {
    const std::string s = v;
    if (s != "0" && s != "1")
      throw ArgumentError("DUET_SORT_ONESWEEP is '" + s +
                          "'; it must be 1 (one launch a sort pass) or 0 (three: "
                          "count, scan, scatter), or unset for 1");
    c.onesweep = s == "1";
  }
  if (const char* v = std::getenv("DUET_SORT_RANK"); v && *v) {
    const std::string s = v;
    if (s != "match" && s != "counting")
      throw ArgumentError("DUET_SORT_RANK is '" + s +
                          "'; it must be match (warp multi-split where inline PTX "
                          "allows) or counting (the portable counting sort), or unset for match");
    c.match = s == "match";
  }
  // The host knows which ranking the source will compile, so the key and the tile follow it.
  if (device) c.match = c.match && warp_ranking(*device);
  c.os_items = env_number("DUET_SORT_ITEMS", "the elements per work-item of a one-sweep sort tile, 1 to 32");
  // CUDA's static limit of shared memory is 48 KiB.
  const std::uint64_t limit = std::min<std::uint64_t>(
      48 * 1024, device && device->local_memory_bytes ? device->local_memory_bytes : 48 * 1024);
  const std::uint64_t shared = c.sweep_shared_bytes(c.os_items);
  if (c.os_items > 32 || (c.os_items && shared > limit))
    throw ArgumentError("DUET_SORT_ITEMS is " + std::to_string(c.os_items) +
                        "; a one-sweep tile of that many elements per work-item needs " +
                        std::to_string(shared) + " bytes of shared memory for " + to_string(c.dtype) +
                        (c.values ? " keys and indices" : " keys") + ", over the " + std::to_string(limit) +
                        " a work-group may have (or more than 32): choose fewer");
  c.wide_status = n >= (std::uint64_t(1) << 30);
  return c;
}

Range cover(std::uint64_t n) { return Range((n + kGroup - 1) / kGroup * kGroup); }

unsigned bits_for(std::uint64_t v) {
  unsigned b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return b;
}

KernelArg arg(const Array& a, ScalarType as) { return KernelArg::from_raw(a.buffer(), as); }

// Per queue: the one-sweep sort's temporary memory (keys and indices between passes, look-back
// words, counts, starts), kept from one sort to the next and grown as needed. Allocating and freeing
// it at every sort cost as much as a pass or more on some machines (cuMemFree waits for the queue,
// and mapping gigabytes takes time); calls on one queue run in order, so the next sort may take it
// over, and threads sharing the queue take turns from a sort's first launch to its last. Memory
// past a quarter of the device's is not kept: such a sort frees it as before.
struct SortScratch {
  std::mutex enqueueing;
  RawBuffer keys[2], vals[2], status, counts, starts;
};

// The one-sweep radix sort (see radix): a histogram of every pass's digits and their starts, then
// one launch a pass.
void radix_onesweep(Queue& q, const Config& c, const Array& src, std::uint64_t run, const Array* keys_out,
                    const Array* indices_out) {
  const std::uint64_t n = src.size();
  const ScalarType K = c.key_scalar(), V = c.value_scalar(), O = c.value_scalar();
  const ScalarType S = c.wide_status ? ScalarType::u64 : ScalarType::u32;
  const std::uint64_t tiles = (n + c.sweep_tile() - 1) / c.sweep_tile();
  const std::uint64_t rows = run == 0 ? 0 : n / run;
  const unsigned key_passes = (c.width() + kDigitBits - 1) / kDigitBits;
  const unsigned row_passes = rows > 1 ? (bits_for(rows - 1) + kDigitBits - 1) / kDigitBits : 0;
  const unsigned passes = key_passes + row_passes;
  const auto [src_buf, src_off] = passable(q, src);
  const Kernel histogram = kernel(q, c, "duet_sort_histogram"), scan = kernel(q, c, "duet_sort_starts"),
               sweep = kernel(q, c, "duet_sort_onesweep");

  const Device& device = q.device();
  const auto scratch = extension::queue_state<SortScratch>(q, "duet.array.sort",
                                                           [] { return std::make_shared<SortScratch>(); });
  std::lock_guard<std::mutex> turn(scratch->enqueueing);
  // counts[pass][512] (the histogram's low and high words), then a tile counter a pass; two arrays
  // of look-back words (pass p uses array p % 2); where each pass's digits start.
  const std::size_t count_bytes = std::size_t(passes) * 513 * sizeof(std::uint32_t);
  const std::size_t status_half = std::size_t(tiles * kRadix) * size_of(S);
  RawBuffer& counts = detail::grown_scratch(device, scratch->counts, count_bytes);
  RawBuffer& status = detail::grown_scratch(device, scratch->status, 2 * status_half);
  RawBuffer& starts =
      detail::grown_scratch(device, scratch->starts, std::size_t(passes) * kRadix * size_of(O));
  RawBuffer* keys[2] = {nullptr, nullptr};
  RawBuffer* vals[2] = {nullptr, nullptr};
  for (unsigned k = 0; k < 2 && k + 1 < passes; ++k) {
    keys[k] = &detail::grown_scratch(device, scratch->keys[k], n * size_of(K));
    if (c.values) vals[k] = &detail::grown_scratch(device, scratch->vals[k], n * size_of(V));
  }
  const std::uint32_t zero = 0;
  q.fill_bytes(counts, 0, count_bytes, &zero, sizeof zero);
  // Only the first pass's array starts zeroed: each pass's tiles zero theirs in the other one.
  q.fill_bytes(status, 0, status_half, &zero, sizeof zero);

  const std::uint64_t groups =
      std::min<std::uint64_t>(kHistGroups, (n + kGroup * kHistItems - 1) / (kGroup * kHistItems));
  q.launch_args(histogram, Range(groups * kGroup), Range(kGroup),
                {KernelArg::from_raw(src_buf, c.bits_scalar()), KernelArg::from(src_off),
                 KernelArg::from_raw(counts, ScalarType::u32), KernelArg::from(n),
                 KernelArg::from(std::uint32_t(passes)), KernelArg::from(run)});
  q.launch_args(scan, Range(passes * kGroup), Range(kGroup),
                {KernelArg::from_raw(counts, ScalarType::u32), KernelArg::from_raw(starts, O)});
  // An argument the pass does not use (none of that kind this pass): the counts stand in.
  auto or_counts = [&](const RawBuffer* b, ScalarType as) {
    return KernelArg::from_raw(b ? *b : counts, as);
  };
  const std::uint32_t out = (keys_out ? 1u : 0u) | (indices_out ? 2u : 0u);
  for (unsigned pass = 0; pass < passes; ++pass) {
    const bool by_row = pass >= key_passes, first = pass == 0, last = pass + 1 == passes;
    const std::uint32_t shift = (by_row ? pass - key_passes : pass) * kDigitBits;
    std::vector<KernelArg> args{KernelArg::from_raw(src_buf, c.bits_scalar()), KernelArg::from(src_off),
                                or_counts(first ? nullptr : keys[(pass + 1) % 2], K)};
    if (c.values) args.push_back(or_counts(first ? nullptr : vals[(pass + 1) % 2], V));
    args.push_back(or_counts(last ? nullptr : keys[pass % 2], K));
    if (c.values) args.push_back(or_counts(last ? nullptr : vals[pass % 2], V));
    args.push_back(last && keys_out ? arg(*keys_out, c.bits_scalar()) : or_counts(nullptr, c.bits_scalar()));
    args.push_back(last && indices_out ? arg(*indices_out, ScalarType::i64)
                                       : or_counts(nullptr, ScalarType::i64));
    args.push_back(KernelArg::from_raw(starts, O));
    args.push_back(KernelArg::from_raw(status, S));
    args.push_back(KernelArg::from(std::uint64_t(pass % 2) * tiles * kRadix));
    args.push_back(KernelArg::from(std::uint64_t((pass + 1) % 2) * tiles * kRadix));
    args.push_back(KernelArg::from_raw(counts, ScalarType::u32));
    args.push_back(KernelArg::from(std::uint32_t(passes * 512 + pass)));
    args.push_back(KernelArg::from(n));
    args.push_back(KernelArg::from(std::uint32_t(pass)));
    args.push_back(KernelArg::from(shift));
    args.push_back(KernelArg::from(std::uint32_t(by_row)));
    args.push_back(KernelArg::from(run));
    args.push_back(KernelArg::from(std::uint32_t(first)));
    args.push_back(KernelArg::from(std::uint32_t(last ? out : 0u)));
    q.launch_args(sweep, Range(tiles * kGroup), Range(kGroup), args);
  }
  RawBuffer* const all[] = {&scratch->keys[0], &scratch->keys[1], &scratch->vals[0], &scratch->vals[1],
                            &scratch->status,  &scratch->counts,  &scratch->starts};
  std::size_t kept = 0;
  for (const RawBuffer* b : all) kept += b->bytes();
  if (kept > device.info().memory_bytes / 4)
    for (RawBuffer* b : all) *b = RawBuffer();
}

// The radix sort of `src` (contiguous in C order, rows of `run` elements, c.values when an index
// must be carried: several rows, or indices wanted) into `keys_out` (src's dtype; may be null) and
// `indices_out` (int64 positions within the row; may be null).
void radix(Queue& q, const Config& c, const Array& src, std::uint64_t run, const Array* keys_out,
           const Array* indices_out) {
  if (c.onesweep) return radix_onesweep(q, c, src, run, keys_out, indices_out);
  const std::uint64_t n = src.size();
  const ScalarType K = c.key_scalar(), V = c.value_scalar(), O = c.value_scalar();
  const std::uint64_t tiles = (n + c.tile() - 1) / c.tile();
  const std::uint64_t rows = run == 0 ? 0 : n / run;
  const unsigned key_passes = (c.width() + kDigitBits - 1) / kDigitBits;
  const unsigned row_passes = rows > 1 ? (bits_for(rows - 1) + kDigitBits - 1) / kDigitBits : 0;
  const unsigned passes = key_passes + row_passes;
  const Array hist = empty(q.device(), {kRadix * tiles}, O);
  const Array totals = empty(q.device(), {kRadix}, O);
  // Keys (and indices) between passes: pass p writes set p % 2.
  Array keys[2], vals[2];
  for (unsigned k = 0; k < 2 && k + 1 < passes; ++k) {
    keys[k] = empty(q.device(), {n}, K);
    if (c.values) vals[k] = empty(q.device(), {n}, V);
  }
  const auto [src_buf, src_off] = passable(q, src);
  const Kernel count = kernel(q, c, "duet_sort_count"), scan = kernel(q, c, "duet_sort_scan"),
               scatter = kernel(q, c, "duet_sort_scatter");
  // Buffers a launch does not touch still need an argument: hist stands in for them.
  auto or_hist = [&](const Array& a, ScalarType as) { return a.valid() ? arg(a, as) : arg(hist, as); };
  const std::uint32_t out = (keys_out ? 1u : 0u) | (indices_out ? 2u : 0u);
  for (unsigned pass = 0; pass < passes; ++pass) {
    const bool by_row = pass >= key_passes, first = pass == 0, last = pass + 1 == passes;
    const std::uint32_t shift = (by_row ? pass - key_passes : pass) * kDigitBits;
    const Array& in_keys = first ? hist : keys[(pass + 1) % 2];
    const Array& in_vals = first ? hist : vals[(pass + 1) % 2];
    std::vector<KernelArg> input{KernelArg::from_raw(src_buf, c.bits_scalar()), KernelArg::from(src_off),
                                 or_hist(in_keys, K)};
    if (c.values) input.push_back(or_hist(in_vals, V));
    const std::vector<KernelArg> pass_args{
        KernelArg::from(n),   KernelArg::from(shift), KernelArg::from(std::uint32_t(by_row)),
        KernelArg::from(run), KernelArg::from(tiles), KernelArg::from(std::uint32_t(first))};
    std::vector<KernelArg> count_args = input;
    count_args.push_back(arg(hist, O));
    count_args.insert(count_args.end(), pass_args.begin(), pass_args.end());
    q.launch_args(count, Range(tiles * kGroup), Range(kGroup), count_args);
    q.launch_args(scan, Range(kRadix * kGroup), Range(kGroup),
                  {arg(hist, O), arg(totals, O), KernelArg::from(tiles)});
    std::vector<KernelArg> scatter_args = input;
    const Array& next_keys = last ? hist : keys[pass % 2];
    const Array& next_vals = last ? hist : vals[pass % 2];
    scatter_args.push_back(or_hist(next_keys, K));
    if (c.values) scatter_args.push_back(or_hist(next_vals, V));
    scatter_args.push_back(last && keys_out ? arg(*keys_out, c.bits_scalar()) : arg(hist, c.bits_scalar()));
    scatter_args.push_back(last && indices_out ? arg(*indices_out, ScalarType::i64)
                                               : arg(hist, ScalarType::i64));
    scatter_args.push_back(arg(hist, O));
    scatter_args.push_back(arg(totals, O));
    scatter_args.insert(scatter_args.end(), pass_args.begin(), pass_args.end());
    scatter_args.push_back(KernelArg::from(std::uint32_t(last ? out : 0u)));
    q.launch_args(scatter, Range(tiles * kGroup), Range(kGroup), scatter_args);
  }
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
  c = with_knobs(c, n, &q.device().info());
  radix(q, c, moved, run, indices ? nullptr : &out, indices ? &out : nullptr);
  return restore(q, out, k);
}

// The keys of a's elements (C order), as searchsorted compares them.
Array encoded(Queue& q, const Config& c, const Array& a) {
  const Array flat = a.contiguous() ? a : a.copy(q);
  const ScalarType K = c.key_scalar();
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

SortedKeys sort_flat(Queue& q, const Array& keys, bool with_indices, bool descending, bool equal_zeros) {
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
  c.canon_zero = with_indices || equal_zeros;
  c = with_knobs(c, n, &q.device().info());
  radix(q, c, src, n, &out.keys, with_indices ? &out.indices : nullptr);
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
  const ScalarType K = c.key_scalar();
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
  return kernel_source(
      with_knobs(c, 0, nullptr));  // DUET_SORT_ONESWEEP, _RANK and _ITEMS as a sort would take them
}

}  // namespace duet
