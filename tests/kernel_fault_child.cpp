// Kernels that end a device, each in a process of its own (ctest duet.<backend>.kernel_faults.*):
//   hang        a kernel that never ends, under DUET_KERNEL_TIMEOUT: finish() must throw
//               KernelFaultError (timeout) naming the kernel, and the process must then exit, its
//               destructors included, without waiting for the kernel.
//   far_write   a kernel that writes a gigabyte past its buffer: on CUDA the next call that waits
//               must throw KernelFaultError (device_fault) naming the kernel, and the process must
//               end normally. Other backends have no memory protection to catch it (PoCL runs
//               kernels in the process itself): skipped there.
// Runs on every device that DUET_BACKEND / DUET_DEVICE allow, each in a child process of its own
// (this program again, with the device's id): a device that faulted can take its process's other
// devices with it (on CUDA, opening the next GPU after a fault fails with the fault's code), and
// each case is about one device. Exit 0: as expected; 1: not; 77: no device to run on.
#include <sys/wait.h>
#include <unistd.h>

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

// One device, in this process: 0 passed, 1 failed, 77 the device cannot run the case.
int run_on(const std::string& mode, const std::string& id) {
  const duet::Device device = duet::Device::open(id);
  std::printf("--- %s on %s (%s)\n", mode.c_str(), device.info().id().c_str(), device.info().name.c_str());
  if (mode == "far_write" && device.info().backend != "cuda") {
    std::printf("skipped: %s has no memory protection that catches a wild write (DUET_CHECK=1 finds "
                "writes just past a buffer)\n",
                device.info().id().c_str());
    return 77;
  }
  const bool ok = mode == "hang" ? hang(device) : far_write(device);
  std::printf("%s on %s: %s; the process exits now\n", mode.c_str(), id.c_str(), ok ? "passed" : "FAILED");
  std::fflush(stdout);
  return ok ? 0 : 1;
}

// This program again, for one device; its exit code.
int run_child(const char* self, const std::string& mode, const std::string& id) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    execl(self, self, mode.c_str(), id.c_str(), static_cast<char*>(nullptr));
    std::perror("execl");
    _exit(1);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "hang" && mode != "far_write") {
    std::fprintf(stderr, "usage: %s hang|far_write [device id]\n", argv[0]);
    return 2;
  }
  try {
    if (argc > 2) return run_on(mode, argv[2]);
    std::vector<std::string> ids;
    try {
      for (const duet::Device& device : duet::Device::open_all()) ids.push_back(device.info().id());
    } catch (const duet::Error& e) {
      std::printf("SKIPPED: no device (%s)\n", e.what());
      return 77;
    }
    bool ok = true;
    int ran = 0;
    for (const std::string& id : ids) {
      const int code = run_child("/proc/self/exe", mode, id);
      if (code == 77) continue;
      ++ran;
      ok &= code == 0;
    }
    if (ran == 0) {
      std::printf("SKIPPED: no device here can run '%s'\n", mode.c_str());
      return 77;
    }
    std::printf("%s: %s on %d device(s)\n", mode.c_str(), ok ? "passed" : "FAILED", ran);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("FAILED: unexpected %s\n", e.what());
    return 1;
  }
}
