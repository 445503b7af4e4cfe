// The node of duet::Expr's tree (private to duet::array): what each operation is, its operands,
// its broadcast shape and dtype. expr.cpp builds nodes, fused.cpp turns a tree into a kernel.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "duet/array_expr.hpp"

namespace duet {

enum class NodeKind { array, scalar, unary, binary, compare, where, cast };
using NodePtr = std::shared_ptr<const Expr::Node>;

struct Expr::Node {
  NodeKind kind = NodeKind::scalar;
  std::string op;  // "+", "<", "sqrt", "neg", "max", "pow", "where", "cast"
  std::vector<NodePtr> args;
  ScalarType dtype = ScalarType::unknown;
  bool weak = false;  // a plain number, or made of plain numbers only: its type yields to arrays'
  Shape shape;
  const Device* device = nullptr;  // the arrays' device (null for plain numbers)
  Array array;                     // kind == array
  double float_value = 0;          // kind == scalar (a complex number's real part)
  double imag_value = 0;           // kind == scalar of a complex dtype
  std::int64_t int_value = 0;
};

// The type two operands meet at and whether it is weak (NumPy's rules, Python numbers weak).
std::pair<ScalarType, bool> meet(const Expr::Node& a, const Expr::Node& b);

}  // namespace duet
