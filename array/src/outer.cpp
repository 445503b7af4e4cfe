// outer() of duet/array_expr.hpp: numpy.outer as one broadcast product, evaluated over
// a.shape + b.shape, whose contiguous result is viewed as the (a.size(), b.size()) matrix.
#include "duet/array_expr.hpp"

namespace duet {

Array outer(Queue& q, const Array& a, const Array& b) {
  if (!a.valid() || !b.valid()) throw ReleasedError("outer: an operand is empty (default-constructed)");
  Array column = a;
  for (std::size_t k = 0; k < b.ndim(); ++k) column = column.expand_dims(-1);
  const Array product = evaluate(q, column * b);
  return *product.reshape_view({static_cast<std::int64_t>(a.size()), static_cast<std::int64_t>(b.size())});
}

}  // namespace duet
