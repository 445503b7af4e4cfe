// Interop without copies: wrapping memory duet does not own (here, through native handles, so the
// test runs on every backend), the release callback, freeing a wrapped buffer, handle validation,
// and native handles of devices and queues. With OpenCL headers available (DUET_TEST_HAVE_OPENCL),
// the OpenCL path is also exercised with a cl_mem made by plain OpenCL calls: wrapped, used by duet
// kernels, read back through the original handle, with its reference count checked. The CUDA
// runtime side of this lives in tests/cuda_interop.cpp (a program of its own, for the GPU machine).
#include <doctest/doctest.h>

#include <cstdint>
#include <duet/duet.hpp>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

#ifdef DUET_TEST_HAVE_OPENCL
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#endif

namespace {

const char* const kIota = R"(
KERNEL void iota(GLOBAL int* out, const int start, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) out[i] = start + (int)i;
}
)";

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("native handles of devices, queues and buffers") {
  for_each_device([](const duet::Device& dev) {
    CHECK(dev.native_context() != 0);
    CHECK(dev.native_context() == duet::Device::open(dev.info().id()).native_context());
    duet::Queue a = dev.queue(), b = dev.queue();
    CHECK(a.native_handle() != 0);
    CHECK(a.native_handle() != b.native_handle());
    duet::Buffer<float> x(dev, 64);
    CHECK(x.owns_memory());
    CHECK(x.native_handle() != 0);
    const duet::BufferView<float> v = x.view(16, 16);
    if (dev.info().backend == "cuda")
      CHECK(v.native_handle() == x.native_handle() + 16 * sizeof(float));  // an address
    else
      CHECK(v.native_handle() == x.native_handle());  // the cl_mem; the offset is the view's
    CHECK(v.raw().offset() == 16 * sizeof(float));
    if (dev.info().backend == "cuda") CHECK(dev.info().native_index >= 0);
    else CHECK(dev.info().native_index == dev.info().index);
    duet::Queue released;
    EXPECT_ERROR(duet::ReleasedError, released.native_handle());
    EXPECT_ERROR(duet::ReleasedError, duet::Device().native_context());
  });
}

TEST_CASE("wrapped memory is used without copies and never freed by duet") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("wrap");
    duet::Queue q = dev.queue();
    const std::size_t n = 4096;
    // The "other library": a duet buffer whose native handle is handed over, as a CUdeviceptr or
    // a cl_mem from elsewhere would be.
    duet::Buffer<int> owner(dev, n);
    q.fill(owner, -1);
    int released = 0;
    {
      duet::Buffer<int> w = duet::Buffer<int>::wrap(dev, owner.native_handle(), n, 0, [&released] { ++released; });
      CHECK_FALSE(w.owns_memory());
      CHECK(w.size() == n);
      CHECK(w.device() == dev);
      CHECK(w.native_handle() == owner.native_handle());

      // Filled by a duet kernel through the wrap, read through the owner: the same memory.
      const duet::Kernel iota = dev.compile(kIota, {}, "iota.duet").kernel("iota");
      q.launch(iota, duet::Range(n), duet::Range(), w, 100, static_cast<std::uint32_t>(n));
      std::vector<int> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = 100 + static_cast<int>(i);
      check_equal(q.to_vector(owner), want, "owner after a kernel wrote through the wrap");

      // And the other way: written through the owner, read through the wrap.
      const std::vector<int> data = random_ints(rng, n, -50, 50);
      q.write(owner, data);
      check_equal(q.to_vector(w), data, "wrap after writes through the owner");

      // Freeing memory duet does not own is an error; nothing changes.
      auto e = EXPECT_ERROR(duet::ArgumentError, w.free_now());
      if (e) {
        CHECK_CONTAINS(e->what(), "wrapped external buffer");
        CHECK_CONTAINS(e->what(), "release()");
      }
      CHECK(w.valid());

      // The release callback runs once, when the last handle (the wrap or a view of it) is gone.
      duet::BufferView<int> v = w.view(10, 10);
      w.release();  // drops duet's reference only
      CHECK_FALSE(w.valid());
      CHECK(released == 0);
      check_equal(q.to_vector(v), std::vector<int>(data.begin() + 10, data.begin() + 20), "view of a released wrap");
    }
    CHECK(released == 1);
    // The owner's memory is untouched by all of this.
    q.fill(owner, 5);
    check_equal(q.to_vector(owner), std::vector<int>(n, 5), "owner after the wrap is gone");

    // An offset into the native memory: elements [64, 64 + 100) of the owner.
    std::vector<int> seq(n);
    for (std::size_t i = 0; i < n; ++i) seq[i] = static_cast<int>(i);
    q.write(owner, seq);
    duet::Buffer<int> part = duet::Buffer<int>::wrap(dev, owner.native_handle(), 100, 64 * sizeof(int));
    check_equal(q.to_vector(part), std::vector<int>(seq.begin() + 64, seq.begin() + 164), "offset wrap");
  });
}

TEST_CASE("wrapping bad handles is refused") {
  for_each_device([](const duet::Device& dev) {
    duet::Buffer<float> owner(dev, 1000);
    int calls = 0;
    auto e = EXPECT_ERROR(duet::ArgumentError, duet::Buffer<float>::wrap(dev, 0, 10, 0, [&calls] { ++calls; }));
    if (e) CHECK_CONTAINS(e->what(), "null");
    // Larger than the native allocation: the driver tells duet its size.
    auto big = EXPECT_ERROR(duet::BufferSizeError,
                            duet::Buffer<float>::wrap(dev, owner.native_handle(), 1001, 0, [&calls] { ++calls; }));
    if (big) CHECK_CONTAINS(big->what(), "4004");
    EXPECT_ERROR(duet::BufferSizeError, duet::Buffer<float>::wrap(dev, owner.native_handle(), 1000, 4));
    CHECK(calls == 0);  // a refused wrap leaves the memory with its owner and never calls back
    EXPECT_ERROR(duet::ReleasedError, duet::Buffer<float>::wrap(duet::Device(), owner.native_handle(), 10));
  });
}

TEST_CASE("wrapping memory of another device is refused, with two devices") {
  // Two devices of one backend: a foreign handle of another backend is not something any driver
  // can be asked about safely.
  std::vector<duet::Device> two;
  for (const duet::Device& d : test_devices())
    if (two.empty() || (two.size() == 1 && d.info().backend == two[0].info().backend)) two.push_back(d);
  if (two.size() < 2) {
    MESSAGE("skipped: needs two devices of one backend (POCL_DEVICES=\"pthread pthread\" gives two)");
    return;
  }
  INFO("devices ", device_label(two[0]), " and ", device_label(two[1]));
  duet::Buffer<float> on1(two[1], 100);
  auto e = EXPECT_ERROR(duet::DeviceMismatchError, duet::Buffer<float>::wrap(two[0], on1.native_handle(), 100));
  if (e) CHECK_CONTAINS(e->what(), two[0].info().id());
}

#ifdef DUET_TEST_HAVE_OPENCL
TEST_CASE("OpenCL: a cl_mem made with plain OpenCL is wrapped, used and read back without copies") {
  for_each_device([](const duet::Device& dev) {
    if (dev.info().backend != "opencl") {
      MESSAGE("not an OpenCL device");
      return;
    }
    auto rng = make_rng("opencl interop");
    const std::size_t n = 10000;
    const auto context = reinterpret_cast<cl_context>(dev.native_context());
    duet::Queue q = dev.queue();
    const auto queue = reinterpret_cast<cl_command_queue>(q.native_handle());

    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof(int), nullptr, &err);
    REQUIRE(err == CL_SUCCESS);
    auto refcount = [mem] {
      cl_uint count = 0;
      clGetMemObjectInfo(mem, CL_MEM_REFERENCE_COUNT, sizeof count, &count, nullptr);
      return count;
    };
    const std::vector<int> data = random_ints(rng, n, -1000, 1000);
    REQUIRE(clEnqueueWriteBuffer(queue, mem, CL_TRUE, 0, n * sizeof(int), data.data(), 0, nullptr, nullptr) ==
            CL_SUCCESS);
    {
      duet::Buffer<int> w = duet::Buffer<int>::wrap(dev, reinterpret_cast<std::uintptr_t>(mem), n);
      CHECK(refcount() == 2);  // duet holds a reference of its own while it uses the cl_mem
      check_equal(q.to_vector(w), data, "duet reads what OpenCL wrote");
      const duet::Kernel iota = dev.compile(kIota, {}, "iota.duet").kernel("iota");
      q.launch(iota, duet::Range(n), duet::Range(), w, -7, static_cast<std::uint32_t>(n));
      // Read with plain OpenCL on duet's own queue: in order after the launch.
      std::vector<int> back(n, 0);
      REQUIRE(clEnqueueReadBuffer(queue, mem, CL_TRUE, 0, n * sizeof(int), back.data(), 0, nullptr, nullptr) ==
              CL_SUCCESS);
      std::vector<int> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = -7 + static_cast<int>(i);
      check_equal(back, want, "OpenCL reads what a duet kernel wrote");
      EXPECT_ERROR(duet::ArgumentError, w.free_now());
    }
    CHECK(refcount() == 1);  // duet's reference is gone; the owner's remains

    // duet's own buffer, read by plain OpenCL through its native handle.
    duet::Buffer<int> mine(dev, n);
    q.write(mine, data);
    q.finish();
    std::vector<int> back(n, 0);
    REQUIRE(clEnqueueReadBuffer(queue, reinterpret_cast<cl_mem>(mine.native_handle()), CL_TRUE, 0,
                                n * sizeof(int), back.data(), 0, nullptr, nullptr) == CL_SUCCESS);
    check_equal(back, data, "OpenCL reads a duet buffer through native_handle");

    // A cl_mem of another context on the same device.
    cl_device_id device_id = nullptr;
    REQUIRE(clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof device_id, &device_id, nullptr) == CL_SUCCESS);
    cl_context other = clCreateContext(nullptr, 1, &device_id, nullptr, nullptr, &err);
    REQUIRE(err == CL_SUCCESS);
    cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, 64, nullptr, &err);
    REQUIRE(err == CL_SUCCESS);
    auto e = EXPECT_ERROR(duet::DeviceMismatchError,
                          duet::Buffer<int>::wrap(dev, reinterpret_cast<std::uintptr_t>(foreign), 16));
    if (e) CHECK_CONTAINS(e->what(), "another OpenCL context");
    clReleaseMemObject(foreign);
    clReleaseContext(other);
    clReleaseMemObject(mem);
  });
}
#endif

TEST_SUITE_END();
