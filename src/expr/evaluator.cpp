// The generic tree-walking evaluator (one-off evaluation, e.g. T1 value lists). Hot loops use CompiledExpression.
#include "ktune/expr/evaluator.hpp"

#include "ktune/expr/parser.hpp"

namespace ktune::expr {

namespace {

class TreeEvaluator {
 public:
  TreeEvaluator(std::string_view source) : source_(source) {}

  // An EvalError learns where it was raised: the operator or call of the innermost node that raised it.
  Value eval(const Node& n, const NameResolver& names) const {
    try {
      return eval_node(n, names);
    } catch (EvalError& e) {
      if (e.column() < 0) e.set_column(n.error_column());
      throw;
    }
  }

  Value eval_node(const Node& n, const NameResolver& names) const {
    switch (n.kind) {
      case NodeKind::Constant: return n.value;
      case NodeKind::Name: {
        const Value* v = names ? names(n.name) : nullptr;
        if (!v) throw ExpressionError("unknown name '" + n.name + "'", std::string(source_), n.begin);
        return *v;
      }
      case NodeKind::Unary: return ops::unary(n.unary_op, eval(*n.children.at(0), names));
      case NodeKind::Binary: {
        // Left before right (function arguments have no defined order): decides which error is raised first.
        const Value left = eval(*n.children.at(0), names);
        const Value right = eval(*n.children.at(1), names);
        return ops::binary(n.binary_op, left, right);
      }
      case NodeKind::Compare: {
        // a < b < c evaluates b once and stops at the first false comparison.
        Value left = eval(*n.children.at(0), names);
        for (std::size_t i = 0; i < n.compare_ops.size(); ++i) {
          Value right = eval(*n.children.at(i + 1), names);
          if (!ops::compare(n.compare_ops[i], left, right)) return Value(false);
          left = std::move(right);
        }
        return Value(true);
      }
      case NodeKind::BoolOp: {
        Value v;
        for (std::size_t i = 0; i < n.children.size(); ++i) {
          v = eval(*n.children[i], names);
          const bool t = v.truthy();
          if (n.bool_op == BoolOpKind::And ? !t : t) return v;
        }
        return v;
      }
      case NodeKind::IfExp:
        return eval(*n.children.at(1), names).truthy() ? eval(*n.children.at(0), names)
                                                        : eval(*n.children.at(2), names);
      case NodeKind::Call: {
        if (!ops::is_known_function(n.name))
          throw ExpressionError("unknown function '" + n.name + "'", std::string(source_), n.begin);
        std::vector<Value> args;
        args.reserve(n.children.size());
        for (const auto& c : n.children) args.push_back(eval(*c, names));
        return ops::call(n.name, args);
      }
      case NodeKind::List:
      case NodeKind::Tuple: {
        Value::List items;
        items.reserve(n.children.size());
        for (const auto& c : n.children) items.push_back(eval(*c, names));
        return Value(std::move(items));
      }
      case NodeKind::ListComp: {
        const Value iterable = eval(*n.children.at(1), names);
        const Value::List items = ops::call("list", {iterable}).as_list();
        Value::List out;
        Value current;
        // The loop variable shadows outer names inside the element and the condition.
        const NameResolver inner = [&](std::string_view name) -> const Value* {
          if (name == n.name) return &current;
          return names ? names(name) : nullptr;
        };
        for (const Value& item : items) {
          current = item;
          if (n.children.size() > 2 && !eval(*n.children[2], inner).truthy()) continue;
          out.push_back(eval(*n.children[0], inner));
        }
        return Value(std::move(out));
      }
    }
    return Value();
  }

 private:
  std::string_view source_;
};

}  // namespace

Value evaluate(const Node& node, const NameResolver& names, std::string_view source) {
  return TreeEvaluator(source).eval(node, names);
}

TypeSet types_of(const std::vector<Value>& values) {
  TypeSet t = 0;
  for (const Value& v : values) t |= type_bit(v.type());
  return t;
}

Value evaluate_constant_expression(std::string_view source) {
  const NodePtr root = parse_expression(source);
  return evaluate(*root, [](std::string_view) -> const Value* { return nullptr; }, source);
}

}  // namespace ktune::expr
