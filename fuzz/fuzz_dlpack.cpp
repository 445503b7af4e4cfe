// Fuzzes DLPack import's checks (duet/dlpack.hpp, detail::dlpack_import_count, which from_dlpack runs
// before it asks the driver for anything) over a DLTensor built from the input: element type asked
// for, the device it is imported on (backend, numbers, view alignment), and the tensor's dtype,
// device, ndim, shape, strides, byte_offset and data address. Every value is the fuzzer's, but the
// shape and strides arrays always hold ndim elements, as DLPack requires. A tensor that passes must
// be one from_dlpack can import as it says: its dtype and device, an element count equal to the
// product of its extents, compact row-major strides, an aligned offset, data unless it is empty.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <duet/dlpack.hpp>
#include <string>
#include <vector>

#include "check.hpp"

namespace {

template <class T>
void import(FuzzedDataProvider& in) {
  duet::DeviceInfo info;
  const bool cuda = in.ConsumeBool();
  info.backend = cuda ? "cuda" : "opencl";
  info.dlpack_device_type = cuda ? kDLCUDA : kDLOpenCL;
  info.index = in.ConsumeIntegralInRange(0, 3);
  info.native_index = in.ConsumeIntegralInRange(0, 3);
  info.view_alignment = std::size_t(1) << in.ConsumeIntegralInRange(0, 12);

  DLTensor t{};
  t.dtype.code = in.ConsumeIntegral<std::uint8_t>();
  t.dtype.bits = in.ConsumeIntegral<std::uint8_t>();
  t.dtype.lanes = in.ConsumeIntegral<std::uint16_t>();
  // Any value of the enumeration (0 to 15 for DLPack 0.6's values up to 13); a value outside it
  // would be undefined behaviour in the harness itself.
  t.device.device_type = static_cast<DLDeviceType>(in.ConsumeIntegralInRange(0, 15));
  t.device.device_id = in.ConsumeIntegral<std::int32_t>();
  t.ndim = in.ConsumeIntegralInRange(-2, 40);
  const std::size_t n = t.ndim > 0 ? static_cast<std::size_t>(t.ndim) : 0;
  std::vector<std::int64_t> shape, strides;
  const bool has_shape = n > 0 && in.ConsumeBool(), has_strides = in.ConsumeBool();
  for (std::size_t d = 0; d < n; ++d) {
    // Mostly small extents; large ones to reach the overflow checks.
    shape.push_back(in.ConsumeBool() ? in.ConsumeIntegralInRange<std::int64_t>(0, 8) : in.ConsumeIntegral<std::int64_t>());
    strides.push_back(in.ConsumeIntegral<std::int64_t>());
  }
  t.shape = has_shape ? shape.data() : nullptr;
  t.strides = has_strides ? strides.data() : nullptr;
  t.byte_offset = in.ConsumeIntegral<std::uint64_t>();
  t.data = reinterpret_cast<void*>(in.ConsumeIntegral<std::uintptr_t>());

  std::size_t count = 0;
  if (!duet::fuzz::returns_or_duet_error([&] { count = duet::detail::dlpack_import_count<T>(info, t); })) return;

  const DLDataType want = duet::detail::dlpack_dtype<T>();
  duet::fuzz::check(t.dtype.code == want.code && t.dtype.bits == want.bits && t.dtype.lanes == 1,
                    "a tensor of " + duet::detail::dlpack_dtype_name(t.dtype) + " was accepted as " +
                        duet::detail::dlpack_dtype_name(want));
  const DLDevice here = duet::detail::dlpack_device_of(info);
  duet::fuzz::check(t.device.device_type == here.device_type && t.device.device_id == here.device_id,
                    "a tensor on another device was accepted");
  duet::fuzz::check(t.ndim >= 0 && (n == 0 || has_shape), "a tensor without a shape was accepted");
  // The exact number of elements, and whether it fits in a size_t.
  unsigned __int128 exact = 1;
  bool fits = true;
  for (std::size_t d = 0; d < n; ++d) {
    duet::fuzz::check(shape[d] >= 0, "a negative extent was accepted");
    exact *= static_cast<std::uint64_t>(shape[d]);
    if (exact > ~std::uint64_t(0)) {
      fits = false;
      exact = 2;  // keeps a later zero extent meaningful without overflowing the 128 bits
      for (std::size_t e = d + 1; e < n; ++e)
        if (shape[e] == 0) exact = 0;
      break;
    }
  }
  duet::fuzz::check(exact == 0 || fits, "a tensor of more than 2^64 elements was accepted as " + std::to_string(count));
  duet::fuzz::check(exact == count, "a tensor was accepted with the wrong element count " + std::to_string(count));
  duet::fuzz::check(count <= ~std::size_t(0) / sizeof(T), "a tensor was accepted whose bytes overflow a size_t");
  if (has_strides && count > 0) {
    unsigned __int128 expected = 1;  // at most the count: no overflow
    for (std::size_t d = n; d-- > 0;) {
      duet::fuzz::check(shape[d] == 1 || (strides[d] >= 0 && static_cast<std::uint64_t>(strides[d]) == expected),
                        "a tensor that is not compact was accepted");
      expected *= static_cast<std::uint64_t>(shape[d]);
    }
  }
  duet::fuzz::check(t.byte_offset % sizeof(T) == 0, "a byte_offset not a multiple of the element size was accepted");
  duet::fuzz::check(t.data != nullptr || count == 0, "a tensor with null data was accepted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0: import<float>(in); break;
    case 1: import<double>(in); break;
    case 2: import<std::int8_t>(in); break;
    case 3: import<std::int16_t>(in); break;
    case 4: import<std::int32_t>(in); break;
    case 5: import<std::int64_t>(in); break;
    case 6: import<std::uint8_t>(in); break;
    case 7: import<std::uint16_t>(in); break;
    case 8: import<std::uint32_t>(in); break;
    default: import<std::uint64_t>(in); break;
  }
  return 0;
}
