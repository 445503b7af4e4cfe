// The in-process half of the fault matrix (tests/FAULTS.md lists every case; fault_matrix.sh holds
// the cases that need fresh processes: environment variables and the program cache). Each row is
// one case: its id (the part before the dot is its category), what it does, and the outcome it
// expects, which is either an exact duet::Error subclass whose message names what was wrong, or
// "works" with the result it must give. Every row runs on every device under test, in a doctest
// subcase named after the row, and after each row the device must still run a kernel correctly:
// no case may crash, hang, or leave a queue broken. A row's expected text is what FAULTS.md says;
// faults_doc_check.sh keeps the two lists of ids equal.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <duet/duet.hpp>
#include <limits>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#ifdef DUET_HAVE_DLPACK
#include <duet/dlpack.hpp>
#endif

#include "devices.hpp"
#include "support.hpp"

namespace {

constexpr std::size_t kSizeMax = std::numeric_limits<std::size_t>::max();

const char* const kScale = R"(
KERNEL void scale(GLOBAL float* data, const float factor, const int count) {
  const int i = (int)GLOBAL_ID(0);
  if (i < count) data[i] *= factor;
}
)";

duet::Kernel scale_kernel(const duet::Device& dev) { return dev.compile(kScale, {}, "scale.duet").kernel("scale"); }

// The device still computes after a case: a fresh queue, a buffer, the scale kernel, checked.
void check_still_works(const duet::Device& dev) {
  duet::Queue q = dev.queue();
  duet::Buffer<float> data(dev, 33);
  q.fill(data, 3.0f);
  q.launch(scale_kernel(dev), duet::Range(33), duet::Range(), data, 2.0f, 33);
  check_equal(q.to_vector(data), std::vector<float>(33, 6.0f), "the scale kernel after the case");
}

// f must throw exactly E, of E's kind, with every needle in its message.
template <class E, class F>
void fails_with(F&& f, const std::vector<std::string>& needles, const char* expr, int line) {
  const std::optional<E> e = expect_error<E>(std::forward<F>(f), expr, typeid(E).name(), __FILE__, line);
  if (!e) return;
  CHECK_MESSAGE(typeid(*e) == typeid(E), "threw a subclass " << typeid(*e).name() << " of the expected type");
  for (const std::string& needle : needles) CHECK_CONTAINS(e->what(), needle);
}

// FAILS_WITH(duet::ArgumentError, ({"count", "int"}), q.launch(...)): the exact error and its message.
#define FAILS_WITH(Type, needles, ...) \
  fails_with<Type>([&]() { (void)(__VA_ARGS__); }, std::vector<std::string> needles, #__VA_ARGS__, __LINE__)

// Runs `body(thread index)` on `threads` threads started together; returns what each reported (empty
// when it had nothing to say), so the assertions run on the test's own thread.
template <class Body>
std::vector<std::string> on_threads(int threads, Body&& body) {
  std::vector<std::string> problems(static_cast<std::size_t>(threads));
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ++ready;
      while (ready.load() < threads) std::this_thread::yield();
      try {
        problems[static_cast<std::size_t>(t)] = body(t);
      } catch (const duet::Error& e) {
        problems[static_cast<std::size_t>(t)] =
            std::string("duet ") + duet::to_string(e.kind()) + " error: " + e.what();
      } catch (const std::exception& e) {
        problems[static_cast<std::size_t>(t)] = std::string("exception: ") + e.what();
      }
    });
  for (std::thread& t : pool) t.join();
  return problems;
}

void check_threads(const std::vector<std::string>& problems) {
  for (std::size_t t = 0; t < problems.size(); ++t)
    CHECK_MESSAGE(problems[t].empty(), "thread " << t << ": " << problems[t]);
}

// A 3-byte and a 4-byte value of types duet does not know.
struct Three {
  unsigned char b[3];
};
struct FloatBits {
  float value;
};

#ifdef DUET_HAVE_DLPACK
// A tensor another framework hands over, describing `memory`; counts its deleter's calls.
struct Tensor {
  DLManagedTensor managed{};
  std::vector<std::int64_t> shape;
  int deleted = 0;
  Tensor(const duet::Device& dev, const duet::RawBuffer& memory, std::vector<std::int64_t> extents)
      : shape(std::move(extents)) {
    DLTensor& t = managed.dl_tensor;
    t.data = reinterpret_cast<void*>(memory.native_handle());
    // As to_dlpack does: a cl_mem names the whole allocation, which starts with a guard zone
    // under DUET_CHECK=1; a CUdeviceptr is the range's own first byte.
    t.byte_offset = dev.info().backend == "opencl" ? memory.offset() : 0;
    t.device = duet::detail::dlpack_device_of(dev);
    t.ndim = static_cast<int>(shape.size());
    t.dtype = DLDataType{kDLFloat, 32, 1};
    t.shape = shape.data();
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) { ++static_cast<Tensor*>(self->manager_ctx)->deleted; };
  }
};
#endif

struct Fault {
  const char* id;        // category.name
  const char* does;      // what the case does
  const char* expected;  // the exact error and what its message names, or "works: <result>"
  void (*run)(const duet::Device&);
};

// clang-format off
const Fault kFaults[] = {
    // ---- allocation ----
    {"alloc.zero_bytes", "Buffer<float>(dev, 0): write, read, fill, view, to_vector and a launch with it",
     "works: size 0, every operation a no-op",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 0);
       CHECK(b.valid());
       CHECK(b.size() == 0);
       const std::vector<float> none;
       std::vector<float> out;
       q.write(b, none);
       q.read(b, duet::Span<float>(out));
       q.fill(b, 1.0f);
       CHECK(b.view(0, 0).size() == 0);
       q.launch(scale_kernel(dev), duet::Range(1), duet::Range(), b, 2.0f, 0);
       CHECK(q.to_vector(b).empty());
     }},
    {"alloc.more_than_device", "Buffer<char> of the device's memory + 1 bytes",
     "OutOfMemoryError naming the device; requested_bytes() = memory + 1, device_memory_bytes() = memory",
     [](const duet::Device& dev) {
       const duet::DeviceInfo& info = dev.info();
       const auto e = EXPECT_ERROR(duet::OutOfMemoryError, duet::Buffer<char>(dev, info.memory_bytes + 1));
       if (!e) return;
       CHECK(e->requested_bytes() == info.memory_bytes + 1);
       CHECK(e->device_memory_bytes() == info.memory_bytes);
       CHECK_CONTAINS(e->what(), info.id());
       CHECK_CONTAINS(e->what(), std::to_string(info.memory_bytes + 1));
     }},
    {"alloc.huge", "Buffer<char>(dev, 2^62)",
     "OutOfMemoryError naming the device and the size; requested_bytes() = 2^62",
     [](const duet::Device& dev) {
       const std::uint64_t request = 1ull << 62;
       const auto e = EXPECT_ERROR(duet::OutOfMemoryError, duet::Buffer<char>(dev, request));
       if (!e) return;
       CHECK(e->requested_bytes() == request);
       CHECK(e->device_memory_bytes() == dev.info().memory_bytes);
       CHECK_CONTAINS(e->what(), dev.info().id());
       CHECK_CONTAINS(e->what(), std::to_string(request));
     }},
    {"alloc.max_alloc_plus_one", "Buffer<char> one byte larger than the device's largest single allocation",
     "OutOfMemoryError naming the largest allocation (where it is below the device memory; else as alloc.more_than_device)",
     [](const duet::Device& dev) {
       const duet::DeviceInfo& info = dev.info();
       if (info.max_alloc_bytes >= info.memory_bytes) return;  // the same limit as alloc.more_than_device
       FAILS_WITH(duet::OutOfMemoryError, ({std::to_string(info.max_alloc_bytes)}),
                  duet::Buffer<char>(dev, info.max_alloc_bytes + 1));
     }},
    {"alloc.count_overflow", "Buffer<double>(dev, 2^62): count * 8 does not fit in 64 bits",
     "OutOfMemoryError: \"does not fit in the address space\", never a small allocation",
     [](const duet::Device& dev) {
       FAILS_WITH(duet::OutOfMemoryError, ({"does not fit in the address space", std::to_string(1ull << 62)}),
                  duet::Buffer<double>(dev, 1ull << 62));
       // The first count whose byte size wraps to exactly 0.
       FAILS_WITH(duet::OutOfMemoryError, ({"does not fit"}), duet::Buffer<float>(dev, kSizeMax / 4 + 1));
     }},
    {"alloc.size_max", "Buffer<char>(dev, SIZE_MAX)",
     "OutOfMemoryError; requested_bytes() = SIZE_MAX",
     [](const duet::Device& dev) {
       const auto e = EXPECT_ERROR(duet::OutOfMemoryError, duet::Buffer<char>(dev, kSizeMax));
       if (e) CHECK(e->requested_bytes() == kSizeMax);
     }},
    {"alloc.host_huge", "HostBuffer<char>(dev, 2^62) and HostBuffer<double>(dev, 2^62) (pinned host memory)",
     "OutOfMemoryError for both (the second: \"does not fit in the address space\")",
     [](const duet::Device& dev) {
       EXPECT_ERROR(duet::OutOfMemoryError, duet::HostBuffer<char>(dev, 1ull << 62));
       FAILS_WITH(duet::OutOfMemoryError, ({"does not fit in the address space"}),
                  duet::HostBuffer<double>(dev, 1ull << 62));
     }},
    {"alloc.host_over_memory", "HostBuffer<char> of more bytes than the machine has",
     "OutOfMemoryError naming the machine's memory, before any driver call",
     [](const duet::Device& dev) {
       const std::uint64_t pages = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES));
       const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE));
       FAILS_WITH(duet::OutOfMemoryError, ({"pinned host memory", "the machine has"}),
                  duet::HostBuffer<char>(dev, pages * page + 1));
     }},
    {"alloc.wrap_offset_overflow", "Buffer<float>::wrap of a real handle at byte offset SIZE_MAX - 2",
     "BufferSizeError: \"does not fit in the address space\"; on_release never called",
     [](const duet::Device& dev) {
       duet::Buffer<float> owner(dev, 4);
       int calls = 0;
       FAILS_WITH(duet::BufferSizeError, ({"does not fit in the address space"}),
                  duet::Buffer<float>::wrap(dev, owner.native_handle(), 4, kSizeMax - 2, [&calls] { ++calls; }));
       CHECK(calls == 0);
     }},

    // ---- transfers ----
    {"transfer.write_past_end", "write 11 floats into 10; 5 at offset 6; 1 at offset 10",
     "BufferSizeError naming both sizes (44 and 40 bytes)",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 10);
       const std::vector<float> eleven(11, 1.0f), five(5, 1.0f), one(1, 1.0f);
       FAILS_WITH(duet::BufferSizeError, ({"44 bytes", "40 bytes"}), q.write(b, eleven));
       FAILS_WITH(duet::BufferSizeError, ({"20 bytes", "byte offset 24"}), q.write(b, five, 6));
       FAILS_WITH(duet::BufferSizeError, ({"byte offset 40"}), q.write(b, one, 10));
     }},
    {"transfer.read_past_end", "read 11 floats from 10; 5 from offset 6",
     "BufferSizeError naming the sizes",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 10);
       std::vector<float> out11(11), out5(5);
       FAILS_WITH(duet::BufferSizeError, ({"44 bytes", "40 bytes"}), q.read(b, duet::Span<float>(out11)));
       FAILS_WITH(duet::BufferSizeError, ({"byte offset 24"}), q.read(b, duet::Span<float>(out5), 6));
     }},
    {"transfer.offset_wraps", "write and read 1 float at element offset SIZE_MAX / 4 (offset + size wraps around)",
     "BufferSizeError, never a transfer",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 10);
       const std::vector<float> one(1, 1.0f);
       std::vector<float> out(1);
       const std::size_t huge = kSizeMax / sizeof(float);
       FAILS_WITH(duet::BufferSizeError, ({"does not fit"}), q.write(b, one, huge));
       FAILS_WITH(duet::BufferSizeError, ({"does not fit"}), q.read(b, duet::Span<float>(out), huge));
     }},
    {"transfer.empty_at_end", "write 0 floats at offset 10 of 10, then at offset 11",
     "works at offset 10 (a no-op); BufferSizeError at 11",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 10);
       const std::vector<float> none;
       q.write(b, none, 10);
       FAILS_WITH(duet::BufferSizeError, ({"byte offset 44"}), q.write(b, none, 11));
       q.finish();
     }},
    {"transfer.copy_past_end", "copy 10 floats into 5; a source range and a destination range past the end",
     "BufferSizeError naming \"copy source\" or \"copy destination\"",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 10), small(dev, 5);
       FAILS_WITH(duet::BufferSizeError, ({"copy destination"}), q.copy(b, small));
       FAILS_WITH(duet::BufferSizeError, ({"copy source"}), q.copy(small, 1, b, 0, 5));
       FAILS_WITH(duet::BufferSizeError, ({"copy destination"}), q.copy(small, 0, b, 6, 5));
     }},
    {"transfer.copy_overlap", "copy a buffer's elements 0..3 onto 2..5 of itself, and between two overlapping views",
     "ArgumentError: \"overlap\"; adjacent ranges work",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 12);
       FAILS_WITH(duet::ArgumentError, ({"overlap"}), q.copy(b, 0, b, 2, 4));
       FAILS_WITH(duet::ArgumentError, ({"overlap"}), q.copy(b.view(0, 6), b.view(3, 6)));
       std::vector<float> seq(12);
       for (std::size_t i = 0; i < seq.size(); ++i) seq[i] = static_cast<float>(i);
       q.write(b, seq);
       q.copy(b, 0, b, 4, 4);  // adjacent: fine
       const std::vector<float> got = q.to_vector(b);
       CHECK(got[4] == 0.0f);
       CHECK(got[7] == 3.0f);
     }},
    {"transfer.null_host", "write and read 4 floats through a null host pointer",
     "ArgumentError: \"the host memory is null\"",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 4);
       FAILS_WITH(duet::ArgumentError, ({"host memory is null"}), q.write(b, duet::Span<const float>(nullptr, 4)));
       FAILS_WITH(duet::ArgumentError, ({"host memory is null"}), q.read(b, duet::Span<float>(nullptr, 4)));
     }},
    {"transfer.rect_rows_overlap", "write_rect / read_rect of 3 rows of 5 floats with a buffer pitch of 4, a host pitch of 2",
     "ArgumentError naming the side, its pitch and the width",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 100);
       std::vector<float> host(100);
       FAILS_WITH(duet::ArgumentError, ({"buffer's pitch (4 elements)", "width (5)"}),
                  q.write_rect(b, {0, 4}, duet::Span<const float>(host), {0, 10}, {5, 3}));
       FAILS_WITH(duet::ArgumentError, ({"host memory's pitch (2 elements)"}),
                  q.read_rect(b, {0, 10}, duet::Span<float>(host), {0, 2}, {5, 3}));
     }},
    {"transfer.rect_past_end",
     "rect of 10 x 10 floats at offset 1 of a 100-float buffer; the same past a 100-float host array; a pitch whose "
     "block end wraps; a null host pointer",
     "BufferSizeError naming the call or the host's size; ArgumentError for null; never a transfer",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 100);
       std::vector<float> host(100);
       const duet::Span<float> h(host);
       FAILS_WITH(duet::BufferSizeError, ({"write_rect", "does not fit"}),
                  q.write_rect(b, {1, 10}, duet::Span<const float>(host), {0, 10}, {10, 10}));
       FAILS_WITH(duet::BufferSizeError, ({"ends at element 101", "holds 100 elements"}),
                  q.read_rect(b, {0, 10}, h, {1, 10}, {10, 10}));
       FAILS_WITH(duet::BufferSizeError, ({"beyond any address"}), q.read_rect(b, {0, kSizeMax / 2}, h, {0, 1}, {1, 3}));
       FAILS_WITH(duet::ArgumentError, ({"host memory is null"}),
                  q.read_rect(b, {0, 1}, duet::Span<float>(nullptr, 5), {0, 1}, {1, 5}));
     }},
    {"transfer.fill_pattern", "fill_bytes with a 3-byte and a 256-byte pattern, past the end, and misaligned",
     "ArgumentError naming the pattern size or the alignment; BufferSizeError past the end",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 10);
       const unsigned char pattern[256] = {};
       FAILS_WITH(duet::ArgumentError, ({"not 3"}), q.fill_bytes(b.raw(), 0, 12, pattern, 3));
       FAILS_WITH(duet::ArgumentError, ({"not 256"}), q.fill_bytes(b.raw(), 0, 256, pattern, 256));
       FAILS_WITH(duet::ArgumentError, ({"aligned"}), q.fill_bytes(b.raw(), 2, 8, pattern, 4));
       FAILS_WITH(duet::BufferSizeError, ({"fill"}), q.fill_bytes(b.raw(), 32, 16, pattern, 4));
     }},
    {"transfer.copy_between_short", "duet::copy of 10 floats into a buffer of 5",
     "BufferSizeError naming duet::copy",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 10), small(dev, 5);
       FAILS_WITH(duet::BufferSizeError, ({"duet::copy"}), duet::copy(q, b, q, small));
     }},
    {"transfer.unmap_twice", "map a buffer, unmap it, unmap it again",
     "ReleasedError: \"already unmapped\"; the first unmap's writes arrive",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<int> b(dev, 8);
       duet::Mapped<int> m = q.map(b, duet::MapAccess::write);
       for (int& v : m) v = 7;
       m.unmap();
       FAILS_WITH(duet::ReleasedError, ({"already unmapped"}), m.unmap());
       check_equal(q.to_vector(b), std::vector<int>(8, 7), "after the unmap");
     }},

    // ---- views ----
    {"view.past_end", "view(99, 2) and view(50, SIZE_MAX) of 100 floats; view(SIZE_MAX, 2) of a view",
     "BufferSizeError: \"past the end\", naming the 100 elements",
     [](const duet::Device& dev) {
       duet::Buffer<float> b(dev, 100);
       FAILS_WITH(duet::BufferSizeError, ({"past the end", "100"}), b.view(99, 2));
       FAILS_WITH(duet::BufferSizeError, ({"past the end"}), b.view(50, kSizeMax));
       const duet::BufferView<float> v = b.view(10, 50);
       FAILS_WITH(duet::BufferSizeError, ({"past the end", "50"}), v.view(kSizeMax, 2));
     }},
    {"view.transfer_past_end", "write 5 floats into a view of 4; read 1 at the view's offset 4",
     "BufferSizeError naming the view's 16 bytes",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 10);
       const duet::BufferView<float> v = b.view(6, 4);
       const std::vector<float> five(5, 1.0f);
       std::vector<float> one(1);
       FAILS_WITH(duet::BufferSizeError, ({"20 bytes", "16 bytes"}), q.write(v, five));
       FAILS_WITH(duet::BufferSizeError, ({"16 bytes"}), q.read(v, duet::Span<float>(one), 4));
     }},
    {"view.empty_handle", "a default-constructed BufferView used in write, fill and as a kernel argument",
     "ReleasedError",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::BufferView<float> v;
       const std::vector<float> one(1, 1.0f);
       FAILS_WITH(duet::ReleasedError, ({"destination buffer"}), q.write(v, one));
       FAILS_WITH(duet::ReleasedError, ({"fill"}), q.fill(v, 1.0f));
       FAILS_WITH(duet::ReleasedError, ({"kernel argument"}),
                  q.launch(scale_kernel(dev), duet::Range(1), duet::Range(), v, 2.0f, 1));
     }},

    // ---- launches ----
    {"launch.too_few_args", "scale(data, factor, count) launched with 2 arguments, and with none",
     "ArgumentError naming the kernel's signature and both counts",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       const duet::Kernel k = scale_kernel(dev);
       FAILS_WITH(duet::ArgumentError, ({"scale(", "takes 3 arguments", "passes 2"}),
                  q.launch(k, duet::Range(16), duet::Range(), data, 2.0f));
       FAILS_WITH(duet::ArgumentError, ({"passes 0"}), q.launch(k, duet::Range(16), duet::Range()));
     }},
    {"launch.too_many_args", "scale launched with 4 arguments", "ArgumentError: \"takes 3 arguments\", \"passes 4\"",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       FAILS_WITH(duet::ArgumentError, ({"takes 3 arguments", "passes 4"}),
                  q.launch(scale_kernel(dev), duet::Range(16), duet::Range(), data, 2.0f, 16, 16));
     }},
    {"launch.scalar_for_buffer", "a float where GLOBAL float* data is declared",
     "ArgumentError naming argument 1 'data': \"takes a buffer\"",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       FAILS_WITH(duet::ArgumentError, ({"argument 1", "data", "takes a buffer"}),
                  q.launch(scale_kernel(dev), duet::Range(16), duet::Range(), 1.0f, 2.0f, 16));
     }},
    {"launch.buffer_for_scalar", "a Buffer<float> where float factor is declared",
     "ArgumentError naming argument 2 'factor': \"takes a scalar\"",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       FAILS_WITH(duet::ArgumentError, ({"argument 2", "factor", "takes a scalar"}),
                  q.launch(scale_kernel(dev), duet::Range(16), duet::Range(), data, data, 16));
     }},
    {"launch.element_type", "a Buffer<int> where GLOBAL float* data is declared",
     "ArgumentError naming 'data', float and Buffer<int>",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<int> ints(dev, 16);
       FAILS_WITH(duet::ArgumentError, ({"data", "float", "Buffer<int>"}),
                  q.launch(scale_kernel(dev), duet::Range(16), duet::Range(), ints, 2.0f, 16));
     }},
    {"launch.double_for_float", "a double where float factor is declared",
     "ArgumentError naming 'factor' and double",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       FAILS_WITH(duet::ArgumentError, ({"factor", "double"}),
                  q.launch(scale_kernel(dev), duet::Range(16), duet::Range(), data, 2.0, 16));
     }},
    {"launch.width", "a std::size_t (8 bytes), a short (2 bytes) and an unsigned where int count is declared",
     "ArgumentError naming 'count', the type passed and the cast to write",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       const duet::Kernel k = scale_kernel(dev);
       FAILS_WITH(duet::ArgumentError, ({"count", "ulong", "static_cast<int>"}),
                  q.launch(k, duet::Range(16), duet::Range(), data, 2.0f, std::size_t{16}));
       FAILS_WITH(duet::ArgumentError, ({"count", "short"}),
                  q.launch(k, duet::Range(16), duet::Range(), data, 2.0f, std::int16_t{16}));
       FAILS_WITH(duet::ArgumentError, ({"count", "uint"}),
                  q.launch(k, duet::Range(16), duet::Range(), data, 2.0f, 16u));
     }},
    {"launch.unknown_type", "a 3-byte struct where float factor is declared; then a 4-byte struct holding a float",
     "ArgumentError: \"a 3-byte value\"; the 4-byte value works (same width): data scaled by it",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       const duet::Kernel k = scale_kernel(dev);
       FAILS_WITH(duet::ArgumentError, ({"factor", "a 3-byte value"}),
                  q.launch(k, duet::Range(16), duet::Range(), data, Three{{1, 2, 3}}, 16));
       q.fill(data, 2.0f);
       q.launch(k, duet::Range(16), duet::Range(), data, FloatBits{1.5f}, 16);
       check_equal(q.to_vector(data), std::vector<float>(16, 3.0f), "scaled by a FloatBits");
     }},
    {"launch.zero_global", "launch over Range(0) and Range(4, 0)",
     "works: nothing runs, the buffer is unchanged, the event completes",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       q.fill(data, 5.0f);
       const duet::Kernel k = scale_kernel(dev);
       const duet::Event e = q.launch(k, duet::Range(0), duet::Range(), data, 2.0f, 16);
       q.launch(k, duet::Range(4, 0), duet::Range(), data, 2.0f, 16);
       check_equal(q.to_vector(data), std::vector<float>(16, 5.0f), "after empty launches");
       CHECK(e.done());
     }},
    {"launch.zero_local", "launch Range(16) in groups of Range(0)", "ArgumentError: \"a local size of 0\"",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       FAILS_WITH(duet::ArgumentError, ({"local size of 0"}),
                  q.launch(scale_kernel(dev), duet::Range(16), duet::Range(0), data, 2.0f, 16));
     }},
    {"launch.dims", "a global Range() (no dimensions); a 2-D global with a 1-D local size",
     "ArgumentError: \"1 to 3 dimensions\"; \"1 dimension(s) but the global size has 2\"",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       const duet::Kernel k = scale_kernel(dev);
       FAILS_WITH(duet::ArgumentError, ({"1 to 3 dimensions"}), q.launch(k, duet::Range(), duet::Range(), data, 2.0f, 16));
       FAILS_WITH(duet::ArgumentError, ({"1 dimension(s)", "global size has 2"}),
                  q.launch(k, duet::Range(4, 4), duet::Range(4), data, 2.0f, 16));
     }},
    {"launch.oversize_group", "groups of 2x the device's maximum; each dimension within it but the product over",
     "ArgumentError naming the group size and the device's maximum",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       const duet::Kernel k = scale_kernel(dev);
       const std::size_t max = dev.info().max_group_size;
       FAILS_WITH(duet::ArgumentError, ({std::to_string(2 * max), std::to_string(max)}),
                  q.launch(k, duet::Range(4 * max), duet::Range(2 * max), data, 2.0f, 16));
       FAILS_WITH(duet::ArgumentError, ({std::to_string(2 * max)}),
                  q.launch(k, duet::Range(max, 4), duet::Range(max, 2), data, 2.0f, 16));
     }},
    {"launch.global_overflow", "launch Range(SIZE_MAX), and Range(16, SIZE_MAX - 1) in groups of 4x4",
     "ArgumentError naming the global size (rounding up to whole groups would wrap around)",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       const duet::Kernel k = scale_kernel(dev);
       FAILS_WITH(duet::ArgumentError, ({std::to_string(kSizeMax)}),
                  q.launch(k, duet::Range(kSizeMax), duet::Range(), data, 2.0f, 16));
       FAILS_WITH(duet::ArgumentError, ({std::to_string(kSizeMax - 1)}),
                  q.launch(k, duet::Range(16, kSizeMax - 1), duet::Range(4, 4), data, 2.0f, 16));
     }},
    {"launch.empty_kernel", "launch a default-constructed Kernel", "ReleasedError: \"the kernel handle is empty\"",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> data(dev, 16);
       FAILS_WITH(duet::ReleasedError, ({"kernel handle is empty"}),
                  q.launch(duet::Kernel(), duet::Range(16), duet::Range(), data, 2.0f, 16));
     }},
    {"launch.native_width", "a native kernel (float a, int n) launched with a double for a, and with 3 arguments",
     "ArgumentError naming the kernel and the argument (native kernels: widths and counts checked where the driver tells)",
     [](const duet::Device& dev) {
       const bool cuda = dev.info().backend == "cuda";
       const char* source = cuda ? "extern \"C\" __global__ void axn(float* x, float a, int n) {\n"
                                   "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }\n"
                                 : "__kernel void axn(__global float* x, float a, int n) {\n"
                                   "  int i = get_global_id(0); if (i < n) x[i] *= a; }\n";
       const duet::Kernel k = dev.compile_native(source, {}, "axn.native").kernel("axn");
       duet::Queue q = dev.queue();
       duet::Buffer<float> x(dev, 8);
       FAILS_WITH(duet::ArgumentError, ({"axn", "argument 2"}), q.launch(k, duet::Range(8), duet::Range(), x, 2.0, 8));
       FAILS_WITH(duet::ArgumentError, ({"axn", "takes 3 arguments"}), q.launch(k, duet::Range(8), duet::Range(), x, 2.0f));
       q.fill(x, 1.0f);
       q.launch(k, duet::Range(8), duet::Range(), x, 4.0f, 8);
       check_equal(q.to_vector(x), std::vector<float>(8, 4.0f), "the native kernel after the errors");
     }},

    // ---- compiles ----
    {"compile.define_name", "compile with a define named \"1X\", and one whose value holds a line break",
     "ArgumentError: \"define name '1X' is not an identifier\"; \"the value of define 'V' contains a line break\"",
     [](const duet::Device& dev) {
       FAILS_WITH(duet::ArgumentError, ({"define name '1X'", "not an identifier"}), dev.compile(kScale, {{"1X", "1"}}, "d.duet"));
       FAILS_WITH(duet::ArgumentError, ({"define 'V'", "line break"}), dev.compile(kScale, {{"V", "1\n2"}}, "d.duet"));
     }},
    {"compile.source_name", "compile with a source name holding a quote, and an empty name",
     "ArgumentError: \"source name ... must be non-empty without quotes\"",
     [](const duet::Device& dev) {
       FAILS_WITH(duet::ArgumentError, ({"source name 'a\"b'"}), dev.compile(kScale, {}, "a\"b"));
       FAILS_WITH(duet::ArgumentError, ({"source name ''"}), dev.compile(kScale, {}, ""));
     }},
    {"compile.error_directive", "a source whose line 2 is #error fault_matrix_stop",
     "CompileError: line() 2, the log holds the #error text",
     [](const duet::Device& dev) {
       const auto e = EXPECT_ERROR(duet::CompileError,
                                   dev.compile("KERNEL void k(GLOBAL int* x) { x[0] = 1; }\n#error fault_matrix_stop\n",
                                               {}, "stop.duet"));
       if (!e) return;
       CHECK(e->line() == 2);
       CHECK_CONTAINS(e->log(), "fault_matrix_stop");
       CHECK(e->source_name() == "stop.duet");
     }},
    {"compile.duplicate_kernel", "a source that defines the kernel twin on line 1 and again on line 2",
     "CompileError at line() 2, the log naming twin",
     [](const duet::Device& dev) {
       const auto e = EXPECT_ERROR(duet::CompileError,
                                   dev.compile("KERNEL void twin(GLOBAL int* x) { x[0] = 1; }\n"
                                               "KERNEL void twin(GLOBAL int* x) { x[0] = 2; }\n",
                                               {}, "twin.duet"));
       if (!e) return;
       CHECK(e->line() == 2);
       CHECK_CONTAINS(e->log(), "twin");
     }},
    {"compile.error_twice", "compile the same broken source twice in a row",
     "CompileError both times (a failed compile is not cached, nothing waits forever)",
     [](const duet::Device& dev) {
       const char* broken = "KERNEL void k(GLOBAL int* x) { x[0] = twice_undeclared_91; }\n";
       FAILS_WITH(duet::CompileError, ({"twice_undeclared_91"}), dev.compile(broken, {}, "twice.duet"));
       FAILS_WITH(duet::CompileError, ({"twice_undeclared_91"}), dev.compile(broken, {}, "twice.duet"));
     }},
    {"compile.native_bad_option", "compile_native with the option -fduet-no-such-option",
     "CompileError whose options() hold the option",
     [](const duet::Device& dev) {
       const bool cuda = dev.info().backend == "cuda";
       const char* source = cuda ? "extern \"C\" __global__ void one(int* x) { x[0] = 1; }\n"
                                 : "__kernel void one(__global int* x) { x[0] = 1; }\n";
       const auto e = EXPECT_ERROR(duet::CompileError, dev.compile_native(source, {"-fduet-no-such-option"}, "opt.native"));
       if (!e) return;
       bool listed = false;
       for (const std::string& o : e->options()) listed = listed || o == "-fduet-no-such-option";
       CHECK_MESSAGE(listed, "options() does not hold the bad option: " << std::string(e->what()));
     }},
    {"compile.kernel_name", "kernel(\"\"), kernel(\"Scale\") and kernel(\"scale\\0x\") of a program that has scale",
     "KernelNotFoundError listing \"scale\" (never the kernel named by the part before a NUL byte)",
     [](const duet::Device& dev) {
       const duet::Program p = dev.compile(kScale, {}, "scale.duet");
       FAILS_WITH(duet::KernelNotFoundError, ({"''", "scale"}), p.kernel(""));
       FAILS_WITH(duet::KernelNotFoundError, ({"'Scale'", "its kernels are: scale"}), p.kernel("Scale"));
       FAILS_WITH(duet::KernelNotFoundError, ({"its kernels are: scale"}), p.kernel(std::string("scale\0x", 7)));
     }},
    {"compile.empty_device", "compile, queue and info on a default-constructed Device",
     "ReleasedError: \"Device handle is empty\"",
     [](const duet::Device&) {
       const duet::Device none;
       FAILS_WITH(duet::ReleasedError, ({"Device handle is empty"}), none.compile(kScale));
       FAILS_WITH(duet::ReleasedError, ({"Device handle is empty"}), none.queue());
       FAILS_WITH(duet::ReleasedError, ({"Device handle is empty"}), none.info());
     }},

    // ---- generators ----
    {"gen.scalar_not_whole", "ElementwiseKernel(\"float x, int k\"): k given NaN and infinity",
     "ArgumentError naming 'int k': \"is not a whole number\"",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::ElementwiseKernel mul(dev, "float x, int k", "float y", "y = x * k", "fault_mul");
       duet::Buffer<float> x(dev, 4), y(dev, 4);
       FAILS_WITH(duet::ArgumentError, ({"'int k'", "not a whole number"}), mul(q, x, kNaN, y));
       FAILS_WITH(duet::ArgumentError, ({"'int k'", "not a whole number"}),
                  mul(q, x, std::numeric_limits<double>::infinity(), y));
     }},
    {"gen.scalar_range", "ElementwiseKernel(\"uchar c, float f\"): c = 300, then f = 1e300",
     "ArgumentError: \"300 (int) is out of the range of uchar\"; the same for float",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::ElementwiseKernel add(dev, "uchar c, float f", "float y", "y = c + f", "fault_range");
       duet::Buffer<float> y(dev, 4);
       FAILS_WITH(duet::ArgumentError, ({"300", "out of the range of uchar"}), add(q, 300, 1.0f, y));
       FAILS_WITH(duet::ArgumentError, ({"out of the range of float"}), add(q, 3, 1e300, y));
     }},
    {"gen.zero_length", "an elementwise kernel and a max reduction over arrays of 0 elements",
     "works: nothing runs; the reduction returns its identity (-INFINITY)",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::ElementwiseKernel twice(dev, "float x", "float y", "y = 2 * x", "fault_twice");
       duet::Buffer<float> x(dev, 0), y(dev, 0);
       twice(q, x, y).wait();
       duet::ReductionKernel max(dev, "float", "float x", "x", "fmax(a, b)", "-INFINITY", "fault_max");
       const float m = max.reduce<float>(q, x);
       CHECK(std::isinf(m));
       CHECK(m < 0);
     }},
    {"gen.empty_handle", "call a default-constructed ElementwiseKernel and ReductionKernel",
     "ReleasedError naming the kernel class",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> x(dev, 4), y(dev, 4);
       FAILS_WITH(duet::ReleasedError, ({"ElementwiseKernel"}), duet::ElementwiseKernel()(q, x, y));
       FAILS_WITH(duet::ReleasedError, ({"ReductionKernel"}), duet::ReductionKernel().reduce<float>(q, x));
     }},
    {"gen.released_input", "a released buffer as a reduction's input and as an elementwise output",
     "ReleasedError",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> x(dev, 4), gone(dev, 4);
       gone.release();
       duet::ReductionKernel sum(dev, "float", "float x", "x", "a + b", "0", "fault_sum");
       FAILS_WITH(duet::ReleasedError, ({"released"}), sum.reduce<float>(q, gone));
       duet::ElementwiseKernel copy(dev, "float x", "float y", "y = x", "fault_copy");
       FAILS_WITH(duet::ReleasedError, ({"released"}), copy(q, x, gone));
     }},
    {"gen.bad_result", "reduce<double> and reduce_into a Buffer<int> of a float reduction",
     "ArgumentError naming reduce<float> / the result type",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> x(dev, 4);
       duet::Buffer<int> out(dev, 1);
       duet::ReductionKernel sum(dev, "float", "float x", "x", "a + b", "0", "fault_sum");
       FAILS_WITH(duet::ArgumentError, ({"reduce<float>"}), sum.reduce<double>(q, x));
       FAILS_WITH(duet::ArgumentError, ({"float"}), sum.reduce_into(q, out, x));
     }},

    // ---- released and moved-from handles ----
    {"handle.released_buffer", "fill, write, read, copy, launch and vector_add with a released buffer",
     "ReleasedError: \"released or moved from\"",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> ok(dev, 8), ok2(dev, 8), b(dev, 8);
       const std::vector<float> eight(8, 1.0f);
       std::vector<float> out(8);
       b.release();
       CHECK_FALSE(b.valid());
       FAILS_WITH(duet::ReleasedError, ({"released or moved from"}), q.fill(b, 1.0f));
       FAILS_WITH(duet::ReleasedError, ({"destination buffer"}), q.write(b, eight));
       FAILS_WITH(duet::ReleasedError, ({"source buffer"}), q.read(b, duet::Span<float>(out)));
       FAILS_WITH(duet::ReleasedError, ({"released"}), q.copy(ok, 0, b, 0, 8));
       FAILS_WITH(duet::ReleasedError, ({"released"}), q.copy(b, 0, ok, 0, 8));
       FAILS_WITH(duet::ReleasedError, ({"released"}), duet::vector_add(q, b, ok, ok2));
       FAILS_WITH(duet::ReleasedError, ({"released"}), duet::vector_add(q, ok, ok2, b));
       FAILS_WITH(duet::ReleasedError, ({"kernel argument"}),
                  q.launch(scale_kernel(dev), duet::Range(8), duet::Range(), b, 2.0f, 8));
       FAILS_WITH(duet::ReleasedError, ({"released"}), q.map(b));
     }},
    {"handle.moved_buffer", "write, fill, read, view, multiply and launch with a Buffer moved into another",
     "ReleasedError; the buffer moved into works",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 8);
       duet::Buffer<float> taken = std::move(b);
       const std::vector<float> eight(8, 1.0f);
       duet::Buffer<float> ok(dev, 8), ok2(dev, 8);
       FAILS_WITH(duet::ReleasedError, ({"released or moved from"}), q.write(b, eight));
       FAILS_WITH(duet::ReleasedError, ({"released"}), q.fill(b, 1.0f));
       FAILS_WITH(duet::ReleasedError, ({"released"}), q.to_vector(b));
       FAILS_WITH(duet::ReleasedError, ({"released"}), b.view(0, 1));
       FAILS_WITH(duet::ReleasedError, ({"released"}), duet::multiply(q, ok, b, ok2));
       FAILS_WITH(duet::ReleasedError, ({"kernel argument"}),
                  q.launch(scale_kernel(dev), duet::Range(8), duet::Range(), b, 2.0f, 8));
       q.fill(taken, 4.0f);
       check_equal(q.to_vector(taken), std::vector<float>(8, 4.0f), "the buffer moved into");
     }},
    {"handle.released_queue", "finish, record, write, read, fill, vector_add, launch on a released Queue; finish on a moved-from one",
     "ReleasedError: \"the queue was released\"",
     [](const duet::Device& dev) {
       duet::Buffer<float> b(dev, 8);
       const std::vector<float> eight(8, 1.0f);
       duet::Queue r = dev.queue();
       r.release();
       CHECK_FALSE(r.valid());
       FAILS_WITH(duet::ReleasedError, ({"queue was released"}), r.finish());
       FAILS_WITH(duet::ReleasedError, ({"queue was released"}), r.record());
       FAILS_WITH(duet::ReleasedError, ({"queue was released"}), r.write(b, eight));
       std::vector<float> out(8);
       FAILS_WITH(duet::ReleasedError, ({"queue was released"}), r.read(b, duet::Span<float>(out)));
       duet::Buffer<float> b2(dev, 8), b3(dev, 8);
       FAILS_WITH(duet::ReleasedError, ({"queue was released"}), duet::vector_add(r, b, b2, b3));
       FAILS_WITH(duet::ReleasedError, ({"queue was released"}), r.fill(b, 1.0f));
       FAILS_WITH(duet::ReleasedError, ({"queue was released"}),
                  r.launch(scale_kernel(dev), duet::Range(8), duet::Range(), b, 2.0f, 8));
       duet::Queue from = dev.queue();
       duet::Queue to = std::move(from);
       FAILS_WITH(duet::ReleasedError, ({"queue was released"}), from.finish());
       to.fill(b, 1.0f);
       to.finish();
     }},
    {"handle.released_program", "kernel() and kernel_names() of a released Program; a kernel taken before",
     "ReleasedError; the kernel taken before still works",
     [](const duet::Device& dev) {
       duet::Program p = dev.compile(kScale, {}, "scale.duet");
       const duet::Kernel kept = p.kernel("scale");
       p.release();
       FAILS_WITH(duet::ReleasedError, ({"program was released"}), p.kernel("scale"));
       FAILS_WITH(duet::ReleasedError, ({"program was released"}), p.kernel_names());
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 8);
       q.fill(b, 2.0f);
       q.launch(kept, duet::Range(8), duet::Range(), b, 2.0f, 8);
       check_equal(q.to_vector(b), std::vector<float>(8, 4.0f), "kernel of a released program");
     }},
    {"handle.free_now_shared", "free_now() on a buffer a view still uses; then after the view is gone",
     "ArgumentError: \"other handle(s)\", the memory stays; then works",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> b(dev, 8);
       {
         const duet::BufferView<float> v = b.view(0, 4);
         FAILS_WITH(duet::ArgumentError, ({"1 other handle(s)"}), b.free_now());
         CHECK(b.valid());
         q.fill(v, 1.0f);
         q.finish();
       }
       b.free_now();
       CHECK_FALSE(b.valid());
     }},
    {"handle.release_in_flight", "release a buffer right after enqueuing a kernel and a read on it",
     "works: the read gets the kernel's result, nothing is freed under the device",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       std::vector<float> out(4096);
       {
         duet::Buffer<float> b(dev, out.size());
         q.fill(b, 3.0f);
         q.launch(scale_kernel(dev), duet::Range(out.size()), duet::Range(), b, 2.0f, static_cast<int>(out.size()));
         q.read(b, duet::Span<float>(out));
         b.release();
       }
       q.finish();
       check_equal(out, std::vector<float>(out.size(), 6.0f), "read of a buffer released in flight");
     }},
    {"handle.mapped_then_released", "map a buffer, release the buffer handle, write through the mapping, unmap",
     "works: the mapping keeps the memory; a view kept reads the writes",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<int> b(dev, 8);
       const duet::BufferView<int> kept = b.view(0, 8);
       duet::Mapped<int> m = q.map(b, duet::MapAccess::write);
       b.release();
       for (int& v : m) v = 9;
       m.unmap();
       check_equal(q.to_vector(kept), std::vector<int>(8, 9), "written through the mapping");
     }},

    // ---- threads ----
    {"thread.release_while_queue_busy",
     "thread A launches 200 kernels on a shared queue while thread B allocates, fills and releases buffers on it",
     "works: A's result exact, no crash",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       const duet::Kernel k = scale_kernel(dev);
       duet::Buffer<float> a(dev, 256);
       q.fill(a, 1.0f);
       check_threads(on_threads(2, [&](int t) -> std::string {
         if (t == 0) {
           for (int i = 0; i < 200; ++i) q.launch(k, duet::Range(256), duet::Range(), a, i % 2 ? 0.5f : 2.0f, 256);
         } else {
           for (int i = 0; i < 100; ++i) {
             duet::Buffer<float> tmp(dev, 1024);
             q.fill(tmp, static_cast<float>(i));
             tmp.release();
           }
         }
         return {};
       }));
       check_equal(q.to_vector(a), std::vector<float>(256, 1.0f), "100 doublings and 100 halvings");
     }},
    {"thread.device_many_threads", "8 threads on one Device: each allocates, compiles, launches and reads on its own queue",
     "works: every thread's result exact",
     [](const duet::Device& dev) {
       check_threads(on_threads(8, [&](int t) -> std::string {
         duet::Queue q = dev.queue();
         duet::Buffer<float> b(dev, 1000);
         q.fill(b, static_cast<float>(t));
         q.launch(scale_kernel(dev), duet::Range(1000), duet::Range(), b, 3.0f, 1000);
         const std::vector<float> got = q.to_vector(b);
         for (float v : got)
           if (v != 3.0f * static_cast<float>(t)) return "got " + std::to_string(v);
         return {};
       }));
     }},
    {"thread.compile_same_source", "8 threads compile one source no one compiled before, at the same moment",
     "works: compiled once, every thread gets the same kernel",
     [](const duet::Device& dev) {
       const duet::Defines salt = {{"SALT", std::to_string(test_seed() % 100000)}};
       const char* source = "KERNEL void salted(GLOBAL int* x) { x[0] = SALT; }\n";
       std::vector<duet::Kernel> kernels(8);
       check_threads(on_threads(8, [&](int t) -> std::string {
         kernels[static_cast<std::size_t>(t)] = dev.compile(source, salt, "salted.duet").kernel("salted");
         return {};
       }));
       for (const duet::Kernel& kernel : kernels) CHECK(kernel == kernels[0]);
     }},
    {"thread.compile_error_many_threads", "8 threads compile one broken source at the same moment",
     "CompileError in every thread (none hangs waiting for another's failed compile)",
     [](const duet::Device& dev) {
       const duet::Defines salt = {{"SALT", std::to_string(test_seed() % 100000)}};
       const char* source = "KERNEL void salted(GLOBAL int* x) { x[0] = SALT + threads_undeclared_52; }\n";
       check_threads(on_threads(8, [&](int) -> std::string {
         try {
           dev.compile(source, salt, "broken_threads.duet");
         } catch (const duet::CompileError& e) {
           return contains(e.log(), "threads_undeclared_52") ? "" : "the log does not name the error";
         }
         return "compiled a broken source";
       }));
     }},
    {"thread.shared_queue_errors", "4 threads share a queue, each alternating a wrong launch and a right one",
     "ArgumentError for every wrong launch; every right result exact",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       const duet::Kernel k = scale_kernel(dev);
       check_threads(on_threads(4, [&](int t) -> std::string {
         duet::Buffer<float> b(dev, 64);
         q.fill(b, 1.0f);
         for (int i = 0; i < 20; ++i) {
           try {
             q.launch(k, duet::Range(64), duet::Range(), b, 2.0, 64);  // a double for float factor
             return "a wrong launch was accepted";
           } catch (const duet::ArgumentError&) {
           }
           q.launch(k, duet::Range(64), duet::Range(), b, 1.0f, 64);
         }
         q.launch(k, duet::Range(64), duet::Range(), b, static_cast<float>(t + 1), 64);
         std::vector<float> got(64);
         q.read(b, duet::Span<float>(got));
         q.finish();
         for (float v : got)
           if (v != static_cast<float>(t + 1)) return "got " + std::to_string(v);
         return {};
       }));
     }},

#ifdef DUET_HAVE_DLPACK
    // ---- DLPack ----
    {"dlpack.null_data", "from_dlpack of a 4-element tensor whose data is null",
     "ArgumentError: \"the tensor's data is null\"; deleter not called",
     [](const duet::Device& dev) {
       duet::Buffer<float> memory(dev, 4);
       Tensor t(dev, memory.raw(), {4});
       t.managed.dl_tensor.data = nullptr;
       FAILS_WITH(duet::ArgumentError, ({"data is null"}), duet::from_dlpack<float>(dev, &t.managed));
       CHECK(t.deleted == 0);
     }},
    {"dlpack.bad_shape", "from_dlpack of a tensor with ndim -1, with ndim 1 and no shape, with an extent of -3",
     "ArgumentError naming ndim / the shape / the extent; deleter not called",
     [](const duet::Device& dev) {
       duet::Buffer<float> memory(dev, 4);
       Tensor t(dev, memory.raw(), {4});
       t.managed.dl_tensor.ndim = -1;
       FAILS_WITH(duet::ArgumentError, ({"negative ndim"}), duet::from_dlpack<float>(dev, &t.managed));
       t.managed.dl_tensor.ndim = 1;
       t.managed.dl_tensor.shape = nullptr;
       FAILS_WITH(duet::ArgumentError, ({"no shape"}), duet::from_dlpack<float>(dev, &t.managed));
       t.managed.dl_tensor.shape = t.shape.data();
       t.shape[0] = -3;
       FAILS_WITH(duet::ArgumentError, ({"extent 0 is negative"}), duet::from_dlpack<float>(dev, &t.managed));
       CHECK(t.deleted == 0);
     }},
    {"dlpack.import_overflow", "from_dlpack of a tensor of shape {2^32, 2^32, 2}: its element count wraps to 0",
     "ArgumentError: \"has more than\" and the shape, never an empty buffer; deleter not called",
     [](const duet::Device& dev) {
       duet::Buffer<float> memory(dev, 4);
       Tensor t(dev, memory.raw(), {1ll << 32, 1ll << 32, 2});
       FAILS_WITH(duet::ArgumentError, ({"has more than", "{4294967296, 4294967296, 2}"}), duet::from_dlpack<float>(dev, &t.managed));
       CHECK(t.deleted == 0);
     }},
    {"dlpack.export_overflow", "to_dlpack(buffer of 4, shape {2^32, 2^32}): the shape's element count wraps to 0",
     "BufferSizeError: \"does not fit\"; the buffer stays with the caller",
     [](const duet::Device& dev) {
       duet::Buffer<float> b(dev, 4);
       FAILS_WITH(duet::BufferSizeError, ({"does not fit"}), duet::to_dlpack(std::move(b), {1ll << 32, 1ll << 32}));
       CHECK(b.valid());
     }},
    {"dlpack.no_deleter", "from_dlpack of a tensor whose deleter is null; the buffer used and dropped",
     "works: the data reads back, nothing is called when the buffer goes",
     [](const duet::Device& dev) {
       duet::Queue q = dev.queue();
       duet::Buffer<float> memory(dev, 4);
       q.fill(memory, 2.5f);
       Tensor t(dev, memory.raw(), {2, 2});
       t.managed.deleter = nullptr;
       {
         duet::Buffer<float> b = duet::from_dlpack<float>(dev, &t.managed);
         check_equal(q.to_vector(b), std::vector<float>(4, 2.5f), "imported without a deleter");
       }
       CHECK(t.deleted == 0);
     }},
#endif
};
// clang-format on

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("fault matrix: every case on every device") {
  for_each_device([](const duet::Device& dev) {
    for (const Fault& f : kFaults) {
      SUBCASE(f.id) {
        INFO("case ", std::string(f.id), ": ", std::string(f.does), "; expected: ", std::string(f.expected));
        f.run(dev);
        check_still_works(dev);
      }
    }
  });
}

TEST_SUITE_END();
