// How an n-dimensional array lies in a buffer, NumPy's way: a shape, a stride per axis (in
// elements, negative for reversed axes) and the element offset of the first element; element
// (i0, ..., in-1) sits at offset + sum(i_k * strides[k]). Views (indexing, slicing, transposes,
// reshapes that need no copy) are new layouts over the same memory, worked out here without a
// device, so the rules are tested on their own (tests/test_array_layout.cpp). duet::Array
// (duet/array.hpp) is a buffer, an element type and one of these.
#pragma once

#include "duet/export.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace duet {

using Shape = std::vector<std::size_t>;

// NumPy's start:stop:step; an absent bound is the end the step walks from or to.
struct DUET_API Slice {
  std::optional<std::int64_t> start, stop;
  std::int64_t step = 1;
};

// One entry of an index: an integer picks one position and drops its axis (negative counts from
// the end), a slice keeps the axis.
using IndexEntry = std::variant<std::int64_t, Slice>;

struct DUET_API Layout {
  Shape shape;
  std::vector<std::int64_t> strides;  // elements
  std::int64_t offset = 0;            // elements from the buffer's start to element (0, ..., 0)

  std::size_t ndim() const { return shape.size(); }
  std::size_t size() const;  // the product of the shape (1 for a scalar's empty shape)
  // C order with no gaps: strides are those of contiguous(shape) wherever an axis has more than
  // one element. An empty array is contiguous.
  bool contiguous() const;
  // The lowest and highest element offsets the layout touches; nullopt for an empty array.
  std::optional<std::pair<std::int64_t, std::int64_t>> span() const;
};

// A C-ordered layout of `shape` from offset 0. ArgumentError when the element count overflows.
DUET_API Layout contiguous_layout(const Shape& shape);
// The element count of `shape`; ArgumentError naming `what` when it overflows.
DUET_API std::size_t element_count(const Shape& shape, const char* what = "the shape");
// "(2, 3)", "(5,)", "()".
DUET_API std::string shape_text(const Shape& shape);

// The view a[key]. Fewer entries than axes leave the rest whole. ArgumentError for more entries
// than axes, an integer out of range and a step of 0.
DUET_API Layout index_layout(const Layout& a, const std::vector<IndexEntry>& key);
// `shape` with at most one -1 replaced so the element count is `size`; ArgumentError when no such
// shape exists.
DUET_API Shape resolve_shape(const std::vector<std::int64_t>& shape, std::size_t size);
// The strides that give `a`'s elements in C order the shape `shape` without moving them, where
// they exist (NumPy's rule: axes are merged and split only where they are laid out evenly);
// nullopt where a reshape needs a copy. `shape` must have a's element count.
DUET_API std::optional<std::vector<std::int64_t>> reshape_strides(const Layout& a, const Shape& shape);
// The axes permuted: result axis k is a's axis axes[k]. ArgumentError unless `axes` is a
// permutation of 0..ndim-1. With no axes: reversed.
DUET_API Layout transpose_layout(const Layout& a, const std::vector<std::size_t>& axes);
// A new axis of length 1 at position `axis` (negative counts from the end of the result).
DUET_API Layout expand_dims_layout(const Layout& a, std::int64_t axis);
// Axes of length 1 removed: all of them, or the one given (ArgumentError when its length is not 1).
DUET_API Layout squeeze_layout(const Layout& a, std::optional<std::int64_t> axis);
// The same elements in the same C order over as few axes as possible: axes of length 1 dropped and
// neighbours merged where the outer one's stride is the inner one's stride times its length. Kernels
// walk this one. An empty array keeps its shape.
DUET_API Layout collapsed(const Layout& a);
// Layouts of one shape (not empty) collapsed together: axes merged only where every layout allows
// it, so one index walk serves them all (an operation's inputs and output). Axes of length 1 drop.
DUET_API std::vector<Layout> collapsed_together(const std::vector<Layout>& layouts);

}  // namespace duet
