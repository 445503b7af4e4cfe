// The CUDA driver API as a table of function pointers, loaded at run time from libcuda.so.1, so that
// one libduet binary runs on machines with and without an NVIDIA driver. Every driver entry point
// the backend calls is listed once in the X-macro tables below; the tables expand into the
// DriverApi struct and into its loader. Entries are resolved through cuGetProcAddress with the
// version of the headers duet was built against, never by dlsym of legacy unversioned names (which
// are the oldest ABI of functions that later gained _v2 variants).
#pragma once

#include <cuda.h>

#include <string>

#if CUDA_VERSION < 12000
#error "duet's CUDA backend needs CUDA 12.0 or newer headers (it loads the driver via cuGetProcAddress_v2)"
#endif

// Entries are written as the names cuda.h documents. cuda.h #defines many of them to versioned
// symbols (cuMemAlloc -> cuMemAlloc_v2). The X macros stringify their argument, which happens
// before macro expansion, so cuGetProcAddress gets the base name it wants ("cuMemAlloc"); while
// decltype(&::name) and the member name expand, so the pointer has the versioned prototype.
// None of these functions changed ABI between CUDA 12.0 and 13.0 (cuEventElapsedTime_v2 kept the
// v1 signature), which is what lets the loader ask an older driver for its own version of them.
#define DUET_CUDA_DRIVER_REQUIRED(X) \
  X(cuGetErrorName)                  \
  X(cuGetErrorString)                \
  X(cuInit)                          \
  X(cuDriverGetVersion)              \
  X(cuDeviceGet)                     \
  X(cuDeviceGetCount)                \
  X(cuDeviceGetName)                 \
  X(cuDeviceGetAttribute)            \
  X(cuDeviceTotalMem)                \
  X(cuDevicePrimaryCtxRetain)        \
  X(cuDevicePrimaryCtxRelease)       \
  X(cuCtxGetCurrent)                 \
  X(cuCtxSetCurrent)                 \
  X(cuCtxPushCurrent)                \
  X(cuCtxPopCurrent)                 \
  X(cuMemGetInfo)                    \
  X(cuMemAlloc)                      \
  X(cuMemFree)                       \
  X(cuMemHostAlloc)                  \
  X(cuMemFreeHost)                   \
  X(cuMemGetAddressRange)            \
  X(cuPointerGetAttribute)           \
  X(cuMemcpyHtoDAsync)               \
  X(cuMemcpyDtoHAsync)               \
  X(cuMemcpyDtoDAsync)               \
  X(cuMemcpy2DAsync)                 \
  X(cuMemsetD8Async)                 \
  X(cuMemsetD16Async)                \
  X(cuMemsetD32Async)                \
  X(cuMemsetD2D32Async)              \
  X(cuStreamCreate)                  \
  X(cuStreamCreateWithPriority)      \
  X(cuCtxGetStreamPriorityRange)     \
  X(cuStreamDestroy)                 \
  X(cuStreamSynchronize)             \
  X(cuStreamWaitEvent)               \
  X(cuEventCreate)                   \
  X(cuEventRecord)                   \
  X(cuEventSynchronize)              \
  X(cuEventQuery)                    \
  X(cuEventElapsedTime)              \
  X(cuEventDestroy)                  \
  X(cuModuleLoadData)                \
  X(cuModuleUnload)                  \
  X(cuModuleGetFunction)             \
  X(cuModuleGetGlobal)               \
  X(cuMemcpyDtoH)                    \
  X(cuFuncSetAttribute)              \
  X(cuLaunchKernel)

// Entries older drivers lack; their pointers stay null there and callers check before use. The
// interprocess calls (memory shared with other processes, and the stream memory operations that
// signal between them) are optional too: a driver without them still runs everything else.
#define DUET_CUDA_DRIVER_INTERPROCESS(X) \
  X(cuIpcGetMemHandle)                   \
  X(cuIpcOpenMemHandle)                  \
  X(cuIpcCloseMemHandle)                 \
  X(cuStreamWriteValue32)                \
  X(cuStreamWaitValue32)
// cuTensorMapEncodeTiled (tiled_copy.cpp) is optional too: without it tiled copies are unsupported.
#if CUDA_VERSION >= 12040
#define DUET_CUDA_DRIVER_OPTIONAL(X) X(cuFuncGetParamInfo) X(cuTensorMapEncodeTiled) DUET_CUDA_DRIVER_INTERPROCESS(X)
#else
#define DUET_CUDA_DRIVER_OPTIONAL(X) X(cuTensorMapEncodeTiled) DUET_CUDA_DRIVER_INTERPROCESS(X)
#endif

// Graphs (graph.hpp): optional as a group. Where any is missing the device replays recorded
// command lists through its stream instead (DriverApi::graphs() is false). cuGraphInstantiate is
// #defined to cuGraphInstantiateWithFlags from CUDA 12.0 on, so that name is the one listed.
#define DUET_CUDA_DRIVER_GRAPH(X)      \
  X(cuGraphCreate)                     \
  X(cuGraphDestroy)                    \
  X(cuGraphAddKernelNode)              \
  X(cuGraphAddMemcpyNode)              \
  X(cuGraphAddMemsetNode)              \
  X(cuGraphInstantiateWithFlags)       \
  X(cuGraphExecKernelNodeSetParams)    \
  X(cuGraphExecDestroy)                \
  X(cuGraphLaunch)

namespace duet::backend::cuda {

struct DriverApi {
#define DUET_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  DUET_CUDA_DRIVER_REQUIRED(DUET_CUDA_DRIVER_MEMBER)
  DUET_CUDA_DRIVER_OPTIONAL(DUET_CUDA_DRIVER_MEMBER)
  DUET_CUDA_DRIVER_GRAPH(DUET_CUDA_DRIVER_MEMBER)
#undef DUET_CUDA_DRIVER_MEMBER
  bool graphs = false;  // every entry of DUET_CUDA_DRIVER_GRAPH resolved

  int driver_version = 0;  // CUDA version the driver supports, 1000 * major + 10 * minor
};

// Loads libcuda once per process (thread-safe); every later call returns the same outcome. Returns
// null and sets `*reason` (when given) if the driver cannot be used. Does not call cuInit.
const DriverApi* load_driver(std::string* reason = nullptr);

// The loaded table, for code that runs only after load_driver() succeeded, which is all code
// holding a CUDA object: every one of them was created through the table.
const DriverApi& driver();

// "CUDA 13.0" for a cuDriverGetVersion / CUDA_VERSION number.
std::string cuda_version_text(int version);

}  // namespace duet::backend::cuda
