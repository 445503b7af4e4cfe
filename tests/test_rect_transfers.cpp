// Strided 2D transfers (Queue::write_rect, read_rect) on every device: blocks of awkward shapes,
// pitches and offsets on both sides, through buffers and views, against the same block moved element
// by element on the host, with every element outside the block poisoned beforehand so that a stray
// or missing write fails.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <duet/duet.hpp>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

struct RectCase {
  std::size_t width, rows;
  duet::Pitched in_buffer, in_host;
  std::size_t buffer_size, host_size;
};

// Shapes a pack kernel would otherwise serve: one element, one row, a column strip along a
// matrix's right edge whose last row ends at the buffer's last element, rows of a prime width,
// a contiguous block, and a host side with rows of its own pitch.
std::vector<RectCase> rect_cases() {
  return {
      {1, 1, {0, 0}, {0, 0}, 1, 1},
      {13, 1, {5, 0}, {2, 0}, 29, 17},
      {1, 97, {3, 13}, {0, 1}, 97 * 13, 97},
      {6, 61, {101 - 6, 101}, {0, 6}, 61 * 101, 61 * 6},
      {7, 31, {5 + 2 * 101, 101}, {3, 11}, 40 * 101, 3 + 31 * 11},
      {64, 3, {0, 64}, {0, 64}, 192, 192},
      {17, 5, {1, 17}, {4, 23}, 5 * 17 + 1, 4 + 5 * 23},
  };
}

// Calls f(position in the buffer, position in host memory) for each element of the block.
template <class F>
void for_each_cell(const RectCase& c, F&& f) {
  for (std::size_t r = 0; r < c.rows; ++r)
    for (std::size_t x = 0; x < c.width; ++x)
      f(c.in_buffer.offset + r * c.in_buffer.pitch + x, c.in_host.offset + r * c.in_host.pitch + x);
}

template <class T>
T value_of(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(std::uniform_real_distribution<double>(-100.0, 100.0)(rng));
  else
    return static_cast<T>(std::uniform_int_distribution<int>(-30000, 30000)(rng));
}

template <class T>
T poison() {
  if constexpr (std::is_floating_point_v<T>)
    return std::numeric_limits<T>::quiet_NaN();
  else
    return std::numeric_limits<T>::min();
}

// Compares bit patterns, so that a poisoned NaN left in place matches the expected poison.
template <class T>
void check_bits(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  std::vector<std::uint64_t> g(got.size()), w(want.size());
  for (std::size_t i = 0; i < got.size(); ++i) std::memcpy(&g[i], &got[i], sizeof(T));
  for (std::size_t i = 0; i < want.size(); ++i) std::memcpy(&w[i], &want[i], sizeof(T));
  check_equal(g, w, what);
}

template <class T>
void rect_round_trips(const duet::Device& dev, bool through_view) {
  duet::Queue q = dev.queue();
  std::mt19937_64 rng = make_rng("rect transfers", sizeof(T) + (through_view ? 100 : 0));
  const std::size_t view_at = through_view ? 37 : 0;  // a view starts this many elements in
  for (const RectCase& c : rect_cases()) {
    INFO("block ", c.width, " x ", c.rows, ", buffer offset ", c.in_buffer.offset, " pitch ",
         c.in_buffer.pitch, ", host offset ", c.in_host.offset, " pitch ", c.in_host.pitch, ", view ",
         through_view);
    duet::Buffer<T> whole(dev, c.buffer_size + view_at);
    duet::BufferView<T> view = whole.view(view_at, c.buffer_size);

    // write_rect: the host block lands in the poisoned buffer; nothing else changes.
    std::vector<T> host(c.host_size), want(c.buffer_size, poison<T>());
    for (T& v : host) v = value_of<T>(rng);
    q.fill(whole, poison<T>());
    if (through_view)
      q.write_rect(view, c.in_buffer, duet::Span<const T>(host), c.in_host, {c.width, c.rows});
    else
      q.write_rect(whole, c.in_buffer, duet::Span<const T>(host), c.in_host, {c.width, c.rows});
    for_each_cell(c, [&](std::size_t b, std::size_t h) { want[b] = host[h]; });
    check_bits(q.to_vector(view), want, "after write_rect");

    // read_rect: the buffer's block lands in poisoned host memory; nothing else changes.
    std::vector<T> device_values(c.buffer_size);
    for (T& v : device_values) v = value_of<T>(rng);
    q.write(view, duet::Span<const T>(device_values));
    std::vector<T> got(c.host_size, poison<T>()), expected(c.host_size, poison<T>());
    if (through_view)
      q.read_rect(view, c.in_buffer, duet::Span<T>(got), c.in_host, {c.width, c.rows});
    else
      q.read_rect(whole, c.in_buffer, duet::Span<T>(got), c.in_host, {c.width, c.rows});
    q.finish();
    for_each_cell(c, [&](std::size_t b, std::size_t h) { expected[h] = device_values[b]; });
    check_bits(got, expected, "after read_rect");
  }
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("write_rect and read_rect move exactly the block, for buffers and views") {
  for_each_device([](const duet::Device& dev) {
    SUBCASE("float") { rect_round_trips<float>(dev, false); }
    SUBCASE("float through a view") { rect_round_trips<float>(dev, true); }
    SUBCASE("int16") { rect_round_trips<std::int16_t>(dev, false); }
    SUBCASE("double through a view") { rect_round_trips<double>(dev, true); }
  });
}

TEST_CASE("a rect transfer of a column strip feeds the next one (queue order)") {
  // A strip read from one matrix's east edge and written into another's west halo, as a halo
  // exchange does without pack kernels, on one queue with no finish between the steps.
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const std::size_t nx = 53, ny = 41, w = 3;
    std::mt19937_64 rng = make_rng("rect strip");
    const std::vector<float> a_host = random_floats(rng, nx * ny);
    duet::Buffer<float> a(dev, nx * ny), b(dev, nx * ny);
    q.write(a, a_host);
    q.fill(b, std::numeric_limits<float>::quiet_NaN());
    std::vector<float> strip(w * ny, std::numeric_limits<float>::quiet_NaN());
    q.read_rect(a, {nx - w, nx}, duet::Span<float>(strip), {0, w}, {w, ny});
    q.write_rect(b, {0, nx}, duet::Span<const float>(strip), {0, w}, {w, ny});
    const std::vector<float> got = q.to_vector(b);
    std::vector<float> want(nx * ny, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t y = 0; y < ny; ++y)
      for (std::size_t x = 0; x < w; ++x) want[y * nx + x] = a_host[y * nx + nx - w + x];
    check_bits(got, want, "west halo of b");
  });
}

TEST_CASE("empty rect blocks do nothing, and one row needs no pitch") {
  // The refused layouts are rows of the fault matrix (transfer.rect_*).
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<float> b(dev, 100);
    std::vector<float> host(100, 0.0f);
    q.write_rect(b, {1000, 0}, duet::Span<const float>(host), {1000, 0}, {0, 7});
    q.read_rect(b, {1000, 0}, duet::Span<float>(host), {0, 0}, {7, 0});
    q.fill(b, 1.0f);
    q.write_rect(b, {90, 0}, duet::Span<const float>(host), {0, 0}, {10, 1});
    std::vector<float> want(100, 1.0f);
    for (std::size_t i = 90; i < 100; ++i) want[i] = 0.0f;
    check_equal(q.to_vector(b), want, "one row without a pitch");
  });
}
