// Selecting elements of duet::Arrays on the device, as the Python array API standard's take,
// nonzero, count of nonzero elements and unique_*, and put, the scatter of an indexed assignment:
// gathers, and compactions (a count per tile, a scan of the counts, a scatter ranked within each tile).
//
//   duet::Array t = duet::take(q, x, idx, 0);          // x[idx] along axis 0
//   std::vector<duet::Array> nz = duet::nonzero(q, x);  // one int64 array of indices per axis
//   duet::Unique u = duet::unique_all(q, x);            // values, first indices, inverse, counts
//
// take is asynchronous like every launch. nonzero and unique make arrays whose size depends on the
// data: they wait for the count (one small read) before they allocate, then return with the rest
// enqueued. Any view is an input. ArgumentError for an axis out of range, index arrays that are
// not integers; ReleasedError for a default-constructed array.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "duet/array.hpp"
#include "duet/export.hpp"

namespace duet {

// The elements of `a` at `indices` (any integer dtype, any shape; negative ones count from the end)
// along `axis`: shape a.shape[:axis] + indices.shape + a.shape[axis+1:], a's dtype. Indices out of
// range are clamped into it (the standard leaves them unspecified; clamping keeps every read inside
// a's memory).
DUET_API Array take(Queue& q, const Array& a, const Array& indices, std::int64_t axis = 0);
// Writes `values` (a's dtype, as many as `offsets`; any shape, read in C order) into a's memory:
// values[i] goes to the element `offsets[i]` elements from a's first element, as a's strides place
// its elements (an indexed assignment, x[idx] = v, computes them from the indices and x's strides).
// The caller keeps every offset on an element of a; where two offsets are equal, one of their values
// is written, unspecified which (the standard's rule). Asynchronous.
DUET_API void put(Queue& q, const Array& a, const Array& offsets, const Array& values);
// The flat (C-order) int64 positions of a's nonzero elements (NaN counts as nonzero, -0 as zero; a
// complex number is nonzero where either part is, so -0-0j is zero).
DUET_API Array flatnonzero(Queue& q, const Array& a);
// The indices of a's nonzero elements, one int64 array per axis, in C order (a 0-d array is an
// ArgumentError, as the standard says).
DUET_API std::vector<Array> nonzero(Queue& q, const Array& a);

// The distinct elements of a (flattened), ascending, NaNs each their own (the standard's rule);
// indices: the flat position of each one's first occurrence; inverse: for each element of a (a's
// shape), the position of its value in `values`; counts: how often each occurs. All int64 but
// values (a's dtype).
struct Unique {
  Array values, indices, inverse, counts;
};
DUET_API Unique unique_all(Queue& q, const Array& a);
// unique_all's values alone: the sort carries no positions and nothing else is computed, which
// makes it the cheaper call when only the values are wanted.
DUET_API Array unique_values(Queue& q, const Array& a);

// The dialect source of the compaction behind nonzero and unique for elements of `dtype`, with
// `items` elements per work-item (a multiple of 4 from 4 to 32; the environment variable
// DUET_COMPACT_ITEMS picks it for nonzero and unique, 16 when unset): tests and debugging.
DUET_API std::string compaction_source(ScalarType dtype, std::size_t items);

}  // namespace duet
