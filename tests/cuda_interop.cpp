// Zero-copy interop between duet and the CUDA runtime, on a real GPU (ctest duet.cuda_interop):
//   1. memory from cudaMalloc is wrapped by duet (Buffer::wrap), filled by a duet kernel, and read
//      back through the original pointer with cudaMemcpy; freed with cudaFree from duet's release
//      callback, exactly once;
//   2. the reverse: a duet buffer's native_handle() is written and read by cudaMemcpy (and by
//      cudaMemcpyAsync on duet's own queue, whose native_handle() is a cudaStream_t), with a duet
//      kernel in between;
//   3. what must be refused: pinned host memory, malloc'd memory, more bytes than the allocation,
//      freeing a wrapped buffer.
// Prints each round trip; exits 0 when all hold, 1 otherwise, 77 (skipped) without a CUDA device or
// without duet's CUDA backend.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <duet/duet.hpp>
#include <string>
#include <vector>

namespace {

constexpr int kSkipped = 77;
int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("  %-78s %s\n", what.c_str(), ok ? "OK" : "FAILED");
  if (!ok) ++failures;
}

void cuda_check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) {
    std::printf("%s failed: %s\n", call, cudaGetErrorString(e));
    std::exit(1);
  }
}

const char* const kRamp = R"(
KERNEL void ramp(GLOBAL float* out, const float scale, const float shift, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) out[i] = scale * (float)i + shift;
}
KERNEL void twice(GLOBAL float* x, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) x[i] = 2.0f * x[i];
}
)";

std::string hex(std::uintptr_t v) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

template <class F>
bool throws_kind(F&& f, duet::ErrorKind kind, std::string* message) {
  try {
    f();
  } catch (const duet::Error& e) {
    *message = e.what();
    return e.kind() == kind;
  }
  *message = "(no error)";
  return false;
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("SKIPPED: the CUDA runtime sees no device\n");
    return kSkipped;
  }
  bool duet_cuda = false;
  for (const duet::BackendStatus& s : duet::backends())
    if (s.name == "cuda" && s.available && s.device_count > 0) duet_cuda = true;
  if (!duet_cuda) {
    std::printf("SKIPPED: duet's CUDA backend is not available\n");
    return kSkipped;
  }
  try {
    // duet's device for CUDA ordinal 0, the runtime's current device.
    duet::Device dev;
    for (const duet::DeviceInfo& info : duet::devices())
      if (info.backend == "cuda" && info.native_index == 0) dev = duet::Device::open(info.id());
    cuda_check(cudaSetDevice(0), "cudaSetDevice(0)");
    std::printf("duet %s on %s (%s), CUDA runtime device 0\n", duet::version(), dev.info().id().c_str(),
                dev.info().name.c_str());
    const duet::Program program = dev.compile(kRamp, {}, "cuda_interop.duet");
    const duet::Kernel ramp = program.kernel("ramp");
    const duet::Kernel twice = program.kernel("twice");
    duet::Queue q = dev.queue();
    const std::uint32_t n = 1u << 20;

    cuda_check(cudaFree(nullptr), "cudaFree(nullptr)");  // makes the runtime's (primary) context current
    expect(dev.native_context() != 0, "duet's CUcontext " + hex(dev.native_context()) + " (the device's primary context)");

    // 1. cudaMalloc -> duet kernel -> cudaMemcpy through the original pointer.
    std::printf("round trip 1: cudaMalloc'd memory, written by a duet kernel, read by cudaMemcpy\n");
    float* p = nullptr;
    cuda_check(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc");
    int freed = 0;
    {
      duet::Buffer<float> w = duet::Buffer<float>::wrap(dev, reinterpret_cast<std::uintptr_t>(p), n, 0, [p, &freed] {
        ++freed;
        cudaFree(p);
      });
      expect(!w.owns_memory() && w.native_handle() == reinterpret_cast<std::uintptr_t>(p),
             "cudaMalloc pointer " + hex(reinterpret_cast<std::uintptr_t>(p)) + " wrapped, same address, not owned");
      q.launch(ramp, duet::Range(n), duet::Range(), w, 0.25f, 1.0f, n);
      q.finish();
      std::vector<float> host(n, -1.0f);
      cuda_check(cudaMemcpy(host.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
      std::size_t bad = 0;
      for (std::uint32_t i = 0; i < n; ++i) bad += host[i] != 0.25f * static_cast<float>(i) + 1.0f;
      std::printf("  cudaMemcpy read back: [0]=%g [1]=%g [%u]=%g\n", host[0], host[1], n - 1, host[n - 1]);
      expect(bad == 0, std::to_string(n) + " floats written by duet's kernel, read by cudaMemcpy: " +
                           std::to_string(bad) + " wrong");
      std::string message;
      expect(throws_kind([&] { w.free_now(); }, duet::ErrorKind::argument, &message),
             "free_now() on the wrapped cudaMalloc memory is refused (ArgumentError)");
      std::printf("    \"%s\"\n", message.c_str());
      expect(freed == 0, "cudaFree not called while duet holds the memory");
    }
    expect(freed == 1, "cudaFree called exactly once, by the release callback, when the duet buffer went");

    // 2. duet buffer -> cudaMemcpy in and out through native_handle(), a duet kernel in between.
    std::printf("round trip 2: a duet buffer written and read by cudaMemcpy through native_handle()\n");
    {
      duet::Buffer<float> d(dev, n);
      std::vector<float> host(n), back(n, -1.0f);
      for (std::uint32_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000) - 500.0f;
      auto* dp = reinterpret_cast<float*>(d.native_handle());
      cuda_check(cudaMemcpy(dp, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
      const std::vector<float> seen = q.to_vector(d);
      expect(seen == host, "cudaMemcpy wrote duet's buffer " + hex(d.native_handle()) + "; duet reads the same");
      q.launch(twice, duet::Range(n), duet::Range(), d, n);
      // On duet's own stream: the runtime call is ordered after the kernel without a finish.
      auto stream = reinterpret_cast<cudaStream_t>(q.native_handle());
      cuda_check(cudaMemcpyAsync(back.data(), dp, n * sizeof(float), cudaMemcpyDeviceToHost, stream),
                 "cudaMemcpyAsync on duet's stream");
      cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      std::size_t bad = 0;
      for (std::uint32_t i = 0; i < n; ++i) bad += back[i] != 2.0f * host[i];
      std::printf("  cudaMemcpyAsync read back: [0]=%g [1]=%g [%u]=%g\n", back[0], back[1], n - 1, back[n - 1]);
      expect(bad == 0, "duet kernel doubled it; cudaMemcpyAsync on duet's cudaStream_t reads it: " +
                           std::to_string(bad) + " wrong");
      const duet::BufferView<float> v = d.view(1000, 10);
      float ten[10];
      cuda_check(cudaMemcpy(ten, reinterpret_cast<void*>(v.native_handle()), sizeof ten, cudaMemcpyDeviceToHost),
                 "cudaMemcpy of a view");
      expect(ten[0] == 2.0f * host[1000] && ten[9] == 2.0f * host[1009], "a view's native_handle() is its first element");
    }

    // 3. What duet refuses to wrap.
    std::printf("refused wraps\n");
    std::string message;
    float* pinned = nullptr;
    cuda_check(cudaMallocHost(&pinned, 4096), "cudaMallocHost");
    expect(throws_kind([&] { duet::Buffer<float>::wrap(dev, reinterpret_cast<std::uintptr_t>(pinned), 16); },
                       duet::ErrorKind::argument, &message),
           "pinned host memory (cudaMallocHost): ArgumentError");
    std::printf("    \"%s\"\n", message.c_str());
    cudaFreeHost(pinned);
    std::vector<float> plain(16);
    expect(throws_kind([&] { duet::Buffer<float>::wrap(dev, reinterpret_cast<std::uintptr_t>(plain.data()), 16); },
                       duet::ErrorKind::argument, &message),
           "malloc'd host memory: ArgumentError");
    std::printf("    \"%s\"\n", message.c_str());
    float* small = nullptr;
    cuda_check(cudaMalloc(&small, 100 * sizeof(float)), "cudaMalloc");
    expect(throws_kind([&] { duet::Buffer<float>::wrap(dev, reinterpret_cast<std::uintptr_t>(small), 101); },
                       duet::ErrorKind::buffer_size, &message),
           "101 floats of a 100-float cudaMalloc: BufferSizeError");
    std::printf("    \"%s\"\n", message.c_str());
    cudaFree(small);
  } catch (const duet::Error& e) {
    std::printf("duet error (%s): %s\n", duet::to_string(e.kind()), e.what());
    return 1;
  }
  std::printf("%s\n", failures == 0 ? "cuda interop: all round trips OK" : "cuda interop: FAILED");
  return failures == 0 ? 0 : 1;
}
