// Buffers and queues on every device: fill, write, read and copy round trips with offsets, element
// types of 1 to 8 bytes, events, and device information that round-trips through Device::open.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <duet/duet.hpp>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

// Whether q.write(buffer, host) compiles for a host argument of type H.
template <class B, class H, class = void>
struct can_write : std::false_type {};
template <class B, class H>
struct can_write<B, H, std::void_t<decltype(std::declval<duet::Queue&>().write(std::declval<B>(), std::declval<H>()))>>
    : std::true_type {};

// A write only enqueues, so a temporary vector would be destroyed before the copy reads it: refused
// at compile time, for buffers and views; named vectors and spans are fine.
static_assert(!can_write<duet::Buffer<float>&, std::vector<float>&&>::value);
static_assert(!can_write<duet::BufferView<float>, std::vector<float>&&>::value);
static_assert(can_write<duet::Buffer<float>&, const std::vector<float>&>::value);
static_assert(can_write<duet::Buffer<float>&, std::vector<float>&>::value);
static_assert(can_write<duet::BufferView<float>, duet::Span<const float>>::value);

}  // namespace

namespace {

template <class T>
void fill_write_read_roundtrip(const duet::Device& dev, T fill_value, T first) {
  duet::Queue q = dev.queue();
  const std::size_t n = 1031;
  duet::Buffer<T> b(dev, n);
  CHECK(b.size() == n);
  CHECK(b.bytes() == n * sizeof(T));
  CHECK(b.valid());
  CHECK(b.device() == dev);
  CHECK(decltype(b)::element_type() == duet::scalar_type_of<T>());

  q.fill(b, fill_value);
  std::vector<T> want(n, fill_value);
  check_equal(q.to_vector(b), want, "after fill");

  // Write 100 elements at offset 17, read back all.
  std::vector<T> part(100);
  for (std::size_t i = 0; i < part.size(); ++i) part[i] = static_cast<T>(first + static_cast<T>(i));
  q.write(b, part, 17);
  std::copy(part.begin(), part.end(), want.begin() + 17);
  check_equal(q.to_vector(b), want, "after write at offset 17");

  // Read 10 elements from offset 110: 7 written ones, then 3 filled ones.
  std::vector<T> ten(10);
  q.read(b, ten, 110);
  q.finish();
  check_equal(ten, std::vector<T>(want.begin() + 110, want.begin() + 120), "read at offset 110");

  // Last element alone, at the very end.
  std::vector<T> last(1);
  q.read(b, last, n - 1);
  q.finish();
  CHECK(last[0] == fill_value);
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("fill, write and read with offsets for element types of 1, 2, 4 and 8 bytes") {
  for_each_device([](const duet::Device& dev) {
    SUBCASE("float") { fill_write_read_roundtrip<float>(dev, -2.5f, 0.25f); }
    SUBCASE("int") { fill_write_read_roundtrip<int>(dev, 0x12345678, -40); }
    SUBCASE("uint8") { fill_write_read_roundtrip<std::uint8_t>(dev, 0xAB, 3); }
    SUBCASE("int16") { fill_write_read_roundtrip<std::int16_t>(dev, -12345, 100); }
    SUBCASE("uint32") { fill_write_read_roundtrip<std::uint32_t>(dev, 0xDEADBEEFu, 7u); }
    SUBCASE("int64") { fill_write_read_roundtrip<std::int64_t>(dev, -0x123456789abcLL, 1LL << 40); }
    SUBCASE("double") { fill_write_read_roundtrip<double>(dev, 1.0 / 3.0, -1e300); }
  });
}

TEST_CASE("copy whole buffers and ranges with offsets") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    std::vector<int> src_host(300);
    std::iota(src_host.begin(), src_host.end(), 1000);
    duet::Buffer<int> src(dev, 300), dst(dev, 500);
    q.write(src, src_host);
    q.fill(dst, -1);

    // All of src into the start of a larger dst.
    q.copy(src, dst);
    std::vector<int> want(500, -1);
    std::copy(src_host.begin(), src_host.end(), want.begin());
    check_equal(q.to_vector(dst), want, "after whole copy");

    // 50 elements from src[10] to dst[420].
    q.copy(src, 10, dst, 420, 50);
    std::copy(src_host.begin() + 10, src_host.begin() + 60, want.begin() + 420);
    check_equal(q.to_vector(dst), want, "after ranged copy");
    check_equal(q.to_vector(src), src_host, "source unchanged");

    // A copy of a single element at both ends.
    q.copy(src, 299, dst, 499, 1);
    want[499] = src_host[299];
    check_equal(q.to_vector(dst), want, "after single-element copy");
  });
}

TEST_CASE("fill_bytes with an offset and a 16-byte pattern") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<float> b(dev, 64);
    q.fill(b, 0.0f);
    const float pattern[4] = {1, 2, 3, 4};
    q.fill_bytes(b.raw(), 16 * sizeof(float), 8 * sizeof(float), pattern, sizeof(pattern));
    std::vector<float> want(64, 0.0f);
    for (std::size_t i = 16; i < 24; ++i) want[i] = pattern[i % 4];
    check_equal(q.to_vector(b), want, "after fill_bytes");
  });
}

TEST_CASE("write from a pointer span, read into a std::array, and moved buffers keep their data") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const float host[5] = {1.5f, -2.0f, 3.25f, 0.0f, 9.0f};
    duet::Buffer<float> a(dev, 5);
    q.write(a, duet::Span<const float>(host, 5));
    duet::Buffer<float> b = std::move(a);  // the device memory moves with the handle
    CHECK_FALSE(a.valid());
    CHECK(a.size() == 0);
    CHECK(b.valid());
    CHECK(b.size() == 5);
    std::array<float, 5> out{};
    q.read(b, out);
    q.finish();
    for (int i = 0; i < 5; ++i) CHECK(out[static_cast<std::size_t>(i)] == host[i]);
  });
}

TEST_CASE("events: record, wait and elapsed time") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::size_t n = 1 << 16;
    duet::Buffer<float> a(dev, n), b(dev, n), c(dev, n);
    q.fill(a, 1.0f);
    q.fill(b, 2.0f);
    const duet::Event start = q.record();
    duet::vector_add(q, a, b, c);
    const duet::Event end = q.record();
    CHECK(start.valid());
    CHECK(end.valid());
    end.wait();
    const double ms = duet::elapsed_ms(start, end);
    CHECK(ms >= 0.0);
    CHECK(ms < 60000.0);
    check_equal(q.to_vector(c), std::vector<float>(n, 3.0f), "c after event wait");
  });
}

TEST_CASE("device info is filled in and open(id) finds the same device") {
  for_each_device([](const duet::Device& dev) {
    const duet::DeviceInfo& info = dev.info();
    CHECK_FALSE(info.name.empty());
    CHECK((info.backend == "cuda" || info.backend == "opencl"));
    CHECK(info.max_group_size > 0);
    CHECK(info.memory_bytes > 0);
    CHECK(info.max_alloc_bytes > 0);
    CHECK(info.max_alloc_bytes <= info.memory_bytes);
    CHECK(info.compute_units > 0);
    CHECK(info.local_memory_bytes > 0);
    const duet::Device again = duet::Device::open(info.id());
    CHECK(again.info().id() == info.id());
    CHECK(again.info().name == info.name);

    // By backend name with a name substring, and through DUET_BACKEND / DUET_DEVICE.
    const duet::Device by_name = duet::Device::open(info.backend + ":" + info.name);
    CHECK(by_name.info().backend == info.backend);
    CHECK(by_name.info().name == info.name);
    {
      EnvGuard backend("DUET_BACKEND", info.backend.c_str());
      EnvGuard device("DUET_DEVICE", std::to_string(info.index).c_str());
      CHECK(duet::Device::open().info().id() == info.id());
    }
  });
}

TEST_SUITE_END();
