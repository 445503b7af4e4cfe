// What the complex array tests share: the dtype of a std::complex type, random values, and running
// a test body for complex64 and (where the device has double) complex128.
#pragma once

#include <doctest/doctest.h>

#include <complex>
#include <duet/arrays.hpp>
#include <duet/duet.hpp>
#include <random>
#include <type_traits>
#include <vector>

template <class C>
constexpr duet::ScalarType complex_dtype() {
  return std::is_same_v<C, std::complex<float>> ? duet::ScalarType::c64 : duet::ScalarType::c128;
}

// Real and imaginary parts uniform in [-scale, scale].
template <class C>
std::vector<C> random_complex(std::mt19937_64& rng, std::size_t n, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<C> v(n);
  for (C& z : v)
    z = C(static_cast<typename C::value_type>(u(rng)), static_cast<typename C::value_type>(u(rng)));
  return v;
}

// body(q, std::complex<float>{}), then body(q, std::complex<double>{}) where the device has double;
// where it has not, a complex128 array is refused with a typed error.
template <class Body>
void for_each_complex(const duet::Device& dev, Body body) {
  duet::Queue q = dev.queue();
  body(q, std::complex<float>{});
  if (dev.info().supports_double) {
    body(q, std::complex<double>{});
  } else {
    CHECK_THROWS_AS(duet::empty(dev, {3}, duet::ScalarType::c128), duet::ArgumentError);
  }
}
