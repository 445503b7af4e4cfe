// A recorded command list as a CUDA graph (backend.hpp, GraphCommand): built node by node with the
// driver's explicit graph calls, each node after the one before (the list's in-order meaning),
// instantiated once, and launched with one cuGraphLaunch per replay on any stream of the device's
// context. A launch's new arguments go into the instantiated graph in place
// (cuGraphExecKernelNodeSetParams), so changing them costs no new instantiation.
#pragma once

#include <cuda.h>

#include <memory>
#include <vector>

#include "backend.hpp"

namespace duet::backend::cuda {

class CudaDevice;

class CudaGraph final : public GraphImpl {
 public:
  // Throws DriverError when the driver refuses a node or the instantiation, ArgumentError for a
  // launch shape or argument the device cannot take (as CudaQueue::launch does).
  CudaGraph(std::shared_ptr<const CudaDevice> device, CUcontext ctx, const std::vector<GraphCommand>& commands);
  ~CudaGraph() override;
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  void replay(QueueImpl& queue) override;
  bool update_launch(std::size_t index, const GraphCommand& command) override;

 private:
  std::shared_ptr<const CudaDevice> device_;
  CUcontext ctx_;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  std::vector<CUgraphNode> kernel_nodes_;  // per command: its kernel node, or null
};

}  // namespace duet::backend::cuda
