// duet::Array: an n-dimensional array in device memory with NumPy's layout rules (CMake target
// duet::array, part of duet::duet): an element type, a shape, strides and an offset over a buffer
// (duet/array_layout.hpp). Indexing, slicing with steps and negative indices, transposes,
// expand_dims, squeeze and reshapes that need no copy are views: they share their base's memory
// and cost no device work. Anything that moves data runs on a queue you pass, asynchronously like
// every queue operation, and returns once it is enqueued (to_vector waits for its data).
//
//   duet::Queue q = device.queue();
//   duet::Array m = duet::arange(q, 0, 12, 1, duet::ScalarType::f32).reshape(q, {3, 4});
//   duet::Array col = m.index({duet::Slice{}, 1});          // m[:, 1], a view of 3 elements
//   duet::Array r = m.index({duet::Slice{{}, {}, -1}});       // m[::-1]
//   std::vector<float> host = r.to_vector<float>(q);           // {8, ..., 11, 4, ..., 7, 0, ..., 3}
//
// Element types are the dialect's (duet::ScalarType), half as storage, bool (ScalarType::b8) as one
// byte holding 0 or 1. An Array is a cheap handle:
// copies share the memory. Thread-safe like the buffers it is made of.
#pragma once

#include "duet/export.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "duet/array_layout.hpp"
#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/error.hpp"
#include "duet/queue.hpp"
#include "duet/scalar_type.hpp"
#include "duet/span.hpp"

namespace duet {

// The element type of an Array of C++ type T: scalar_type_of<T>(), and ScalarType::b8 for bool
// (which stays unknown as a kernel argument).
template <class T>
constexpr ScalarType array_type_of() {
  return std::is_same_v<T, bool> ? ScalarType::b8 : scalar_type_of<T>();
}

class DUET_API Array {
 public:
  Array() = default;
  // An array over `buffer` (which it keeps alive) with `layout` counted in elements of `dtype`.
  // BufferSizeError when an element of the layout lies outside the buffer, ArgumentError for an
  // unknown dtype or a layout whose shape and strides differ in length.
  Array(RawBuffer buffer, ScalarType dtype, Layout layout);
  // Copies are handles to the same memory.
  Array(const Array& o) : buffer_(o.buffer_.share()), dtype_(o.dtype_), layout_(o.layout_) {}
  Array& operator=(const Array& o) {
    if (this != &o) *this = Array(o);
    return *this;
  }
  Array(Array&&) noexcept = default;
  Array& operator=(Array&&) noexcept = default;

  bool valid() const noexcept { return dtype_ != ScalarType::unknown; }
  const Device& device() const { return buffer_.device(); }
  ScalarType dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return layout_.shape; }
  const std::vector<std::int64_t>& strides() const noexcept { return layout_.strides; }  // elements
  std::int64_t offset() const noexcept { return layout_.offset; }                        // elements
  const Layout& layout() const noexcept { return layout_; }
  std::size_t ndim() const noexcept { return layout_.shape.size(); }
  std::size_t size() const noexcept { return layout_.size(); }
  std::size_t itemsize() const noexcept { return size_of(dtype_); }
  std::size_t nbytes() const noexcept { return size() * itemsize(); }
  bool contiguous() const { return layout_.contiguous(); }
  // The memory, all of it (views share it): what a kernel argument is made from.
  const RawBuffer& buffer() const noexcept { return buffer_; }

  // --- views ---------------------------------------------------------------------------------
  Array operator[](std::int64_t i) const { return index({i}); }
  // a[key]: integers drop their axis, slices keep it; axes past the key stay whole.
  Array index(const std::vector<IndexEntry>& key) const;
  // The axes permuted (result axis k is axis axes[k]); with none, reversed. T() is transpose().
  Array transpose(const std::vector<std::size_t>& axes = {}) const;
  Array T() const { return transpose(); }
  Array expand_dims(std::int64_t axis) const;
  Array squeeze(std::optional<std::int64_t> axis = std::nullopt) const;
  // The same elements in C order with another shape (one size may be -1): a view where the strides
  // allow it, else a contiguous copy enqueued on q.
  Array reshape(Queue& q, const std::vector<std::int64_t>& shape) const;
  // The view reshape would give, or nullopt where it needs a copy.
  std::optional<Array> reshape_view(const std::vector<std::int64_t>& shape) const;

  // --- data ----------------------------------------------------------------------------------
  // A contiguous copy (a new buffer), enqueued on q.
  Array copy(Queue& q) const;
  // The elements in C order (bool for a bool array). ArgumentError when T is not the dtype. Waits
  // for the data.
  template <class T>
  std::vector<T> to_vector(Queue& q) const {
    require_dtype(array_type_of<T>(), "to_vector");
    if constexpr (std::is_same_v<T, bool>) {
      // std::vector<bool> packs bits: the bytes are read first.
      std::vector<std::uint8_t> bytes(size());
      read_into(q, bytes.data());
      q.finish();
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> out(size());
      read_into(q, out.data());
      q.finish();
      return out;
    }
  }
  // Enqueues the read of every element in C order into `host` (nbytes() bytes, which must stay
  // valid until the queue has finished with it).
  void read_into(Queue& q, void* host) const;

 private:
  void require_dtype(ScalarType t, const char* call) const;
  Array with_layout(Layout layout) const;

  RawBuffer buffer_;
  ScalarType dtype_ = ScalarType::unknown;
  Layout layout_;
};

// Copies src's elements into dst's (same shape and dtype; either may be any view), on q.
// ArgumentError for different shapes or dtypes, DeviceMismatchError for another device.
DUET_API Event copy_into(Queue& q, const Array& src, const Array& dst);

// --- creation: every array is new and contiguous, on q's device ----------------------------------
// Uninitialised.
DUET_API Array empty(const Device& device, const Shape& shape, ScalarType dtype = ScalarType::f32);
// Every element `value`, converted to dtype as a C cast would (ArgumentError when it does not fit
// an integer dtype; bool takes value != 0).
DUET_API Array full(Queue& q, const Shape& shape, double value, ScalarType dtype = ScalarType::f32);
inline Array zeros(Queue& q, const Shape& shape, ScalarType dtype = ScalarType::f32) {
  return full(q, shape, 0.0, dtype);
}
inline Array ones(Queue& q, const Shape& shape, ScalarType dtype = ScalarType::f32) {
  return full(q, shape, 1.0, dtype);
}
// start, start + step, ... below stop (above it for a negative step), as numpy.arange: element i
// is start + i * step computed in double and converted. ArgumentError for step 0.
DUET_API Array arange(Queue& q, double start, double stop, double step = 1.0,
                      ScalarType dtype = ScalarType::f32);
// num values from start to stop (stop included when endpoint), as numpy.linspace.
DUET_API Array linspace(Queue& q, double start, double stop, std::size_t num, bool endpoint = true,
                        ScalarType dtype = ScalarType::f32);
// The host's elements (C order) in a new array of `shape` (their count must match). Returns once
// the data has been copied, so `data` may be a temporary (it waits for q's work up to the copy).
template <class T>
Array from_host(Queue& q, Span<const T> data, const Shape& shape) {
  static_assert(!std::is_same_v<T, bool> || sizeof(bool) == 1, "a bool array's elements are one byte");
  Array a = empty(q.device(), shape, array_type_of<T>());
  if (data.size() != a.size())
    throw ArgumentError("from_host: " + std::to_string(data.size()) + " values for the shape " +
                        shape_text(shape) + " (" + std::to_string(a.size()) + " elements)");
  RawBuffer raw = a.buffer().share();
  if (!data.empty()) q.write_bytes(raw, 0, data.data(), data.size() * sizeof(T), "from_host").wait();
  return a;
}
// Random arrays from duet::random (float32 or float64): uniform in [low, high), normal(mean, stddev);
// (seed, offset) name the stream as there.
DUET_API Array uniform(Queue& q, const Shape& shape, std::uint64_t seed, std::uint64_t offset = 0,
                       double low = 0.0, double high = 1.0, ScalarType dtype = ScalarType::f32);
DUET_API Array normal(Queue& q, const Shape& shape, std::uint64_t seed, std::uint64_t offset = 0,
                      double mean = 0.0, double stddev = 1.0, ScalarType dtype = ScalarType::f32);

}  // namespace duet
