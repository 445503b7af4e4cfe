// A recorded command list as an OpenCL command buffer (cl_khr_command_buffer, backend.hpp's
// GraphCommand): recorded once on a queue of the device's own, finalized, and enqueued with one
// clEnqueueCommandBufferKHR per replay on whichever queue replays it (all of a device's queues have
// the same properties, which is what the extension asks of a queue that runs a command buffer
// recorded on another).
//
// The extension is provisional and changed its entry points between versions: duet calls the
// 0.9.0 to 0.9.4 forms (a mutable-handle parameter, no per-command properties), and a device that
// reports another version, or a build whose headers declare another, replays through core's
// re-enqueue instead (CommandBufferSupport says why).
//
// Each launch keeps a cl_kernel of its own (OpenCLKernel::create_copy), with its arguments set
// once: the extension captures a kernel's arguments when the command is recorded, but some
// implementations (PoCL 3) read them from the kernel object when the command buffer is enqueued,
// and with a private kernel object both readings give the recorded arguments, whatever other
// launches of the same kernel set meanwhile.
//
// Changed arguments: cl_khr_command_buffer_mutable_dispatch would update a launch in place, but no
// device duet is tested on reports it, and an untested update path is worse than a slower one; so
// a change sets the launch's private kernel at once (which checks the arguments then) and the
// command buffer is recorded and finalized again at the next replay: several changes between two
// replays cost one recording, and a replay already enqueued keeps what it had.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "cl_api.hpp"

#if defined(cl_khr_command_buffer) && \
    !(defined(CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION) && CL_KHR_COMMAND_BUFFER_EXTENSION_VERSION > 0x9004)
#define DUET_CL_COMMAND_BUFFER 1
#else
#define DUET_CL_COMMAND_BUFFER 0
#endif

namespace duet::backend::opencl {

class OpenCLDevice;

// Whether and how a device's command buffers can be used, found once when the device is probed.
struct CommandBufferSupport {
#if DUET_CL_COMMAND_BUFFER
  clCreateCommandBufferKHR_fn create = nullptr;
  clFinalizeCommandBufferKHR_fn finalize = nullptr;
  clReleaseCommandBufferKHR_fn release = nullptr;
  clEnqueueCommandBufferKHR_fn enqueue = nullptr;
  clCommandNDRangeKernelKHR_fn ndrange = nullptr;
  clCommandCopyBufferKHR_fn copy = nullptr;
  clCommandFillBufferKHR_fn fill = nullptr;
#endif
  bool reported = false;  // the device lists cl_khr_command_buffer
  bool usable = false;    // duet records command buffers on it
  std::string version;    // "0.9.0", as the device reports it; empty when it cannot tell
  std::string unusable;   // where reported but not usable, why

  // Looks up the entry points through the ICD loader (clGetExtensionFunctionAddressForPlatform)
  // and checks the version, the capabilities and the queue properties duet's queues have.
  // `reported`: the device lists the extension.
  static CommandBufferSupport find(cl_platform_id platform, cl_device_id device, bool reported);
};

#if DUET_CL_COMMAND_BUFFER
class OpenCLCommandBuffer final : public GraphImpl {
 public:
  // `queue` is the device's own queue the buffer is recorded on. Throws DriverError when the
  // driver refuses a command or the finalization, ArgumentError as OpenCLKernel::set_args does.
  OpenCLCommandBuffer(std::shared_ptr<const OpenCLDevice> device, const CommandBufferSupport& api,
                      cl_command_queue queue, const std::vector<GraphCommand>& commands);
  ~OpenCLCommandBuffer() override;
  OpenCLCommandBuffer(const OpenCLCommandBuffer&) = delete;
  OpenCLCommandBuffer& operator=(const OpenCLCommandBuffer&) = delete;

  void replay(QueueImpl& queue) override;
  bool update_launch(std::size_t index, const GraphCommand& command) override;

 private:
  // Records every command into a new command buffer and finalizes it (the old one, if any, is
  // released: the driver keeps it until its enqueued replays end).
  void record();

  struct Launch {
    cl::Kernel kernel;              // private to this command (see above); null for other kinds
    std::vector<cl::Buffer> views;  // sub-buffers its arguments point to
  };
  std::shared_ptr<const OpenCLDevice> device_;
  const CommandBufferSupport& api_;  // the device's, which device_ keeps alive
  cl_command_queue queue_;
  std::vector<GraphCommand> commands_;
  std::vector<Launch> launches_;           // per command
  std::vector<cl::Buffer> retired_views_;  // views the current buffer may still use, until re-recorded
  cl_command_buffer_khr buffer_ = nullptr;
  bool stale_ = false;  // a launch's arguments changed since buffer_ was recorded
};
#endif

}  // namespace duet::backend::opencl
