// duet::Array's views, reads and copies. Views only make a new layout over the same buffer; copies
// between layouts run array_copy.duet over the collapsed layouts, or the driver's copy where both
// sides are contiguous.
#include "duet/array.hpp"

#include <array>

#include "bits_type.hpp"
#include "duet/extension.hpp"
#include "duet/generated.hpp"
#include "duet_embedded_kernels.hpp"
#include "rows_range.hpp"

namespace duet {
namespace {

using detail::bits_type;

constexpr std::size_t kCopyAxes = 6;  // array_copy.duet's d0..d5

// The buffer as array_copy.duet takes it: a view of elements of the item's size that the device
// accepts as an argument, and the elements from its start to the buffer's first.
template <class Bits>
extension::KernelRange<Bits> bits_range(const RawBuffer& buffer, const char* what) {
  const BufferView<Bits> all(buffer.share(), buffer.bytes() / sizeof(Bits), 0);
  return extension::kernel_range("copy_into", what, all, buffer.device().info());
}

template <class Bits>
Event launch_copy(Queue& q, const Array& src, const Array& dst, const Layout& from, const Layout& to) {
  const extension::KernelRange<Bits> s = bits_range<Bits>(src.buffer(), "src");
  const extension::KernelRange<Bits> d = bits_range<Bits>(dst.buffer(), "dst");
  std::array<std::uint64_t, kCopyAxes> dims{};
  std::array<std::int64_t, kCopyAxes> ss{}, ts{};
  dims.fill(1);
  const std::size_t skip = kCopyAxes - from.ndim();  // the layout's axes are the innermost ones
  for (std::size_t k = 0; k < from.ndim(); ++k) {
    dims[skip + k] = from.shape[k];
    ss[skip + k] = from.strides[k];
    ts[skip + k] = to.strides[k];
  }
  const std::uint64_t n = from.size();
  // Rows where the innermost axis is long enough to fill groups along it; else one work-item per
  // element. GPUs take the spread rows (4 elements per work-item, a group's width apart, coalesced),
  // CPUs a run of 64 per work-item. The grid's second dimension stops at 65535 (CUDA's limit); the
  // kernel loops over the rest of the rows.
  const std::uint64_t row_len = dims[kCopyAxes - 1], rows = row_len == 0 ? 0 : n / row_len;
  const bool by_rows = row_len >= 32;
  // The rows form of every generated kernel (duet/generated.hpp), as fused kernels take it.
  const bool spread = generated::forms_for(q.device().info().kind).gpu_rows;
  const Kernel kernel = embedded_kernels.kernel(q.device(), "array_copy",
                                                !by_rows ? "array_copy"
                                                : spread ? "array_copy_rows_spread"
                                                         : "array_copy_rows",
                                                {{"ELEM", bits_type(sizeof(Bits))}});
  if (by_rows) {
    const std::uint64_t per = spread ? 1 : 64;
    const auto [global, local] = rows_ranges(row_len, rows, per, q.device().info().max_group_size);
    return q.launch(kernel, global, local, s.arg, std::int64_t(s.offset) + from.offset, d.arg,
                    std::int64_t(d.offset) + to.offset, rows, per, dims[0], dims[1], dims[2], dims[3],
                    dims[4], dims[5], ss[0], ss[1], ss[2], ss[3], ss[4], ss[5], ts[0], ts[1], ts[2], ts[3],
                    ts[4], ts[5]);
  }
  return q.launch(kernel, Range(n), Range(), s.arg, std::int64_t(s.offset) + from.offset, d.arg,
                  std::int64_t(d.offset) + to.offset, n, dims[0], dims[1], dims[2], dims[3], dims[4], dims[5],
                  ss[0], ss[1], ss[2], ss[3], ss[4], ss[5], ts[0], ts[1], ts[2], ts[3], ts[4], ts[5]);
}

// src's and dst's layouts walked together, with as few axes as both allow: an axis pair merges
// only where it merges in both.
std::pair<Layout, Layout> collapsed_pair(const Layout& a, const Layout& b) {
  std::pair<Layout, Layout> out;
  out.first.offset = a.offset;
  out.second.offset = b.offset;
  for (std::size_t k = 0; k < a.ndim(); ++k) {
    if (a.shape[k] == 1) continue;
    Layout& x = out.first;
    Layout& y = out.second;
    const std::int64_t n = static_cast<std::int64_t>(a.shape[k]);
    if (!x.shape.empty() && x.strides.back() == a.strides[k] * n && y.strides.back() == b.strides[k] * n) {
      x.shape.back() *= a.shape[k];
      y.shape.back() *= a.shape[k];
      x.strides.back() = a.strides[k];
      y.strides.back() = b.strides[k];
    } else {
      x.shape.push_back(a.shape[k]);
      y.shape.push_back(a.shape[k]);
      x.strides.push_back(a.strides[k]);
      y.strides.push_back(b.strides[k]);
    }
  }
  return out;
}

template <class Bits>
Event copy_layouts(Queue& q, const Array& src, const Array& dst) {
  auto [from, to] = collapsed_pair(src.layout(), dst.layout());
  if (from.ndim() <= kCopyAxes) return launch_copy<Bits>(q, src, dst, from, to);
  // More uneven axes than the kernel has: one launch per position of the outer ones.
  const std::size_t outer = from.ndim() - kCopyAxes;
  Layout f = from, t = to;
  f.shape.erase(f.shape.begin(), f.shape.begin() + static_cast<std::ptrdiff_t>(outer));
  f.strides.erase(f.strides.begin(), f.strides.begin() + static_cast<std::ptrdiff_t>(outer));
  t.shape = f.shape;
  t.strides.erase(t.strides.begin(), t.strides.begin() + static_cast<std::ptrdiff_t>(outer));
  std::vector<std::size_t> at(outer, 0);
  Event last;
  for (;;) {
    f.offset = from.offset;
    t.offset = to.offset;
    for (std::size_t k = 0; k < outer; ++k) {
      f.offset += static_cast<std::int64_t>(at[k]) * from.strides[k];
      t.offset += static_cast<std::int64_t>(at[k]) * to.strides[k];
    }
    last = launch_copy<Bits>(q, src, dst, f, t);
    std::size_t k = outer;
    while (k > 0 && ++at[k - 1] == from.shape[k - 1]) at[--k] = 0;
    if (k == 0) return last;
  }
}

}  // namespace

Array::Array(RawBuffer buffer, ScalarType dtype, Layout layout)
    : buffer_(std::move(buffer)), dtype_(dtype), layout_(std::move(layout)) {
  if (size_of(dtype_) == 0) throw ArgumentError("Array: the element type is unknown");
  if (layout_.strides.size() != layout_.shape.size())
    throw ArgumentError("Array: " + std::to_string(layout_.shape.size()) + " axes but " +
                        std::to_string(layout_.strides.size()) + " strides");
  element_count(layout_.shape, "Array: the shape");
  if (buffer_.valid()) buffer_.order_between_queues();
  if (const auto span = layout_.span()) {
    const std::int64_t elements = static_cast<std::int64_t>(buffer_.bytes() / size_of(dtype_));
    if (span->first < 0 || span->second >= elements)
      throw BufferSizeError("Array: the layout reaches elements " + std::to_string(span->first) + " to " +
                            std::to_string(span->second) + " of a buffer of " + std::to_string(elements) +
                            " " + to_string(dtype_) + " elements");
  }
}

Array Array::with_layout(Layout layout) const {
  Array a;
  a.buffer_ = buffer_.share();
  a.dtype_ = dtype_;
  a.layout_ = std::move(layout);
  return a;
}

void Array::require_dtype(ScalarType t, const char* call) const {
  if (t != dtype_)
    throw ArgumentError(std::string("Array::") + call + ": the array holds " + to_string(dtype_) + ", not " +
                        to_string(t));
}

Array Array::index(const std::vector<IndexEntry>& key) const {
  return with_layout(index_layout(layout_, key));
}
Array Array::transpose(const std::vector<std::size_t>& axes) const {
  return with_layout(transpose_layout(layout_, axes));
}
Array Array::expand_dims(std::int64_t axis) const { return with_layout(expand_dims_layout(layout_, axis)); }
Array Array::squeeze(std::optional<std::int64_t> axis) const {
  return with_layout(squeeze_layout(layout_, axis));
}

std::optional<Array> Array::reshape_view(const std::vector<std::int64_t>& shape) const {
  Layout l;
  l.shape = resolve_shape(shape, size());
  auto strides = reshape_strides(layout_, l.shape);
  if (!strides) return std::nullopt;
  l.strides = std::move(*strides);
  l.offset = layout_.offset;
  return with_layout(std::move(l));
}

Array Array::reshape(Queue& q, const std::vector<std::int64_t>& shape) const {
  if (auto view = reshape_view(shape)) return *view;
  Array c = copy(q);
  Layout l = contiguous_layout(resolve_shape(shape, size()));
  return c.with_layout(std::move(l));
}

Array Array::copy(Queue& q) const {
  Array out = empty(q.device(), shape(), dtype_);
  copy_into(q, *this, out);
  return out;
}

void Array::read_into(Queue& q, void* host) const {
  if (size() == 0) return;
  if (contiguous()) {
    q.read_bytes(buffer_, static_cast<std::size_t>(layout_.offset) * itemsize(), host, nbytes(),
                 "Array read");
    return;
  }
  // Gathered on the device first; the copy's memory is freed once the read is done with it.
  const Array c = copy(q);
  q.read_bytes(c.buffer_, 0, host, nbytes(), "Array read");
}

Event copy_into(Queue& q, const Array& src, const Array& dst) {
  if (!src.valid() || !dst.valid()) throw ReleasedError("copy_into: an array is empty (default-constructed)");
  if (src.shape() != dst.shape())
    throw ArgumentError("copy_into: src has shape " + shape_text(src.shape()) + " but dst " +
                        shape_text(dst.shape()));
  if (src.dtype() != dst.dtype())
    throw ArgumentError(std::string("copy_into: src holds ") + to_string(src.dtype()) + " but dst " +
                        to_string(dst.dtype()) + "; converting is astype's job");
  if (src.device() != q.device() || dst.device() != q.device())
    throw DeviceMismatchError("copy_into: the arrays and the queue must be of one device (" +
                              q.device().info().id() + ")");
  if (src.size() == 0) return q.record();
  if (src.contiguous() && dst.contiguous()) {
    RawBuffer to = dst.buffer().share();
    return q.copy_bytes(src.buffer(), static_cast<std::size_t>(src.offset()) * src.itemsize(), to,
                        static_cast<std::size_t>(dst.offset()) * dst.itemsize(), src.nbytes());
  }
  switch (src.itemsize()) {
    case 1:
      return copy_layouts<std::uint8_t>(q, src, dst);
    case 2:
      return copy_layouts<std::uint16_t>(q, src, dst);
    case 4:
      return copy_layouts<std::uint32_t>(q, src, dst);
    case 8:
      return copy_layouts<std::uint64_t>(q, src, dst);
    default: {
      // complex128: each element as two 8-byte halves, an innermost axis of 2 (merged with the
      // row where the elements are contiguous), so the 8-byte copy kernel moves it.
      auto halves = [](const Array& a) {
        Layout l = a.layout();
        const std::int64_t k = static_cast<std::int64_t>(a.itemsize() / 8);
        l.offset *= k;
        for (std::int64_t& st : l.strides) st *= k;
        l.shape.push_back(static_cast<std::size_t>(k));
        l.strides.push_back(1);
        return Array(a.buffer().share(), ScalarType::u64, std::move(l));
      };
      return copy_layouts<std::uint64_t>(q, halves(src), halves(dst));
    }
  }
}

}  // namespace duet
