// The stream compaction behind nonzero and unique (select.cpp), in compact.cpp.
#pragma once

#include <cstdint>

#include "duet/array.hpp"

namespace duet::detail {

// Which elements a compaction keeps.
enum class CompactMode : std::uint32_t {
  nonzero = 0,     // any magnitude bit set: NaN is kept, -0 (and -0-0j) is not
  run_starts = 1,  // of sorted keys, each first of a run of equal values (every NaN its own)
};

// The positions (int64, ascending) of the elements of the contiguous 1-D `src` that `mode` keeps.
// With `perm` given (int64, src's length), also inverse[perm[i]] = the place in the result of the
// last kept position at or before i: for unique, the value of i's run. Reads one count back to
// the host, to size the result.
Array compact(Queue& q, const Array& src, CompactMode mode, const Array* perm = nullptr,
              Array* inverse = nullptr);

}  // namespace duet::detail
