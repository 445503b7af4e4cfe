// Reductions of duet::Arrays, over every element or along one axis, as numpy's: sum, prod, mean,
// min, max, argmin, argmax, all, any. `keepdims` keeps the reduced axis with length 1. Result
// dtypes follow numpy: sum and prod of signed integers and of bools give int64 (unsigned: uint64;
// the sum of a bool array counts its trues), of floats the same float type (float16 accumulates in
// float32); mean gives float64 for integers and bools; min and max keep the dtype; argmin and argmax
// give int64 (the first position of the extreme; a NaN counts as the extreme, as in numpy); all and
// any give bool. min, max, argmin
// and argmax of no elements are ArgumentErrors, as numpy's ValueErrors. Each call is one kernel
// launch (one work-group per output element) on q, and returns a new array.
#pragma once

#include "duet/export.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "duet/array.hpp"

namespace duet {

enum class ReduceOp { sum, prod, mean, min, max, argmin, argmax, all, any };
DUET_API const char* to_string(ReduceOp op);

DUET_API Array reduce(Queue& q, ReduceOp op, const Array& a, std::optional<std::int64_t> axis = std::nullopt,
             bool keepdims = false);
// Over several axes at once (numpy's tuple of axes; negative ones count from the end): the result
// keeps the other axes in order. ArgumentError for an axis out of range or listed twice, and for
// argmin / argmax, which take one axis or none (as numpy's). An empty list reduces each element
// alone (sum's dtype, as numpy's axis=()). The reduced axes are merged into one run: as a view where
// their strides allow it (trailing axes of a contiguous array, say), else through a copy with the
// reduced axes last. One launch besides that copy.
DUET_API Array reduce(Queue& q, ReduceOp op, const Array& a, const std::vector<std::int64_t>& axes,
             bool keepdims = false);
// The dtype reduce() gives for `op` over arrays of `dtype` (numpy's).
DUET_API ScalarType reduction_dtype(ReduceOp op, ScalarType dtype);
// The dialect kernel reduce() runs for `op` over arrays of `dtype` (for tests and debugging).
DUET_API std::string reduction_source(ReduceOp op, ScalarType dtype);

#define DUET_ARRAY_REDUCTION(name)                                                             \
  inline Array name(Queue& q, const Array& a, std::optional<std::int64_t> axis = std::nullopt, \
                    bool keepdims = false) {                                                   \
    return reduce(q, ReduceOp::name, a, axis, keepdims);                                       \
  }                                                                                            \
  inline Array name(Queue& q, const Array& a, const std::vector<std::int64_t>& axes,           \
                    bool keepdims = false) {                                                   \
    return reduce(q, ReduceOp::name, a, axes, keepdims);                                       \
  }
DUET_ARRAY_REDUCTION(sum)
DUET_ARRAY_REDUCTION(prod)
DUET_ARRAY_REDUCTION(mean)
DUET_ARRAY_REDUCTION(min)
DUET_ARRAY_REDUCTION(max)
DUET_ARRAY_REDUCTION(argmin)
DUET_ARRAY_REDUCTION(argmax)
DUET_ARRAY_REDUCTION(all)
DUET_ARRAY_REDUCTION(any)
#undef DUET_ARRAY_REDUCTION

}  // namespace duet
