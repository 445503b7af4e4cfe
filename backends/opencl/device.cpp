// The OpenCL device: its description, its lazily created context, and the three things a device
// makes (buffers, queues, programs). Allocation is where OpenCL differs most from CUDA: drivers
// such as NVIDIA's accept clCreateBuffer for memory they do not have and fail only when a later
// command first touches the buffer, so a buffer is committed to the device before allocate()
// returns, which lets an exhausted device be reported as OutOfMemoryError at the allocation that
// caused it rather than as a driver error at some later launch. Build logs are normalised too, so
// every driver's log names the user's file and line (see SourceMap::with_source_positions).
#include "device.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "buffer.hpp"
#include "errors.hpp"
#include "host_memory.hpp"
#include "log.hpp"
#include "program.hpp"
#include "queue.hpp"

namespace duet::backend::opencl {

namespace {

// Drivers pad their strings: NUL terminators counted in the length, trailing blanks (NVIDIA's
// OpenCL C version ends in a space).
std::string trimmed(const std::string& s) {
  const char* blanks = " \t\r\n\v\f";
  auto first = s.find_first_not_of(blanks);
  if (first == std::string::npos) return {};
  auto last = s.find_last_not_of(std::string(blanks) + '\0');
  return s.substr(first, last - first + 1);
}

template <class Object, class Info>
std::string text_info(const Object& object, Info param) {
  std::string value;
  if (object.getInfo(param, &value) != CL_SUCCESS) return {};
  return trimmed(value);
}

template <class T>
T device_value(const cl::Device& device, cl_device_info param) {
  T value{};
  if (device.getInfo(param, &value) != CL_SUCCESS) return T{};
  return value;
}

bool has_extension(const std::string& extensions, const std::string& name) {
  std::istringstream words(extensions);
  std::string word;
  while (words >> word)
    if (word == name) return true;
  return false;
}

std::string format_bytes(std::uint64_t bytes) {
  char text[64];
  const double gib = 1024.0 * 1024.0 * 1024.0;
  if (bytes >= 1024ull * 1024 * 1024)
    std::snprintf(text, sizeof text, "%llu bytes (%.2f GiB)", static_cast<unsigned long long>(bytes),
                  static_cast<double>(bytes) / gib);
  else
    std::snprintf(text, sizeof text, "%llu bytes (%.2f MiB)", static_cast<unsigned long long>(bytes),
                  static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

// The architecture where the driver says it, as the native toolchains spell it: NVIDIA's compute
// capability as "sm_90" (as on the CUDA backend, so one tuning entry can name both), AMD's "gfx90a"
// (AMD's devices are named so); empty elsewhere.
std::string architecture(const cl::Device& device, const std::string& extensions, const std::string& name) {
  if (has_extension(extensions, "cl_nv_device_attribute_query")) {
    const auto major = device_value<cl_uint>(device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV);
    const auto minor = device_value<cl_uint>(device, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV);
    return "sm_" + std::to_string(major) + std::to_string(minor);
  }
  if (has_extension(extensions, "cl_amd_device_attribute_query") && name.compare(0, 3, "gfx") == 0) return name;
  return {};
}

// -cl-std pins the language to what the dialect's OpenCL branch is written in, whatever newer
// version the driver defaults to; -cl-kernel-arg-info keeps parameter names and types queryable.
// NVIDIA's devices (their arch "sm_XY", from cl_nv_device_attribute_query) also get
// -D DUET_NV_ARCH=XY: their compiler takes inline PTX, which the prelude then offers as DUET_NV_PTX.
// DUET_OPENCL_PTX=0 leaves it out, in case a driver refuses the PTX some kernel gives it. Devices
// with Intel's subgroup matrix multiply-accumulate get -D DUET_INTEL_MATRIX=<the sub-group size its
// built-ins need>, as DeviceInfo::intel_matrix_subgroup says.
std::vector<std::string> build_options(const std::string& arch, unsigned intel_matrix_subgroup) {
  std::vector<std::string> options{"-cl-std=CL1.2", "-cl-kernel-arg-info"};
  const char* env = std::getenv("DUET_OPENCL_PTX");
  const bool ptx = !(env && std::strcmp(env, "0") == 0);
  if (ptx && arch.rfind("sm_", 0) == 0 && arch.size() > 3 &&
      arch.find_first_not_of("0123456789", 3) == std::string::npos)
    options.push_back("-D DUET_NV_ARCH=" + arch.substr(3));
  if (intel_matrix_subgroup != 0)
    options.push_back("-D DUET_INTEL_MATRIX=" + std::to_string(intel_matrix_subgroup));
  return options;
}

// The sub-group size the built-ins of cl_intel_subgroup_matrix_multiply_accumulate need on `device`:
// its smallest (8 or 16, CL_DEVICE_SUB_GROUP_SIZES_INTEL), or 0 where it does not report the
// extension or the size is neither.
unsigned intel_matrix_subgroup(const cl::Device& device, const std::string& extensions) {
  if (!has_extension(extensions, "cl_intel_subgroup_matrix_multiply_accumulate")) return 0;
  constexpr cl_device_info kSubGroupSizesIntel = 0x4108;
  std::size_t bytes = 0;
  if (clGetDeviceInfo(device(), kSubGroupSizesIntel, 0, nullptr, &bytes) != CL_SUCCESS || bytes == 0)
    return 0;
  std::vector<std::size_t> sizes(bytes / sizeof(std::size_t));
  if (clGetDeviceInfo(device(), kSubGroupSizesIntel, bytes, sizes.data(), nullptr) != CL_SUCCESS) return 0;
  const std::size_t smallest = *std::min_element(sizes.begin(), sizes.end());
  return smallest == 8 || smallest == 16 ? static_cast<unsigned>(smallest) : 0;
}

}  // namespace

OpenCLDevice::OpenCLDevice(const cl::Platform& platform, const cl::Device& device, int index)
    : platform_(platform), device_(device) {
  info_.backend = "opencl";
  info_.index = index;
  info_.name = text_info(device_, CL_DEVICE_NAME);
  info_.vendor = text_info(device_, CL_DEVICE_VENDOR);
  info_.platform = text_info(platform_, CL_PLATFORM_NAME);
  info_.driver = text_info(device_, CL_DRIVER_VERSION);
  info_.language = text_info(device_, CL_DEVICE_OPENCL_C_VERSION);
  const std::string extensions = text_info(device_, CL_DEVICE_EXTENSIONS);
  info_.arch = architecture(device_, extensions, info_.name);
  info_.intel_matrix_subgroup = intel_matrix_subgroup(device_, extensions);
  build_options_ = build_options(info_.arch, info_.intel_matrix_subgroup);
  command_buffers_ =
      CommandBufferSupport::find(platform_(), device_(), has_extension(extensions, "cl_khr_command_buffer"));

  const auto type = device_value<cl_device_type>(device_, CL_DEVICE_TYPE);
  if (type & CL_DEVICE_TYPE_GPU)
    info_.kind = DeviceKind::gpu;
  else if (type & CL_DEVICE_TYPE_CPU)
    info_.kind = DeviceKind::cpu;
  else
    info_.kind = DeviceKind::other;

  info_.memory_bytes = device_value<cl_ulong>(device_, CL_DEVICE_GLOBAL_MEM_SIZE);
  info_.max_alloc_bytes = device_value<cl_ulong>(device_, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info_.local_memory_bytes = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
  info_.compute_units = device_value<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS);
  info_.max_group_size = device_value<std::size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  // Either sign counts: some drivers list cl_khr_fp64 without filling in the FP config, and
  // OpenCL 1.2 made fp64 an optional core feature that needs no extension string.
  info_.supports_double =
      has_extension(extensions, "cl_khr_fp64") ||
      device_value<cl_device_fp_config>(device_, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
  info_.native_index = index;
  info_.dlpack_device_type = 4;  // kDLOpenCL (dlpack.h is optional, so its name is not at hand here)
  // In bits; a sub-buffer's origin must be a multiple of it. A driver that does not say gets the
  // most any OpenCL 1.2 device may ask for (the size of long16, in bits), which is always safe.
  const auto align_bits = device_value<cl_uint>(device_, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
  info_.view_alignment = align_bits >= 8 ? align_bits / 8 : 128;
}

std::string OpenCLDevice::label() const { return info_.id() + " (" + info_.name + ")"; }

const cl::Context& OpenCLDevice::context() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (context_() == nullptr) {
    const cl_context_properties properties[] = {
        CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform_()), 0};
    cl_int err = CL_SUCCESS;
    cl::Context context(device_, properties, nullptr, nullptr, &err);
    if (err != CL_SUCCESS) throw_driver_error("clCreateContext", err, "for " + label());
    cl::CommandQueue queue(context, device_, 0, &err);
    if (err != CL_SUCCESS) throw_driver_error("clCreateCommandQueue", err, "for " + label());
    // Assigned only once both exist, so a failure leaves nothing half made and the next use retries.
    context_ = std::move(context);
    commit_queue_ = std::move(queue);
  }
  return context_;
}

void OpenCLDevice::throw_out_of_memory(const char* call, cl_int code, std::size_t bytes) const {
  throw OutOfMemoryError(label() + " could not allocate " + format_bytes(bytes) + ": " + call +
                             " returned " + error_name(code) + "; the device has " +
                             format_bytes(info_.memory_bytes) + ", at most " +
                             format_bytes(info_.max_alloc_bytes) +
                             " in one buffer. Allocate less, or free buffers first.",
                         bytes, info_.memory_bytes);
}

void OpenCLDevice::commit(const cl::Buffer& buffer, std::size_t bytes) const {
  // A migration with undefined content copies nothing, but makes the driver place the buffer on
  // the device now. Waiting for it happens on this private queue, never on a user's queue, so no
  // user work is synchronised by an allocation.
  cl_mem mem = buffer();
  cl_event event = nullptr;
  cl_int err = clEnqueueMigrateMemObjects(commit_queue_(), 1, &mem,
                                          CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, nullptr, &event);
  if (err == CL_SUCCESS) {
    err = clWaitForEvents(1, &event);
    if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
      cl_int status = CL_SUCCESS;
      if (clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr) ==
              CL_SUCCESS &&
          status < 0)
        err = status;
    }
    clReleaseEvent(event);
  }
  if (err == CL_SUCCESS) return;
  if (is_allocation_failure(err)) throw_out_of_memory("clEnqueueMigrateMemObjects", err, bytes);
  throw_driver_error("clEnqueueMigrateMemObjects", err,
                     "placing a new " + format_bytes(bytes) + " buffer on " + label());
}

std::shared_ptr<BufferImpl> OpenCLDevice::allocate(std::size_t bytes) {
  const cl::Context& ctx = context();
  cl_int err = CL_SUCCESS;
  cl::Buffer buffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  if (err == CL_INVALID_BUFFER_SIZE || is_allocation_failure(err))
    throw_out_of_memory("clCreateBuffer", err, bytes);
  if (err != CL_SUCCESS)
    throw_driver_error("clCreateBuffer", err, "allocating " + format_bytes(bytes) + " on " + label());
  commit(buffer, bytes);
  return std::make_shared<OpenCLBuffer>(shared_from_this(), std::move(buffer), bytes);
}

std::shared_ptr<HostMemoryImpl> OpenCLDevice::allocate_host(std::size_t bytes) {
  const cl::Context& ctx = context();
  cl_int err = CL_SUCCESS;
  cl::Buffer buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &err);
  if (err == CL_INVALID_BUFFER_SIZE || is_allocation_failure(err))
    throw OutOfMemoryError(label() + " could not allocate " + format_bytes(bytes) +
                               " of pinned host memory: clCreateBuffer(CL_MEM_ALLOC_HOST_PTR) returned " +
                               error_name(err) + "; allocate less",
                           bytes, info_.memory_bytes);
  if (err != CL_SUCCESS)
    throw_driver_error("clCreateBuffer", err,
                       "allocating " + format_bytes(bytes) + " of host memory (CL_MEM_ALLOC_HOST_PTR) for " + label());
  return std::make_shared<OpenCLHostMemory>(shared_from_this(), std::move(buffer), commit_queue_, bytes);
}

std::shared_ptr<BufferImpl> OpenCLDevice::wrap(std::uintptr_t native, std::size_t bytes) {
  const cl::Context& ctx = context();
  cl_mem mem = reinterpret_cast<cl_mem>(native);
  char text[32];
  std::snprintf(text, sizeof text, "%p", reinterpret_cast<void*>(native));
  const std::string what = std::string("the cl_mem ") + text + " handed to Buffer::wrap for " + label();

  cl_mem_object_type type = 0;
  cl_int err = clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, nullptr);
  if (err == CL_INVALID_MEM_OBJECT) throw ArgumentError(what + " is not a valid OpenCL memory object");
  if (err != CL_SUCCESS) throw_driver_error("clGetMemObjectInfo", err, "CL_MEM_TYPE of " + what);
  if (type != CL_MEM_OBJECT_BUFFER)
    throw ArgumentError(what + " is an image or pipe, not a buffer; only cl_mem buffers can be wrapped");

  cl_context owner = nullptr;
  err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof owner, &owner, nullptr);
  if (err != CL_SUCCESS) throw_driver_error("clGetMemObjectInfo", err, "CL_MEM_CONTEXT of " + what);
  if (owner != ctx())
    throw DeviceMismatchError(what + " belongs to another OpenCL context; duet's buffers, queues and "
                                     "kernels of this device live in the context Device::native_context() "
                                     "returns: create the buffer in that context");

  std::size_t size = 0;
  err = clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, nullptr);
  if (err != CL_SUCCESS) throw_driver_error("clGetMemObjectInfo", err, "CL_MEM_SIZE of " + what);
  if (size < bytes)
    throw BufferSizeError(what + " holds " + std::to_string(size) + " bytes (CL_MEM_SIZE), fewer than the " +
                          std::to_string(bytes) + " bytes asked for");
  // Retained here, released by the buffer: the reference duet holds is its own, and the owner's
  // stays the owner's to release.
  return std::make_shared<OpenCLBuffer>(shared_from_this(), cl::Buffer(mem, true), bytes, false);
}

std::shared_ptr<QueueImpl> OpenCLDevice::create_queue(bool /*high_priority*/) {
  // OpenCL 1.2's queue creation, which duet targets, takes no priority (cl_khr_priority_hints needs
  // 2.0's clCreateCommandQueueWithProperties): every queue is a normal one, as QueueOptions allows.
  cl_int err = CL_SUCCESS;
  // In order, because duet's queues promise that commands run in the order they were enqueued;
  // profiling, because events measure device time from its timestamps.
  cl::CommandQueue queue(context(), device_, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) throw_driver_error("clCreateCommandQueue", err, "for " + label());
  return std::make_shared<OpenCLQueue>(shared_from_this(), std::move(queue), !markers_timed());
}

bool OpenCLDevice::probe_markers() const {
  // marker, a small fill, marker; three times. Timed means every timestamp is there and the
  // markers' end times bracket the fill's run. Any failure: not timed, and commands keep their
  // events (the safe way, which every driver supports).
  cl_int err = CL_SUCCESS;
  cl::CommandQueue queue(context(), device_, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) return false;
  cl::Buffer buffer(context(), CL_MEM_READ_WRITE, 4096, nullptr, &err);
  if (err != CL_SUCCESS) return false;
  auto stamp = [](const cl::Event& e, cl_profiling_info which) {
    cl_ulong v = 0;
    return clGetEventProfilingInfo(e(), which, sizeof v, &v, nullptr) == CL_SUCCESS ? v : cl_ulong{0};
  };
  for (int round = 0; round < 3; ++round) {
    cl_event raw[3] = {nullptr, nullptr, nullptr};
    const cl_uint zero = 0;
    if (clEnqueueMarkerWithWaitList(queue(), 0, nullptr, &raw[0]) != CL_SUCCESS) return false;
    cl::Event before(raw[0]);
    if (clEnqueueFillBuffer(queue(), buffer(), &zero, sizeof zero, 0, 4096, 0, nullptr, &raw[1]) != CL_SUCCESS)
      return false;
    cl::Event fill(raw[1]);
    if (clEnqueueMarkerWithWaitList(queue(), 0, nullptr, &raw[2]) != CL_SUCCESS) return false;
    cl::Event after(raw[2]);
    if (clFinish(queue()) != CL_SUCCESS) return false;
    const cl_ulong t0 = stamp(before, CL_PROFILING_COMMAND_END), start = stamp(fill, CL_PROFILING_COMMAND_START),
                   end = stamp(fill, CL_PROFILING_COMMAND_END), t1 = stamp(after, CL_PROFILING_COMMAND_END);
    if (t0 == 0 || start == 0 || end == 0 || t1 == 0 || t0 > start || start > end || end > t1) return false;
  }
  return true;
}

bool OpenCLDevice::markers_timed() const {
  std::call_once(markers_probed_, [this] {
    markers_timed_ = probe_markers();
    if (detail::debug_enabled())
      detail::log_debug(label() + (markers_timed_ ? ": markers carry timestamps; launches take no events"
                                                  : ": markers give no usable timestamps; every command takes an event"));
  });
  return markers_timed_;
}

BuildResult OpenCLDevice::build(const detail::AssembledSource& source, const std::string& name,
                                const std::vector<std::string>& options) {
  BuildResult result;
  result.options = build_options_;
  result.options.insert(result.options.end(), options.begin(), options.end());
  std::string joined;
  for (const auto& option : result.options) joined += (joined.empty() ? "" : " ") + option;

  cl_int err = CL_SUCCESS;
  cl::Program program(context(), source.text(), false, &err);
  if (err != CL_SUCCESS)
    throw_driver_error("clCreateProgramWithSource", err, "for " + name + " on " + label());

  cl_device_id id = device_();
  const cl_int built = clBuildProgram(program(), 1, &id, joined.c_str(), nullptr, nullptr);
  // The log is worth having either way: errors when the build failed, warnings when it did not.
  std::string log;
  program.getBuildInfo(device_, CL_PROGRAM_BUILD_LOG, &log);
  result.log = source.map().with_source_positions(trimmed(log));

  if (built == CL_BUILD_PROGRAM_FAILURE) {
    if (result.log.empty())
      result.log = "clBuildProgram returned CL_BUILD_PROGRAM_FAILURE and the driver gave no build log";
    return result;
  }
  // Options the compiler refuses fail the compile, as NVRTC's NVRTC_ERROR_INVALID_OPTION does on
  // CUDA: a CompileError whose log says so and names the options.
  if (built == CL_INVALID_BUILD_OPTIONS) {
    if (!result.log.empty() && result.log.back() != '\n') result.log += '\n';
    result.log += "clBuildProgram returned CL_INVALID_BUILD_OPTIONS for options: " + joined + '\n';
    return result;
  }
  if (built != CL_SUCCESS) {
    std::string detail = "building " + name + " on " + label() + " with options \"" + joined + "\"";
    if (!result.log.empty()) detail += "; build log:\n" + result.log;
    throw_driver_error("clBuildProgram", built, detail);
  }
  result.program = OpenCLProgram::create(shared_from_this(), std::move(program), name);
  return result;
}

std::shared_ptr<ProgramImpl> OpenCLDevice::load_binary(const std::string& binary, const std::string& name) {
  if (binary.empty()) return nullptr;
  std::string joined, log;
  for (const auto& option : build_options_) joined += (joined.empty() ? "" : " ") + option;
  // Null for a foreign or damaged binary: the caller builds from source.
  return from_binary(binary, name, joined, log);
}

std::shared_ptr<ProgramImpl> OpenCLDevice::from_binary(const std::string& binary, const std::string& name,
                                                       const std::string& options, std::string& log) {
  cl_device_id id = device_();
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(binary.data());
  const std::size_t size = binary.size();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program handle = clCreateProgramWithBinary(context()(), 1, &id, &size, &bytes, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    if (handle) clReleaseProgram(handle);
    log = std::string("clCreateProgramWithBinary refused the binary of ") + name + " on " + label() + " (" +
          error_name(err) + ", " + error_name(status) + ")";
    return nullptr;
  }
  cl::Program program(handle);  // takes ownership
  const cl_int built = clBuildProgram(program(), 1, &id, options.c_str(), nullptr, nullptr);
  if (built != CL_SUCCESS) {
    std::string driver_log;
    program.getBuildInfo(device_, CL_PROGRAM_BUILD_LOG, &driver_log);
    log = "clBuildProgram of the binary of " + name + " on " + label() + " returned " + error_name(built) +
          (driver_log.empty() ? std::string() : ":\n" + driver_log);
    return nullptr;
  }
  try {
    return OpenCLProgram::create(shared_from_this(), std::move(program), name);
  } catch (const DriverError& e) {
    log = e.what();
    return nullptr;
  }
}

void OpenCLDevice::abandon() {
  std::lock_guard<std::mutex> lock(mutex_);
  abandoned_ = true;
  // One more reference each, never dropped, so that no release at teardown reaches the driver's
  // destruction of a context or queue the running kernel is still on.
  if (context_()) clRetainContext(context_());
  if (commit_queue_()) clRetainCommandQueue(commit_queue_());
  if (graph_queue_()) clRetainCommandQueue(graph_queue_());
}

std::string OpenCLDevice::graph_path() const {
  if (command_buffers_.usable) return "cl_khr_command_buffer";
  if (!command_buffers_.reported) return "re-enqueue";
  return "re-enqueue (cl_khr_command_buffer" +
         (command_buffers_.version.empty() ? "" : " " + command_buffers_.version) +
         " reported, not used: " + command_buffers_.unusable + ")";
}

std::shared_ptr<GraphImpl> OpenCLDevice::create_graph(const std::vector<GraphCommand>& commands) {
#if DUET_CL_COMMAND_BUFFER
  if (!command_buffers_.usable) return nullptr;
  const cl::Context& ctx = context();
  cl_command_queue queue = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (graph_queue_() == nullptr) {
      // The properties of the queues create_queue makes, so that the buffer runs on any of them.
      cl_int err = CL_SUCCESS;
      cl::CommandQueue made(ctx, device_, CL_QUEUE_PROFILING_ENABLE, &err);
      if (err != CL_SUCCESS) throw_driver_error("clCreateCommandQueue", err, "for the graphs of " + label());
      graph_queue_ = std::move(made);
    }
    queue = graph_queue_();
  }
  return std::make_shared<OpenCLCommandBuffer>(shared_from_this(), command_buffers_, queue, commands);
#else
  (void)commands;
  return nullptr;
#endif
}

std::string OpenCLDevice::compiler_identity() const {
  // The build options too: they change the compiled code (DUET_NV_ARCH), so a binary built with
  // other ones is never loaded.
  std::string options;
  for (const auto& option : build_options_) options += " " + option;
  return info_.platform + " " + text_info(platform_, CL_PLATFORM_VERSION) + "; " +
         text_info(device_, CL_DEVICE_VERSION) + "; driver " + info_.driver + ";" + options;
}

}  // namespace duet::backend::opencl
