// Zero copy through DLPack: Array.__dlpack__ / __dlpack_device__ (duet's arrays into CuPy, PyTorch,
// JAX, ...) and duet.from_dlpack (theirs into duet), over the C++ duet/dlpack.hpp. Built where
// DLPack's header is found (DUET_PYTHON_DLPACK); elsewhere the calls raise BackendUnavailableError.
//
// Streams. As consumer, duet hands the producer the native stream of its default queue for the
// device (CUDA), so the producer orders its pending work before duet's. As producer, duet makes the
// array device's default queue wait for the writes other queues have pending on the array, then
// finishes it, before handing the tensor over, for any consumer stream other than -1: duet's public
// API has no way to make a foreign stream wait on one of its events, and finishing is correct for
// every stream.
// Host tensors (NumPy, kDLCPU) are copied to the device: a device array cannot live in host memory.
#include <nanobind/stl/string.h>

#include "bindings.hpp"

#if defined(DUET_PYTHON_DLPACK)
#include <duet/dlpack.hpp>
#endif

namespace duet::python {

#if defined(DUET_PYTHON_DLPACK)
namespace {

// bool's elements are bytes to the typed templates of dlpack.hpp.
ScalarType detail_kernel_type(ScalarType t) { return is_bool(t) ? ScalarType::u8 : t; }

constexpr const char* kCapsule = "dltensor";
// DLPack 0.8's kDLBool (one byte per element, 0 or 1), spelled as a number: older headers (0.6, 0.7)
// lack the name, and the code is the same in every version that has it.
constexpr std::uint8_t kBoolCode = 6;
constexpr const char* kUsedCapsule = "used_dltensor";

// Calls `f` with a TypeTag of the C++ element type of `t`, for the templates of dlpack.hpp, which
// take the integer types, half, bfloat16 (DLPack's kDLBfloat), float, double and the complex types
// (kDLComplex). bool goes as its bytes, std::uint8_t: the callers set or check DLPack's bool code
// themselves.
template <class F>
auto dispatch(ScalarType t, F&& f) {
  return visit_scalar_type(detail_kernel_type(t), [&](auto tag) -> decltype(f(TypeTag<float>{})) {
    using T = typename decltype(tag)::type;
    constexpr bool exchanged = std::is_arithmetic_v<T> || std::is_same_v<T, half> ||
                               std::is_same_v<T, bfloat16> || is_complex_v<T>;
    if constexpr (exchanged && !std::is_same_v<T, bool>)  // bool: as std::uint8_t, above
      return f(tag);
    else
      throw ArgumentError(std::string("DLPack exchange of ") + to_string(t) + " elements is not supported");
  });
}

ScalarType scalar_type_of_dl(const DLDataType& t) {
  if (t.lanes != 1) return ScalarType::unknown;
  if (t.code == kBoolCode) return t.bits == 8 ? ScalarType::b8 : ScalarType::unknown;
  if (t.code == kDLBfloat) return t.bits == 16 ? ScalarType::bf16 : ScalarType::unknown;
  if (t.code == kDLComplex)
    return t.bits == 64 ? ScalarType::c64 : t.bits == 128 ? ScalarType::c128 : ScalarType::unknown;
  if (t.code == kDLFloat)
    return t.bits == 16   ? ScalarType::f16
           : t.bits == 32 ? ScalarType::f32
           : t.bits == 64 ? ScalarType::f64
                          : ScalarType::unknown;
  const bool is_signed = t.code == kDLInt;
  if (t.code != kDLInt && t.code != kDLUInt) return ScalarType::unknown;
  switch (t.bits) {
    case 8: return is_signed ? ScalarType::i8 : ScalarType::u8;
    case 16: return is_signed ? ScalarType::i16 : ScalarType::u16;
    case 32: return is_signed ? ScalarType::i32 : ScalarType::u32;
    case 64: return is_signed ? ScalarType::i64 : ScalarType::u64;
    default: return ScalarType::unknown;
  }
}

void capsule_destructor(PyObject* capsule) {
  // A capsule never consumed still owns its tensor.
  if (PyCapsule_IsValid(capsule, kCapsule)) {
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsule));
    if (managed && managed->deleter) managed->deleter(managed);
  }
}

nb::tuple dlpack_device(const Array& a) {
  const DLDevice d = detail::dlpack_device_of(a.device());
  return nb::make_tuple(static_cast<int>(d.device_type), d.device_id);
}

nb::object export_capsule(const Array& a, nb::handle stream, nb::handle dl_device, nb::handle copy) {
  if (!dl_device.is_none()) {
    nb::tuple want = nb::cast<nb::tuple>(dl_device);
    if (!want.equal(dlpack_device(a)))
      throw nb::buffer_error("duet exports an array only on its own device (no cross-device copy)");
  }
  Array source = a;
  Queue& q = default_queue(a.device());
  if (!copy.is_none() && nb::cast<bool>(copy)) {
    if (a.contiguous()) {
      source = make_array(a.device(), a.dtype(), a.shape());
      RawBuffer to = source.buffer().share();
      if (a.nbytes()) q.copy_bytes(contiguous_buffer(a, "the array"), 0, to, 0, a.nbytes());
    } else {
      source = a.copy(q);
    }
  }
  const bool no_sync = !stream.is_none() && PyLong_Check(stream.ptr()) && nb::cast<long long>(stream) == -1;
  if (!no_sync) {
    nb::gil_scoped_release release;
    q.order_after(source.buffer());  // writes pending on other queues too
    q.finish();
  }
  std::vector<std::int64_t> shape(source.shape().begin(), source.shape().end());
  // A contiguous array exports the exact range of its elements; a strided view the range they span
  // (so the consumer pins only what it reads), with its strides (DLPack counts them in elements, as
  // duet does) and the position of element (0, ..., 0) in that range.
  RawBuffer range;
  std::int64_t first = 0;  // element (0, ..., 0), counted from the range's start
  if (source.contiguous()) {
    range = contiguous_buffer(source, "the array");
  } else {
    const auto span = source.layout().span();  // a strided view has elements, so it has a span
    const std::size_t item = source.itemsize();
    range = source.buffer().view(static_cast<std::size_t>(span->first) * item,
                                 static_cast<std::size_t>(span->second - span->first + 1) * item);
    first = source.offset() - span->first;
  }
  DLManagedTensor* managed = dispatch(source.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return to_dlpack(Buffer<T>::from_raw(std::move(range)), shape);
  });
  if (is_bool(source.dtype())) managed->dl_tensor.dtype.code = kBoolCode;
  if (!source.contiguous()) {
    DLTensor& t = managed->dl_tensor;  // the tensor owns its strides
    for (std::size_t k = 0; k < source.ndim(); ++k) t.strides[k] = source.strides()[k];
    t.byte_offset += static_cast<std::uint64_t>(first) * source.itemsize();
  }
  PyObject* capsule = PyCapsule_New(managed, kCapsule, &capsule_destructor);
  if (!capsule) {
    managed->deleter(managed);
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

// The producer's tensor, wrapped so that its deleter runs with the GIL held (CuPy's and PyTorch's
// deleters drop Python references) whichever thread releases duet's last handle.
struct Wrapped {
  DLManagedTensor outer{};
  DLManagedTensor* inner = nullptr;

  static void deleter(DLManagedTensor* self) noexcept {
    auto* w = static_cast<Wrapped*>(self->manager_ctx);
    if (w->inner && w->inner->deleter && Py_IsInitialized()) {
      PyGILState_STATE state = PyGILState_Ensure();
      w->inner->deleter(w->inner);
      PyGILState_Release(state);
    }
    delete w;
  }
};

const Device& device_for(int type, int id, nb::handle device) {
  if (!device.is_none()) return nb::cast<const Device&>(device);
  const Device& d = default_device();
  const DLDevice here = detail::dlpack_device_of(d);
  if (here.device_type == type && here.device_id == id) return d;
  static std::vector<Device>* opened = new std::vector<Device>();  // kept, like the default device
  for (const DeviceInfo& info : devices()) {
    const bool match = type == kDLCUDA ? info.backend == "cuda" && info.native_index == id
                                       : type == kDLOpenCL && info.backend == "opencl" && info.index == id;
    if (match) return opened->emplace_back(Device::open(info.id()));
  }
  throw DeviceNotFoundError("from_dlpack: no duet device is " + detail::dlpack_device_name(DLDevice{static_cast<DLDeviceType>(type), id}));
}

Array import(nb::handle obj, nb::handle device, nb::handle queue) {
  Array* existing = nullptr;
  if ((existing = bound_or_null<Array>(obj)) != nullptr) return *existing;
  nb::tuple where = nb::cast<nb::tuple>(obj.attr("__dlpack_device__")());
  const int type = nb::cast<int>(where[0]), id = nb::cast<int>(where[1]);
  if (type == kDLCPU || type == kDLCUDAHost) {
    // Host memory: NumPy reads the tensor, duet copies it to the device.
    nb::object host = nb::module_::import_("numpy").attr("from_dlpack")(obj);
    return nb::cast<Array>(nb::module_::import_("duet._duet").attr("asarray")(host, device, nb::none(), queue));
  }
  const Device& d = device_for(type, id, device);
  nb::object capsule_obj;
  if (type == kDLCUDA) {
    // The consumer's stream: duet's default queue on that device (1, the legacy default stream, for
    // the null stream, which DLPack does not let a consumer name as 0).
    const std::uintptr_t stream = queue_or_default(queue, d).native_handle();
    capsule_obj = obj.attr("__dlpack__")(nb::arg("stream") = stream == 0 ? std::uintptr_t{1} : stream);
  } else {
    capsule_obj = obj.attr("__dlpack__")();
  }
  PyObject* capsule = capsule_obj.ptr();
  if (!PyCapsule_IsValid(capsule, kCapsule))
    throw ArgumentError("from_dlpack: __dlpack__ did not return an unused 'dltensor' capsule");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsule));
  const DLTensor& t = managed->dl_tensor;
  const ScalarType dtype = scalar_type_of_dl(t.dtype);
  if (dtype == ScalarType::unknown)
    throw ArgumentError("from_dlpack: " + detail::dlpack_dtype_name(t.dtype) + " elements are not supported");
  Shape shape;
  for (int k = 0; k < t.ndim; ++k) shape.push_back(static_cast<std::size_t>(t.shape[k] < 0 ? 0 : t.shape[k]));
  auto* wrapped = new Wrapped();
  wrapped->inner = managed;
  wrapped->outer.dl_tensor = managed->dl_tensor;
  wrapped->outer.manager_ctx = wrapped;
  wrapped->outer.deleter = &Wrapped::deleter;
  // A bool tensor is imported as its bytes (the outer tensor is duet's own copy of the description).
  if (is_bool(dtype)) wrapped->outer.dl_tensor.dtype.code = kDLUInt;
  RawBuffer buffer;
  try {
    buffer = dispatch(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      return std::move(duet::from_dlpack<T>(d, &wrapped->outer).raw());
    });
  } catch (...) {
    delete wrapped;  // refused: the capsule still owns the tensor and frees it
    throw;
  }
  // duet owns the tensor now (its deleter runs when the array's last handle is gone).
  PyCapsule_SetName(capsule, kUsedCapsule);
  return Array(std::move(buffer), dtype, contiguous_layout(shape));
}

}  // namespace

void bind_array_dlpack(nb::class_<Array>& array) {
  array.def("__dlpack__", [](const Array& a, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                             nb::handle copy) {
              (void)max_version;  // duet answers with a DLPack 0.x capsule, which every consumer takes
              return export_capsule(a, stream, dl_device, copy);
            },
            nb::kw_only(), nb::arg("stream").none() = nb::none(), nb::arg("max_version").none() = nb::none(),
            nb::arg("dl_device").none() = nb::none(), nb::arg("copy").none() = nb::none(),
            "A DLPack capsule sharing this array's memory (duet finishes its default queue first unless stream=-1)");
  array.def("__dlpack_device__", &dlpack_device);
}

void bind_dlpack(nb::module_& m) {
  m.attr("HAVE_DLPACK") = true;
  m.def("from_dlpack", &import, nb::arg("x"), nb::arg("device").none() = nb::none(), nb::arg("queue").none() = nb::none(),
        "An Array sharing the memory of a DLPack producer's tensor (CuPy, PyTorch, ... on a CUDA device); "
        "host tensors (NumPy) are copied to `device`");
}

#else

void bind_array_dlpack(nb::class_<Array>& array) {
  array.def("__dlpack__", [](const Array&, nb::args, nb::kwargs) -> nb::object {
    throw BackendUnavailableError("this duet module was built without DLPack's header (Debian: libdlpack-dev)");
  });
}

void bind_dlpack(nb::module_& m) {
  m.attr("HAVE_DLPACK") = false;
  m.def("from_dlpack", [](nb::handle, nb::handle, nb::handle) -> Array {
    throw BackendUnavailableError("this duet module was built without DLPack's header (Debian: libdlpack-dev)");
  }, nb::arg("x"), nb::arg("device").none() = nb::none(), nb::arg("queue").none() = nb::none());
}

#endif

}  // namespace duet::python
