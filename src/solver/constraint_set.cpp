#include "solver/constraint_set.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "ktune/expr/parser.hpp"

namespace ktune::solver {

using expr::BinaryOp;
using expr::BoolOpKind;
using expr::CompareOp;
using expr::Node;
using expr::NodeKind;
using expr::NodePtr;
using expr::UnaryOp;

const char* to_string(ConstraintKind kind) {
  switch (kind) {
    case ConstraintKind::Constant: return "constant";
    case ConstraintKind::Unary: return "unary";
    case ConstraintKind::MaxProduct: return "max-product";
    case ConstraintKind::MinProduct: return "min-product";
    case ConstraintKind::ExactProduct: return "exact-product";
    case ConstraintKind::MaxSum: return "max-sum";
    case ConstraintKind::MinSum: return "min-sum";
    case ConstraintKind::ExactSum: return "exact-sum";
    case ConstraintKind::Divisibility: return "divisibility";
    case ConstraintKind::Equality: return "equality";
    case ConstraintKind::Inequality: return "inequality";
    case ConstraintKind::Ordering: return "ordering";
    case ConstraintKind::General: return "general";
  }
  return "general";
}

namespace {

void collect_names_scoped(const Node& n, std::vector<std::string>& bound, std::vector<std::string>& out) {
  if (n.kind == NodeKind::Name) {
    if (std::find(bound.begin(), bound.end(), n.name) == bound.end()) out.push_back(n.name);
    return;
  }
  if (n.kind == NodeKind::ListComp) {
    // children: element, iterable, [condition]; the loop variable is bound in element and condition.
    collect_names_scoped(*n.children[1], bound, out);
    bound.push_back(n.name);
    collect_names_scoped(*n.children[0], bound, out);
    if (n.children.size() > 2) collect_names_scoped(*n.children[2], bound, out);
    bound.pop_back();
    return;
  }
  for (const auto& c : n.children) collect_names_scoped(*c, bound, out);
}

bool has_names(const Node& n) {
  std::vector<std::string> names;
  collect_names(n, names);
  return !names.empty();
}

// Replaces named constants by their values; they never shadow parameters (Problem::validate forbids clashes).
void substitute_constants(Node& n, const Problem& problem, std::vector<std::string>& bound) {
  if (n.kind == NodeKind::Name) {
    if (std::find(bound.begin(), bound.end(), n.name) != bound.end()) return;
    auto it = problem.constants.find(n.name);
    if (it != problem.constants.end()) {
      n.kind = NodeKind::Constant;
      n.value = it->second;
    }
    return;
  }
  if (n.kind == NodeKind::ListComp) {
    substitute_constants(*n.children[1], problem, bound);
    bound.push_back(n.name);
    substitute_constants(*n.children[0], problem, bound);
    if (n.children.size() > 2) substitute_constants(*n.children[2], problem, bound);
    bound.pop_back();
    return;
  }
  for (auto& c : n.children) substitute_constants(*c, problem, bound);
}

// Folds every name-free subtree into a constant (when it evaluates without error).
void fold(Node& n) {
  if (n.kind == NodeKind::Constant || n.kind == NodeKind::Name) return;
  if (!has_names(n)) {
    try {
      Value v = expr::evaluate(n, [](std::string_view) -> const Value* { return nullptr; });
      if (!v.is_list()) {  // keep list literals as lists: `in` compiles them directly
        n.kind = NodeKind::Constant;
        n.value = std::move(v);
        n.children.clear();
        return;
      }
    } catch (const std::exception&) {
      // Leave it: the error belongs to evaluation time (e.g. a guarded division by zero).
    }
  }
  for (auto& c : n.children) fold(*c);
}

NodePtr make_compare(const Node& left, CompareOp op, const Node& right) {
  auto n = std::make_unique<Node>();
  n->kind = NodeKind::Compare;
  n->begin = left.begin;
  n->end = right.end;
  n->compare_ops.push_back(op);
  n->children.push_back(left.clone());
  n->children.push_back(right.clone());
  return n;
}

// Splits into conjuncts: top-level `and`, comparison chains, not (a or b).
void split(NodePtr node, std::vector<NodePtr>& out) {
  if (node->kind == NodeKind::BoolOp && node->bool_op == BoolOpKind::And) {
    for (auto& c : node->children) split(std::move(c), out);
    return;
  }
  if (node->kind == NodeKind::Compare && node->compare_ops.size() > 1) {
    for (std::size_t i = 0; i < node->compare_ops.size(); ++i)
      out.push_back(make_compare(*node->children[i], node->compare_ops[i], *node->children[i + 1]));
    return;
  }
  if (node->kind == NodeKind::Unary && node->unary_op == UnaryOp::Not) {
    Node& inner = *node->children[0];
    if (inner.kind == NodeKind::BoolOp && inner.bool_op == BoolOpKind::Or) {
      for (auto& c : inner.children) {
        auto neg = std::make_unique<Node>();
        neg->kind = NodeKind::Unary;
        neg->unary_op = UnaryOp::Not;
        neg->begin = c->begin;
        neg->end = c->end;
        neg->children.push_back(std::move(c));
        split(std::move(neg), out);
      }
      return;
    }
  }
  out.push_back(std::move(node));
}

bool is_name(const Node& n) { return n.kind == NodeKind::Name; }

// Flattens a tree of one binary operator over names: a*b*c -> {a,b,c}. False if anything else appears.
bool flatten_over_names(const Node& n, BinaryOp op, std::vector<std::string>& names) {
  if (is_name(n)) {
    names.push_back(n.name);
    return true;
  }
  if (n.kind == NodeKind::Binary && n.binary_op == op)
    return flatten_over_names(*n.children[0], op, names) && flatten_over_names(*n.children[1], op, names);
  return false;
}

ConstraintKind classify(const Node& n, std::size_t num_params) {
  if (num_params == 0) return ConstraintKind::Constant;
  if (num_params == 1) return ConstraintKind::Unary;
  if (n.kind != NodeKind::Compare || n.compare_ops.size() != 1) return ConstraintKind::General;
  CompareOp op = n.compare_ops[0];
  const Node* lhs = n.children[0].get();
  const Node* rhs = n.children[1].get();
  if (is_name(*lhs) && is_name(*rhs)) {
    if (op == CompareOp::Eq) return ConstraintKind::Equality;
    if (op == CompareOp::Ne) return ConstraintKind::Inequality;
    if (op == CompareOp::In || op == CompareOp::NotIn) return ConstraintKind::General;
    return ConstraintKind::Ordering;
  }
  if (op == CompareOp::Eq && rhs->kind == NodeKind::Constant && rhs->value.is_numeric() && rhs->value.to_double() == 0 &&
      lhs->kind == NodeKind::Binary && lhs->binary_op == BinaryOp::Mod && is_name(*lhs->children[0]) &&
      is_name(*lhs->children[1]))
    return ConstraintKind::Divisibility;
  // Normalise to `expression OP constant`.
  if (lhs->kind == NodeKind::Constant) {
    std::swap(lhs, rhs);
    switch (op) {
      case CompareOp::Lt: op = CompareOp::Gt; break;
      case CompareOp::Le: op = CompareOp::Ge; break;
      case CompareOp::Gt: op = CompareOp::Lt; break;
      case CompareOp::Ge: op = CompareOp::Le; break;
      default: break;
    }
  }
  if (rhs->kind != NodeKind::Constant || !rhs->value.is_numeric()) return ConstraintKind::General;
  const bool le = op == CompareOp::Le || op == CompareOp::Lt;
  const bool ge = op == CompareOp::Ge || op == CompareOp::Gt;
  const bool eq = op == CompareOp::Eq;
  if (!le && !ge && !eq) return ConstraintKind::General;
  std::vector<std::string> names;
  if (flatten_over_names(*lhs, BinaryOp::Mul, names)) {
    std::set<std::string> distinct(names.begin(), names.end());
    if (distinct.size() == names.size())
      return le ? ConstraintKind::MaxProduct : ge ? ConstraintKind::MinProduct : ConstraintKind::ExactProduct;
  }
  names.clear();
  if (flatten_over_names(*lhs, BinaryOp::Add, names))
    return le ? ConstraintKind::MaxSum : ge ? ConstraintKind::MinSum : ConstraintKind::ExactSum;
  return ConstraintKind::General;
}

}  // namespace

void collect_names(const Node& node, std::vector<std::string>& out) {
  std::vector<std::string> bound;
  collect_names_scoped(node, bound, out);
}

std::vector<PreparedConstraint> prepare_constraints(const Problem& problem) {
  std::vector<std::string> slot_names;
  std::vector<expr::TypeSet> slot_types;
  std::vector<bool> numeric_param;
  for (const auto& p : problem.parameters) {
    slot_names.push_back(p.name);
    slot_types.push_back(expr::types_of(p.values));
    // Values a double holds exactly (up to 2^53) only: larger integers go through the exact evaluator.
    numeric_param.push_back(std::all_of(p.values.begin(), p.values.end(), [](const Value& v) {
      return v.is_numeric() && std::fabs(v.to_double()) <= NumericProgram::kExactLimit;
    }));
  }
  auto slot_of = [&](std::string_view name) -> int {
    for (std::size_t i = 0; i < slot_names.size(); ++i)
      if (slot_names[i] == name) return numeric_param[i] ? static_cast<int>(i) : -1;
    return -1;
  };

  const auto all = problem.all_constraints();
  std::vector<PreparedConstraint> result;
  std::set<std::string> seen;  // identical smallest constraints are checked once
  for (std::size_t ci = 0; ci < all.size(); ++ci) {
    const std::string& source = all[ci];
    const std::string origin = (ci < problem.constraints.size()) ? "constraint " + std::to_string(ci + 1)
                                                                  : std::string("implicit block-size constraint");
    NodePtr root;
    try {
      root = expr::parse_expression(source);
      // Type and name check of the whole constraint once, against the parameters' value types.
      expr::CompiledExpression::compile(*root, source, slot_names, slot_types, problem.constants);
    } catch (const expr::ExpressionError& e) {
      throw e.with_context(origin);
    }
    std::vector<std::string> bound;
    substitute_constants(*root, problem, bound);
    std::vector<NodePtr> parts;
    split(std::move(root), parts);
    for (auto& part : parts) {
      fold(*part);
      PreparedConstraint pc;
      pc.text = expr::unparse(*part);
      if (!seen.insert(pc.text).second) continue;
      pc.origin = origin;
      pc.source = source;
      std::vector<std::string> names;
      collect_names(*part, names);
      for (const auto& name : names) {
        auto idx = problem.parameter_index(name);
        if (idx && std::find(pc.params.begin(), pc.params.end(), *idx) == pc.params.end()) pc.params.push_back(*idx);
      }
      std::sort(pc.params.begin(), pc.params.end());
      pc.kind = classify(*part, pc.params.size());
      try {
        pc.compiled = expr::CompiledExpression::compile(*part, source, slot_names, slot_types, problem.constants);
      } catch (const expr::ExpressionError& e) {
        throw e.with_context(origin);
      }
      pc.numeric = NumericProgram::compile(*part, slot_of);
      pc.ast = std::move(part);
      result.push_back(std::move(pc));
    }
  }
  return result;
}

}  // namespace ktune::solver
