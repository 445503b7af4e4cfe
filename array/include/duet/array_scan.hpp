// Cumulative sums (and products: cumprod, at the end) of duet::Arrays, as numpy.cumsum: along one axis (the result has the input's
// shape), or over every element in C order when no axis is given (the result is 1-D, a 0-d input
// giving one element). Result dtypes are sum's (duet/array_reduce.hpp): signed integers give int64,
// unsigned uint64, floats and complex numbers their own type (float16 adds in float32). Any view is an input; the
// result is a new contiguous array.
//
//   duet::Array c = duet::cumsum(q, m, 1);   // running sums along each row of m
//
// One launch on q: a work-group per row (every position of the other axes), stepping through the
// row in chunks of 2048 elements with a running carry, each chunk scanned in shared memory in a
// fixed order, so results repeat bit for bit on a device. The rows run in parallel, a row's chunks
// one after another: a single very long row (the flattened case of a big array) keeps one
// work-group busy and is slow on a GPU, though correct.
#pragma once

#include "duet/export.hpp"

#include <cstdint>
#include <optional>
#include <string>

#include "duet/array.hpp"

namespace duet {

DUET_API Array cumsum(Queue& q, const Array& a, std::optional<std::int64_t> axis = std::nullopt);
// The same into `out`, any view of the result's shape (numpy's out=): the sums are made in the
// result dtype above and converted to out's as they are stored. out may be `a` itself (the same
// view, with a dtype of the same size) for an in-place scan; another view sharing a's memory is an
// ArgumentError, as is a shape that differs.
DUET_API Event cumsum(Queue& q, const Array& a, std::optional<std::int64_t> axis, const Array& out);
// The dialect kernel cumsum() runs over arrays of `dtype` (for tests and debugging).
DUET_API std::string cumsum_source(ScalarType dtype);

// Cumulative products, as numpy.cumprod: everything as cumsum above (the same kernel with * for +,
// prod's dtypes, which are sum's), products in place of sums. Integers wrap as numpy's int64 and
// uint64 do.
DUET_API Array cumprod(Queue& q, const Array& a, std::optional<std::int64_t> axis = std::nullopt);
DUET_API Event cumprod(Queue& q, const Array& a, std::optional<std::int64_t> axis, const Array& out);
DUET_API std::string cumprod_source(ScalarType dtype);

}  // namespace duet
