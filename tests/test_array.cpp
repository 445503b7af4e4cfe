// duet::Array on every device: views read back element by element against the same view computed
// on the host (rows, blocks, reversed and stepped slices, transposes, more axes than the copy
// kernel has), copies into strided views of a NaN-poisoned array (elements outside the view must
// keep their NaN), reshapes that are views and those that copy, the makers (full in several
// dtypes, arange, linspace, the random ones bit for bit against duet::random's host reference),
// empty and one-element shapes, and the errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <duet/random.hpp>
#include <numeric>
#include <vector>

#include "array_support.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

using duet::Array;
using duet::IndexEntry;
using duet::Slice;
constexpr std::nullopt_t none = std::nullopt;

std::vector<float> iota(std::size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("arrays: views read back as the host computes them") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::vector<float> host = iota(5 * 7);
    const Array m = duet::from_host<float>(q, host, {5, 7});
    const std::vector<std::vector<IndexEntry>> keys = {
        {std::int64_t{1}},
        {std::int64_t{-1}},
        {Slice{1, 4, 1}, Slice{none, none, 2}},
        {Slice{none, none, -1}, Slice{none, none, -1}},
        {Slice{none, none, -2}, std::int64_t{3}},
        {Slice{}, Slice{5, 0, -3}},
        {Slice{4, 1, 1}},  // empty
        {std::int64_t{2}, std::int64_t{6}},
    };
    for (const auto& key : keys) {
      const Array v = m.index(key);
      CHECK(v.to_vector<float>(q) == through_layout<float>(host, v.layout()));
    }
    const Array t = m.T();
    CHECK(t.shape() == duet::Shape{7, 5});
    CHECK(t.to_vector<float>(q) == through_layout<float>(host, t.layout()));
    const Array tt = m.index({Slice{none, none, -2}}).transpose();
    CHECK(tt.to_vector<float>(q) == through_layout<float>(host, tt.layout()));
    // 8 axes, transposed: more uneven axes than array_copy.duet takes in one launch.
    const duet::Shape big{2, 3, 2, 3, 2, 3, 2, 2};
    const std::vector<float> many = iota(duet::element_count(big));
    const Array b = duet::from_host<float>(q, many, big).transpose({7, 0, 6, 1, 5, 2, 4, 3});
    CHECK(b.to_vector<float>(q) == through_layout<float>(many, b.layout()));
  });
}

TEST_CASE("arrays: strided copies with one to six uneven axes, and with more rows than a grid takes") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    // Every second element along every axis: no two axes merge, so the copy walks `axes` of them
    // (array_copy_rows with 0 to 5 outer axes).
    const duet::Shape lengths{3, 5, 2, 7, 3, 4};
    for (std::size_t axes = 1; axes <= lengths.size(); ++axes) {
      CAPTURE(axes);
      duet::Shape shape;
      std::vector<IndexEntry> key;
      for (std::size_t k = 0; k < axes; ++k) {
        shape.push_back(2 * lengths[k] + 1);
        key.push_back(k % 2 ? Slice{std::nullopt, std::nullopt, -2} : Slice{1, std::nullopt, 2});
      }
      const std::vector<float> host = iota(duet::element_count(shape));
      const Array v = duet::from_host<float>(q, host, shape).index(key);
      CHECK(v.to_vector<float>(q) == through_layout<float>(host, v.layout()));
    }
    // 65537 rows of 256 bytes out of 257: more rows than CUDA's second grid dimension takes, so
    // the rows kernel's work-items loop over rows.
    const std::size_t rows = 65537, cols = 257;
    std::vector<std::uint8_t> bytes(rows * cols);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + i / cols);
    const Array m = duet::from_host<std::uint8_t>(q, bytes, {rows, cols});
    const Array left = m.index({Slice{}, Slice{std::nullopt, std::int64_t{256}, 1}});
    CHECK(left.copy(q).to_vector<std::uint8_t>(q) == through_layout<std::uint8_t>(bytes, left.layout()));
  });
}

TEST_CASE("arrays: copies into strided views leave everything else as it was") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("array copy_into");
    const std::vector<float> src_host = random_floats(rng, 3 * 4);
    const Array src = duet::from_host<float>(q, src_host, {3, 4});
    const Array dst = duet::full(q, {5, 9}, std::nan(""));
    const Array window = dst.index({Slice{3, 0, -1}, Slice{1, none, 2}});  // rows 3, 2, 1; columns 1, 3, 5, 7
    REQUIRE(window.shape() == duet::Shape{3, 4});
    duet::copy_into(q, src, window);
    const std::vector<float> got = dst.to_vector<float>(q);
    std::size_t written = 0;
    for (std::size_t r = 0; r < 5; ++r)
      for (std::size_t c = 0; c < 9; ++c) {
        const float g = got[r * 9 + c];
        if (r >= 1 && r <= 3 && c % 2 == 1) {
          CHECK(g == src_host[(3 - r) * 4 + (c - 1) / 2]);
          ++written;
        } else {
          CHECK(std::isnan(g));
        }
      }
    CHECK(written == 12);
    CHECK_THROWS_WITH_AS(duet::copy_into(q, src, dst), doctest::Contains("shape (3, 4) but dst (5, 9)"),
                         duet::ArgumentError);
    CHECK_THROWS_AS(duet::copy_into(q, src, duet::zeros(q, {3, 4}, duet::ScalarType::i32)),
                    duet::ArgumentError);
  });
}

void long_row_copies();

TEST_CASE("arrays: copies of views with long rows (array_copy_rows), runs of every length, both ways") {
  with_gpu_forms(long_row_copies);
}

void long_row_copies() {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Shape shape{3, 7, 263};  // rows of 263: four runs of 64 and a tail on CPUs
    const std::vector<float> x = iota(duet::element_count(shape));
    const Array a = duet::from_host<float>(q, x, shape);
    const std::vector<Array> views{
        a.index({Slice{}, Slice{none, none, -2}, Slice{1, -1}}),        // reversed rows, a trimmed run
        a.index({Slice{1, none}, Slice{}, Slice{none, none, -1}}),      // a reversed run
        a.index({Slice{}, Slice{2, 5}, Slice{none, none, 3}}),          // a strided run of 88
        a.index({std::int64_t{1}, Slice{}, Slice{31, 64}}),             // rows of 33
        a.transpose({0, 2, 1}).index({Slice{}, Slice{0, 40}, Slice{}})  // rows of 7 (one work-item each)
    };
    for (const Array& v : views) {
      INFO(duet::shape_text(v.shape()));
      CHECK(v.copy(q).to_vector<float>(q) == through_layout<float>(x, v.layout()));
      // Into a poisoned view of the same shape with its own strides.
      duet::Shape wide = v.shape();
      wide.back() = wide.back() * 2 + 1;
      const Array dst = duet::full(q, wide, std::nan(""));
      std::vector<IndexEntry> every_other(v.ndim() - 1, Slice{});  // odd columns, backwards
      every_other.push_back(Slice{-2, none, -2});
      const Array window = dst.index(every_other);
      REQUIRE(window.shape() == v.shape());
      duet::copy_into(q, v, window);
      const std::vector<float> got = dst.to_vector<float>(q);
      const std::vector<float> want = through_layout<float>(x, v.layout());
      const std::size_t row = wide.back(), len = v.shape().back();
      for (std::size_t i = 0; i < got.size(); ++i) {
        const std::size_t c = i % row;
        if (c % 2 == 1) {
          CHECK(got[i] == want[i / row * len + (row - 2 - c) / 2]);
        } else {
          CHECK(std::isnan(got[i]));
        }
      }
    }
    // Rows of 1031 (GPUs: two groups of 4 x 256 elements, the second mostly idle), every third row.
    const std::vector<float> wide_rows = iota(9 * 1033);
    const Array W =
        duet::from_host<float>(q, wide_rows, {9, 1033}).index({Slice{none, none, 3}, Slice{1, -1}});
    CHECK(W.copy(q).to_vector<float>(q) == through_layout<float>(wide_rows, W.layout()));
    // One- and eight-byte elements take the same kernel.
    std::vector<std::int8_t> bytes(2 * 100);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::int8_t>(i * 7);
    const Array B = duet::from_host<std::int8_t>(q, bytes, {2, 100}).index({Slice{}, Slice{none, none, -1}});
    CHECK(B.copy(q).to_vector<std::int8_t>(q) == through_layout<std::int8_t>(bytes, B.layout()));
    if (dev.info().supports_double) {
      const std::vector<double> d(x.begin(), x.end());
      const Array D =
          duet::from_host<double>(q, d, shape).index({Slice{}, Slice{1, none, 2}, Slice{2, none}});
      CHECK(D.copy(q).to_vector<double>(q) == through_layout<double>(d, D.layout()));
    }
  });
}

TEST_CASE("arrays: reshape is a view where it can be and a copy where it must") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::vector<float> host = iota(6 * 4);
    const Array a = duet::from_host<float>(q, host, {6, 4});
    const auto view = a.reshape_view({3, -1});
    REQUIRE(view.has_value());
    CHECK(view->buffer().native_handle() == a.buffer().native_handle());
    CHECK(view->shape() == duet::Shape{3, 8});
    const Array t = a.T();
    CHECK_FALSE(t.reshape_view({-1}).has_value());
    const Array flat = t.reshape(q, {-1});
    CHECK(flat.to_vector<float>(q) == through_layout<float>(host, t.layout()));
    CHECK(a.expand_dims(1).squeeze().shape() == duet::Shape{6, 4});
    const Array copied = a.index({Slice{none, none, -1}}).copy(q);
    CHECK(copied.contiguous());
    CHECK(copied.to_vector<float>(q) ==
          through_layout<float>(host, a.index({Slice{none, none, -1}}).layout()));
  });
}

TEST_CASE("arrays: full, arange, linspace and random arrays") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    CHECK(duet::full(q, {3, 5}, -2.5).to_vector<float>(q) == std::vector<float>(15, -2.5f));
    CHECK(duet::ones(q, {7}, duet::ScalarType::i32).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>(7, 1));
    CHECK(duet::full(q, {1}, 255, duet::ScalarType::u8).to_vector<std::uint8_t>(q) ==
          std::vector<std::uint8_t>{255});
    const std::vector<duet::half> h = duet::full(q, {4}, 0.1, duet::ScalarType::f16).to_vector<duet::half>(q);
    for (const duet::half& x : h) CHECK(x.bits == duet::half::from_float(0.1f).bits);
    CHECK_THROWS_WITH_AS(duet::full(q, {2}, 300, duet::ScalarType::u8),
                         doctest::Contains("does not fit uchar"), duet::ArgumentError);
    CHECK(duet::zeros(q, {0, 3}).to_vector<float>(q).empty());
    CHECK(duet::zeros(q, {}).size() == 1);

    const std::vector<float> r = duet::arange(q, 0.5, 7.0, 1.5).to_vector<float>(q);
    CHECK(r == std::vector<float>{0.5f, 2.0f, 3.5f, 5.0f, 6.5f});
    CHECK(duet::arange(q, 10, 0, -3, duet::ScalarType::i32).to_vector<std::int32_t>(q) ==
          std::vector<std::int32_t>{10, 7, 4, 1});
    CHECK(duet::arange(q, 3, 3).size() == 0);
    CHECK_THROWS_AS(duet::arange(q, 0, 1, 0), duet::ArgumentError);
    const std::vector<float> l = duet::linspace(q, 0.0, 1.0, 11).to_vector<float>(q);
    REQUIRE(l.size() == 11);
    for (std::size_t i = 0; i < 11; ++i) CHECK(l[i] == doctest::Approx(i / 10.0).epsilon(1e-6));
    CHECK(l.back() == 1.0f);
    const std::vector<float> open = duet::linspace(q, 0.0, 1.0, 4, false).to_vector<float>(q);
    CHECK(open == std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f});
    CHECK(duet::linspace(q, 2.0, 5.0, 1).to_vector<float>(q) == std::vector<float>{2.0f});

    // The random makers are duet::random: the same bits as its host reference.
    const Array u = duet::uniform(q, {13, 17}, 42, 3, -1.0, 2.0);
    std::vector<float> want(13 * 17);
    duet::random::host::uniform(want, 42, 3, -1.0f, 2.0f);
    CHECK(u.to_vector<float>(q) == want);
    const Array n = duet::normal(q, {101}, 7);
    std::vector<float> want_n(101);
    duet::random::host::normal(want_n, 7);
    CHECK(n.to_vector<float>(q) == want_n);
    CHECK_THROWS_AS(duet::uniform(q, {3}, 1, 0, 0, 1, duet::ScalarType::i32), duet::ArgumentError);
    if (dev.info().supports_double) {
      CHECK(duet::arange(q, 0, 1, 0.25, duet::ScalarType::f64).to_vector<double>(q) ==
            std::vector<double>{0.0, 0.25, 0.5, 0.75});
    } else {
      CHECK_THROWS_AS(duet::zeros(q, {2}, duet::ScalarType::f64), duet::ArgumentError);
    }
  });
}

TEST_CASE("arrays: errors name what was wrong") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const Array a = duet::zeros(q, {2, 3});
    CHECK_THROWS_WITH_AS(a.to_vector<double>(q), doctest::Contains("holds float, not double"),
                         duet::ArgumentError);
    CHECK_THROWS_AS(a[2], duet::ArgumentError);
    CHECK_THROWS_AS(a.reshape(q, {4, -1}), duet::ArgumentError);
    const std::vector<float> three{1, 2, 3};
    CHECK_THROWS_WITH_AS(duet::from_host<float>(q, three, {2, 2}),
                         doctest::Contains("3 values for the shape (2, 2)"), duet::ArgumentError);
    duet::Layout past = duet::contiguous_layout({4});
    past.offset = 3;
    CHECK_THROWS_AS(Array(a.buffer().share(), duet::ScalarType::f32, past), duet::BufferSizeError);
  });
}
