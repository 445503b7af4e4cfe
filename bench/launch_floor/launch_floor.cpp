// duet-launch-floor: what a kernel launch costs through the vendor's API itself, with nothing of
// duet in between, so that duet's `launch` rows can be held against the floors of the same machine.
// An empty kernel with vector_add's parameters (three pointers and a 64-bit count), launched 1000
// times back to back. CUDA: on a non-blocking stream, as duet's CUDA queue does, for two block
// sizes; device time between two events around the loop. OpenCL (every GPU): on a profiling queue,
// as duet's OpenCL queue does, with and without asking each launch for its event. Host time
// includes the final synchronisation. Prints one JSON object per line; exit 77 when there is
// neither a CUDA device nor an OpenCL GPU.
#ifdef DUET_FLOOR_CUDA
#include <cuda.h>
#endif
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

#ifdef DUET_FLOOR_CUDA
// PTX for sm_70 and later (the driver compiles it for the device at hand).
const char* const kPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry empty(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 n)
{
  ret;
}
)";

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "duet-launch-floor: %s failed: %s\n", what, name ? name : "?");
  std::exit(1);
}

// Returns whether there was a device to measure.
bool cuda_floor() {
  if (cuInit(0) != CUDA_SUCCESS) {
    std::fprintf(stderr, "duet-launch-floor: no CUDA driver or device\n");
    return false;
  }
  int count = 0;
  if (cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) return false;
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  CUmodule module;
  check(cuModuleLoadData(&module, kPtx), "cuModuleLoadData");
  CUfunction fn;
  check(cuModuleGetFunction(&fn, module, "empty"), "cuModuleGetFunction");
  CUstream stream;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUevent first, last;
  check(cuEventCreate(&first, CU_EVENT_DEFAULT), "cuEventCreate");
  check(cuEventCreate(&last, CU_EVENT_DEFAULT), "cuEventCreate");

  CUdeviceptr a = 0, b = 0, c = 0;
  unsigned long long n = 1;
  void* params[] = {&a, &b, &c, &n};
  const int launches = 1000, reps = 9;
  // The block sizes take turns within each repetition, after a warm-up of both: the first
  // thousands of launches of a process run slower, and would otherwise all count against one.
  const unsigned blocks[2] = {32u, 1024u};
  auto loop = [&](unsigned block) {
    for (int i = 0; i < launches; ++i)
      check(cuLaunchKernel(fn, 1, 1, 1, block, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel");
  };
  for (int w = 0; w < 3; ++w)
    for (unsigned block : blocks) loop(block);
  check(cuStreamSynchronize(stream), "cuStreamSynchronize");
  std::vector<double> host_us[2], device_us[2];
  for (int r = 0; r < reps; ++r) {
    for (int b = 0; b < 2; ++b) {
      const auto t0 = std::chrono::steady_clock::now();
      check(cuEventRecord(first, stream), "cuEventRecord");
      loop(blocks[b]);
      check(cuEventRecord(last, stream), "cuEventRecord");
      check(cuStreamSynchronize(stream), "cuStreamSynchronize");
      const auto t1 = std::chrono::steady_clock::now();
      float ms = 0;
      check(cuEventElapsedTime(&ms, first, last), "cuEventElapsedTime");
      host_us[b].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
      device_us[b].push_back(ms * 1e3 / launches);
    }
  }
  for (int b = 0; b < 2; ++b)
    std::printf("{\"case\": \"driver launch floor\", \"api\": \"cuda\", \"block\": %u, \"launches\": %d, "
                "\"host_us_per_launch\": %.3f, \"device_us_per_launch\": %.3f}\n",
                blocks[b], launches, median(host_us[b]), median(device_us[b]));
  cuModuleUnload(module);
  cuStreamDestroy(stream);
  cuDevicePrimaryCtxRelease(dev);
  return true;
}
#endif

void cl_check(cl_int err, const char* what) {
  if (err == CL_SUCCESS) return;
  std::fprintf(stderr, "duet-launch-floor: %s failed: %d\n", what, err);
  std::exit(1);
}

const char* kClSource =
    "__kernel void empty(__global float* a, __global float* b, __global float* c, ulong n) {}\n";

void opencl_floor_on(cl_platform_id platform, cl_device_id device) {
  char name[256] = {0}, platform_name[256] = {0};
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name - 1, platform_name, nullptr);
  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  cl_check(err, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);
  cl_check(err, "clCreateCommandQueue");
  cl_program program = clCreateProgramWithSource(context, 1, &kClSource, nullptr, &err);
  cl_check(err, "clCreateProgramWithSource");
  cl_check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel kernel = clCreateKernel(program, "empty", &err);
  cl_check(err, "clCreateKernel");
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 16, nullptr, &err);
  cl_check(err, "clCreateBuffer");
  const cl_ulong n = 1;
  for (cl_uint i = 0; i < 3; ++i) cl_check(clSetKernelArg(kernel, i, sizeof buffer, &buffer), "clSetKernelArg");
  cl_check(clSetKernelArg(kernel, 3, sizeof n, &n), "clSetKernelArg");
  const size_t global = 32, local = 32;
  const int launches = 1000, reps = 9;
  for (bool with_event : {false, true}) {
    auto loop = [&] {
      for (int i = 0; i < launches; ++i) {
        cl_event event = nullptr;
        cl_check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                        with_event ? &event : nullptr),
                 "clEnqueueNDRangeKernel");
        if (event) clReleaseEvent(event);
      }
      cl_check(clFinish(queue), "clFinish");
    };
    loop();  // warm-up
    std::vector<double> host_us;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      loop();
      host_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
                        launches);
    }
    std::printf("{\"case\": \"driver launch floor\", \"api\": \"opencl\", \"platform\": \"%s\", \"device\": \"%s\", "
                "\"event_per_launch\": %s, \"launches\": %d, \"host_us_per_launch\": %.3f}\n",
                platform_name, name, with_event ? "true" : "false", launches, median(host_us));
  }
  clReleaseMemObject(buffer);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

// Returns whether there was an OpenCL GPU to measure.
bool opencl_floor() {
  cl_uint platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0) return false;
  std::vector<cl_platform_id> ids(platforms);
  clGetPlatformIDs(platforms, ids.data(), nullptr);
  bool any = false;
  for (cl_platform_id platform : ids) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 0, nullptr, &count) != CL_SUCCESS || count == 0) continue;
    std::vector<cl_device_id> devices(count);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, count, devices.data(), nullptr);
    for (cl_device_id d : devices) opencl_floor_on(platform, d);
    any = true;
  }
  return any;
}

}  // namespace

int main() {
  bool any = false;
#ifdef DUET_FLOOR_CUDA
  any = cuda_floor();
#endif
  any = opencl_floor() || any;
  return any ? 0 : 77;
}
