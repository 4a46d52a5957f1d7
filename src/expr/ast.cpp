// AST utilities: deep copy, operator spelling and unparsing back to Python source.
#include "ktune/expr/ast.hpp"

#include <cmath>

namespace ktune::expr {

NodePtr Node::clone() const {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  n->begin = begin;
  n->end = end;
  n->op = op;
  n->value = value;
  n->name = name;
  n->unary_op = unary_op;
  n->binary_op = binary_op;
  n->bool_op = bool_op;
  n->compare_ops = compare_ops;
  n->children.reserve(children.size());
  for (const auto& c : children) n->children.push_back(c ? c->clone() : nullptr);
  return n;
}

const char* to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::FloorDiv: return "//";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
  }
  return "?";
}

const char* to_string(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return "==";
    case CompareOp::Ne: return "!=";
    case CompareOp::Lt: return "<";
    case CompareOp::Le: return "<=";
    case CompareOp::Gt: return ">";
    case CompareOp::Ge: return ">=";
    case CompareOp::In: return "in";
    case CompareOp::NotIn: return "not in";
  }
  return "?";
}

const char* to_string(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Pos: return "+";
    case UnaryOp::Not: return "not ";
  }
  return "?";
}

namespace {

// Python precedence levels, lowest first.
enum Prec : int {
  kPrecTest = 0, kPrecOr, kPrecAnd, kPrecNot, kPrecCompare, kPrecArith, kPrecTerm, kPrecFactor, kPrecPower, kPrecAtom
};

int binary_prec(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub: return kPrecArith;
    case BinaryOp::Pow: return kPrecPower;
    default: return kPrecTerm;
  }
}

std::string constant_source(const Value& v) {
  if (v.is_float()) {
    const double d = v.as_float();
    if (std::isnan(d)) return "float('nan')";
    if (std::isinf(d)) return d > 0 ? "1e999" : "-1e999";
  }
  if (v.is_list()) {
    std::string out = "[";
    bool first = true;
    for (const Value& e : v.as_list()) {
      if (!first) out += ", ";
      first = false;
      out += constant_source(e);
    }
    return out + "]";
  }
  return v.repr();
}

int node_prec(const Node& n) {
  switch (n.kind) {
    case NodeKind::IfExp: return kPrecTest;
    case NodeKind::BoolOp: return n.bool_op == BoolOpKind::Or ? kPrecOr : kPrecAnd;
    case NodeKind::Unary: return n.unary_op == UnaryOp::Not ? kPrecNot : kPrecFactor;
    case NodeKind::Compare: return kPrecCompare;
    case NodeKind::Binary: return binary_prec(n.binary_op);
    case NodeKind::Constant: {
      // A negative number (e.g. from constant folding) reads back as a unary minus.
      if ((n.value.is_int() && n.value.as_int() < 0) || (n.value.is_float() && std::signbit(n.value.as_float())))
        return kPrecFactor;
      if (n.value.is_float() && std::isnan(n.value.as_float())) return kPrecAtom;
      return kPrecAtom;
    }
    default: return kPrecAtom;
  }
}

std::string unparse_at(const Node& n, int min_prec);

std::string join(const std::vector<NodePtr>& children, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    if (i > from) out += ", ";
    out += unparse_at(*children[i], kPrecTest);
  }
  return out;
}

std::string unparse_raw(const Node& n) {
  switch (n.kind) {
    case NodeKind::Constant: return constant_source(n.value);
    case NodeKind::Name: return n.name;
    case NodeKind::Unary: {
      // -x: operand is a factor; not x: operand is a not_test.
      const int operand_prec = n.unary_op == UnaryOp::Not ? kPrecNot : kPrecFactor;
      std::string operand = unparse_at(*n.children[0], operand_prec);
      // "- -1" rather than "--1" keeps it readable; both parse the same.
      return std::string(to_string(n.unary_op)) + operand;
    }
    case NodeKind::Binary: {
      const int p = binary_prec(n.binary_op);
      if (n.binary_op == BinaryOp::Pow) {
        // Right-associative; the left operand must be a primary (so "-2" needs parentheses), the right a factor.
        return unparse_at(*n.children[0], kPrecAtom) + " ** " + unparse_at(*n.children[1], kPrecFactor);
      }
      return unparse_at(*n.children[0], p) + " " + to_string(n.binary_op) + " " + unparse_at(*n.children[1], p + 1);
    }
    case NodeKind::Compare: {
      std::string out = unparse_at(*n.children[0], kPrecArith);
      for (std::size_t i = 0; i < n.compare_ops.size() && i + 1 < n.children.size(); ++i)
        out += std::string(" ") + to_string(n.compare_ops[i]) + " " + unparse_at(*n.children[i + 1], kPrecArith);
      return out;
    }
    case NodeKind::BoolOp: {
      const int p = n.bool_op == BoolOpKind::Or ? kPrecOr : kPrecAnd;
      std::string out;
      for (std::size_t i = 0; i < n.children.size(); ++i) {
        if (i > 0) out += n.bool_op == BoolOpKind::Or ? " or " : " and ";
        out += unparse_at(*n.children[i], p + 1);
      }
      return out;
    }
    case NodeKind::IfExp:
      return unparse_at(*n.children[0], kPrecOr) + " if " + unparse_at(*n.children[1], kPrecOr) + " else " +
             unparse_at(*n.children[2], kPrecTest);
    case NodeKind::Call: return n.name + "(" + join(n.children, 0, n.children.size()) + ")";
    case NodeKind::List: return "[" + join(n.children, 0, n.children.size()) + "]";
    case NodeKind::Tuple:
      if (n.children.size() == 1) return "(" + unparse_at(*n.children[0], kPrecTest) + ",)";
      return "(" + join(n.children, 0, n.children.size()) + ")";
    case NodeKind::ListComp: {
      std::string out = "[" + unparse_at(*n.children[0], kPrecTest) + " for " + n.name + " in " +
                        unparse_at(*n.children[1], kPrecOr);
      if (n.children.size() > 2) out += " if " + unparse_at(*n.children[2], kPrecOr);
      return out + "]";
    }
  }
  return "";
}

// Source of `n` in a context that requires precedence >= min_prec (parenthesised otherwise).
std::string unparse_at(const Node& n, int min_prec) {
  std::string s = unparse_raw(n);
  if (node_prec(n) < min_prec) return "(" + s + ")";
  return s;
}

}  // namespace

std::string unparse(const Node& node) { return unparse_at(node, kPrecTest); }

}  // namespace ktune::expr
