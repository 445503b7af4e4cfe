// The array makers of duet/array.hpp: empty, full (a fill of the value's bytes), arange and
// linspace (array_ramp.duet), uniform and normal (duet::random).
#include <cmath>
#include <cstring>
#include <limits>

#include "duet/array.hpp"
#include "duet/extension.hpp"
#include "duet_embedded_kernels.hpp"
#include "duet/random.hpp"

namespace duet {
namespace {

// `value` rounded once to the nearest bfloat16: through the float rounded to odd (the float below
// or above with an odd last bit, unless value is one), which keeps where value lies between two
// bfloat16s, as the kernels' conversions do (fused.cpp); a plain float in between could land on a
// halfway point and round a second time the wrong way.
bfloat16 bfloat16_of(double value) {
  float f = static_cast<float>(value);
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if (static_cast<double>(f) != value && value == value && (u & 1u) == 0) {
    u = std::fabs(static_cast<double>(f)) > std::fabs(value) ? u - 1u : u + 1u;
    std::memcpy(&f, &u, sizeof f);
  }
  return bfloat16::from_float(f);
}

// `value` as the bytes of one `dtype` element, converted as a C cast would; ArgumentError when an
// integer type cannot hold it.
std::vector<unsigned char> element_bytes(double value, ScalarType dtype, const char* call) {
  std::vector<unsigned char> out(size_of(dtype));
  auto put = [&](auto v) { std::memcpy(out.data(), &v, sizeof v); };
  visit_scalar_type(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      put(static_cast<unsigned char>(value != 0));  // NaN too, as bool(nan) is True
    } else if constexpr (std::is_same_v<T, half>) {
      put(half::from_float(static_cast<float>(value)));
    } else if constexpr (std::is_same_v<T, bfloat16>) {
      put(bfloat16_of(value));
    } else if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) {
      put(static_cast<T>(value));
    } else if constexpr (std::is_integral_v<T>) {
      const double lo = static_cast<double>(std::numeric_limits<T>::min());
      const double hi = static_cast<double>(std::numeric_limits<T>::max());
      if (!(value >= lo && value < hi + 1.0))
        throw ArgumentError(std::string(call) + ": " + std::to_string(value) + " does not fit " +
                            to_string(dtype));
      put(static_cast<T>(value));
    } else {
      throw ArgumentError(std::string(call) + ": the element type is unknown");
    }
  });
  return out;
}

void require_double(const Device& device, ScalarType dtype, const char* call) {
  if ((dtype == ScalarType::f64 || dtype == ScalarType::c128) && !device.info().supports_double)
    throw ArgumentError(std::string(call) + ": " + numpy_name(dtype) +
                        " needs a device with double precision; " + device.info().id() + " (" +
                        device.info().name + ") has none: use " +
                        (is_complex(dtype) ? "complex64" : "float32"));
}

// A ramp of bools would be True after its first element: numpy's arange and linspace give those
// only by accident of their conversions, so duet asks for what is meant.
void no_bool(ScalarType dtype, const char* call) {
  if (is_bool(dtype))
    throw ArgumentError(std::string(call) +
                        ": a range of bool values is not a range; make it in an "
                        "integer dtype and compare it (x != 0) or astype(bool)");
  if (is_complex(dtype))
    throw ArgumentError(std::string(call) + ": a range of " + numpy_name(dtype) +
                        " values is not made directly; make it in a float dtype and astype it");
}

// out[i] = start + i * step for i < n.
void ramp(Queue& q, Array& out, double start, double step) {
  if (out.size() == 0) return;
  const bool f64 = q.device().info().supports_double;
  const Kernel k =
      embedded_kernels.kernel(q.device(), "array_ramp", "array_ramp",
                                {{"T", to_string(out.dtype())}, {"R", f64 ? "double" : "float"}});
  const KernelArg buffer = KernelArg::from_raw(out.buffer(), out.dtype());
  const std::vector<KernelArg> args =
      f64 ? std::vector<KernelArg>{buffer, KernelArg::from(std::uint64_t(out.size())), KernelArg::from(start),
                                   KernelArg::from(step)}
          : std::vector<KernelArg>{buffer, KernelArg::from(std::uint64_t(out.size())),
                                   KernelArg::from(static_cast<float>(start)),
                                   KernelArg::from(static_cast<float>(step))};
  q.launch_args(k, Range(out.size()), Range(), args);
}

// A new float32 or float64 array filled by `fill` (one of duet::random's calls) through a typed
// buffer over its memory.
template <class Fill>
Array random_array(Queue& q, const Shape& shape, ScalarType dtype, const char* call, Fill fill) {
  if (dtype != ScalarType::f32 && dtype != ScalarType::f64)
    throw ArgumentError(std::string(call) + ": random arrays are float32 or float64, not " +
                        to_string(dtype));
  Array a = empty(q.device(), shape, dtype);
  if (a.size() == 0) return a;
  if (dtype == ScalarType::f32) {
    Buffer<float> b = Buffer<float>::from_raw(a.buffer().share());
    fill(b);
  } else {
    Buffer<double> b = Buffer<double>::from_raw(a.buffer().share());
    fill(b);
  }
  return a;
}

}  // namespace

Array empty(const Device& device, const Shape& shape, ScalarType dtype) {
  if (size_of(dtype) == 0) throw ArgumentError("empty: the element type is unknown");
  require_double(device, dtype, "empty");
  const std::size_t n = element_count(shape);
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(n, size_of(dtype), &bytes))
    throw ArgumentError("empty: " + shape_text(shape) + " of " + to_string(dtype) +
                        " is more bytes than memory holds");
  // A buffer of at least one element: every array, even an empty one, has memory behind it.
  return Array(RawBuffer(device, std::max(bytes, size_of(dtype))), dtype, contiguous_layout(shape));
}

Array full(Queue& q, const Shape& shape, double value, ScalarType dtype) {
  Array a = empty(q.device(), shape, dtype);
  const std::vector<unsigned char> pattern = element_bytes(value, dtype, "full");
  if (a.size() > 0) {
    RawBuffer raw = a.buffer().share();
    q.fill_bytes(raw, 0, a.nbytes(), pattern.data(), pattern.size());
  }
  return a;
}

Array arange(Queue& q, double start, double stop, double step, ScalarType dtype) {
  no_bool(dtype, "arange");
  if (step == 0 || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(stop))
    throw ArgumentError("arange: start, stop and step must be finite and step nonzero (got " +
                        std::to_string(start) + ", " + std::to_string(stop) + ", " + std::to_string(step) +
                        ")");
  const double count = std::ceil((stop - start) / step);
  const std::size_t n = count > 0 ? static_cast<std::size_t>(count) : 0;
  Array a = empty(q.device(), {n}, dtype);
  ramp(q, a, start, step);
  return a;
}

Array linspace(Queue& q, double start, double stop, std::size_t num, bool endpoint, ScalarType dtype) {
  no_bool(dtype, "linspace");
  Array a = empty(q.device(), {num}, dtype);
  const std::size_t div = endpoint ? (num > 1 ? num - 1 : 1) : num;
  ramp(q, a, start, num > 0 ? (stop - start) / static_cast<double>(div) : 0.0);
  if (endpoint && num > 1) {
    // numpy sets the last value to stop exactly, which start + (num - 1) * step may miss.
    const std::vector<unsigned char> last = element_bytes(stop, dtype, "linspace");
    RawBuffer raw = a.buffer().share();
    q.fill_bytes(raw, (num - 1) * a.itemsize(), a.itemsize(), last.data(), last.size());
  }
  return a;
}

Array uniform(Queue& q, const Shape& shape, std::uint64_t seed, std::uint64_t offset, double low, double high,
              ScalarType dtype) {
  return random_array(q, shape, dtype, "uniform",
                      [&](auto& buffer) { random::uniform(q, buffer, seed, offset, low, high); });
}

Array normal(Queue& q, const Shape& shape, std::uint64_t seed, std::uint64_t offset, double mean,
             double stddev, ScalarType dtype) {
  return random_array(q, shape, dtype, "normal",
                      [&](auto& buffer) { random::normal(q, buffer, seed, offset, mean, stddev); });
}

}  // namespace duet
