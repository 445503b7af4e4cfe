// Sorting and searching of duet::Arrays on the device, as the Python array API standard's sort,
// argsort and searchsorted: an LSD radix sort written in the dialect, for every dtype (integers,
// float16, float32, float64; float64 needs no double support: keys are sorted as bits).
//
//   duet::Array s = duet::sort(q, x);                 // along the last axis, ascending
//   duet::Array i = duet::argsort(q, x, 0, true);     // along axis 0, descending: int64 indices
//   duet::Array p = duet::searchsorted(q, s, v);      // where v's elements would go in sorted s
//
// Order: floats by value with every NaN after +inf (NaNs last ascending, first descending), -0 and
// +0 equal. Both sorts are stable in both orders: equal elements keep their order, descending too
// (argsort's indices show it; sort's values do for -0 and +0, which sort keeps as they came but may
// give -0 before +0 where they were the other way round: they are equal). NaN values come out as
// the canonical quiet NaN.
//
// Every call is asynchronous on q and returns a new contiguous array, except nonzero-like calls
// that must know their result's size (array_select.hpp). ArgumentError for an axis out of range or
// a 0-d input; ReleasedError for a default-constructed array.
#pragma once

#include <cstdint>
#include <string>

#include "duet/array.hpp"
#include "duet/export.hpp"

namespace duet {

// The elements of `a` sorted along `axis` (negative counts from the end), a new array of a's shape
// and dtype.
DUET_API Array sort(Queue& q, const Array& a, std::int64_t axis = -1, bool descending = false);
// The int64 indices along `axis` that sort `a` stably (take_along_axis(a, argsort(a)) == sort(a)).
DUET_API Array argsort(Queue& q, const Array& a, std::int64_t axis = -1, bool descending = false);
// For each element of `values` (any shape, a's dtype), the int64 index in the 1-D ascending `a`
// where it would be inserted to keep the order: the first such (side left: a[i-1] < v <= a[i]) or
// the last (right: a[i-1] <= v < a[i]), in the order above (NaN after everything). ArgumentError
// for a of more than one axis or dtypes that differ (promote them first).
DUET_API Array searchsorted(Queue& q, const Array& a, const Array& values, bool right = false);

// Radix sort of `keys` (a 1-D contiguous array of any dtype, every element its own) into its
// order-preserving unsigned bits, with the int64 positions that sort it when `with_indices`:
// the building block of sort, argsort and unique (array_select.hpp). Returns {keys sorted (a's
// dtype), indices (int64, empty Array when not asked)}. With indices, or with `equal_zeros`, -0 sorts
// as +0 (and comes out as +0), so that equal values have equal bits.
struct SortedKeys {
  Array keys;
  Array indices;
};
DUET_API SortedKeys sort_flat(Queue& q, const Array& keys, bool with_indices, bool descending = false,
                              bool equal_zeros = false);

// The dialect source of the radix sort's kernels for `dtype` (tests and debugging): the scheme,
// ranking and tile that DUET_SORT_ONESWEEP, DUET_SORT_RANK and DUET_SORT_ITEMS select
// (docs/arrays.md).
DUET_API std::string sort_source(ScalarType dtype, bool with_values, bool descending);

}  // namespace duet
