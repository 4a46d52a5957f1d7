// Fuzz target "expression": the input is one constraint or value-list expression.
//  - tokenize / parse: only ExpressionError, with its column inside the expression;
//  - unparse gives source that parses back to the same tree (same unparse again);
//  - evaluate_constant_expression (the T1 "Values" path): ExpressionError or EvalError only;
//  - CompiledExpression::compile against known parameters and constants (ExpressionError only), then on a few
//    configurations the compiled program, its boolean fast path and the tree evaluator agree: the same type and
//    repr, or all raise EvalError of the same kind.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"
#include "fuzz_entries.hpp"

namespace {

using namespace ktune;
using namespace ktune::expr;
using ktune::fuzz::check;

constexpr TypeSet kInt = type_bit(ValueType::Int);
constexpr TypeSet kFloat = type_bit(ValueType::Float);
constexpr TypeSet kBool = type_bit(ValueType::Bool);
constexpr TypeSet kStr = type_bit(ValueType::String);
constexpr TypeSet kList = type_bit(ValueType::List);

// The parameters an expression may name (as in a Kernel Tuner problem), with the types their values can take.
const std::vector<std::string> kNames{"block_size_x", "block_size_y", "tile", "f", "use_shared", "alg", "l", "m"};
const std::vector<TypeSet> kTypes{kInt, kInt, kInt, kFloat, kBool, kStr, kList, kInt | kFloat | kBool};

const std::map<std::string, Value, std::less<>>& constants() {
  static const std::map<std::string, Value, std::less<>> c{{"N", Value(1024)}, {"eps", Value(0.5)},
                                                          {"kind", Value("tiled")}};
  return c;
}

// Configurations (one value per name above) covering the corners of the arithmetic.
const std::vector<std::vector<Value>>& configurations() {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  const double inf = std::numeric_limits<double>::infinity();
  static const std::vector<std::vector<Value>> c{
      {Value(32), Value(8), Value(4), Value(2.5), Value(true), Value("tiled"), Value(Value::List{Value(1), Value(2)}),
       Value(3)},
      {Value(0), Value(1), Value(0), Value(0.0), Value(false), Value(""), Value(Value::List{}), Value(-0.0)},
      {Value(-7), Value(-1), Value(3), Value(-3.75), Value(false), Value("a'b\"c"),
       Value(Value::List{Value(1.5), Value("x"), Value(true)}), Value(false)},
      {Value(kMax), Value(kMin), Value(std::int64_t{3037000500}), Value(1e300), Value(true), Value("\xc3\xa9"),
       Value(Value::List{Value(Value::List{Value(kMax)})}), Value(kMin)},
      {Value(std::int64_t{9007199254740993}), Value(2), Value(64), Value(std::nan("")), Value(true), Value("0"),
       Value(Value::List{Value(), Value(-inf)}), Value(inf)},
  };
  return c;
}

// Whether the repr of `v` is short enough to compare as text: strings and list elements count against `budget`.
bool short_repr(const Value& v, std::size_t& budget) {
  const std::size_t cost = v.is_string() ? v.as_string().size() : v.is_list() ? v.as_list().size() : 1;
  if (cost >= budget) return false;
  budget -= cost;
  if (v.is_list())
    for (const Value& item : v.as_list())
      if (!short_repr(item, budget)) return false;
  return true;
}

// A hash of what repr(v) shows (type, length and content), without writing it out.
std::uint64_t hash_of(const Value& v) {
  const auto mix = [](std::uint64_t h, std::uint64_t x) { return (h ^ x) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL; };
  std::uint64_t h = mix(0xcbf29ce484222325ULL, static_cast<std::uint64_t>(v.type()));
  if (v.is_string()) return mix(mix(h, v.as_string().size()), std::hash<std::string>{}(v.as_string()));
  if (v.is_int()) return mix(h, static_cast<std::uint64_t>(v.as_int()));
  if (v.is_bool()) return mix(h, v.as_bool() ? 1 : 0);
  if (!v.is_list()) return mix(h, std::hash<std::string>{}(v.repr()));  // None; floats as repr shows them (-0.0, nan)
  h = mix(h, v.as_list().size());
  for (const Value& item : v.as_list()) h = mix(h, hash_of(item));
  return h;
}

// The type and repr of a value, or the kind of the EvalError. Long strings and lists (an expression may build
// millions of elements) are compared by size and hash: the repr of a 5 MB string takes longer than the evaluation.
std::string describe(const Value& v) {
  std::size_t budget = 4096;
  if (short_repr(v, budget)) return v.type_name() + " " + v.repr();
  const std::size_t size = v.is_string() ? v.as_string().size() : v.as_list().size();
  return v.type_name() + " of length " + std::to_string(size) + ", hash " + std::to_string(hash_of(v));
}

template <class F>
std::string outcome(F&& f) {
  try {
    const Value v = f();
    return describe(v);
  } catch (const EvalError& e) {
    return "EvalError " + std::to_string(static_cast<int>(e.kind()));
  }
}

void check_column(const ExpressionError& e, std::string_view source) {
  check(e.column() >= 0 && static_cast<std::size_t>(e.column()) <= source.size(),
        "ExpressionError column " + std::to_string(e.column()) + " outside the expression: " + e.what());
}

}  // namespace

int ktune_fuzz_expression(const std::uint8_t* data, std::size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);

  try {
    (void)tokenize(source);
  } catch (const ExpressionError& e) {
    check_column(e, source);
  }

  NodePtr root;
  try {
    root = parse_expression(source);
  } catch (const ExpressionError& e) {
    check_column(e, source);
    return 0;
  }

  // unparse: Python source that parses back to an equal tree.
  const std::string text = unparse(*root);
  NodePtr again;
  try {
    again = parse_expression(text);
  } catch (const ExpressionError& e) {
    check(false, "unparse gave source that does not parse: " + std::string(e.what()));
  }
  check(unparse(*again) == text, "unparse is not stable: '" + text + "' reads back as '" + unparse(*again) + "'");

  // The value-list path of T1 files: no names are known.
  try {
    (void)evaluate_constant_expression(source);
  } catch (const ExpressionError& e) {
    check_column(e, source);
  } catch (const EvalError&) {
  }

  CompiledExpression code;
  try {
    code = CompiledExpression::compile(*root, source, kNames, kTypes, constants());
  } catch (const ExpressionError& e) {
    check_column(e, source);
    return 0;
  }
  for (const std::vector<Value>& config : configurations()) {
    const auto lookup = [&](std::string_view name) -> const Value* {
      for (std::size_t i = 0; i < kNames.size(); ++i)
        if (kNames[i] == name) return &config[i];
      const auto it = constants().find(name);
      return it == constants().end() ? nullptr : &it->second;
    };
    Value tree_value;
    const std::string tree = outcome([&] { return tree_value = evaluate(*root, lookup, source); });
    const std::string compiled = outcome([&] { return code.evaluate(config.data()); });
    check(compiled == tree, "compiled program and tree evaluator disagree on '" + std::string(source) +
                                "': compiled " + compiled + ", tree " + tree + "\n" + code.disassemble());
    bool truthy = false;
    const bool raised = outcome([&] { return Value(truthy = code.evaluate_bool(config.data())); }).starts_with("Eval");
    check(raised == tree.starts_with("EvalError"),
          "evaluate_bool " + std::string(raised ? "raised" : "did not raise") + " where evaluate gave " + tree);
    if (!raised) check(truthy == tree_value.truthy(), "evaluate_bool disagrees with evaluate: " + tree);
    if (!raised) check((code.result_types() & type_bit(tree_value.type())) != 0, "result type outside result_types: " + tree);
    // A result of many elements (an expression may build lists and strings of millions) costs milliseconds a
    // configuration; one configuration checks it, and the fuzzer moves on.
    std::size_t budget = 4096;
    if (!tree.starts_with("EvalError") && !short_repr(tree_value, budget)) break;
  }
  return 0;
}
