// OpenCL command buffers (see command_buffer.hpp): finding out whether a device's can be used, and
// recording, re-recording and enqueueing one. Every command waits for the sync point of the one
// recorded before it, which keeps the list's in-order meaning on any implementation, whether it
// orders a command buffer recorded from an in-order queue by itself or not.
#include "command_buffer.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "buffer.hpp"
#include "device.hpp"
#include "errors.hpp"
#include "kernel.hpp"
#include "queue.hpp"

namespace duet::backend::opencl {

namespace {

// OpenCL 3.0's version query, which cl_api.hpp's OpenCL 1.2 level leaves out of the headers.
constexpr cl_device_info extensions_with_version = 0x1060;  // CL_DEVICE_EXTENSIONS_WITH_VERSION
struct NameVersion {                                        // cl_name_version
  cl_uint version;
  char name[64];
};
constexpr cl_uint make_version(cl_uint major, cl_uint minor, cl_uint patch) {
  return (major << 22) | (minor << 12) | patch;
}
// The versions whose entry points are the ones duet calls (see command_buffer.hpp).
constexpr cl_uint oldest_spoken = make_version(0, 9, 0);
constexpr cl_uint newest_spoken = make_version(0, 9, 4);

std::string version_text(cl_uint v) {
  return std::to_string(v >> 22) + "." + std::to_string((v >> 12) & 0x3ff) + "." + std::to_string(v & 0xfff);
}

// The version the device reports for `name`; 0 when it cannot tell (an OpenCL 1.2 or 2.x device).
cl_uint extension_version(cl_device_id device, const char* name) {
  std::size_t bytes = 0;
  if (clGetDeviceInfo(device, extensions_with_version, 0, nullptr, &bytes) != CL_SUCCESS || bytes == 0)
    return 0;
  std::vector<NameVersion> list(bytes / sizeof(NameVersion));
  if (clGetDeviceInfo(device, extensions_with_version, list.size() * sizeof(NameVersion), list.data(),
                      nullptr) != CL_SUCCESS)
    return 0;
  for (const NameVersion& e : list)
    if (std::strncmp(e.name, name, sizeof e.name) == 0) return e.version;
  return 0;
}

}  // namespace

CommandBufferSupport CommandBufferSupport::find(cl_platform_id platform, cl_device_id device, bool reported) {
  CommandBufferSupport s;
  s.reported = reported;
  if (!reported) return s;
  const cl_uint version = extension_version(device, "cl_khr_command_buffer");
  if (version) s.version = version_text(version);
#if !DUET_CL_COMMAND_BUFFER
  (void)platform;
  s.unusable =
      "duet was built with OpenCL headers whose cl_khr_command_buffer entry points are not the 0.9.0 to "
      "0.9.4 ones it calls";
  return s;
#else
  if (const char* env = std::getenv("DUET_OPENCL_COMMAND_BUFFERS"); env && std::strcmp(env, "0") == 0) {
    s.unusable = "DUET_OPENCL_COMMAND_BUFFERS=0";
    return s;
  }
  // The extension is provisional and its entry points changed between versions: calling one of
  // another version's forms would pass the wrong arguments.
  if (!version) {
    s.unusable =
        "the device does not say which version (CL_DEVICE_EXTENSIONS_WITH_VERSION), and the "
        "extension's calls changed between versions";
    return s;
  }
  if (version < oldest_spoken || version > newest_spoken) {
    s.unusable = "version " + s.version + "; duet calls the 0.9.0 to 0.9.4 entry points";
    return s;
  }
  // A replay may be enqueued while the one before still runs, which only a command buffer made for
  // simultaneous use allows.
  cl_device_command_buffer_capabilities_khr caps = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR, sizeof caps, &caps, nullptr) !=
          CL_SUCCESS ||
      !(caps & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR)) {
    s.unusable =
        "the device cannot run a command buffer again before its last run ended "
        "(no CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR)";
    return s;
  }
  // duet's queues are in order with profiling; a command buffer runs only on queues with the
  // properties the device requires.
  cl_command_queue_properties required = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR, sizeof required,
                      &required, nullptr) != CL_SUCCESS ||
      (required & ~static_cast<cl_command_queue_properties>(CL_QUEUE_PROFILING_ENABLE)) != 0) {
    s.unusable = "the device requires queue properties duet's queues do not have";
    return s;
  }
  bool found = true;
  auto lookup = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)> >(
        clGetExtensionFunctionAddressForPlatform(platform, name));
    if (!fn && found) {
      found = false;
      s.unusable = std::string("the ICD loader gave no address for ") + name;
    }
  };
  lookup(s.create, "clCreateCommandBufferKHR");
  lookup(s.finalize, "clFinalizeCommandBufferKHR");
  lookup(s.release, "clReleaseCommandBufferKHR");
  lookup(s.enqueue, "clEnqueueCommandBufferKHR");
  lookup(s.ndrange, "clCommandNDRangeKernelKHR");
  lookup(s.copy, "clCommandCopyBufferKHR");
  lookup(s.fill, "clCommandFillBufferKHR");
  s.usable = found;
  return s;
#endif
}

#if DUET_CL_COMMAND_BUFFER

OpenCLCommandBuffer::OpenCLCommandBuffer(std::shared_ptr<const OpenCLDevice> device,
                                         const CommandBufferSupport& api, cl_command_queue queue,
                                         const std::vector<GraphCommand>& commands)
    : device_(std::move(device)), api_(api), queue_(queue), commands_(commands), launches_(commands.size()) {
  for (std::size_t i = 0; i < commands_.size(); ++i) {
    const GraphCommand& c = commands_[i];
    if (c.kind != GraphCommand::Kind::launch || !c.shape.global[0] || !c.shape.global[1] ||
        !c.shape.global[2])
      continue;
    const auto& kernel = static_cast<const OpenCLKernel&>(*c.kernel);
    launches_[i].kernel = kernel.create_copy();
    kernel.set_args(launches_[i].kernel(), *c.args, launches_[i].views);
  }
  record();
}

OpenCLCommandBuffer::~OpenCLCommandBuffer() {
  // Leaked after abandon(), as the device's other objects are (see OpenCLDevice::abandon); the
  // driver keeps a released command buffer until its enqueued runs end.
  if (buffer_ && !device_->abandoned()) api_.release(buffer_);
}

void OpenCLCommandBuffer::record() {
  cl_int err = CL_SUCCESS;
  const cl_command_buffer_properties_khr properties[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                         CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
  cl_command_buffer_khr buffer = api_.create(1, &queue_, properties, &err);
  if (err != CL_SUCCESS)
    throw_driver_error("clCreateCommandBufferKHR", err, "for a graph on " + device_->label());
  struct Owner {
    const CommandBufferSupport& api;
    cl_command_buffer_khr buffer;
    ~Owner() {
      if (buffer) api.release(buffer);
    }
  } owner{api_, buffer};

  cl_sync_point_khr last = 0;
  bool any = false;
  for (std::size_t i = 0; i < commands_.size(); ++i) {
    const GraphCommand& c = commands_[i];
    const cl_uint waits = any ? 1 : 0;
    const cl_sync_point_khr* wait = any ? &last : nullptr;
    cl_sync_point_khr point = 0;
    const char* call = nullptr;
    std::string what;
    switch (c.kind) {
      case GraphCommand::Kind::launch:
        if (!launches_[i].kernel()) continue;  // launches nothing
        err =
            api_.ndrange(buffer, nullptr, nullptr, launches_[i].kernel(), static_cast<cl_uint>(c.shape.dims),
                         nullptr, c.shape.global, c.shape.local, waits, wait, &point, nullptr);
        call = "clCommandNDRangeKernelKHR";
        what = "kernel '" + static_cast<const OpenCLKernel&>(*c.kernel).name() + "'";
        break;
      case GraphCommand::Kind::copy:
        if (c.bytes == 0) continue;
        err = api_.copy(buffer, nullptr, static_cast<const OpenCLBuffer&>(*c.src).mem(),
                        static_cast<const OpenCLBuffer&>(*c.dst).mem(), c.src_offset, c.dst_offset, c.bytes,
                        waits, wait, &point, nullptr);
        call = "clCommandCopyBufferKHR";
        what = "a copy of " + std::to_string(c.bytes) + " bytes";
        break;
      case GraphCommand::Kind::fill:
        if (c.bytes == 0) continue;
        err = api_.fill(buffer, nullptr, static_cast<const OpenCLBuffer&>(*c.dst).mem(), c.pattern,
                        c.pattern_size, c.dst_offset, c.bytes, waits, wait, &point, nullptr);
        call = "clCommandFillBufferKHR";
        what = "a fill of " + std::to_string(c.bytes) + " bytes";
        break;
    }
    if (err != CL_SUCCESS)
      throw_driver_error(call, err,
                         what + " (command " + std::to_string(i) + " of a graph) on " + device_->label());
    last = point;
    any = true;
  }
  err = api_.finalize(buffer);
  if (err != CL_SUCCESS)
    throw_driver_error("clFinalizeCommandBufferKHR", err, "for a graph on " + device_->label());
  if (buffer_) api_.release(buffer_);
  buffer_ = buffer;
  owner.buffer = nullptr;
  retired_views_.clear();
  stale_ = false;
}

void OpenCLCommandBuffer::replay(QueueImpl& queue) {
  if (stale_) record();
  // Core replays a graph only on queues of its own device, which are OpenCLQueues.
  static_cast<OpenCLQueue&>(queue).enqueue_command_buffer(api_.enqueue, buffer_);
}

bool OpenCLCommandBuffer::update_launch(std::size_t index, const GraphCommand& command) {
  Launch& launch = launches_.at(index);
  commands_.at(index) = command;
  if (!launch.kernel()) return true;  // a launch over an empty range records nothing, and its shape is fixed
  // The current buffer's commands may point at the old views until it is recorded again.
  for (cl::Buffer& view : launch.views) retired_views_.push_back(std::move(view));
  launch.views.clear();
  stale_ = true;
  static_cast<const OpenCLKernel&>(*command.kernel).set_args(launch.kernel(), *command.args, launch.views);
  return true;
}

#endif

}  // namespace duet::backend::opencl
