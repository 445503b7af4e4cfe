// The layout rules of duet::Array (duet/array_layout.hpp) without a device: NumPy's slicing with
// steps and negative bounds (cases checked against Python's own slice semantics), reshapes that
// need no copy and those that do, transposes, expand_dims, squeeze, and collapsing for kernels.
#include <doctest/doctest.h>

#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <vector>

namespace {

using duet::IndexEntry;
using duet::Layout;
using duet::Slice;

// The positions a layout of one axis visits, in order.
std::vector<std::int64_t> positions(const Layout& l) {
  REQUIRE(l.ndim() == 1);
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < l.shape[0]; ++i)
    out.push_back(l.offset + static_cast<std::int64_t>(i) * l.strides[0]);
  return out;
}

std::vector<std::int64_t> sliced(std::size_t length, Slice s) {
  return positions(duet::index_layout(duet::contiguous_layout({length}), {s}));
}

constexpr std::nullopt_t none = std::nullopt;

}  // namespace

TEST_SUITE_BEGIN("nodevice");

TEST_CASE("array layout: slices as Python takes them (steps, negative and out-of-range bounds)") {
  using V = std::vector<std::int64_t>;
  // Each expectation is what list(range(5))[slice] gives in Python.
  CHECK(sliced(5, Slice{none, none, -2}) == V{4, 2, 0});
  CHECK(sliced(5, Slice{-2, none, 1}) == V{3, 4});
  CHECK(sliced(5, Slice{none, -7, 1}).empty());
  CHECK(sliced(5, Slice{10, none, 1}).empty());
  CHECK(sliced(5, Slice{-10, 2, 1}) == V{0, 1});
  CHECK(sliced(5, Slice{3, 0, -1}) == V{3, 2, 1});
  CHECK(sliced(5, Slice{3, -10, -1}) == V{3, 2, 1, 0});
  CHECK(sliced(5, Slice{-1, -6, -2}) == V{4, 2, 0});
  CHECK(sliced(5, Slice{1, 4, 2}) == V{1, 3});
  CHECK(sliced(5, Slice{4, 1, 1}).empty());
  CHECK(sliced(5, Slice{none, none, 3}) == V{0, 3});
  CHECK(sliced(5, Slice{10, none, -1}) == V{4, 3, 2, 1, 0});
  CHECK(sliced(5, Slice{none, 10, -1}).empty());
  CHECK(sliced(0, Slice{none, none, -1}).empty());
  CHECK(sliced(1, Slice{none, none, -1}) == V{0});
  CHECK(sliced(7, Slice{5, 1, -3}) == V{5, 2});
  CHECK_THROWS_AS(sliced(5, Slice{none, none, 0}), duet::ArgumentError);
}

TEST_CASE("array layout: integers drop axes, slices keep them, with the offsets they imply") {
  const Layout m = duet::contiguous_layout({5, 7});
  const Layout row = duet::index_layout(m, {IndexEntry{std::int64_t{1}}});
  CHECK(row.shape == duet::Shape{7});
  CHECK(row.offset == 7);
  const Layout block = duet::index_layout(m, {Slice{1, 4, 1}, Slice{none, none, 2}});
  CHECK(block.shape == duet::Shape{3, 4});
  CHECK(block.strides == std::vector<std::int64_t>{7, 2});
  CHECK(block.offset == 7);
  const Layout flipped = duet::index_layout(m, {Slice{none, none, -1}, Slice{none, none, -1}});
  CHECK(flipped.strides == std::vector<std::int64_t>{-7, -1});
  CHECK(flipped.offset == 34);
  CHECK(flipped.span() == std::make_pair(std::int64_t{0}, std::int64_t{34}));
  const Layout last = duet::index_layout(m, {IndexEntry{std::int64_t{-1}}, IndexEntry{std::int64_t{-7}}});
  CHECK(last.ndim() == 0);
  CHECK(last.offset == 28);
  CHECK_THROWS_WITH_AS(duet::index_layout(m, {IndexEntry{std::int64_t{5}}}),
                       doctest::Contains("out of range for axis 0 of length 5"), duet::ArgumentError);
  CHECK_THROWS_AS(duet::index_layout(m, {IndexEntry{std::int64_t{0}}, IndexEntry{std::int64_t{-8}}}),
                  duet::ArgumentError);
  CHECK_THROWS_WITH_AS(duet::index_layout(m, {Slice{}, Slice{}, Slice{}}), doctest::Contains("3 indices"),
                       duet::ArgumentError);
  CHECK(duet::index_layout(duet::contiguous_layout({0, 3}), {Slice{}}).size() == 0);
}

TEST_CASE("array layout: reshapes are views where the strides allow, else need a copy") {
  const Layout a = duet::contiguous_layout({2, 3, 4});
  CHECK(duet::reshape_strides(a, {6, 4}) == std::vector<std::int64_t>{4, 1});
  CHECK(duet::reshape_strides(a, {4, 6}) == std::vector<std::int64_t>{6, 1});
  CHECK(duet::reshape_strides(a, {1, 24, 1}).has_value());
  const Layout t = duet::transpose_layout(duet::contiguous_layout({2, 3}), {});
  CHECK_FALSE(duet::reshape_strides(t, {6}).has_value());
  CHECK(duet::reshape_strides(t, {3, 2, 1}).has_value());
  // The first 3 columns of a 4 x 6 matrix: rows split, but never merged with the columns.
  const Layout left = duet::index_layout(duet::contiguous_layout({4, 6}), {Slice{}, Slice{none, 3, 1}});
  CHECK_FALSE(duet::reshape_strides(left, {12}).has_value());
  CHECK(duet::reshape_strides(left, {2, 2, 3}) == std::vector<std::int64_t>{12, 6, 1});
  CHECK(duet::reshape_strides(left, {4, 3, 1}).has_value());
  // Every second column: evenly spaced throughout, so even the flat reshape is a view (stride 2).
  const Layout cols = duet::index_layout(duet::contiguous_layout({4, 6}), {Slice{}, Slice{none, none, 2}});
  CHECK(duet::reshape_strides(cols, {12}) == std::vector<std::int64_t>{2});
  CHECK(duet::resolve_shape({-1, 4}, 12) == duet::Shape{3, 4});
  CHECK_THROWS_AS(duet::resolve_shape({0, -1}, 0),
                  duet::ArgumentError);  // as numpy: -1 is not inferred from 0
  CHECK_THROWS_WITH_AS(duet::resolve_shape({-1, -1}, 12), doctest::Contains("more than one -1"),
                       duet::ArgumentError);
  CHECK_THROWS_WITH_AS(duet::resolve_shape({5, 3}, 12), doctest::Contains("cannot make 12 elements"),
                       duet::ArgumentError);
  CHECK_THROWS_AS(duet::resolve_shape({-1, 5}, 12), duet::ArgumentError);
  CHECK_THROWS_AS(duet::resolve_shape({-2, 6}, 12), duet::ArgumentError);
}

TEST_CASE("array layout: transpose, expand_dims, squeeze and collapsing") {
  const Layout a = duet::contiguous_layout({2, 1, 3});
  const Layout t = duet::transpose_layout(a, {2, 0, 1});
  CHECK(t.shape == duet::Shape{3, 2, 1});
  CHECK(t.strides == std::vector<std::int64_t>{1, 3, 3});
  CHECK_THROWS_WITH_AS(duet::transpose_layout(a, {0, 0, 1}), doctest::Contains("not a permutation"),
                       duet::ArgumentError);
  CHECK(duet::expand_dims_layout(a, -1).shape == duet::Shape{2, 1, 3, 1});
  CHECK(duet::expand_dims_layout(a, 0).shape == duet::Shape{1, 2, 1, 3});
  CHECK_THROWS_AS(duet::expand_dims_layout(a, 5), duet::ArgumentError);
  CHECK(duet::squeeze_layout(a, std::nullopt).shape == duet::Shape{2, 3});
  CHECK(duet::squeeze_layout(a, 1).shape == duet::Shape{2, 3});
  CHECK_THROWS_WITH_AS(duet::squeeze_layout(a, 0), doctest::Contains("length 2, not 1"), duet::ArgumentError);
  const Layout flat = duet::collapsed(duet::contiguous_layout({2, 3, 4}));
  CHECK(flat.shape == duet::Shape{24});
  CHECK(flat.strides == std::vector<std::int64_t>{1});
  CHECK(duet::collapsed(t).shape == duet::Shape{3, 2});
  CHECK(duet::contiguous_layout({2, 3, 4}).contiguous());
  CHECK_FALSE(t.contiguous());
  CHECK(duet::contiguous_layout({}).size() == 1);
  CHECK_THROWS_AS(duet::contiguous_layout({std::size_t{1} << 40, std::size_t{1} << 40}), duet::ArgumentError);
}
