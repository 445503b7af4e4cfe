// DLPack import and export: share a duet buffer with CuPy, PyTorch, JAX and any other framework that
// speaks DLPack, and use theirs, without copying. Header-only on top of the public duet API
// (Buffer::wrap, native_handle), so libduet does not depend on DLPack: include this header where
// <dlpack/dlpack.h> (Debian: libdlpack-dev; CMake: find_package(dlpack), target dlpack::dlpack) is
// available. Written against DLPack 0.6 (DLPACK_VERSION 60: DLManagedTensor, DLDevice); 1.x headers work too.
//
// The tensor's `data` is what DLPack defines for the device type:
//   kDLCUDA   (CUDA backend):   a CUdeviceptr; device_id is the CUDA device ordinal
//                               (DeviceInfo::native_index), the number cudaSetDevice takes.
//   kDLOpenCL (OpenCL backend): a cl_mem of the device's context (Device::native_context());
//                               device_id is duet's OpenCL index (DeviceInfo::index; DLPack leaves
//                               OpenCL device numbering to the two sides).
// Only 1-element lanes and the scalar types duet knows (int8..int64, uint8..uint64, float32,
// float64) are exchanged; tensors are compact and row-major.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/error.hpp"

// DLPack 0.x says its version as DLPACK_VERSION (60 for 0.6); 1.x as DLPACK_MAJOR_VERSION, keeping
// DLManagedTensor as it was (PyTorch and CuPy ship 1.x headers).
#if !(defined(DLPACK_MAJOR_VERSION) && DLPACK_MAJOR_VERSION >= 1) && (!defined(DLPACK_VERSION) || DLPACK_VERSION < 60)
#error "duet/dlpack.hpp needs DLPack 0.6 or newer (DLPACK_VERSION >= 60, or DLPACK_MAJOR_VERSION >= 1)"
#endif

namespace duet {

namespace detail {

template <class T>
DLDataType dlpack_dtype() {
  static_assert(scalar_type_of<T>() != ScalarType::unknown,
                "DLPack exchange needs an element type duet knows (int8..int64, uint8..uint64, half, "
                "bfloat16, float, double, std::complex<float>, std::complex<double>)");
  DLDataType t;
  // half is IEEE binary16, a float to DLPack; bfloat16 and the complex types have codes of their
  // own (complex64 is kDLComplex of 64 bits: both parts together).
  t.code = static_cast<std::uint8_t>(std::is_same_v<T, bfloat16> ? kDLBfloat
                                     : is_complex_v<T>           ? kDLComplex
                                     : std::is_floating_point_v<T> || std::is_same_v<T, half>
                                         ? kDLFloat
                                         : (std::is_signed_v<T> ? kDLInt : kDLUInt));
  t.bits = static_cast<std::uint8_t>(8 * sizeof(T));
  t.lanes = 1;
  return t;
}

inline std::string dlpack_dtype_name(const DLDataType& t) {
  std::string base;
  switch (t.code) {
    case kDLInt: base = "int"; break;
    case kDLUInt: base = "uint"; break;
    case kDLFloat: base = "float"; break;
    case kDLBfloat: base = "bfloat"; break;
    case kDLComplex: base = "complex"; break;
    case kDLOpaqueHandle: base = "opaque"; break;
    default: base = "type code " + std::to_string(t.code) + " of "; break;
  }
  std::string name = base + std::to_string(t.bits);
  if (t.lanes != 1) name += "x" + std::to_string(t.lanes);
  return name;
}

inline std::string dlpack_device_name(const DLDevice& d) {
  std::string type;
  switch (d.device_type) {
    case kDLCPU: type = "kDLCPU"; break;
    case kDLCUDA: type = "kDLCUDA"; break;
    case kDLCUDAHost: type = "kDLCUDAHost"; break;
    case kDLOpenCL: type = "kDLOpenCL"; break;
    case kDLCUDAManaged: type = "kDLCUDAManaged"; break;
    case kDLROCM: type = "kDLROCM"; break;
    default: type = "device type " + std::to_string(static_cast<int>(d.device_type)); break;
  }
  return type + ":" + std::to_string(d.device_id);
}

// The DLPack device a duet device is: its DeviceInfo::dlpack_device_type (kDLCUDA, kDLOpenCL) with
// its native number.
inline DLDevice dlpack_device_of(const DeviceInfo& info) {
  if (info.dlpack_device_type == 0)
    throw ArgumentError("DLPack has no device type for duet's " + info.backend + " backend");
  DLDevice d;
  d.device_type = static_cast<DLDeviceType>(info.dlpack_device_type);
  d.device_id = info.native_index;
  return d;
}
inline DLDevice dlpack_device_of(const Device& device) { return dlpack_device_of(device.info()); }

// What an exported tensor owns: the duet buffer (freed by the deleter), its shape and strides.
template <class T>
struct DlpackExport {
  DLManagedTensor tensor{};
  Buffer<T> buffer;
  std::vector<std::int64_t> shape, strides;

  static void deleter(DLManagedTensor* self) noexcept {
    if (self) delete static_cast<DlpackExport*>(self->manager_ctx);
  }
};

// What from_dlpack checks before it asks the driver for anything: the tensor `t` against `info`, the
// device it is imported on. Returns the tensor's element count; throws the errors listed at
// from_dlpack. A tensor whose data is null passes only when it has no elements.
template <class T>
std::size_t dlpack_import_count(const DeviceInfo& info, const DLTensor& t) {
  const DLDataType want = dlpack_dtype<T>();
  if (t.dtype.code != want.code || t.dtype.bits != want.bits || t.dtype.lanes != want.lanes)
    throw ArgumentError("from_dlpack: the tensor holds " + dlpack_dtype_name(t.dtype) +
                        " elements, but a Buffer<" + to_string(scalar_type_of<T>()) + "> needs " +
                        dlpack_dtype_name(want));
  const DLDevice here = dlpack_device_of(info);
  if (t.device.device_type != here.device_type || t.device.device_id != here.device_id)
    throw DeviceMismatchError("from_dlpack: the tensor lives on " + dlpack_device_name(t.device) + ", but " +
                              info.id() + " (" + info.name + ") is " + dlpack_device_name(here) +
                              "; import it on its own device, or copy it");
  if (t.ndim < 0) throw ArgumentError("from_dlpack: the tensor has a negative ndim");
  if (t.ndim > 0 && t.shape == nullptr) throw ArgumentError("from_dlpack: the tensor has no shape array");
  bool empty = false;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] < 0) throw ArgumentError("from_dlpack: extent " + std::to_string(d) + " is negative");
    empty = empty || t.shape[d] == 0;
  }
  // At most INT64_MAX bytes, DLPack's own limit, so neither the count nor the strides below overflow.
  const std::size_t most = static_cast<std::size_t>(INT64_MAX) / sizeof(T);
  std::size_t count = empty ? 0 : 1;
  for (int d = 0; d < t.ndim && !empty; ++d) {
    if (static_cast<std::size_t>(t.shape[d]) > most / count) {
      std::string extents;
      for (int k = 0; k < t.ndim; ++k) extents += (k ? ", " : "") + std::to_string(t.shape[k]);
      throw ArgumentError("from_dlpack: a tensor of shape {" + extents + "} has more than " + std::to_string(most) +
                          " elements of " + std::to_string(sizeof(T)) + " bytes");
    }
    count *= static_cast<std::size_t>(t.shape[d]);
  }
  if (t.strides != nullptr && count > 0) {
    std::int64_t expected = 1;
    for (int d = t.ndim; d-- > 0;) {
      if (t.shape[d] != 1 && t.strides[d] != expected) {
        std::string got, compact;
        std::int64_t c = 1;
        std::vector<std::int64_t> compact_strides(static_cast<std::size_t>(t.ndim));
        for (int k = t.ndim; k-- > 0;) {
          compact_strides[static_cast<std::size_t>(k)] = c;
          c *= t.shape[k];
        }
        for (int k = 0; k < t.ndim; ++k) {
          got += (k ? ", " : "") + std::to_string(t.strides[k]);
          compact += (k ? ", " : "") + std::to_string(compact_strides[static_cast<std::size_t>(k)]);
        }
        throw ArgumentError("from_dlpack: the tensor is not compact and row-major (strides {" + got +
                            "}, a compact tensor of this shape has {" + compact +
                            "}); make it contiguous first (e.g. .contiguous() / ascontiguousarray)");
      }
      expected *= t.shape[d];
    }
  }
  if (t.byte_offset % sizeof(T) != 0)
    throw ArgumentError("from_dlpack: byte_offset " + std::to_string(t.byte_offset) +
                        " is not a multiple of the element size (" + std::to_string(sizeof(T)) + " bytes)");
  const auto base = reinterpret_cast<std::uintptr_t>(t.data);
  if (base == 0) {
    if (count != 0) throw ArgumentError("from_dlpack: the tensor's data is null");
    return 0;  // nothing to share, so nothing to align
  }
  if (info.dlpack_device_type == kDLCUDA && (base + t.byte_offset) % sizeof(T) != 0)
    throw ArgumentError("from_dlpack: the first element (data + byte_offset) is not aligned to " +
                        std::to_string(sizeof(T)) + " bytes, which CUDA kernels need");
  // On OpenCL any element offset into the cl_mem will do: dialect kernels take views at any offset
  // (only native OpenCL C needs CL_DEVICE_MEM_BASE_ADDR_ALIGN, and says so at launch).
  (void)info;
  return count;
}

}  // namespace detail

// Exports a buffer as a DLPack tensor of `shape` (1-D of buffer.size() elements when empty; the
// shape's elements must fit in the buffer, BufferSizeError otherwise, and be non-negative).
// The buffer moves into the tensor: calling the tensor's deleter (which the consumer does when
// done with it) destroys the duet buffer, freeing its memory unless views of it are still alive.
// Work on the buffer must have completed, or be ordered by the consumer, before the consumer uses
// it (DLPack 0.6 has no stream hand-off: call Queue::finish() first). Strides are filled in
// (compact, row-major); byte_offset is 0 on CUDA (data is the first element's address) and the
// buffer's offset into its cl_mem on OpenCL.
template <class T>
DLManagedTensor* to_dlpack(Buffer<T>&& buffer, std::vector<std::int64_t> shape = {}) {
  buffer.raw().check_live("buffer to export");  // ReleasedError first
  const DLDevice device = detail::dlpack_device_of(buffer.device());
  if (shape.empty()) shape.push_back(static_cast<std::int64_t>(buffer.size()));
  // The extents' product, held at SIZE_MAX once it passes it: a product that wrapped around to a
  // small number would export a tensor larger than its memory.
  std::size_t elements = 1;
  bool saturated = false;
  for (std::int64_t extent : shape) {
    if (extent < 0) throw ArgumentError("to_dlpack: a tensor extent is negative (" + std::to_string(extent) + ")");
    const auto e = static_cast<std::size_t>(extent);
    saturated = saturated || (e != 0 && elements > static_cast<std::size_t>(-1) / e);
    elements = saturated ? static_cast<std::size_t>(-1) : elements * e;
  }
  for (std::int64_t extent : shape)
    if (extent == 0) elements = 0, saturated = false;  // an empty tensor, whatever the other extents
  if (elements > buffer.size()) {
    std::string what = std::to_string(elements) + " elements";
    if (saturated) {
      what = "shape {";
      for (std::size_t d = 0; d < shape.size(); ++d) what += (d ? ", " : "") + std::to_string(shape[d]);
      what += "} (more elements than a size_t holds)";
    }
    throw BufferSizeError("to_dlpack: a tensor of " + what + " does not fit in a buffer of " +
                          std::to_string(buffer.size()) + " elements");
  }

  auto out = std::make_unique<detail::DlpackExport<T>>();
  out->shape = std::move(shape);
  out->strides.assign(out->shape.size(), 1);
  for (std::size_t d = out->shape.size(); d-- > 1;) out->strides[d - 1] = out->strides[d] * out->shape[d];

  DLTensor& t = out->tensor.dl_tensor;
  const std::uintptr_t handle = buffer.native_handle();
  t.data = reinterpret_cast<void*>(handle);
  t.byte_offset = device.device_type == kDLOpenCL ? buffer.raw().offset() : 0;
  t.device = device;
  t.ndim = static_cast<int>(out->shape.size());
  t.dtype = detail::dlpack_dtype<T>();
  t.shape = out->shape.data();
  t.strides = out->strides.data();
  out->tensor.manager_ctx = out.get();
  out->tensor.deleter = &detail::DlpackExport<T>::deleter;
  out->buffer = std::move(buffer);
  return &out.release()->tensor;
}

// Imports a DLPack tensor as a Buffer<T> of all its elements, without copying: the buffer uses the
// tensor's memory, and the tensor's deleter is called exactly once, when the buffer and every view
// of it are gone (the buffer does not own the memory: owns_memory() is false, free_now() throws).
// Refused with a duet::Error, in which case the tensor stays the caller's and its deleter is NOT
// called (the caller still owns it, as DLPack wants):
//   null tensor or data                           ArgumentError
//   ndim < 0, no shape, a negative extent, or     ArgumentError
//       more than INT64_MAX bytes of elements
//   dtype other than T's (code, bits, lanes == 1) ArgumentError  (e.g. complex64, float64 for float)
//   strides that are not compact row-major        ArgumentError  (extents of 1 may have any stride)
//   a byte_offset the backend cannot honour       ArgumentError  (not a multiple of sizeof(T); on
//       CUDA a first element not aligned to sizeof(T))
//   a device type or id other than the device's   DeviceMismatchError
//   memory the driver does not accept             as Buffer::wrap reports it
template <class T>
Buffer<T> from_dlpack(const Device& device, DLManagedTensor* managed) {
  const DeviceInfo& info = device.info();
  if (managed == nullptr) throw ArgumentError("from_dlpack: the tensor is null");
  const DLTensor& t = managed->dl_tensor;
  const std::size_t count = detail::dlpack_import_count<T>(info, t);
  const auto base = reinterpret_cast<std::uintptr_t>(t.data);
  if (base == 0) {
    // Nothing to share: an empty buffer, and the tensor is not needed any more.
    if (managed->deleter) managed->deleter(managed);
    return Buffer<T>(device, 0);
  }
  auto release = [managed] {
    if (managed->deleter) managed->deleter(managed);
  };
  return Buffer<T>::wrap(device, base, count, static_cast<std::size_t>(t.byte_offset), release);
}

}  // namespace duet
