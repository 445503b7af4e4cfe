// duet-launch-floor: what a kernel launch costs through the CUDA driver itself, with nothing of
// duet in between, so that duet's `launch` row can be held against the floor of the same machine.
// An empty kernel with vector_add's parameters (three pointers and a 64-bit count), launched 1000
// times back to back on a non-blocking stream, as duet's CUDA queue does, for two block sizes.
// Host time includes the final synchronisation; device time is between two events around the
// loop. Prints one JSON object per line. Exit 77 when there is no CUDA device.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main() {
  if (cuInit(0) != CUDA_SUCCESS) {
    std::fprintf(stderr, "duet-launch-floor: no CUDA driver or device: skipped\n");
    return 77;
  }
  int count = 0;
  if (cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) return 77;
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
  for (unsigned block : {32u, 1024u}) {
    auto loop = [&] {
      for (int i = 0; i < launches; ++i)
        check(cuLaunchKernel(fn, 1, 1, 1, block, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel");
    };
    loop();  // warm-up
    check(cuStreamSynchronize(stream), "cuStreamSynchronize");
    std::vector<double> host_us, device_us;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      check(cuEventRecord(first, stream), "cuEventRecord");
      loop();
      check(cuEventRecord(last, stream), "cuEventRecord");
      check(cuStreamSynchronize(stream), "cuStreamSynchronize");
      const auto t1 = std::chrono::steady_clock::now();
      float ms = 0;
      check(cuEventElapsedTime(&ms, first, last), "cuEventElapsedTime");
      host_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
      device_us.push_back(ms * 1e3 / launches);
    }
    std::printf("{\"case\": \"driver launch floor\", \"block\": %u, \"launches\": %d, \"host_us_per_launch\": %.3f, "
                "\"device_us_per_launch\": %.3f}\n",
                block, launches, median(host_us), median(device_us));
  }
  cuModuleUnload(module);
  cuStreamDestroy(stream);
  cuDevicePrimaryCtxRelease(dev);
  return 0;
}
