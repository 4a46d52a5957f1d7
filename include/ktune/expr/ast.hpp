#pragma once
// Abstract syntax tree of the Python expression subset used for constraints and T1 value lists.
#include <memory>
#include <string>
#include <vector>

#include "ktune/value.hpp"

namespace ktune::expr {

enum class NodeKind {
  Constant,  // value
  Name,      // name (parameter or constant; resolved later)
  Unary,     // unary_op children[0]
  Binary,    // children[0] binary_op children[1]
  Compare,   // children[0] compare_ops[0] children[1] compare_ops[1] children[2] ... (a chain)
  BoolOp,    // children joined by bool_op (and/or), n >= 2, short-circuit
  IfExp,     // children[0] if children[1] else children[2]   (body, test, orelse)
  Call,      // name(children...)   name in min max abs int float round len range list str bool sum
  List,      // [children...]
  Tuple,     // (children...)
  ListComp,  // [children[0] for name in children[1] (if children[2])?]
};

enum class UnaryOp { Neg, Pos, Not };
enum class BinaryOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow };
enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn };
enum class BoolOpKind { And, Or };

struct Node;
using NodePtr = std::unique_ptr<Node>;

struct Node {
  NodeKind kind = NodeKind::Constant;
  int begin = 0;  // 0-based column of the first character in the source
  int end = 0;    // one past the last character
  int op = -1;    // 0-based column of the operator (Binary, Compare: the first one), where its errors point; -1: begin
  Value value;                      // Constant
  std::string name;                 // Name, Call (function), ListComp (loop variable)
  UnaryOp unary_op = UnaryOp::Neg;  // Unary
  BinaryOp binary_op = BinaryOp::Add;
  BoolOpKind bool_op = BoolOpKind::And;
  std::vector<CompareOp> compare_ops;  // Compare: size == children.size() - 1
  std::vector<NodePtr> children;

  NodePtr clone() const;
  // Where an error raised by this node points: its operator, else its first character (a call's name).
  int error_column() const { return op >= 0 ? op : begin; }
};

const char* to_string(BinaryOp op);   // "+", "//", ...
const char* to_string(CompareOp op);  // "<=", "not in", ...
const char* to_string(UnaryOp op);    // "-", "+", "not "

// Python source text of a (sub)tree, fully parenthesised where needed; parses back to an equal tree.
std::string unparse(const Node& node);

}  // namespace ktune::expr
