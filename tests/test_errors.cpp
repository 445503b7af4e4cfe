// Errors that need a device, on every device: each asserts the exact duet error subclass and that
// the message carries the useful part (the line, the kernel or parameter name, the size). Each also
// checks that the device is still usable afterwards: nothing here may abort the process or leave a
// queue broken. Launch arguments, transfers past the end, allocations and released handles are rows
// of the fault matrix (fault_matrix.cpp, FAULTS.md).
#include <doctest/doctest.h>

#include <cstdint>
#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <duet/stencil.hpp>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

// The error is on line 3 of the user's source (line numbers count from the first character).
const char* const kErrorOnLine3 =
    "KERNEL void broken(GLOBAL float* x) {\n"  // 1
    "  const int i = (int)GLOBAL_ID(0);\n"     // 2
    "  x[i] = undeclared_thing_42 * 2.0f;\n"   // 3
    "}\n";                                     // 4

// Uses T and SCALE from the defines; the error is on line 5.
const char* const kErrorOnLine5WithDefines =
    "// scaled copy\n"                         // 1
    "KERNEL void broken2(GLOBAL T* x) {\n"     // 2
    "  const int i = (int)GLOBAL_ID(0);\n"     // 3
    "  x[i] = (T)SCALE;\n"                     // 4
    "  x[i] += no_such_value_xyz * x[i];\n"    // 5
    "}\n";                                     // 6

const char* const kScale = R"(
KERNEL void scale(GLOBAL float* data, const float factor, const int count) {
  const int i = (int)GLOBAL_ID(0);
  if (i < count) data[i] *= factor;
}
)";

const char* const kTwoKernels = R"(
KERNEL void alpha(GLOBAL int* x) { x[0] = 1; }
KERNEL void beta(GLOBAL int* x) { x[0] = 2; }
)";

// Launches `scale` correctly and checks the result: the device still works after an error.
void check_still_works(const duet::Device& dev, duet::Queue& q) {
  const duet::Kernel k = dev.compile(kScale, {}, "scale.duet").kernel("scale");
  duet::Buffer<float> data(dev, 33);
  q.fill(data, 3.0f);
  q.launch(k, duet::Range(33), duet::Range(), data, 2.0f, 33);
  check_equal(q.to_vector(data), std::vector<float>(33, 6.0f), "scale after an error");
}

void check_compile_error(const duet::Device& dev, const char* source, const duet::Defines& defines,
                         const std::string& name, int line, const std::string& in_log) {
  CAPTURE(name);
  const auto e = EXPECT_ERROR(duet::CompileError, dev.compile(source, defines, name));
  if (!e) return;
  CHECK(e->kind() == duet::ErrorKind::compile);
  CHECK(e->line() == line);
  CHECK(e->backend() == dev.info().backend);
  CHECK(e->source_name() == name);
  CHECK_FALSE(e->log().empty());
  CHECK_CONTAINS(e->log(), in_log);
  const std::string what = e->what();
  const std::string l = std::to_string(line);
  CHECK_MESSAGE((contains(what, name + ":" + l) || contains(what, "line " + l)),
                "what() does not name line " << l << " of " << name << ": " << what);
  // what() carries the whole log, once: a program that prints what() (the README's example) shows
  // it once, with nothing left to print besides.
  CHECK_MESSAGE(occurrences(what, e->log()) == 1, "what() should hold the log once: " << what);
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("compile errors point at the user's line, with the full log") {
  for_each_device([](const duet::Device& dev) {
    check_compile_error(dev, kErrorOnLine3, {}, "bad_line3.duet", 3, "undeclared_thing_42");
    check_compile_error(dev, kErrorOnLine5WithDefines, {{"T", "float"}, {"SCALE", "2"}, {"UNUSED", "1"}},
                        "bad_line5.duet", 5, "no_such_value_xyz");
    duet::Queue q = dev.queue();
    check_still_works(dev, q);
  });
}

TEST_CASE("unknown kernel name lists the kernels the program has") {
  for_each_device([](const duet::Device& dev) {
    const duet::Program p = dev.compile(kTwoKernels, {}, "two.duet");
    const auto e = EXPECT_ERROR(duet::KernelNotFoundError, p.kernel("gamma"));
    if (e) {
      CHECK_CONTAINS(e->what(), "gamma");
      CHECK_CONTAINS(e->what(), "alpha");
      CHECK_CONTAINS(e->what(), "beta");
    }
    CHECK_NOTHROW(p.kernel("alpha"));
  });
}

// The rule, the same on every backend and checked before any driver call: a source with a NUL
// byte, an empty one, one of only whitespace and comments, and one that cannot declare a kernel are
// ArgumentErrors naming the source (NVIDIA's OpenCL crashed building a program without kernels,
// and compilers read a NUL as the end of the text). A 10 MB source is the compiler's business: it
// compiles, or fails with the compiler's log, like any other.
TEST_CASE("empty, blank, kernel-less, NUL-holding and 10 MB sources fail or compile alike on every backend") {
  for_each_device([](const duet::Device& dev) {
    const bool cuda = dev.info().backend == "cuda";
    const std::string native_kernel = cuda ? "extern \"C\" __global__ void one(int* x) { x[0] = 1; }\n"
                                           : "__kernel void one(__global int* x) { x[0] = 1; }\n";
    const std::string dialect_kernel = "KERNEL void one(GLOBAL int* x) { x[0] = 1; }\n";
    auto refused = [&](const std::string& what, const std::string& source, const std::string& in_message) {
      CAPTURE(what);
      auto e = EXPECT_ERROR(duet::ArgumentError, dev.compile(source, {}, "odd.duet"));
      if (e) {
        CHECK_CONTAINS(e->what(), "odd.duet");
        CHECK_CONTAINS(e->what(), in_message);
      }
      e = EXPECT_ERROR(duet::ArgumentError, dev.compile_native(source, {}, "odd.native"));
      if (e) {
        CHECK_CONTAINS(e->what(), "odd.native");
        CHECK_CONTAINS(e->what(), in_message);
      }
    };
    refused("empty", "", "is empty");
    refused("whitespace", " \n\t\r\n  \n", "only whitespace and comments");
    refused("comments", "// nothing here\n/* KERNEL void commented_out(GLOBAL int* x) {} */\n",
            "only whitespace and comments");
    refused("a helper without kernels", "int twice(int x) { return 2 * x; }\n", "declares no kernel");

    const std::string with_nul = dialect_kernel + std::string(1, '\0') + "garbage after the NUL";
    auto e = EXPECT_ERROR(duet::ArgumentError, dev.compile(with_nul, {}, "nul.duet"));
    if (e) {
      CHECK_CONTAINS(e->what(), "nul.duet");
      CHECK_CONTAINS(e->what(), "NUL byte at offset " + std::to_string(dialect_kernel.size()) + " (line 2)");
    }
    e = EXPECT_ERROR(duet::ArgumentError,
                     dev.compile_native(native_kernel + std::string(1, '\0'), {}, "nul.native"));
    if (e) CHECK_CONTAINS(e->what(), "NUL byte at offset " + std::to_string(native_kernel.size()));
    e = EXPECT_ERROR(duet::ArgumentError, dev.compile(dialect_kernel, {{"V", std::string("1\0", 2)}}, "nul.duet"));
    if (e) CHECK_CONTAINS(e->what(), "define 'V'");
    e = EXPECT_ERROR(duet::ArgumentError,
                     dev.compile_native(native_kernel, {std::string("-DX=1\0", 6)}, "nul.native"));
    if (e) CHECK_CONTAINS(e->what(), "NUL byte at offset 5");

    // A kernel behind a macro or in defines is the compiler's to find, not duet's to refuse.
    const duet::Program from_define = dev.compile("BODY\n", {{"BODY", dialect_kernel.substr(0, dialect_kernel.size() - 1)}}, "define.duet");
    CHECK_NOTHROW(from_define.kernel("one"));

    // 10 MB: comment lines the compiler must read through, the kernel on the last line.
    std::string big;
    const std::string padding = "// padding that the compiler reads and throws away, line after line\n";
    big.reserve((std::size_t(10) << 20) + 256);
    while (big.size() < (std::size_t(10) << 20)) big += padding;
    const int last_line = static_cast<int>(big.size() / padding.size()) + 1;
    const duet::Kernel k = dev.compile(big + dialect_kernel, {}, "big.duet").kernel("one");
    duet::Queue q = dev.queue();
    duet::Buffer<int> x(dev, 1);
    q.fill(x, -1);
    q.launch(k, duet::Range(1), duet::Range(1), x);
    CHECK(q.to_vector(x)[0] == 1);
    // ...and the same 10 MB with an error on the last line: the compiler's error, at that line.
    const auto c = EXPECT_ERROR(duet::CompileError,
                                dev.compile(big + "KERNEL void bad(GLOBAL int* x) { x[0] = not_declared_10mb; }\n",
                                            {}, "big_bad.duet"));
    if (c) {
      CHECK(c->line() == last_line);
      CHECK_CONTAINS(c->log(), "not_declared_10mb");
    }
    check_still_works(dev, q);
  });
}

TEST_CASE("built-in kernels check buffer sizes") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<float> a(dev, 10), b(dev, 10), c11(dev, 11), b5(dev, 5), c10(dev, 10);

    auto e = EXPECT_ERROR(duet::BufferSizeError, duet::vector_add(q, a, b, c11));
    if (e) CHECK_CONTAINS(e->what(), "11");
    CHECK_THROWS_AS(duet::vector_add(q, a, b5, c10), duet::BufferSizeError);
    CHECK_THROWS_AS(duet::multiply(q, a, b, c11), duet::BufferSizeError);
    CHECK_THROWS_AS(duet::multiply(q, b5, a, c10), duet::BufferSizeError);

    // matmul 3x4 * 4x5: A needs 12, B 20, C 15.
    const std::size_t M = 3, N = 5, K = 4;
    duet::Buffer<float> A(dev, M * K), B(dev, K * N), C(dev, M * N);
    duet::Buffer<float> A_short(dev, M * K - 1), B_short(dev, K * N - 1), C_short(dev, M * N - 1);
    CHECK_THROWS_AS(duet::matmul(q, A_short, B, C, M, N, K), duet::BufferSizeError);
    CHECK_THROWS_AS(duet::matmul(q, A, B_short, C, M, N, K), duet::BufferSizeError);
    CHECK_THROWS_AS(duet::matmul(q, A, B, C_short, M, N, K), duet::BufferSizeError);
    CHECK_THROWS_AS(duet::matmul(q, A, B, C, M + 1, N, K), duet::BufferSizeError);  // M*K > A.size()

    // heat on 4 x 5 = 20 cells.
    duet::Buffer<float> u(dev, 20), v(dev, 20), u_short(dev, 19), v_short(dev, 19);
    CHECK_THROWS_AS(duet::heat_step(q, u_short, v, 4, 5, 0.2f), duet::BufferSizeError);
    CHECK_THROWS_AS(duet::heat_step(q, u, v_short, 4, 5, 0.2f), duet::BufferSizeError);
    CHECK_THROWS_AS(duet::heat(q, u_short, v, 4, 5, 0.2f, 3), duet::BufferSizeError);
    CHECK_THROWS_AS(duet::heat(q, u, v_short, 4, 5, 0.2f, 3), duet::BufferSizeError);
    q.finish();
    check_still_works(dev, q);
  });
}

TEST_CASE("open: missing device index or name, DUET_DEVICE out of range") {
  for_each_device([](const duet::Device& dev) {
    const duet::DeviceInfo& info = dev.info();
    auto e = EXPECT_ERROR(duet::DeviceNotFoundError, duet::Device::open(info.backend + ":999"));
    if (e) {
      CHECK_CONTAINS(e->what(), "999");
      // It names what is available.
      CHECK_MESSAGE((contains(e->what(), info.id()) || contains(e->what(), info.name)),
                    "message does not name the available device: " << std::string(e->what()));
    }
    e = EXPECT_ERROR(duet::DeviceNotFoundError, duet::Device::open(info.backend + ":no-such-device-zz9"));
    if (e) CHECK_CONTAINS(e->what(), "no-such-device-zz9");

    EnvGuard backend("DUET_BACKEND", info.backend.c_str());
    {
      EnvGuard device("DUET_DEVICE", "999");
      CHECK_THROWS_AS(duet::Device::open(), duet::DeviceNotFoundError);
    }
    {
      EnvGuard device("DUET_DEVICE", "no-such-device-zz9");
      CHECK_THROWS_AS(duet::Device::open(), duet::DeviceNotFoundError);
    }
  });
}

TEST_CASE("objects of another device are refused with DeviceMismatchError") {
  // Any two devices of any backends; with PoCL, POCL_DEVICES="pthread pthread" gives two.
  const std::vector<duet::Device> two = two_devices();
  if (two.size() < 2) {
    MESSAGE("skipped: this process sees fewer than two devices (POCL_DEVICES=\"pthread pthread\" gives two)");
    return;
  }
  const duet::Device& d0 = two[0];
  const duet::Device& d1 = two[1];
  INFO("queue on ", device_label(d0), ", objects on ", device_label(d1), ", seed ", test_seed());
  REQUIRE(d0 != d1);
  duet::Queue q0 = d0.queue();
  duet::Buffer<float> a0(d0, 8), b0(d0, 8), c0(d0, 8), a1(d1, 8);
  const std::vector<float> eight(8, 1.0f);
  std::vector<float> out(8);

  auto e = EXPECT_ERROR(duet::DeviceMismatchError, q0.write(a1, eight));
  if (e) CHECK_CONTAINS(e->what(), d1.info().id());
  CHECK_THROWS_AS(q0.read(a1, duet::Span<float>(out)), duet::DeviceMismatchError);
  CHECK_THROWS_AS(q0.fill(a1, 0.0f), duet::DeviceMismatchError);
  CHECK_THROWS_AS(q0.copy(a1, b0), duet::DeviceMismatchError);
  CHECK_THROWS_AS(q0.copy(a0, 0, a1, 0, 8), duet::DeviceMismatchError);
  CHECK_THROWS_AS(duet::vector_add(q0, a0, a1, c0), duet::DeviceMismatchError);
  CHECK_THROWS_AS(duet::matmul(q0, a0, b0, a1, 2, 2, 2), duet::DeviceMismatchError);

  const duet::Kernel k0 = d0.compile(kScale, {}, "scale.duet").kernel("scale");
  const duet::Kernel k1 = d1.compile(kScale, {}, "scale.duet").kernel("scale");
  CHECK_THROWS_AS(q0.launch(k0, duet::Range(8), duet::Range(), a1, 2.0f, 8), duet::DeviceMismatchError);
  CHECK_THROWS_AS(q0.launch(k1, duet::Range(8), duet::Range(), a0, 2.0f, 8), duet::DeviceMismatchError);

  // Both devices still work.
  q0.fill(a0, 1.0f);
  q0.launch(k0, duet::Range(8), duet::Range(), a0, 3.0f, 8);
  check_equal(q0.to_vector(a0), std::vector<float>(8, 3.0f), "device 0 after the errors");
  duet::Queue q1 = d1.queue();
  q1.fill(a1, 1.0f);
  q1.launch(k1, duet::Range(8), duet::Range(), a1, 5.0f, 8);
  check_equal(q1.to_vector(a1), std::vector<float>(8, 5.0f), "device 1 after the errors");
}

TEST_SUITE_END();
