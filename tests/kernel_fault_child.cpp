// Kernels that end a device, each in a process of its own (ctest duet.<backend>.kernel_faults.*):
//   hang        a kernel that never ends, under DUET_KERNEL_TIMEOUT: finish() must throw
//               KernelFaultError (timeout) naming the kernel, and the process must then exit, its
//               destructors included, without waiting for the kernel.
//   far_write   a kernel that writes a gigabyte past its buffer: on CUDA the next call that waits
//               must throw KernelFaultError (device_fault) naming the kernel, and the process must
//               end normally. Other backends have no memory protection to catch it (PoCL runs
//               kernels in the process itself): skipped there.
// Runs on every device that DUET_BACKEND / DUET_DEVICE allow. Exit 0: as expected; 1: not; 77: no
// device to run on.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <duet/duet.hpp>
#include <string>
#include <vector>

namespace {

const char* const kSource = R"(
KERNEL void spin(GLOBAL int* flag, GLOBAL float* out) {
  // Reads through a volatile pointer, so the loop cannot be proven endless and dropped; the host
  // never sets the flag.
  volatile GLOBAL int* f = flag;
  while (f[0] == 0) {
  }
  out[0] = 1.0f;
}
KERNEL void far_write(GLOBAL float* out, const ulong distance) {
  out[distance] = 1.0f;
}
)";

bool check(bool ok, const std::string& what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  return ok;
}

bool hang(const duet::Device& device) {
  duet::Queue queue = device.queue();
  duet::Kernel spin = device.compile(kSource).kernel("spin");
  duet::Buffer<int> flag(device, 1);
  duet::Buffer<float> out(device, 1);
  queue.fill(flag, 0);
  queue.launch(spin, duet::Range(1), duet::Range(1), flag, out);
  const auto begin = std::chrono::steady_clock::now();
  try {
    queue.finish();
  } catch (const duet::KernelFaultError& e) {
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    std::printf("%s\n", e.what());
    bool ok = check(e.fault() == duet::KernelFaultError::Fault::timeout, "the fault is a timeout");
    ok &= check(e.kernels() == std::vector<std::string>{"spin"}, "it names kernel 'spin'");
    ok &= check(!e.device_usable(), "the device is given up");
    ok &= check(waited < 30, "finish() gave up after " + std::to_string(waited) + " s");
    try {
      queue.launch(spin, duet::Range(1), duet::Range(1), flag, out);
      ok &= check(false, "a launch on the given-up device throws");
    } catch (const duet::KernelFaultError&) {
      ok &= check(true, "a launch on the given-up device throws KernelFaultError");
    }
    return ok;
  }
  return check(false, "finish() returned although the kernel never ends");
}

bool far_write(const duet::Device& device) {
  duet::Queue queue = device.queue();
  duet::Kernel kernel = device.compile(kSource).kernel("far_write");
  duet::Buffer<float> out(device, 16);
  queue.launch(kernel, duet::Range(1), duet::Range(1), out, static_cast<std::uint64_t>(1) << 38);
  try {
    queue.finish();
  } catch (const duet::KernelFaultError& e) {
    std::printf("%s\n", e.what());
    bool ok = check(e.fault() == duet::KernelFaultError::Fault::device_fault, "the fault is the device's");
    ok &= check(e.kernels() == std::vector<std::string>{"far_write"}, "it names kernel 'far_write'");
    ok &= check(!e.native_name().empty(), "it gives the driver's code: " + e.native_name());
    return ok;
  }
  return check(false, "finish() returned although the kernel wrote far out of bounds");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "hang" && mode != "far_write") {
    std::fprintf(stderr, "usage: %s hang|far_write\n", argv[0]);
    return 2;
  }
  try {
    std::vector<duet::Device> devices;
    try {
      devices = duet::Device::open_all();
    } catch (const duet::Error& e) {
      std::printf("SKIPPED: no device (%s)\n", e.what());
      return 77;
    }
    bool ok = true;
    int ran = 0;
    for (const duet::Device& device : devices) {
      std::printf("--- %s on %s (%s)\n", mode.c_str(), device.info().id().c_str(), device.info().name.c_str());
      if (mode == "far_write" && device.info().backend != "cuda") {
        std::printf("skipped: %s has no memory protection that catches a wild write (DUET_CHECK=1 finds "
                    "writes just past a buffer)\n",
                    device.info().id().c_str());
        continue;
      }
      ++ran;
      ok &= mode == "hang" ? hang(device) : far_write(device);
    }
    if (ran == 0) {
      std::printf("SKIPPED: no device here can run '%s'\n", mode.c_str());
      return 77;
    }
    std::printf("%s: %s; the process exits now\n", mode.c_str(), ok ? "passed" : "FAILED");
    std::fflush(stdout);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("FAILED: unexpected %s\n", e.what());
    return 1;
  }
}
