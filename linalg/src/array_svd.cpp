// duet::linalg::svdvals and the singular-value matrix norms (duet/array_svd.hpp): the input viewed
// as one batch of matrices (its strides as they are), then one launch of svdvals.duet (a work-group
// per matrix, on a scratch copy kept per queue), and for the norms one reduction of the values.
#include "duet/array_svd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "duet/array_reduce.hpp"
#include "duet/extension.hpp"
#include "duet_embedded_kernels.hpp"

namespace duet::linalg {
namespace {

// The largest work-group of svdvals.duet (its WG): enough work-items to rotate many column pairs of
// a few-hundred-column matrix at once, small enough that a group's shared sums fit every device.
// Small matrices get a smaller group (group_size): idle work-items would still wait at every
// barrier, which on a CPU device costs as much as working.
constexpr std::size_t kGroup = 128;

// Sweeps before the kernel stops: cyclic Jacobi converges quadratically, so float and double
// inputs finish in about 5 to 15; the bound only caps what an input that never settles could cost.
constexpr unsigned kMaxSweeps = 60;

void check_input(const Queue& q, const Array& a, const char* call) {
  if (!a.valid()) throw ReleasedError(std::string(call) + ": the array is empty (default-constructed)");
  if (a.ndim() < 2)
    throw ArgumentError(std::string(call) + ": takes an array of at least 2 dimensions (a matrix or a batch "
                        "of them), not shape " + shape_text(a.shape()));
  if (!is_float(a.dtype()))
    throw ArgumentError(std::string(call) + ": arrays of " + to_string(a.dtype()) +
                        "; it takes float32, float64, float16 and bfloat16 (convert with astype)");
  if (a.dtype() == ScalarType::f64 && !q.device().info().supports_double)
    throw ArgumentError(std::string(call) + ": float64 needs a device with double precision; " +
                        q.device().info().id() + " (" + q.device().info().name + ") has none: use float32");
}

// Work-items per column pair: a power of two, as many as the group has to spare for the pairs of
// one round, and no more than the rows they share out.
unsigned team_size(std::size_t rows, std::size_t cols) {
  const std::size_t pairs = (cols + 1) / 2;
  std::size_t team = 1;
  while (team * 2 * pairs <= kGroup && team < rows) team *= 2;
  return static_cast<unsigned>(team);
}

// The kernel's working copies, kept per queue (extension::queue_state): calls on one queue run in
// order, so each reuses it, and no call frees memory that its own launch still uses (which would
// make it wait for the device).
struct Scratch {
  std::mutex enqueueing;  // held from sizing the buffer to the launch that uses it
  RawBuffer work;
};

std::size_t group_size(std::size_t cols, unsigned team) {
  const std::size_t pairs = (cols + 1) / 2;
  std::size_t teams = 1;
  while (teams < pairs) teams *= 2;
  return std::min(kGroup, teams * team);
}

}  // namespace

Array svdvals(Queue& q, const Array& a_in) {
  check_input(q, a_in, "svdvals");
  const std::size_t nd = a_in.ndim(), M = a_in.shape()[nd - 2], N = a_in.shape()[nd - 1];
  const bool tall = M >= N;
  const std::size_t R = tall ? M : N, C = tall ? N : M;  // the working form: R x C, R >= C
  Shape shape(a_in.shape().begin(), a_in.shape().end() - 2);
  const std::size_t batch = element_count(shape);
  shape.push_back(C);
  Array out = empty(q.device(), shape, a_in.dtype());
  if (out.size() == 0) return out;
  if (R > std::numeric_limits<unsigned>::max() / std::max<std::size_t>(C, 1))
    throw ArgumentError("svdvals: matrices of " + std::to_string(M) + " x " + std::to_string(N) +
                        " are too large (at most 2^32 elements each)");
  // One batch axis: a view where the batch axes merge into one stride, else a copy.
  const std::vector<std::int64_t> three{std::int64_t(batch), std::int64_t(M), std::int64_t(N)};
  std::optional<Array> view = a_in.reshape_view(three);
  const Array a = view ? *view : *a_in.copy(q).reshape_view(three);
  const std::int64_t sk = a.strides()[0], sm = a.strides()[1], sn = a.strides()[2];
  const bool f64 = a.dtype() == ScalarType::f64;
  const ScalarType work_type = f64 ? ScalarType::f64 : ScalarType::f32;
  const unsigned team = team_size(R, C);
  const std::size_t group = group_size(C, team);
  const Kernel k = embedded_kernels.kernel(q.device(), "svdvals", "svdvals",
                                           {{"I", to_string(a.dtype())},
                                            {"T", to_string(work_type)},
                                            {"O", to_string(out.dtype())},
                                            {"WG", std::to_string(group)}});
  // tol: see svdvals.duet's convergence test.
  const double eps = f64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
  const double tol = std::sqrt(static_cast<double>(R)) * eps;
  const auto u32 = [](std::size_t v) { return KernelArg::from(static_cast<std::uint32_t>(v)); };
  const auto scratch =
      extension::queue_state<Scratch>(q, "duet.linalg.svdvals", [] { return std::make_shared<Scratch>(); });
  std::lock_guard<std::mutex> turn(scratch->enqueueing);
  const std::size_t bytes = batch * R * C * size_of(work_type);
  // Grown to the need; an old buffer is freed once the work using it is done.
  if (scratch->work.bytes() < bytes) scratch->work = RawBuffer(q.device(), std::max(bytes, std::size_t{1} << 16));
  const std::vector<KernelArg> args = {
      KernelArg::from_raw(a.buffer(), a.dtype()),
      KernelArg::from(static_cast<std::int64_t>(a.offset())),
      KernelArg::from(sk),
      u32(R),
      u32(C),
      KernelArg::from(tall ? sm : sn),  // the working form's row and column steps in a
      KernelArg::from(tall ? sn : sm),
      KernelArg::from_raw(scratch->work, work_type),
      KernelArg::from_raw(out.buffer(), out.dtype()),
      u32(team),
      f64 ? KernelArg::from(tol) : KernelArg::from(static_cast<float>(tol)),
      u32(kMaxSweeps)};
  q.launch_args(k, Range(batch * group), Range(group), args);
  return out;
}

Array matrix_norm(Queue& q, const Array& a, MatrixNorm ord, bool keepdims) {
  check_input(q, a, "matrix_norm");
  const std::size_t nd = a.ndim();
  Shape shape(a.shape().begin(), a.shape().end() - 2);
  if (keepdims) shape.insert(shape.end(), {1, 1});
  const bool no_values = a.shape()[nd - 2] == 0 || a.shape()[nd - 1] == 0;
  if (no_values && element_count(shape) > 0) {
    if (ord == MatrixNorm::smallest)
      throw ArgumentError("matrix_norm: the smallest singular value of a " + std::to_string(a.shape()[nd - 2]) +
                          " x " + std::to_string(a.shape()[nd - 1]) +
                          " matrix does not exist (it has none); numpy raises too");
    return zeros(q, shape, a.dtype());  // a sum of no values, and numpy's largest of none
  }
  const Array s = svdvals(q, a);
  const ReduceOp op = ord == MatrixNorm::nuclear    ? ReduceOp::sum
                      : ord == MatrixNorm::spectral ? ReduceOp::max
                                                    : ReduceOp::min;
  if (s.size() == 0) return empty(q.device(), shape, a.dtype());
  const Array r = reduce(q, op, s, std::int64_t(-1));
  if (!keepdims) return r;
  return r.reshape(q, std::vector<std::int64_t>(shape.begin(), shape.end()));
}

}  // namespace duet::linalg
