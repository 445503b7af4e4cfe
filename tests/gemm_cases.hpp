// The case runner that the gemm tests share (test_gemm.cpp, test_gemm_bfloat16.cpp): one product
// described by a GemmCase (ops, sizes, alpha and beta, padded leading dimensions, views at element
// offsets, a batch with gaps or a broadcast B, the options), run on a device with every element of
// the operands' buffers outside the matrices poisoned by NaN (a padding element read into a sum
// shows as NaN) and C poisoned too when beta == 0 (which must not propagate), then checked against
// a double-precision reference of the stored values, element by element, under the tolerance the
// calling test gives; every element of C's buffer outside C must stay poisoned.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <limits>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace gemm_cases {

// Element traits: conversions, the poison, the arithmetic's unit roundoff, the storage rounding.
template <class T>
struct Elem;
template <>
struct Elem<float> {
  using Scalar = float;
  static float from(double x) { return static_cast<float>(x); }
  static double to(float x) { return x; }
  static float poison() { return std::numeric_limits<float>::quiet_NaN(); }
  static constexpr double u = 1.0 / (1 << 24);
  static constexpr double store_u = 0.0;
  static constexpr const char* name = "float";
};
template <>
struct Elem<double> {
  using Scalar = double;
  static double from(double x) { return x; }
  static double to(double x) { return x; }
  static double poison() { return std::numeric_limits<double>::quiet_NaN(); }
  static constexpr double u = 1.0 / 9007199254740992.0;  // 2^-53
  static constexpr double store_u = 0.0;
  static constexpr const char* name = "double";
};
template <>
struct Elem<duet::half> {
  using Scalar = float;
  static duet::half from(double x) { return duet::half::from_float(static_cast<float>(x)); }
  static double to(duet::half x) { return x.to_float(); }
  static duet::half poison() { return duet::half{0x7e00}; }
  static constexpr double u = 1.0 / (1 << 24);        // float arithmetic
  static constexpr double store_u = 1.0 / (1 << 11);  // one rounding to half
  static constexpr const char* name = "half";
};
template <>
struct Elem<duet::bfloat16> {
  using Scalar = float;
  static duet::bfloat16 from(double x) { return duet::bfloat16::from_float(static_cast<float>(x)); }
  static double to(duet::bfloat16 x) { return x.to_float(); }
  static duet::bfloat16 poison() { return duet::bfloat16{0x7fc0}; }  // a quiet NaN
  static constexpr double u = 1.0 / (1 << 24);       // float arithmetic
  static constexpr double store_u = 1.0 / (1 << 8);  // one rounding to bfloat16
  static constexpr const char* name = "bfloat16";
};

template <class T>
bool is_poison(T x) {
  return std::isnan(Elem<T>::to(x));
}

struct GemmCase {
  std::string label;
  duet::Op op_a, op_b;
  std::size_t M, N, K;
  double alpha = 1.0, beta = 0.0;
  std::size_t pad_a = 0, pad_b = 0, pad_c = 0;  // ld = stored row width + pad
  std::size_t off_a = 0, off_b = 0, off_c = 0;  // views start this many elements in
  std::size_t batch = 0;                        // 0: gemm(); else gemm_strided_batched
  std::size_t gap = 0;                          // extra elements between a batch's matrices
  bool broadcast_b = false;                     // stride_b = 0: one B for the whole batch
  duet::GemmOptions options = {};
  // Relative error of each product from rounding the inputs inside the kernel (TF32: 2 2^-11).
  double input_u = 0.0;
};

inline std::string describe(const GemmCase& c) {
  std::string s = c.label + ": op_a " + duet::to_string(c.op_a) + ", op_b " + duet::to_string(c.op_b) + ", " +
                  std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) + ", alpha " +
                  std::to_string(c.alpha) + ", beta " + std::to_string(c.beta) + ", pads " +
                  std::to_string(c.pad_a) + "/" + std::to_string(c.pad_b) + "/" + std::to_string(c.pad_c) +
                  ", offsets " + std::to_string(c.off_a) + "/" + std::to_string(c.off_b) + "/" +
                  std::to_string(c.off_c) + ", path " + duet::to_string(c.options.path);
  if (c.options.splits) s += ", splits " + std::to_string(c.options.splits);
  if (c.batch) s += ", batch " + std::to_string(c.batch) + (c.broadcast_b ? " (B broadcast)" : "");
  return s;
}

// One operand's place in its buffer: `count` matrices of rows x cols, `stride` apart, from `offset`.
struct Layout {
  std::size_t rows, cols, ld, stride, count, offset, size;
  // Whether buffer element i belongs to one of the matrices.
  bool inside(std::size_t i) const {
    if (i < offset) return false;
    const std::size_t j = i - offset;
    const std::size_t b = stride ? j / stride : 0, in = stride ? j % stride : j;
    return b < count && in / ld < rows && in % ld < cols;
  }
};

// A leading dimension of at least 1, as BLAS asks of an operand with no columns (K == 0).
inline Layout layout(std::size_t rows, std::size_t cols, std::size_t pad, std::size_t offset, std::size_t count,
                     std::size_t gap, bool broadcast) {
  Layout l;
  l.rows = rows, l.cols = cols, l.ld = std::max<std::size_t>(cols + pad, 1), l.offset = offset;
  l.count = broadcast ? 1 : count;
  l.stride = broadcast ? 0 : rows * l.ld + gap;
  l.size = offset + (l.count - 1) * l.stride + rows * l.ld + 3;  // 3 more past the end
  return l;
}

// Runs the case with A and B of T and C of TC, and checks every output against the reference under
// tolerance(c, want, scale) (scale: the sum of the products' magnitudes, from reference_gemm) and
// every element around C. The inputs are drawn from make_rng(stream + label). Returns C's whole
// buffer as read back (for determinism checks).
template <class T, class TC, class Tolerance>
std::vector<TC> run_gemm_case(const duet::Device& dev, duet::Queue& q, const GemmCase& c, const std::string& stream,
                              Tolerance tolerance) {
  using S = typename Elem<T>::Scalar;
  INFO(std::string(Elem<T>::name), " into ", std::string(Elem<TC>::name), " ", describe(c));
  const bool ta = c.op_a == duet::Op::transpose, tb = c.op_b == duet::Op::transpose;
  const std::size_t nb = c.batch ? c.batch : 1;
  const Layout la = layout(ta ? c.K : c.M, ta ? c.M : c.K, c.pad_a, c.off_a, nb, c.gap, false);
  const Layout lb = layout(tb ? c.N : c.K, tb ? c.K : c.N, c.pad_b, c.off_b, nb, c.gap, c.broadcast_b);
  const Layout lc = layout(c.M, c.N, c.pad_c, c.off_c, nb, c.gap, false);

  auto rng = make_rng(stream + c.label, c.M * 1000003 + c.N * 1009 + c.K);
  // Matrix elements random, everything else (padding, gaps, before and after) poisoned.
  auto fill = [&](const Layout& l, bool poison_matrix, auto tag) {
    using U = typename decltype(tag)::type;
    std::vector<U> v(l.size, Elem<U>::poison());
    const std::vector<float> values = random_floats(rng, l.size);
    for (std::size_t i = 0; i < l.size; ++i)
      if (l.inside(i) && !poison_matrix) v[i] = Elem<U>::from(values[i]);
    return v;
  };
  const std::vector<T> A = fill(la, false, duet::TypeTag<T>{}), B = fill(lb, false, duet::TypeTag<T>{});
  const std::vector<TC> C0 = fill(lc, c.beta == 0.0, duet::TypeTag<TC>{});

  duet::Buffer<T> dA(dev, la.size), dB(dev, lb.size);
  duet::Buffer<TC> dC(dev, lc.size);
  q.write(dA, A);
  q.write(dB, B);
  q.write(dC, C0);
  const duet::BufferView<T> vA = dA.view(c.off_a, la.size - c.off_a),
                            vB = dB.view(c.off_b, lb.size - c.off_b);
  const duet::BufferView<TC> vC = dC.view(c.off_c, lc.size - c.off_c);
  const S alpha = static_cast<S>(c.alpha), beta = static_cast<S>(c.beta);
  if (c.batch == 0)
    duet::gemm(q, c.op_a, c.op_b, c.M, c.N, c.K, alpha, vA, la.ld, vB, lb.ld, beta, vC, lc.ld, c.options);
  else
    duet::gemm_strided_batched(q, c.op_a, c.op_b, c.M, c.N, c.K, alpha, vA, la.ld, la.stride, vB, lb.ld,
                               lb.stride, beta, vC, lc.ld, lc.stride, c.batch, c.options);
  const std::vector<TC> got = q.to_vector(dC);

  // The reference per matrix of the batch, from the stored values.
  std::vector<double> a(A.size()), bv(B.size()), c0(C0.size());
  for (std::size_t i = 0; i < A.size(); ++i) a[i] = Elem<T>::to(A[i]);
  for (std::size_t i = 0; i < B.size(); ++i) bv[i] = Elem<T>::to(B[i]);
  for (std::size_t i = 0; i < C0.size(); ++i) c0[i] = Elem<TC>::to(C0[i]);
  std::vector<double> want(c.M * c.N), scale(c.M * c.N);
  std::size_t bad = 0, outside = 0;
  double worst = 0;
  std::string first;
  for (std::size_t b = 0; b < nb; ++b) {
    reference_gemm(ta, tb, c.M, c.N, c.K, static_cast<double>(alpha), &a[la.offset + b * la.stride], la.ld,
                   &bv[lb.offset + b * lb.stride], lb.ld, static_cast<double>(beta),
                   &c0[lc.offset + b * lc.stride], lc.ld, want.data(), scale.data());
    for (std::size_t i = 0; i < c.M; ++i)
      for (std::size_t j = 0; j < c.N; ++j) {
        const double w = want[i * c.N + j];
        const double g = Elem<TC>::to(got[lc.offset + b * lc.stride + i * lc.ld + j]);
        const double tol = tolerance(c, w, scale[i * c.N + j]);
        const double err = std::fabs(g - w);
        if (!(err <= tol)) {
          if (bad < 4)
            first += "\n  batch " + std::to_string(b) + " C[" + std::to_string(i) + "][" + std::to_string(j) +
                     "] got " + std::to_string(g) + " want " + std::to_string(w) + " (tolerance " +
                     std::to_string(tol) + ")";
          ++bad;
        }
        if (err > worst || err != err) worst = err;
      }
  }
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!lc.inside(i) && !is_poison(got[i])) {
      if (outside < 4) first += "\n  C's buffer element " + std::to_string(i) + " outside C was written";
      ++outside;
    }
  INFO(bad, " of ", nb * c.M * c.N, " outputs out of tolerance (worst error ", worst, "), ", outside,
       " elements outside C written", first);
  CHECK(bad == 0);
  CHECK(outside == 0);
  return got;
}

}  // namespace gemm_cases
