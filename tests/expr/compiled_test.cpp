// CompiledExpression: agreement with the tree evaluator on random expressions and random slot values,
// soundness of the static result types, constant folding, fused bytecode and comprehensions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"
#include "ktune/rng.hpp"

namespace {

using namespace ktune;
using namespace ktune::expr;

constexpr TypeSet kInt = type_bit(ValueType::Int);
constexpr TypeSet kFloat = type_bit(ValueType::Float);
constexpr TypeSet kBool = type_bit(ValueType::Bool);
constexpr TypeSet kStr = type_bit(ValueType::String);
constexpr TypeSet kList = type_bit(ValueType::List);

// Describes the outcome of an evaluation: the type and repr of the value, or the error kind.
template <class F>
std::string outcome(F&& f, ValueType* type = nullptr) {
  try {
    const Value v = f();
    if (type) *type = v.type();
    return v.type_name() + " " + v.repr();
  } catch (const EvalError& e) {
    return "EvalError " + std::to_string(static_cast<int>(e.kind()));
  }
}

// Random Python source over the slots a b (int), c (float), d (bool), s (str), l (list of int), m (int|float|bool).
class ExpressionGenerator {
 public:
  explicit ExpressionGenerator(std::uint64_t seed) : rng_(seed) {}

  std::string expr(int depth) {
    if (depth <= 0 || rng_.below(10) < 2) return atom();
    switch (rng_.below(16)) {
      case 0:
      case 1:
      case 2:
      case 3: {
        static const char* ops[] = {"+", "-", "*", "/", "//", "%", "**", "+", "-", "*", "%"};
        const char* op = ops[rng_.below(std::size(ops))];
        std::string right = std::string(op) == "**" ? small_exponent() : expr(depth - 1);
        return "(" + expr(depth - 1) + " " + op + " " + right + ")";
      }
      case 4:
      case 5: {
        static const char* ops[] = {"<", "<=", ">", ">=", "==", "!="};
        std::string out = expr(depth - 1);
        const int n = 1 + static_cast<int>(rng_.below(3));
        for (int i = 0; i < n; ++i) out += std::string(" ") + ops[rng_.below(6)] + " " + expr(depth - 1);
        return "(" + out + ")";
      }
      case 6: return "(" + expr(depth - 1) + (rng_.below(2) ? " and " : " or ") + expr(depth - 1) + ")";
      case 7: return "(not " + expr(depth - 1) + ")";
      case 8: return "(" + expr(depth - 1) + " if " + expr(depth - 1) + " else " + expr(depth - 1) + ")";
      case 9: return "(-" + expr(depth - 1) + ")";
      case 10: {
        static const char* fns[] = {"min", "max"};
        std::string out = std::string(fns[rng_.below(2)]) + "(" + expr(depth - 1);
        const int n = 1 + static_cast<int>(rng_.below(2));
        for (int i = 0; i < n; ++i) out += ", " + expr(depth - 1);
        return out + ")";
      }
      case 11: {
        static const char* fns[] = {"abs", "int", "float", "round", "bool", "str", "len"};
        return std::string(fns[rng_.below(std::size(fns))]) + "(" + expr(depth - 1) + ")";
      }
      case 12: {
        static const char* lists[] = {"[1, 2, 4, 8, 16]", "l", "[0, 1.5, True]", "list(range(0, 10, 3))", "'abc'"};
        return "(" + expr(depth - 1) + (rng_.below(2) ? " in " : " not in ") + lists[rng_.below(std::size(lists))] + ")";
      }
      case 13: return "sum([x * " + expr(depth - 1) + " for x in range(" + std::to_string(rng_.below(4)) + ") if x != " +
                      expr(depth - 1) + "])";
      case 14: return "round(" + expr(depth - 1) + ", " + std::to_string(static_cast<int>(rng_.below(5)) - 2) + ")";
      default: return "(" + expr(depth - 1) + " + " + expr(depth - 1) + ")";
    }
  }

 private:
  std::string small_exponent() {
    static const char* e[] = {"0", "1", "2", "3", "-1", "0.5", "a", "d", "m", "2.0"};
    return e[rng_.below(std::size(e))];
  }
  std::string atom() {
    static const char* atoms[] = {"a", "b", "c", "d", "m", "a", "b", "m", "0", "1", "2", "3", "-1", "7", "1024",
                                  "0.5", "2.5", "-1.5", "0.0", "True", "False", "4611686018427387904", "s", "l"};
    return atoms[rng_.below(std::size(atoms))];
  }
  Rng rng_;
};

struct Slots {
  std::vector<std::string> names{"a", "b", "c", "d", "s", "l", "m"};
  std::vector<TypeSet> types{kInt, kInt, kFloat, kBool, kStr, kList, kInt | kFloat | kBool};
  std::vector<Value> values;

  void randomize(Rng& rng) {
    static const std::int64_t ints[] = {0, 1, 2, 3, -1, -7, 12, 1024, 3037000499, std::numeric_limits<std::int64_t>::max(),
                                        std::numeric_limits<std::int64_t>::min(), 9007199254740993};
    static const double floats[] = {0.0, -0.0, 0.5, 2.5, -3.75, 1e300, 1e-300, 7.0, -1.0};
    auto any_int = [&] { return rng.below(4) == 0 ? ints[rng.below(std::size(ints))] : static_cast<std::int64_t>(rng.below(9)) - 3; };
    values = {Value(any_int()),
              Value(any_int()),
              Value(floats[rng.below(std::size(floats))]),
              Value(rng.below(2) == 1),
              Value(rng.below(2) ? "abc" : ""),
              Value(Value::List{Value(1), Value(2), Value(static_cast<std::int64_t>(rng.below(5)))}),
              Value()};
    switch (rng.below(3)) {
      case 0: values[6] = Value(any_int()); break;
      case 1: values[6] = Value(floats[rng.below(std::size(floats))]); break;
      default: values[6] = Value(rng.below(2) == 1); break;
    }
  }
  const Value* lookup(std::string_view name) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return &values[i];
    return nullptr;
  }
};

TEST(CompiledExpression, AgreesWithTreeEvaluatorOnRandomExpressions) {
  ExpressionGenerator gen(20240611);
  Rng rng(7);
  Slots slots;
  int compiled = 0, rejected = 0, evaluations = 0, errors = 0, fast = 0;
  for (int i = 0; i < 1500; ++i) {
    const std::string source = gen.expr(1 + static_cast<int>(i % 4));
    SCOPED_TRACE(source);
    const NodePtr root = parse_expression(source);
    CompiledExpression code;
    try {
      code = CompiledExpression::compile(*root, source, slots.names, slots.types, {});
    } catch (const ExpressionError& e) {
      // Rejected statically: some operation fails for every possible operand type (Python raises TypeError
      // whenever it is reached), or a part without parameters raises whenever it is evaluated (issue 19).
      EXPECT_TRUE(e.message().rfind("type mismatch", 0) == 0 || e.message().rfind("unsupported operand", 0) == 0 ||
                  e.message().rfind("always raises ", 0) == 0)
          << e.what();
      ++rejected;
      continue;
    }
    ++compiled;
    fast += code.has_fast_path();
    for (int k = 0; k < 12; ++k) {
      slots.randomize(rng);
      ValueType tree_type = ValueType::None, code_type = ValueType::None;
      const std::string tree = outcome(
          [&] { return evaluate(*root, [&](std::string_view n) { return slots.lookup(n); }, source); }, &tree_type);
      const std::string fast = outcome([&] { return code.evaluate(slots.values.data()); }, &code_type);
      ASSERT_EQ(fast, tree) << "slots a=" << slots.values[0].repr() << " b=" << slots.values[1].repr()
                            << " c=" << slots.values[2].repr() << " d=" << slots.values[3].repr()
                            << " m=" << slots.values[6].repr() << "\n"
                            << code.disassemble();
      if (fast.rfind("EvalError", 0) == 0) {
        ++errors;
        EXPECT_THROW(code.evaluate_bool(slots.values.data()), EvalError);
      } else {
        // The static result types cover what actually comes out.
        EXPECT_TRUE(code.result_types() & type_bit(code_type)) << fast << " types " << code.result_types();
        EXPECT_EQ(code.evaluate_bool(slots.values.data()),
                  evaluate(*root, [&](std::string_view n) { return slots.lookup(n); }, source).truthy());
      }
      ++evaluations;
    }
  }
  EXPECT_GT(compiled, 1000);
  EXPECT_GT(fast, 300);  // the typed numeric program is exercised too
  EXPECT_GT(rejected, 20);
  EXPECT_GT(errors, 500);  // the generator does reach the error paths
  EXPECT_GT(evaluations - errors, 5000);
}

Value run(const std::string& source, const std::vector<std::string>& names, const std::vector<TypeSet>& types,
          const std::vector<Value>& values, const std::map<std::string, Value, std::less<>>& constants = {}) {
  const NodePtr root = parse_expression(source);
  return CompiledExpression::compile(*root, source, names, types, constants).evaluate(values.data());
}

TEST(CompiledExpression, KernelTunerRestrictions) {
  const std::vector<std::string> names{"block_size_x", "block_size_y", "tile", "unroll", "use_column", "n_y_blocks"};
  const std::vector<TypeSet> types(names.size(), kInt);
  auto eval = [&](const std::string& src, std::vector<Value> v) { return run(src, names, types, v).repr(); };
  const std::vector<Value> cfg{Value(32), Value(16), Value(8), Value(4), Value(0), Value(2)};
  EXPECT_EQ(eval("block_size_x*block_size_y<=1024", cfg), "True");
  EXPECT_EQ(eval("block_size_x*block_size_y<=256", cfg), "False");
  EXPECT_EQ(eval("32 <= block_size_x*block_size_y <= 1024", cfg), "True");
  EXPECT_EQ(eval("32 <= block_size_x*block_size_y <= 511", cfg), "False");
  EXPECT_EQ(eval("1024 <= block_size_x*block_size_y <= 2048", cfg), "False");
  EXPECT_EQ(eval("tile % unroll == 0", cfg), "True");
  EXPECT_EQ(eval("use_column != 0 or n_y_blocks <= 1", cfg), "False");
  EXPECT_EQ(eval("(block_size_x / tile) % unroll == 0", cfg), "True");
  EXPECT_EQ(eval("(block_size_x / tile) % 3", cfg), "1.0");
  EXPECT_EQ(eval("block_size_x in [1, 2, 4, 8, 16, 32]", cfg), "True");
  EXPECT_EQ(eval("block_size_y not in [1, 2, 4, 8, 32]", cfg), "True");
  EXPECT_EQ(eval("use_column and tile", cfg), "0");
  EXPECT_EQ(eval("n_y_blocks and tile", cfg), "8");
  EXPECT_EQ(eval("max(block_size_x, tile * 8, 2.5)", cfg), "64");
  EXPECT_EQ(eval("min(block_size_x, 2.5)", cfg), "2.5");
  EXPECT_EQ(eval("-block_size_x // 5", cfg), "-7");
  EXPECT_EQ(eval("-block_size_x % 5", cfg), "3");
  EXPECT_EQ(eval("block_size_x % -5", cfg), "-3");
  EXPECT_EQ(eval("2 ** tile", cfg), "256");
  EXPECT_EQ(eval("tile ** -1", cfg), "0.125");
}

TEST(CompiledExpression, StringListAndComprehensionSlots) {
  const std::vector<std::string> names{"s", "l", "k"};
  const std::vector<TypeSet> types{kStr, kList, kInt};
  const std::vector<Value> v{Value("abc"), Value(Value::List{Value(1), Value(2.5), Value("x")}), Value(2)};
  auto eval = [&](const std::string& src) { return run(src, names, types, v).repr(); };
  EXPECT_EQ(eval("s + 'd'"), "'abcd'");
  EXPECT_EQ(eval("s * k"), "'abcabc'");
  EXPECT_EQ(eval("'b' in s"), "True");
  EXPECT_EQ(eval("'x' in l"), "True");
  EXPECT_EQ(eval("2.5 in l and 2 not in l"), "True");
  EXPECT_EQ(eval("l + [k]"), "[1, 2.5, 'x', 2]");
  EXPECT_EQ(eval("[x for x in l if x != 'x']"), "[1, 2.5]");
  EXPECT_EQ(eval("[c + c for c in s]"), "['aa', 'bb', 'cc']");
  EXPECT_EQ(eval("[[y * k for y in range(x)] for x in range(3)]"), "[[], [0], [0, 2]]");
  EXPECT_EQ(eval("[k for k in range(3)] + [k]"), "[0, 1, 2, 2]");  // the loop variable does not leak
  EXPECT_EQ(eval("len(s) + len(l)"), "6");
  EXPECT_EQ(eval("s if k > 5 else l"), "[1, 2.5, 'x']");
  EXPECT_EQ(eval("str(k) + s"), "'2abc'");
  EXPECT_EQ(eval("[s, k]"), "['abc', 2]");
  EXPECT_EQ(eval("sum(x * k for x in range(4))"), "12");
}

TEST(CompiledExpression, ResultTypes) {
  const std::vector<std::string> names{"i", "f", "b", "s", "m"};
  const std::vector<TypeSet> types{kInt, kFloat, kBool, kStr, kInt | kFloat};
  auto types_of = [&](const std::string& src) {
    const NodePtr root = parse_expression(src);
    return CompiledExpression::compile(*root, src, names, types, {}).result_types();
  };
  EXPECT_EQ(types_of("i * 2 <= 1024"), kBool);
  EXPECT_EQ(types_of("i * 2"), kInt);
  EXPECT_EQ(types_of("b + b"), kInt);
  EXPECT_EQ(types_of("i / 2"), kFloat);
  EXPECT_EQ(types_of("i + f"), kFloat);
  EXPECT_EQ(types_of("m + i"), kInt | kFloat);
  EXPECT_EQ(types_of("i ** 2"), kInt);
  EXPECT_EQ(types_of("i ** i"), kInt | kFloat);
  EXPECT_EQ(types_of("i or s"), kInt | kStr);
  EXPECT_EQ(types_of("i if b else f"), kInt | kFloat);
  EXPECT_EQ(types_of("not s"), kBool);
  EXPECT_EQ(types_of("s * i"), kStr);
  EXPECT_EQ(types_of("[i]"), kList);
  EXPECT_EQ(types_of("round(f)"), kInt);
  EXPECT_EQ(types_of("round(f, 2)"), kFloat);
  EXPECT_EQ(types_of("abs(b)"), kInt);
  EXPECT_EQ(types_of("max(i, f)"), kInt | kFloat);
  EXPECT_EQ(types_of("max([1, 2])"), kInt);
  EXPECT_EQ(types_of("min(s)"), kStr);
  EXPECT_EQ(types_of("len(s)"), kInt);
  EXPECT_EQ(types_of("sum(range(i))"), kInt);
  EXPECT_EQ(types_of("[x * 2 for x in range(i)]"), kList);
  EXPECT_EQ(types_of("'a'"), kStr);
}

TEST(CompiledExpression, ConstantsAreFolded) {
  const std::map<std::string, Value, std::less<>> constants{{"max_threads", Value(1024)}, {"name", Value("gemm")}};
  const std::string src = "a * 2 <= max_threads // 2 + len(name) - len([2**i for i in range(4)])";
  const NodePtr root = parse_expression(src);
  const auto code = CompiledExpression::compile(*root, src, {"a"}, {kInt}, constants);
  // Everything right of <= is one constant: 512 + 4 - 4.
  EXPECT_EQ(code.disassemble(), "0: binary * slot,int 0 2\n1: compare <= stack,int 0 512\n");
  const Value v255[] = {Value(255)};
  const Value v257[] = {Value(257)};
  EXPECT_TRUE(code.evaluate_bool(v255));
  EXPECT_FALSE(code.evaluate_bool(v257));
  // A constant subexpression that always fails is a mistake in the expression, reported when it is compiled...
  const std::string bad = "a + 1 // 0";
  EXPECT_THROW(CompiledExpression::compile(*parse_expression(bad), bad, {"a"}, {kInt}, {}), ExpressionError);
  // ... unless constants make it unreachable: then it is compiled, and fails where Python would (never here).
  const std::string unreachable = "a if True else 1 // 0";
  const auto guarded = CompiledExpression::compile(*parse_expression(unreachable), unreachable, {"a"}, {kInt}, {});
  EXPECT_EQ(guarded.evaluate(v255).repr(), "255");
  // Slots shadow constants of the same name.
  const std::string shadow = "max_threads + 1";
  const auto shadow_code = CompiledExpression::compile(*parse_expression(shadow), shadow, {"max_threads"}, {kInt}, constants);
  EXPECT_EQ(shadow_code.evaluate(v255).repr(), "256");
}

TEST(CompiledExpression, FusedOperandsAndShortCircuitJumps) {
  const std::vector<std::string> names{"a", "b", "c"};
  const std::vector<TypeSet> types(3, kInt);
  const std::string src = "a*(b or c) + 1";
  const auto code = CompiledExpression::compile(*parse_expression(src), src, names, types, {});
  EXPECT_EQ(code.disassemble(),
            "0: load_slot 1 0\n1: jump_if_true_or_pop 0 3\n2: load_slot 2 0\n3: binary * slot,stack 0 0\n"
            "4: binary + stack,int 0 1\n");
  const Value v1[] = {Value(3), Value(0), Value(5)};
  const Value v2[] = {Value(3), Value(2), Value(5)};
  EXPECT_EQ(code.evaluate(v1).repr(), "16");
  EXPECT_EQ(code.evaluate(v2).repr(), "7");
  // Left operand fused while the right one is code containing jumps: the jumps are moved with it.
  const std::string src2 = "2 - (a if b else c)";
  const auto code2 = CompiledExpression::compile(*parse_expression(src2), src2, names, types, {});
  EXPECT_EQ(code2.evaluate(v1).repr(), "-3");
  EXPECT_EQ(code2.evaluate(v2).repr(), "-1");
  const std::string src3 = "1 - 2 * (0 < a < 5) - (b and c)";
  const auto code3 = CompiledExpression::compile(*parse_expression(src3), src3, names, types, {});
  EXPECT_EQ(code3.evaluate(v1).repr(), "-1");
  EXPECT_EQ(code3.evaluate(v2).repr(), "-6");
}

TEST(CompiledExpression, TypedFastPathFallsBackOnSurprises) {
  const std::vector<std::string> names{"a", "b", "x"};
  const std::vector<TypeSet> types{kInt, kInt, kFloat};
  auto compile = [&](const std::string& src) {
    return CompiledExpression::compile(*parse_expression(src), src, names, types, {});
  };
  const auto code = compile("(a * b + 2) // b <= x");
  ASSERT_TRUE(code.has_fast_path());
  std::vector<Value> v{Value(6), Value(4), Value(6.5)};
  EXPECT_EQ(code.evaluate(v.data()).repr(), "True");
  v[1] = Value(0);  // division by zero: the general path raises it
  EXPECT_THROW(code.evaluate(v.data()), EvalError);
  v[1] = Value(std::int64_t{1} << 62);  // overflow
  try {
    code.evaluate(v.data());
    FAIL();
  } catch (const EvalError& e) {
    EXPECT_EQ(e.kind(), EvalErrorKind::Overflow);
  }
  // A slot holding another type than declared still evaluates with Python semantics.
  v = {Value(6.0), Value(true), Value(8)};
  EXPECT_EQ(code.evaluate(v.data()).repr(), "True");
  v = {Value("s"), Value(1), Value(8)};
  EXPECT_THROW(code.evaluate(v.data()), EvalError);
  // Mixed-type results and non-numeric operations have no typed program.
  EXPECT_FALSE(compile("a or x").has_fast_path());
  EXPECT_FALSE(compile("a ** b").has_fast_path());
  EXPECT_FALSE(compile("len(str(a))").has_fast_path());
  EXPECT_TRUE(compile("a ** 2 + x").has_fast_path());
  EXPECT_TRUE(compile("a in [1, 2, 4] and not b % 2 and max(a, b) < x if x else -a").has_fast_path() == false);
  EXPECT_TRUE(compile("(a in [1, 2, 4] and not b % 2 and max(a, b) < x) if x else a > 0").has_fast_path());
  const auto chain = compile("0 < a <= b < x");
  v = {Value(1), Value(2), Value(2.5)};
  EXPECT_EQ(chain.evaluate(v.data()).repr(), "True");
  v = {Value(0), Value(2), Value(2.5)};
  EXPECT_EQ(chain.evaluate(v.data()).repr(), "False");
  v = {Value(3), Value(2), Value(2.5)};
  EXPECT_EQ(chain.evaluate(v.data()).repr(), "False");
  const auto floats = compile("round(x) + int(x) + abs(-x) + float(a) // 2");
  v = {Value(5), Value(2), Value(2.5)};
  EXPECT_EQ(floats.evaluate(v.data()).repr(), "8.5");
  v = {Value(5), Value(2), Value(std::nan(""))};
  EXPECT_THROW(floats.evaluate(v.data()), EvalError);
}

TEST(CompiledExpression, CopiesAreIndependent) {
  const std::string src = "a * 2.5 + len('abc') - 1e300 * 0";
  CompiledExpression copy;
  {
    const auto code = CompiledExpression::compile(*parse_expression(src), src, {"a"}, {kInt}, {});
    copy = code;
  }
  const Value v[] = {Value(2)};
  EXPECT_EQ(copy.evaluate(v).repr(), "8.0");
}

}  // namespace
