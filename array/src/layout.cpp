// The layout rules of duet/array_layout.hpp. Everything here is arithmetic on shapes and strides;
// the element counts and offsets are checked for overflow, so a layout that fits in memory never
// wraps around.
#include <algorithm>
#include <limits>

#include "duet/array_layout.hpp"
#include "duet/error.hpp"

namespace duet {
namespace {

std::size_t axis_of(std::int64_t axis, std::size_t ndim, const char* call) {
  const std::int64_t n = static_cast<std::int64_t>(ndim);
  if (axis < -n || axis >= n)
    throw ArgumentError(std::string(call) + ": axis " + std::to_string(axis) +
                        " is out of range for an array of " + std::to_string(ndim) + " dimension" +
                        (ndim == 1 ? "" : "s"));
  return static_cast<std::size_t>(axis < 0 ? axis + n : axis);
}

// Python's slice.indices(): the first position, the step and the count along an axis of `length`.
struct SliceRun {
  std::int64_t first = 0, step = 1;
  std::size_t count = 0;
};

SliceRun run_of(const Slice& s, std::size_t length, std::size_t axis) {
  if (s.step == 0)
    throw ArgumentError("index: the slice on axis " + std::to_string(axis) +
                        " has step 0; a step is nonzero");
  if (s.step == std::numeric_limits<std::int64_t>::min())
    throw ArgumentError("index: the slice on axis " + std::to_string(axis) +
                        " has a step too large to reverse");
  const std::int64_t n = static_cast<std::int64_t>(length);
  // Bounds count from the end when negative, then are clamped to the axis: [0, n] walking forward,
  // [-1, n - 1] walking back (-1: before the first element).
  auto bound = [&](std::optional<std::int64_t> v, std::int64_t absent) {
    if (!v) return absent;
    std::int64_t b = *v < 0 ? *v + n : *v;
    return s.step > 0 ? std::clamp<std::int64_t>(b, 0, n) : std::clamp<std::int64_t>(b, -1, n - 1);
  };
  SliceRun r;
  r.step = s.step;
  if (s.step > 0) {
    r.first = bound(s.start, 0);
    const std::int64_t stop = bound(s.stop, n);
    r.count = stop > r.first ? static_cast<std::size_t>((stop - r.first + s.step - 1) / s.step) : 0;
  } else {
    r.first = bound(s.start, n - 1);
    const std::int64_t stop = bound(s.stop, -1);
    r.count = r.first > stop ? static_cast<std::size_t>((r.first - stop - 1) / -s.step + 1) : 0;
  }
  if (r.count == 0) r.first = 0;  // an empty axis starts nowhere
  return r;
}

}  // namespace

std::size_t element_count(const Shape& shape, const char* what) {
  std::size_t n = 1;
  for (std::size_t e : shape)
    if (__builtin_mul_overflow(n, e, &n) ||
        n > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()))
      throw ArgumentError(std::string(what) + " " + shape_text(shape) +
                          " has more elements than memory can hold");
  return n;
}

std::string shape_text(const Shape& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::size_t Layout::size() const {
  std::size_t n = 1;
  for (std::size_t e : shape) n *= e;
  return n;
}

bool Layout::contiguous() const {
  std::int64_t expected = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] == 0) return true;
    if (shape[k] != 1 && strides[k] != expected) return false;
    expected *= static_cast<std::int64_t>(shape[k]);
  }
  return true;
}

std::optional<std::pair<std::int64_t, std::int64_t>> Layout::span() const {
  std::int64_t lo = offset, hi = offset;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0) return std::nullopt;
    const std::int64_t reach = static_cast<std::int64_t>(shape[k] - 1) * strides[k];
    (reach > 0 ? hi : lo) += reach;
  }
  return std::make_pair(lo, hi);
}

Layout contiguous_layout(const Shape& shape) {
  element_count(shape);
  Layout l;
  l.shape = shape;
  l.strides.assign(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;)
    l.strides[k - 1] = l.strides[k] * static_cast<std::int64_t>(std::max<std::size_t>(shape[k], 1));
  return l;
}

Layout index_layout(const Layout& a, const std::vector<IndexEntry>& key) {
  if (key.size() > a.ndim())
    throw ArgumentError("index: " + std::to_string(key.size()) + " indices for an array of " +
                        std::to_string(a.ndim()) + " dimension" + (a.ndim() == 1 ? "" : "s") + " " +
                        shape_text(a.shape));
  Layout out;
  out.offset = a.offset;
  for (std::size_t k = 0; k < a.ndim(); ++k) {
    if (k >= key.size()) {
      out.shape.push_back(a.shape[k]);
      out.strides.push_back(a.strides[k]);
    } else if (const std::int64_t* i = std::get_if<std::int64_t>(&key[k])) {
      const std::int64_t n = static_cast<std::int64_t>(a.shape[k]);
      if (*i < -n || *i >= n)
        throw ArgumentError("index " + std::to_string(*i) + " is out of range for axis " + std::to_string(k) +
                            " of length " + std::to_string(n) + " (array " + shape_text(a.shape) + ")");
      out.offset += (*i < 0 ? *i + n : *i) * a.strides[k];
    } else {
      const SliceRun r = run_of(std::get<Slice>(key[k]), a.shape[k], k);
      out.offset += r.first * a.strides[k];
      out.shape.push_back(r.count);
      out.strides.push_back(r.step * a.strides[k]);
    }
  }
  return out;
}

Shape resolve_shape(const std::vector<std::int64_t>& shape, std::size_t size) {
  Shape out(shape.size());
  std::size_t known = 1;
  std::optional<std::size_t> unknown;
  std::string text = "(";
  for (std::size_t k = 0; k < shape.size(); ++k) text += (k ? ", " : "") + std::to_string(shape[k]);
  text += shape.size() == 1 ? ",)" : ")";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == -1) {
      if (unknown)
        throw ArgumentError("reshape: " + text + " has more than one -1; at most one size is inferred");
      unknown = k;
    } else if (shape[k] < 0) {
      throw ArgumentError("reshape: " + text +
                          " has a negative size; sizes are >= 0, or -1 for the one inferred");
    } else {
      out[k] = static_cast<std::size_t>(shape[k]);
      if (__builtin_mul_overflow(known, out[k], &known))
        throw ArgumentError("reshape: " + text + " has more elements than memory can hold");
    }
  }
  if (unknown) {
    if (known == 0 || size % known != 0)
      throw ArgumentError("reshape: cannot make " + std::to_string(size) + " elements into " + text);
    out[*unknown] = size / known;
  } else if (known != size) {
    throw ArgumentError("reshape: cannot make " + std::to_string(size) + " elements into " + text + " (" +
                        std::to_string(known) + " elements)");
  }
  return out;
}

std::optional<std::vector<std::int64_t>> reshape_strides(const Layout& a, const Shape& shape) {
  if (a.size() == 0) return contiguous_layout(shape).strides;
  // The old axes without those of length 1, which any stride fits.
  std::vector<std::size_t> dims;
  std::vector<std::int64_t> steps;
  for (std::size_t k = 0; k < a.ndim(); ++k)
    if (a.shape[k] != 1) dims.push_back(a.shape[k]), steps.push_back(a.strides[k]);
  std::vector<std::int64_t> out(shape.size(), 1);
  // Groups of old axes and new axes with equal products: within a group the old axes must be
  // laid out evenly (each stride the next one's times its length), and the new axes then split
  // that run in C order.
  std::size_t oi = 0, ni = 0;
  while (oi < dims.size() && ni < shape.size()) {
    std::size_t oj = oi + 1, nj = ni + 1;
    std::size_t old_product = dims[oi], new_product = shape[ni];
    while (old_product != new_product) {
      if (new_product < old_product)
        new_product *= shape[nj++];
      else
        old_product *= dims[oj++];
    }
    for (std::size_t k = oi; k + 1 < oj; ++k)
      if (steps[k] != steps[k + 1] * static_cast<std::int64_t>(dims[k + 1])) return std::nullopt;
    out[nj - 1] = steps[oj - 1];
    for (std::size_t k = nj - 1; k > ni; --k) out[k - 1] = out[k] * static_cast<std::int64_t>(shape[k]);
    oi = oj;
    ni = nj;
  }
  // New axes of length 1 left at the end take any stride.
  for (; ni < shape.size(); ++ni) out[ni] = ni > 0 ? out[ni - 1] : 1;
  return out;
}

Layout transpose_layout(const Layout& a, const std::vector<std::size_t>& axes) {
  std::vector<std::size_t> order = axes;
  if (order.empty())
    for (std::size_t k = a.ndim(); k-- > 0;) order.push_back(k);
  std::vector<bool> seen(a.ndim(), false);
  bool valid = order.size() == a.ndim();
  for (std::size_t k : order) {
    if (!valid || k >= a.ndim() || seen[k]) {
      valid = false;
      break;
    }
    seen[k] = true;
  }
  if (!valid) {
    std::string text;
    for (std::size_t k : order) text += (text.empty() ? "" : ", ") + std::to_string(k);
    throw ArgumentError("transpose: axes (" + text + ") are not a permutation of the " +
                        std::to_string(a.ndim()) + " axes of an array " + shape_text(a.shape));
  }
  Layout out;
  out.offset = a.offset;
  for (std::size_t k : order) {
    out.shape.push_back(a.shape[k]);
    out.strides.push_back(a.strides[k]);
  }
  return out;
}

Layout expand_dims_layout(const Layout& a, std::int64_t axis) {
  const std::size_t at = axis_of(axis, a.ndim() + 1, "expand_dims");
  Layout out = a;
  const std::int64_t stride = at < a.ndim() ? a.strides[at] * static_cast<std::int64_t>(a.shape[at]) : 1;
  out.shape.insert(out.shape.begin() + static_cast<std::ptrdiff_t>(at), 1);
  out.strides.insert(out.strides.begin() + static_cast<std::ptrdiff_t>(at), stride);
  return out;
}

Layout squeeze_layout(const Layout& a, std::optional<std::int64_t> axis) {
  std::optional<std::size_t> only;
  if (axis) {
    only = axis_of(*axis, a.ndim(), "squeeze");
    if (a.shape[*only] != 1)
      throw ArgumentError("squeeze: axis " + std::to_string(*axis) + " has length " +
                          std::to_string(a.shape[*only]) + ", not 1 (array " + shape_text(a.shape) + ")");
  }
  Layout out;
  out.offset = a.offset;
  for (std::size_t k = 0; k < a.ndim(); ++k) {
    if (a.shape[k] == 1 && (!only || *only == k)) continue;
    out.shape.push_back(a.shape[k]);
    out.strides.push_back(a.strides[k]);
  }
  return out;
}

Layout collapsed(const Layout& a) {
  if (a.size() == 0) return a;
  return collapsed_together({a})[0];
}

std::vector<Layout> collapsed_together(const std::vector<Layout>& in) {
  std::vector<Layout> out(in.size());
  for (std::size_t j = 0; j < in.size(); ++j) out[j].offset = in[j].offset;
  const Shape& shape = in[0].shape;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    const std::int64_t len = static_cast<std::int64_t>(shape[k]);
    bool merge = !out[0].shape.empty();
    for (std::size_t j = 0; merge && j < in.size(); ++j)
      merge = out[j].strides.back() == in[j].strides[k] * len;
    for (std::size_t j = 0; j < in.size(); ++j) {
      if (merge) {
        out[j].shape.back() *= shape[k];
        out[j].strides.back() = in[j].strides[k];
      } else {
        out[j].shape.push_back(shape[k]);
        out[j].strides.push_back(in[j].strides[k]);
      }
    }
  }
  return out;
}

}  // namespace duet
