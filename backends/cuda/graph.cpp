// CudaGraph (see graph.hpp). The checks CudaQueue::launch makes on a shape and on parameter sizes
// are made here too, when a node is added or changed, because a graph's launch reports a bad shape
// only as CUDA_ERROR_INVALID_VALUE from the instantiation, naming nothing.
#include "graph.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "buffer.hpp"
#include "context.hpp"
#include "device.hpp"
#include "driver_api.hpp"
#include "errors.hpp"
#include "kernel.hpp"
#include "launch_params.hpp"
#include "queue.hpp"

namespace duet::backend::cuda {
namespace {

CUdeviceptr address(const BufferImpl& b, std::size_t offset) {
  return static_cast<const CudaBuffer&>(b).handle() + offset;
}

bool launches_nothing(const LaunchShape& shape) {
  return shape.global[0] == 0 || shape.global[1] == 0 || shape.global[2] == 0;
}

// A launch command as kernel node parameters. `addresses` and `params` hold what
// params.kernelParams points to; the driver copies it when the node is added or set.
CUDA_KERNEL_NODE_PARAMS kernel_params(const CudaDevice& device, const GraphCommand& c,
                                      std::vector<CUdeviceptr>& addresses, std::vector<void*>& params) {
  auto& kernel = static_cast<CudaKernel&>(*c.kernel);
  const LaunchDims d = launch_dims(device, kernel, c.shape);
  kernel_params(kernel, *c.args, addresses, params);
  CUDA_KERNEL_NODE_PARAMS p;
  std::memset(&p, 0, sizeof p);
  p.func = kernel.handle();
  p.gridDimX = d.grid[0];
  p.gridDimY = d.grid[1];
  p.gridDimZ = d.grid[2];
  p.blockDimX = d.block[0];
  p.blockDimY = d.block[1];
  p.blockDimZ = d.block[2];
  p.sharedMemBytes = kernel.dynamic_shared_bytes();
  p.kernelParams = params.empty() ? nullptr : params.data();
  p.extra = nullptr;
  return p;
}

}  // namespace

CudaGraph::CudaGraph(std::shared_ptr<const CudaDevice> device, CUcontext ctx,
                     const std::vector<GraphCommand>& commands)
    : device_(std::move(device)), ctx_(ctx), kernel_nodes_(commands.size(), nullptr) {
  ContextGuard guard(ctx_);
  DUET_CU(cuGraphCreate, &graph_, 0);
  try {
    // Each node depends on the one added before it: the list runs in order, as on a queue.
    CUgraphNode last = nullptr;
    std::vector<CUdeviceptr> addresses;
    std::vector<void*> params;
    for (std::size_t i = 0; i < commands.size(); ++i) {
      const GraphCommand& c = commands[i];
      CUgraphNode node = nullptr;
      const CUgraphNode* deps = last ? &last : nullptr;
      const std::size_t ndeps = last ? 1 : 0;
      switch (c.kind) {
        case GraphCommand::Kind::launch: {
          if (launches_nothing(c.shape)) continue;
          const CUDA_KERNEL_NODE_PARAMS p = kernel_params(*device_, c, addresses, params);
          DUET_CU(cuGraphAddKernelNode, &node, graph_, deps, ndeps, &p);
          kernel_nodes_[i] = node;
          last = node;
          break;
        }
        case GraphCommand::Kind::copy: {
          if (c.bytes == 0) continue;
          CUDA_MEMCPY3D m;
          std::memset(&m, 0, sizeof m);
          m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
          m.srcDevice = address(*c.src, c.src_offset);
          m.srcPitch = c.bytes;
          m.srcHeight = 1;
          m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
          m.dstDevice = address(*c.dst, c.dst_offset);
          m.dstPitch = c.bytes;
          m.dstHeight = 1;
          m.WidthInBytes = c.bytes;
          m.Height = 1;
          m.Depth = 1;
          DUET_CU(cuGraphAddMemcpyNode, &node, graph_, deps, ndeps, &m, ctx_);
          last = node;
          break;
        }
        case GraphCommand::Kind::fill: {
          if (c.bytes == 0) continue;
          // As CudaQueue::fill: a pattern whose halves are equal repeats its half; 1, 2 and 4
          // bytes are one memset node, wider patterns one 32-bit column per node (the range as
          // rows of `size` bytes, pitch `size`).
          const auto* pattern = static_cast<const unsigned char*>(c.pattern);
          std::size_t size = c.pattern_size;
          while (size > 1 && std::memcmp(pattern, pattern + size / 2, size / 2) == 0) size /= 2;
          const CUdeviceptr base = address(*c.dst, c.dst_offset);
          const std::size_t count = c.bytes / size;
          const std::size_t columns = size <= 4 ? 1 : size / 4;
          for (std::size_t w = 0; w < columns; ++w) {
            CUDA_MEMSET_NODE_PARAMS m;
            std::memset(&m, 0, sizeof m);
            if (size <= 4) {
              m.dst = base;
              m.elementSize = static_cast<unsigned>(size);
              m.width = count;
              m.height = 1;
              m.pitch = c.bytes;
              std::uint32_t v = 0;
              if (size == 1) v = pattern[0];
              if (size == 2) {
                std::uint16_t h;
                std::memcpy(&h, pattern, sizeof h);
                v = h;
              }
              if (size == 4) std::memcpy(&v, pattern, sizeof v);
              m.value = v;
            } else {
              std::uint32_t v;
              std::memcpy(&v, pattern + 4 * w, sizeof v);
              m.dst = base + 4 * w;
              m.elementSize = 4;
              m.width = 1;
              m.height = count;
              m.pitch = size;
              m.value = v;
            }
            const CUgraphNode* fill_deps = last ? &last : nullptr;
            DUET_CU(cuGraphAddMemsetNode, &node, graph_, fill_deps, last ? 1 : 0, &m, ctx_);
            last = node;
          }
          break;
        }
      }
    }
    DUET_CU(cuGraphInstantiateWithFlags, &exec_, graph_, 0);
  } catch (...) {
    DUET_CU_NOTHROW(cuGraphDestroy, graph_);
    throw;
  }
}

CudaGraph::~CudaGraph() {
  if (device_->abandoned()) return;
  ContextGuard guard(ctx_, std::nothrow);
  if (!guard.ok()) return;
  // The driver frees an instantiated graph that is still running once it completes.
  if (exec_) DUET_CU_NOTHROW(cuGraphExecDestroy, exec_);
  DUET_CU_NOTHROW(cuGraphDestroy, graph_);
}

void CudaGraph::replay(QueueImpl& queue) {
  // Core replays a graph only on queues of its own device, which are CudaQueues.
  static_cast<CudaQueue&>(queue).launch_graph(exec_);
}

bool CudaGraph::update_launch(std::size_t index, const GraphCommand& command) {
  const CUgraphNode node = kernel_nodes_.at(index);
  if (!node) return true;  // a launch over an empty range has no node, and its shape is fixed
  std::vector<CUdeviceptr> addresses;
  std::vector<void*> params;
  const CUDA_KERNEL_NODE_PARAMS p = kernel_params(*device_, command, addresses, params);
  ContextGuard guard(ctx_);
  DUET_CU(cuGraphExecKernelNodeSetParams, exec_, node, &p);
  return true;
}

}  // namespace duet::backend::cuda
