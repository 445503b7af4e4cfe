// duet::matmul over Arrays (duet/array_linalg.hpp): each operand becomes what gemm takes (a view
// at its first element, an op and a leading dimension, a batch stride), or a contiguous copy when
// its strides fit neither op; then one gemm or gemm_strided_batched call.
#include "duet/array_linalg.hpp"

#include "duet/array_expr.hpp"
#include "duet/blas.hpp"

namespace duet {
namespace {

// One operand as gemm takes it: `array`'s matrices (rows x cols, the last two axes) with op and ld,
// `count` of them `stride` apart (stride 0: one for all).
struct GemmOperand {
  Array array;  // the memory (a contiguous copy where the view's strides fit no op)
  Op op = Op::none;
  std::size_t rows = 0, cols = 0, ld = 0, count = 1, stride = 0;
};

// Whether a matrix of `rows` x `cols` with strides (r, c) reads as op none (c == 1) or transpose
// (r == 1), and its leading dimension; nullopt otherwise.
std::optional<std::pair<Op, std::size_t>> matrix_op(std::size_t rows, std::size_t cols, std::int64_t r,
                                                    std::int64_t c) {
  const std::int64_t nr = static_cast<std::int64_t>(rows), nc = static_cast<std::int64_t>(cols);
  if ((c == 1 || cols == 1) && r >= std::max<std::int64_t>(nc, 1))
    return std::make_pair(Op::none, std::size_t(r));
  if (rows == 1 && (c == 1 || cols == 1))
    return std::make_pair(Op::none, std::size_t(std::max<std::int64_t>(nc, 1)));
  if ((r == 1 || rows == 1) && c >= std::max<std::int64_t>(nr, 1))
    return std::make_pair(Op::transpose, std::size_t(c));
  return std::nullopt;
}

GemmOperand operand(Queue& q, const Array& in) {
  GemmOperand o;
  const std::size_t nd = in.ndim();
  o.rows = in.shape()[nd - 2];
  o.cols = in.shape()[nd - 1];
  auto fits = [&](const Array& a) -> bool {
    const std::int64_t* s = a.strides().data();
    const auto op = matrix_op(o.rows, o.cols, s[nd - 2], s[nd - 1]);
    if (!op) return false;
    if (nd == 3 && a.shape()[0] > 1 && s[0] < 0) return false;
    o.op = op->first;
    o.ld = op->second;
    o.count = nd == 3 ? a.shape()[0] : 1;
    o.stride = nd == 3 && o.count > 1 ? static_cast<std::size_t>(s[0]) : 0;
    return true;
  };
  o.array = in;
  if (in.size() == 0 || !fits(in)) {
    o.array = in.copy(q);
    fits(o.array);
  }
  return o;
}

// The operand's memory from its first element on, as gemm's typed view.
template <class T>
BufferView<T> first_on(const Array& a) {
  const std::size_t total = a.buffer().bytes() / sizeof(T);
  const std::size_t first = static_cast<std::size_t>(a.offset());
  return BufferView<T>(a.buffer().view(first * sizeof(T), (total - first) * sizeof(T)), total - first, 0);
}

template <class T, class Scalar>
void run(Queue& q, const GemmOperand& a, const GemmOperand& b, const Array& c, std::size_t batch) {
  // The operands' shapes are the logical ones (op(A) is rows x cols); op says how memory holds them.
  const std::size_t M = a.rows, K = a.cols, N = b.cols;
  const BufferView<T> va = first_on<T>(a.array), vb = first_on<T>(b.array), vc = first_on<T>(c);
  if (batch == 1)
    gemm(q, a.op, b.op, M, N, K, Scalar(1), va, a.ld, vb, b.ld, Scalar(0), vc, N);
  else
    gemm_strided_batched(q, a.op, b.op, M, N, K, Scalar(1), va, a.ld, a.stride, vb, b.ld, b.stride, Scalar(0),
                         vc, N, M * N, batch);
}

// `x`'s matrices over the broadcast batch shape `batch` as one 3-D array (count, rows, cols): a
// view where the batch axes merge into one stride (0 for a broadcast operand), else a copy.
Array as_batch_of_matrices(Queue& q, const Array& x, const Shape& batch) {
  const std::size_t nd = x.ndim(), lead = batch.size() - (nd - 2);
  if (x.size() == 0)  // K == 0 (matmul_stacked returns before any other empty case): nothing to view
    return empty(q.device(), {element_count(batch), x.shape()[nd - 2], x.shape()[nd - 1]}, x.dtype());
  Layout l;
  l.offset = x.offset();
  std::int64_t count = 1;
  for (std::size_t d = 0; d < batch.size(); ++d) {
    l.shape.push_back(batch[d]);
    const bool own = d >= lead && x.shape()[d - lead] == batch[d];
    l.strides.push_back(own ? x.strides()[d - lead] : 0);
    count *= static_cast<std::int64_t>(batch[d]);
  }
  for (std::size_t d = nd - 2; d < nd; ++d) {
    l.shape.push_back(x.shape()[d]);
    l.strides.push_back(x.strides()[d]);
  }
  const Array stretched(x.buffer().share(), x.dtype(), std::move(l));
  const std::vector<std::int64_t> three{count, std::int64_t(x.shape()[nd - 2]),
                                        std::int64_t(x.shape()[nd - 1])};
  if (std::optional<Array> v = stretched.reshape_view(three)) return *v;
  return *stretched.copy(q).reshape_view(three);
}

// numpy.matmul's stacks past 3-D: the batch axes (all but the last two) broadcast together, each
// operand becomes one batch of matrices, and the 3-D product is reshaped to batch + (M, N).
// `a` and `b` as matmul made them (a 1-D operand as one row or one column: a_vec, b_vec).
Array matmul_stacked(Queue& q, const Array& a, const Array& b, bool a_vec, bool b_vec) {
  const std::size_t a_lead = a.ndim() - 2, b_lead = b.ndim() - 2, lead = std::max(a_lead, b_lead);
  Shape batch(lead);
  for (std::size_t d = 0; d < lead; ++d) {
    const std::size_t da = d + a_lead >= lead ? a.shape()[d + a_lead - lead] : 1;
    const std::size_t db = d + b_lead >= lead ? b.shape()[d + b_lead - lead] : 1;
    if (da != db && da != 1 && db != 1)
      throw ArgumentError("matmul: the stacks of a " + shape_text(a.shape()) + " and b " +
                          shape_text(b.shape()) + " do not broadcast (" + std::to_string(da) + " against " +
                          std::to_string(db) + " matrices on one axis)");
    batch[d] = da == 1 ? db : da;  // a 1 stretches, even to 0
  }
  Shape shape = batch;
  if (!a_vec) shape.push_back(a.shape()[a.ndim() - 2]);
  if (!b_vec) shape.push_back(b.shape().back());
  if (element_count(shape) == 0) return empty(q.device(), shape, a.dtype());
  const Array c = matmul(q, as_batch_of_matrices(q, a, batch), as_batch_of_matrices(q, b, batch));
  return *c.reshape_view(std::vector<std::int64_t>(shape.begin(), shape.end()));  // c is new and contiguous
}

// A complex product from four real ones of the parts (gemm multiplies reals only):
// (ar + i ai)(br + i bi) = (ar br - ai bi) + i (ar bi + ai br), joined by one fused kernel.
Array complex_matmul(Queue& q, const Array& a, const Array& b) {
  const Array ar = evaluate(q, real(a)), ai = evaluate(q, imag(a));
  const Array br = evaluate(q, real(b)), bi = evaluate(q, imag(b));
  const Array rr = matmul(q, ar, br), ii = matmul(q, ai, bi), ri = matmul(q, ar, bi), ir = matmul(q, ai, br);
  return evaluate(q, Expr(rr) - Expr(ii) + (Expr(ri) + Expr(ir)) * Expr::complex_scalar(0, 1));
}

}  // namespace

Array matmul(Queue& q, const Array& a_in, const Array& b_in) {
  if (!a_in.valid() || !b_in.valid()) throw ReleasedError("matmul: an array is empty (default-constructed)");
  if (a_in.dtype() != b_in.dtype())
    throw ArgumentError(std::string("matmul: a holds ") + to_string(a_in.dtype()) + " and b " +
                        to_string(b_in.dtype()) + "; convert one with astype so both have one dtype");
  for (const Array* x : {&a_in, &b_in})
    if (x->ndim() == 0)
      throw ArgumentError(
          "matmul: operands have at least one axis (numpy.matmul's rule); got a 0-d array: "
          "multiply it instead");
  if (is_complex(a_in.dtype())) return complex_matmul(q, a_in, b_in);

  // 1-D operands as matrices of one row (a) or one column (b), whose axis leaves the result.
  const bool a_vec = a_in.ndim() == 1, b_vec = b_in.ndim() == 1;
  const Array a = a_vec ? a_in.expand_dims(0) : a_in;
  const Array b = b_vec ? b_in.expand_dims(1) : b_in;
  const std::size_t K = a.shape().back(), K_b = b.shape()[b.ndim() - 2];
  if (K != K_b)
    throw ArgumentError("matmul: a " + shape_text(a_in.shape()) + " and b " + shape_text(b_in.shape()) +
                        " do not multiply: " + std::to_string(K) + " columns against " + std::to_string(K_b) +
                        " rows");
  if (a.ndim() > 3 || b.ndim() > 3) return matmul_stacked(q, a, b, a_vec, b_vec);
  const std::size_t a_batch = a.ndim() == 3 ? a.shape()[0] : 1, b_batch = b.ndim() == 3 ? b.shape()[0] : 1;
  if (a_batch != b_batch && a_batch != 1 && b_batch != 1)
    throw ArgumentError("matmul: batches of " + std::to_string(a_batch) + " and " + std::to_string(b_batch) +
                        " matrices do not broadcast");
  const std::size_t batch = a_batch == 1 ? b_batch : a_batch;  // a batch of 1 stretches, even to 0
  const std::size_t M = a.shape()[a.ndim() - 2], N = b.shape().back();
  Shape shape;
  if (a.ndim() == 3 || b.ndim() == 3) shape.push_back(batch);
  if (!a_vec) shape.push_back(M);
  if (!b_vec) shape.push_back(N);
  if (K == 0) return zeros(q, shape, a.dtype());  // sums of nothing
  Array c = empty(q.device(), shape, a.dtype());
  if (c.size() == 0) return c;
  const GemmOperand ga = operand(q, a), gb = operand(q, b);
  visit_scalar_type(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float(scalar_type_of<T>()))
      run<T, compute_type_t<T>>(q, ga, gb, c, batch);
    else
      throw ArgumentError(std::string("matmul: arrays of ") + to_string(a.dtype()) +
                          "; matmul takes float32, float64, float16, bfloat16, complex64 and complex128");
  });
  return c;
}

}  // namespace duet
