// A minimal contiguous view (C++17 has no std::span): pointer plus element count, built from
// std::vector, std::array, C arrays or a pointer and a length. It never owns memory.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace duet {

template <class T>
class Span {
 public:
  constexpr Span() noexcept = default;
  constexpr Span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  template <class U, class A,
            class = std::enable_if_t<std::is_convertible_v<U (*)[], T (*)[]>>>
  Span(std::vector<U, A>& v) noexcept : data_(v.data()), size_(v.size()) {}
  template <class U, class A,
            class = std::enable_if_t<std::is_convertible_v<const U (*)[], T (*)[]>>>
  Span(const std::vector<U, A>& v) noexcept : data_(v.data()), size_(v.size()) {}
  template <class U, std::size_t N,
            class = std::enable_if_t<std::is_convertible_v<U (*)[], T (*)[]>>>
  constexpr Span(std::array<U, N>& a) noexcept : data_(a.data()), size_(N) {}
  template <class U, std::size_t N,
            class = std::enable_if_t<std::is_convertible_v<const U (*)[], T (*)[]>>>
  constexpr Span(const std::array<U, N>& a) noexcept : data_(a.data()), size_(N) {}
  template <std::size_t N>
  constexpr Span(T (&a)[N]) noexcept : data_(a), size_(N) {}
  template <class U, class = std::enable_if_t<std::is_convertible_v<U (*)[], T (*)[]>>>
  constexpr Span(const Span<U>& s) noexcept : data_(s.data()), size_(s.size()) {}

  constexpr T* data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return size_; }
  constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }
  constexpr T* begin() const noexcept { return data_; }
  constexpr T* end() const noexcept { return data_ + size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace duet
