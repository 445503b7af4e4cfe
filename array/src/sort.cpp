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
// One pass per 8-bit digit, least significant first (four for float32), each pass stable and made
// of five launches. count: each tile of group x items elements counts its 256 digits into
// hist[digit][tile] (each work-item loads all its elements before counting, so its loads are in
// flight together; local atomics on 8 copies of the counters, so equal keys do not all queue on one
// counter). reduce, scan, spread: hist, flat in (digit, tile) order, made exclusive sums by many
// work-groups (each chunk's sum, the sums scanned by one group, each chunk scanned from its place):
// entry (digit, tile) becomes where the tile's elements of that digit start in the output, the
// elements of every smaller digit and of that digit in the tiles before. scatter: each tile, read
// with coalesced loads into shared memory, is sorted there by its digit with two stable 4-bit
// counting sorts; each work-item ranks its run of consecutive elements with its own 16 counters,
// packed two 16-bit ones to a uint (or four to a ulong), and one group-wide exclusive scan of those
// words (a work-item's own eight or four, then a scan of one sum a work-item) places every
// element in input order within its nibble, with no atomics, the same on every device. Then
// consecutive work-items write consecutive elements, which within a digit go to consecutive
// addresses: the digit's start (the scanned hist) + the place within the tile's run of that digit.
// Shared arrays are padded so that the strided accesses of a work-item's run fall in distinct banks. A
// tile holds 64 bytes of key and value per work-item by default, which keeps shared memory near
// 31 KiB, inside CUDA's 48 KiB static limit with several groups per SM. DUET_SORT_ITEMS (elements
// per work-item), DUET_SORT_GROUP (work-items per group) and DUET_SORT_PACK (counters to a word, 2
// or 4) choose other variants, checked against those limits, so that one process can compare them.
//
// Axes. sort along an axis sorts the rows of a contiguous copy with that axis last. Rows are
// separated by a key of (row, value): the values' passes first, then passes over the row's bits
// taken from the carried flat index (index / row length), so one set of launches sorts every row
// at once, whatever their number and length (row-by-row launches would leave a GPU idle on many
// short rows). A single row needs no index carried unless argsort asks for it: keys alone move.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "duet/array_reduce.hpp"
#include "duet/array_scan.hpp"
#include "duet/array_sort.hpp"
#include "duet/extension.hpp"
#include "duet/generated.hpp"

namespace duet {
namespace {

constexpr std::uint64_t kGroup = 256;     // work-items per group, unless DUET_SORT_GROUP says
constexpr std::uint64_t kItemBytes = 64;  // key and value bytes per work-item, unless DUET_SORT_ITEMS says
constexpr unsigned kDigitBits = 8;
constexpr unsigned kRadix = 1u << kDigitBits;
constexpr std::uint64_t kPack = 2;        // 16-bit counters to a word, unless DUET_SORT_PACK says
constexpr std::uint64_t kScanItems = 16;  // hist entries per work-item in the scan's launches
// CUDA's limit on a kernel's static shared memory, which every device duet runs on allows.
constexpr std::uint64_t kSharedLimit = 48 * 1024;

// What a sort's source depends on.
struct Config {
  ScalarType dtype = ScalarType::f32;
  bool values = false;       // an index carried with each key
  bool wide_values = false;  // indices and offsets as ulong (more than 2^32 - 1 elements)
  bool descending = false;
  bool canon_zero = false;  // -0 as +0 (argsort, searching)
  std::uint64_t group = kGroup;
  std::uint64_t items_set = 0;  // elements per work-item in a tile; 0: kItemBytes of key and value
  std::uint64_t pack = kPack;   // 16-bit counters to a counter word: 2 (uint) or 4 (ulong)

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
  std::uint64_t element_bytes() const { return (wide_keys() ? 8 : 4) + (values ? (wide_values ? 8 : 4) : 0); }
  std::uint64_t items() const { return items_set ? items_set : kItemBytes / element_bytes(); }
  std::uint64_t tile() const { return group * items(); }
  // The scatter's shared arrays (as its source declares them): the padded tile, the packed
  // counters, the scan's buffer, first_at and base.
  std::uint64_t scatter_shared() const {
    const std::uint64_t padded_tile = tile() + tile() / 32;
    const std::uint64_t counter_words = pack == 4 ? 4 * group + group / 4 : 8 * (group + 32);
    return padded_tile * element_bytes() + (counter_words + 2 * group) * pack * 2 + kRadix * (4 + 8);
  }
  std::string key() const {
    return std::string("sort8/") + to_string(dtype) + (values ? "/v" : "/keys") +
           (wide_values ? "64" : "32") + (descending ? "/desc" : "/asc") + (canon_zero ? "/z" : "") + "/g" +
           std::to_string(group) + "x" + std::to_string(items()) + "/p" + std::to_string(pack);
  }
};

// A positive integer from environment variable `name`, or 0 where it is unset or empty.
std::uint64_t env_count(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (*end != '\0' || v == 0 || text[0] == '-')
    throw ArgumentError(std::string(name) + "=" + text +
                        " is not a positive integer; set a number or unset it");
  return v;
}

// The sort's tile and counters from DUET_SORT_GROUP, DUET_SORT_ITEMS and DUET_SORT_PACK, where
// set (read at each sort, so that one process can compare variants), checked against what the
// kernels can hold: 16-bit counters (a tile under 2^16 elements) and CUDA's static shared memory.
void take_environment(Config& c) {
  if (const std::uint64_t g = env_count("DUET_SORT_GROUP")) {
    if (g < 64 || g > 1024 || (g & (g - 1)) != 0)
      throw ArgumentError("DUET_SORT_GROUP=" + std::to_string(g) +
                          ": the sort's work-group size must be a power of two from 64 to 1024");
    c.group = g;
  }
  if (const std::uint64_t items = env_count("DUET_SORT_ITEMS")) {
    if (items > 64)
      throw ArgumentError("DUET_SORT_ITEMS=" + std::to_string(items) +
                          ": at most 64 elements per work-item (registers hold them all)");
    c.items_set = items;
  }
  if (const std::uint64_t pack = env_count("DUET_SORT_PACK")) {
    if (pack != 2 && pack != 4)
      throw ArgumentError(
          "DUET_SORT_PACK=" + std::to_string(pack) +
          ": the sort packs 2 (in 32-bit words) or 4 (in 64-bit words) 16-bit counters to a word");
    c.pack = pack;
  }
  if (c.tile() >= (1u << 16))
    throw ArgumentError(
        "the sort's tile of " + std::to_string(c.group) + " work-items x " + std::to_string(c.items()) +
        " elements reaches 2^16, past its 16-bit counters; lower DUET_SORT_ITEMS or DUET_SORT_GROUP");
  if (c.scatter_shared() > kSharedLimit)
    throw ArgumentError("the sort's tile of " + std::to_string(c.group) + " work-items x " +
                        std::to_string(c.items()) + " elements of " + std::to_string(c.element_bytes()) +
                        " bytes needs " + std::to_string(c.scatter_shared()) +
                        " bytes of shared memory, over the 49152 a kernel may declare; lower DUET_SORT_ITEMS "
                        "or DUET_SORT_GROUP");
}

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
    << ")\n#define DUET_QNAN ((DUET_K)" << hex(qnan) << ")\n#define DUET_GROUP " << c.group
    << "\n#define DUET_ITEMS " << c.items() << "\n#define DUET_TILE " << c.tile()
    << "\n#define DUET_SCAN_ITEMS " << kScanItems << "\n#define DUET_PACK " << c.pack << "\n";
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

// A counter in shared memory incremented by many work-items at once: standard on both backends.
#if defined(DUET_CUDA)
#define DUET_LOCAL_INC(p) atomicAdd((p), 1u)
#else
#define DUET_LOCAL_INC(p) atomic_inc((volatile __local uint*)(p))
#endif

// Tile index padding: a word in 32, so a work-item's run of consecutive elements and its
// neighbours' fall in distinct banks.
#define DUET_PAD(i) ((i) + ((i) >> 5))

// The packed counters of the scatter's ranking: the 16 values of a nibble counted per work-item
// in 16-bit fields (a field never exceeds the tile, which stays under 2^16), DUET_PACK to a word:
// nibble d in lane d % DUET_LANES, field d / DUET_LANES, word (lane, work-item) at lane x
// DUET_GROUP + work-item. Padding keeps both access patterns free of bank conflicts: a lane each
// (counting: consecutive work-items, any lanes) and a work-item's DUET_LANES consecutive words
// (the scan): for 8-byte words one in 16 (16 to a row of banks), for 4-byte words one in 32
// within a lane and a lane's block rounded up to whole rows.
#if DUET_PACK == 4
#define DUET_CW ulong
#define DUET_LANES 4u
#define DUET_CPAD(w) ((w) + ((w) >> 4))
#define DUET_COUNTER_WORDS DUET_CPAD(DUET_LANES * DUET_GROUP)
#else
#define DUET_CW uint
#define DUET_LANES 8u
#define DUET_CPAD(w) (((w) / DUET_GROUP) * (DUET_GROUP + 32u) + (w) % DUET_GROUP + ((w) % DUET_GROUP) / 32u)
#define DUET_COUNTER_WORDS (DUET_LANES * (DUET_GROUP + 32u))
#endif
#define DUET_FIELDS (16u / DUET_LANES)

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

// Exclusive scan of one value per work-item over the group: `before` gets the sum of the values of
// the work-items before t, `total` the group's sum. buf (2 x DUET_GROUP of T in shared memory)
// alternates halves, one barrier a step (not two, as in place); a barrier must separate the reads
// of its result from buf's next use.
#define DUET_EXCLUSIVE_SCAN(T, buf, x, before, total)                                     \
  {                                                                                       \
    uint from = 0u;                                                                       \
    buf[t] = (x);                                                                         \
    BARRIER();                                                                            \
    for (uint step = 1u; step < DUET_GROUP; step <<= 1) {                                 \
      const T here = buf[from * DUET_GROUP + t];                                          \
      buf[(from ^ 1u) * DUET_GROUP + t] = t >= step ? here + buf[from * DUET_GROUP + t - step] : here; \
      from ^= 1u;                                                                         \
      BARRIER();                                                                          \
    }                                                                                     \
    before = buf[from * DUET_GROUP + t] - (x);                                            \
    total = buf[from * DUET_GROUP + DUET_GROUP - 1u];                                     \
  }

// Element i of the pass's input: the source's bits encoded in the first pass, else the keys (and
// the carried index: i itself in the first pass).
#define DUET_LOAD_KEY(i) (first ? duet_encode(src[src_off + (long)(i)]) : keys[i])
#if DUET_VALUES
#define DUET_LOAD_VALUE(i) (first ? (DUET_V)(i) : vals[i])
#endif

// hist[digit][tile]: how many of the tile's elements have each digit. A work-item loads all its
// keys before counting any, so that its loads are in flight together.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_count(
    GLOBAL const DUET_B* src, const long src_off, GLOBAL const DUET_K* keys DUET_VALS_IN, GLOBAL DUET_O* hist,
    const ulong n, const uint shift, const uint by_row, const ulong run, const ulong tiles, const uint first) {
  SHARED uint counts[8 * 256];
  const uint t = LOCAL_ID(0);
  for (uint c = t; c < 8u * 256u; c += DUET_GROUP) counts[c] = 0;
  BARRIER();
  const ulong start = (ulong)GROUP_ID(0) * DUET_TILE;
  const uint copy = (t & 7u) * 256u;
  uint digit[DUET_ITEMS];
  for (uint j = 0; j < DUET_ITEMS; ++j) {
    const ulong i = start + (ulong)j * DUET_GROUP + t;
    digit[j] = 256u;
    if (i < n) {
      const DUET_K k = DUET_LOAD_KEY(i);
#if DUET_VALUES
      const DUET_V v = by_row ? DUET_LOAD_VALUE(i) : (DUET_V)0;
#endif
      digit[j] = DUET_DIGIT(k, v);
    }
  }
  for (uint j = 0; j < DUET_ITEMS; ++j)
    if (digit[j] < 256u) DUET_LOCAL_INC(&counts[copy + digit[j]]);
  BARRIER();
  for (uint d = t; d < 256u; d += DUET_GROUP) {
    uint sum = 0;
    for (uint c = 0; c < 8u; ++c) sum += counts[c * 256u + d];
    hist[(ulong)d * tiles + GROUP_ID(0)] = (DUET_O)sum;
  }
}

// The scan of hist, flat in (digit, tile) order, is what the scatter needs: where a tile's
// elements of a digit go is the count of every smaller digit plus those of the digit in the tiles
// before. Three launches over chunks of DUET_CHUNK entries, each with many work-groups but one:
// reduce (each chunk's sum), scan (the sums, by one group) and spread (each chunk scanned from its
// sum's place).
#define DUET_CHUNK (DUET_GROUP * DUET_SCAN_ITEMS)

KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_reduce(GLOBAL const DUET_O* hist, GLOBAL DUET_O* sums,
                                                              const ulong m) {
  SHARED DUET_O part[DUET_GROUP];
  const uint t = LOCAL_ID(0);
  const ulong base = (ulong)GROUP_ID(0) * DUET_CHUNK;
  DUET_O sum = 0;
  for (uint j = 0; j < DUET_SCAN_ITEMS; ++j) {
    const ulong i = base + (ulong)j * DUET_GROUP + t;
    if (i < m) sum += hist[i];
  }
  part[t] = sum;
  BARRIER();
  for (uint span = DUET_GROUP / 2u; span > 0u; span >>= 1) {
    if (t < span) part[t] += part[t + span];
    BARRIER();
  }
  if (t == 0) sums[GROUP_ID(0)] = part[0];
}

// Entries [at, at + DUET_CHUNK) of row made exclusive sums in place, starting from `carry`; work-item
// t takes DUET_SCAN_ITEMS consecutive entries. Returns the carry past them (in every work-item).
#define DUET_SCAN_CHUNK(row, m, at, carry)                                                \
  {                                                                                       \
    DUET_O v[DUET_SCAN_ITEMS];                                                            \
    DUET_O sum = 0;                                                                       \
    for (uint j = 0; j < DUET_SCAN_ITEMS; ++j) {                                          \
      const ulong i = (at) + (ulong)t * DUET_SCAN_ITEMS + j;                              \
      v[j] = i < (m) ? row[i] : (DUET_O)0;                                                \
      sum += v[j];                                                                        \
    }                                                                                     \
    DUET_O before, total;                                                                 \
    DUET_EXCLUSIVE_SCAN(DUET_O, buf, sum, before, total)                                  \
    DUET_O to = carry + before;                                                           \
    for (uint j = 0; j < DUET_SCAN_ITEMS; ++j) {                                          \
      const ulong i = (at) + (ulong)t * DUET_SCAN_ITEMS + j;                              \
      if (i < (m)) row[i] = to;                                                           \
      to += v[j];                                                                         \
    }                                                                                     \
    carry += total;                                                                       \
    BARRIER();                                                                            \
  }

// The chunk sums made exclusive in place, by one work-group.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_scan(GLOBAL DUET_O* sums, const ulong chunks) {
  SHARED DUET_O buf[2 * DUET_GROUP];
  const uint t = LOCAL_ID(0);
  DUET_O carry = 0;
  for (ulong at = 0; at < chunks; at += DUET_CHUNK) DUET_SCAN_CHUNK(sums, chunks, at, carry)
}

// hist's chunk made exclusive sums in place, from its place in the scanned sums.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_spread(GLOBAL DUET_O* hist, GLOBAL const DUET_O* sums,
                                                              const ulong m) {
  SHARED DUET_O buf[2 * DUET_GROUP];
  const uint t = LOCAL_ID(0);
  DUET_O carry = sums[GROUP_ID(0)];
  DUET_SCAN_CHUNK(hist, m, (ulong)GROUP_ID(0) * DUET_CHUNK, carry)
}

// One tile sorted by the pass's digit in shared memory, then written where the digit's elements
// of this tile go (hist, scanned). out: 0 keys (and indices) for the next pass; else the last
// pass's outputs, 1 the decoded keys into dst, 2 the indices (carried index % run) into idx, 3 both.
KERNEL REQD_GROUP_SIZE(DUET_GROUP, 1, 1) void duet_sort_scatter(
    GLOBAL const DUET_B* src, const long src_off, GLOBAL const DUET_K* keys DUET_VALS_IN,
    GLOBAL DUET_K* keys_out DUET_VALS_OUT, GLOBAL DUET_B* dst, GLOBAL long* idx, GLOBAL const DUET_O* hist,
    const ulong n, const uint shift, const uint by_row, const ulong run, const ulong tiles, const uint first,
    const uint out) {
  SHARED DUET_K tk[DUET_PAD(DUET_TILE)];
#if DUET_VALUES
  SHARED DUET_V tv[DUET_PAD(DUET_TILE)];
#endif
  SHARED DUET_CW counters[DUET_COUNTER_WORDS];
  SHARED DUET_CW buf[2 * DUET_GROUP];
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
  for (uint d = t; d < 256u; d += DUET_GROUP) base[d] = (ulong)hist[(ulong)d * tiles + GROUP_ID(0)];

  // Two stable counting sorts by 4 bits of the digit, low then high. Work-item t ranks its run of
  // consecutive elements: counting them into its own packed counters leaves each element the
  // count of its nibble before it in the run; one exclusive scan of the counter words in (lane,
  // work-item) order, work-item t taking DUET_LANES consecutive words, then gives each field the elements of
  // the smaller nibbles of its lane and of its nibble in the work-items before, and the scan's
  // total, shifted one field up per field, adds the nibbles of the fields below. Every place is
  // thus found in input order, with no atomics: stable, the same on every device.
  for (uint upper = 0; upper < 2u; ++upper) {
    DUET_K k[DUET_ITEMS];
#if DUET_VALUES
    DUET_V v[DUET_ITEMS];
#endif
    uint nib[DUET_ITEMS], rank[DUET_ITEMS];
    // A work-item's counting touches only its own words, which the last pass read only after
    // barriers: no barrier is needed before clearing them.
    for (uint l = 0; l < DUET_LANES; ++l) counters[DUET_CPAD(l * DUET_GROUP + t)] = 0;
    BARRIER();  // the tile is loaded (or sorted by the low nibble)
    for (uint j = 0; j < DUET_ITEMS; ++j) {
      const uint q = t * DUET_ITEMS + j;
      k[j] = tk[DUET_PAD(q)];
#if DUET_VALUES
      v[j] = tv[DUET_PAD(q)];
      nib[j] = (DUET_DIGIT(k[j], v[j]) >> (upper * 4u)) & 15u;
#else
      nib[j] = (DUET_DIGIT(k[j], 0) >> (upper * 4u)) & 15u;
#endif
      const uint w = DUET_CPAD((nib[j] % DUET_LANES) * DUET_GROUP + t);
      const uint field = (nib[j] / DUET_LANES) * 16u;
      const DUET_CW c = counters[w];
      rank[j] = (uint)(c >> field) & 0xffffu;
      counters[w] = c + ((DUET_CW)1 << field);
    }
    BARRIER();
    DUET_CW sum = 0;
    for (uint l = 0; l < DUET_LANES; ++l) {
      const uint w = DUET_CPAD(DUET_LANES * t + l);
      const DUET_CW c = counters[w];
      counters[w] = sum;
      sum += c;
    }
    DUET_CW before, total;
    DUET_EXCLUSIVE_SCAN(DUET_CW, buf, sum, before, total)
    DUET_CW prefix = before;
    for (uint f = 1; f < DUET_FIELDS; ++f) prefix += total << (16u * f);
    for (uint l = 0; l < DUET_LANES; ++l) counters[DUET_CPAD(DUET_LANES * t + l)] += prefix;
    BARRIER();
    // Every read of the tile was before the barriers above: the elements go straight to their places.
    for (uint j = 0; j < DUET_ITEMS; ++j) {
      const DUET_CW c = counters[DUET_CPAD((nib[j] % DUET_LANES) * DUET_GROUP + t)];
      const uint to = ((uint)(c >> ((nib[j] / DUET_LANES) * 16u)) & 0xffffu) + rank[j];
      tk[DUET_PAD(to)] = k[j];
#if DUET_VALUES
      tv[DUET_PAD(to)] = v[j];
#endif
    }
  }
  BARRIER();

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
  for (uint d = t; d < 256u; d += DUET_GROUP) base[d] -= (ulong)first_at[d];  // any value where d is absent
  BARRIER();
  for (uint j = 0; j < DUET_ITEMS; ++j) {
    const uint p = j * DUET_GROUP + t;
    if (p >= valid) continue;
    const DUET_K k = tk[DUET_PAD(p)];
#if DUET_VALUES
    const DUET_V v = tv[DUET_PAD(p)];
    const ulong to = base[DUET_DIGIT(k, v)] + p;
#else
    const ulong to = base[DUET_DIGIT(k, 0)] + p;
#endif
    if (out == 0u) {
      keys_out[to] = k;
#if DUET_VALUES
      vals_out[to] = v;
#endif
    } else {
      if (out & 1u) dst[to] = duet_decode(k);
#if DUET_VALUES
      if (out & 2u) idx[to] = (long)((ulong)v % run);
#endif
    }
  }
}

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
      {"DUET_O*", std::string(V) + "*"}};
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

Range cover(std::uint64_t n) { return Range((n + kGroup - 1) / kGroup * kGroup); }

unsigned bits_for(std::uint64_t v) {
  unsigned b = 0;
  while (b < 64 && (v >> b) != 0) ++b;
  return b;
}

KernelArg arg(const Array& a, ScalarType as) { return KernelArg::from_raw(a.buffer(), as); }

// The radix sort of `src` (contiguous in C order, rows of `run` elements, c.values when an index
// must be carried: several rows, or indices wanted) into `keys_out` (src's dtype; may be null) and
// `indices_out` (int64 positions within the row; may be null).
void radix(Queue& q, Config c, const Array& src, std::uint64_t run, const Array* keys_out,
           const Array* indices_out) {
  take_environment(c);
  const std::uint64_t n = src.size();
  const ScalarType K = c.key_scalar(), V = c.value_scalar(), O = c.value_scalar();
  const std::uint64_t tiles = (n + c.tile() - 1) / c.tile();
  const std::uint64_t rows = run == 0 ? 0 : n / run;
  const unsigned key_passes = (c.width() + kDigitBits - 1) / kDigitBits;
  const unsigned row_passes = rows > 1 ? (bits_for(rows - 1) + kDigitBits - 1) / kDigitBits : 0;
  const unsigned passes = key_passes + row_passes;
  const std::uint64_t entries = kRadix * tiles, chunk = c.group * kScanItems;
  const std::uint64_t chunks = (entries + chunk - 1) / chunk;
  const Array hist = empty(q.device(), {entries}, O);
  const Array sums = empty(q.device(), {chunks}, O);
  // Keys (and indices) between passes: pass p writes set p % 2.
  Array keys[2], vals[2];
  for (unsigned k = 0; k < 2 && k + 1 < passes; ++k) {
    keys[k] = empty(q.device(), {n}, K);
    if (c.values) vals[k] = empty(q.device(), {n}, V);
  }
  const auto [src_buf, src_off] = passable(q, src);
  const Kernel count = kernel(q, c, "duet_sort_count"), reduce = kernel(q, c, "duet_sort_reduce"),
               scan = kernel(q, c, "duet_sort_scan"), spread = kernel(q, c, "duet_sort_spread"),
               scatter = kernel(q, c, "duet_sort_scatter");
  const Range group(c.group);
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
    q.launch_args(count, Range(tiles * c.group), group, count_args);
    q.launch_args(reduce, Range(chunks * c.group), group,
                  {arg(hist, O), arg(sums, O), KernelArg::from(entries)});
    q.launch_args(scan, group, group, {arg(sums, O), KernelArg::from(chunks)});
    q.launch_args(spread, Range(chunks * c.group), group,
                  {arg(hist, O), arg(sums, O), KernelArg::from(entries)});
    std::vector<KernelArg> scatter_args = input;
    const Array& next_keys = last ? hist : keys[pass % 2];
    const Array& next_vals = last ? hist : vals[pass % 2];
    scatter_args.push_back(or_hist(next_keys, K));
    if (c.values) scatter_args.push_back(or_hist(next_vals, V));
    scatter_args.push_back(last && keys_out ? arg(*keys_out, c.bits_scalar()) : arg(hist, c.bits_scalar()));
    scatter_args.push_back(last && indices_out ? arg(*indices_out, ScalarType::i64)
                                               : arg(hist, ScalarType::i64));
    scatter_args.push_back(arg(hist, O));
    scatter_args.insert(scatter_args.end(), pass_args.begin(), pass_args.end());
    scatter_args.push_back(KernelArg::from(std::uint32_t(last ? out : 0u)));
    q.launch_args(scatter, Range(tiles * c.group), group, scatter_args);
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
  take_environment(c);
  return kernel_source(c);
}

}  // namespace duet
