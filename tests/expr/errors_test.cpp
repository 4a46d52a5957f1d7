// Static errors (syntax, unknown names, type mismatches) with their exact message, column and caret text,
// and the kinds of dynamic errors.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"

namespace {

using namespace ktune;
using namespace ktune::expr;

ExpressionError parse_error(const std::string& source) {
  try {
    parse_expression(source);
  } catch (const ExpressionError& e) {
    return e;
  }
  ADD_FAILURE() << "no ExpressionError for: " << source;
  return ExpressionError("", source, 0);
}

struct SyntaxCase {
  const char* source;
  int column;
  const char* message;
};

TEST(ExpressionErrors, SyntaxErrorsNameTheColumn) {
  const SyntaxCase cases[] = {
      {"", 0, "empty expression"},
      {"   ", 0, "empty expression"},
      {"(a + b", 0, "'(' was never closed"},
      {"x * (a + b", 4, "'(' was never closed"},
      {"[1, 2", 0, "'[' was never closed"},
      {"a + b)", 5, "unmatched ')'"},
      {"a]", 1, "unmatched ']'"},
      {"(1, 2]", 5, "closing ']' does not match '('"},
      {"a = 1", 2, "'=' is not allowed here; use '==' to compare"},
      {"1 +", 3, "unexpected end of expression"},
      {"* 2", 0, "invalid syntax: unexpected '*'"},
      {"1 2", 2, "invalid syntax: unexpected '2'"},
      {"a b", 2, "invalid syntax: unexpected 'b'"},
      {"foo(1)", 0, "unknown function 'foo' (known: min max abs int float round len range list str bool sum)"},
      {"a $ b", 2, "invalid character '$'"},
      {"x if y", 6, "expected 'else' in conditional expression"},
      {"'abc", 0, "unterminated string literal"},
      {"012", 0, "leading zeros in decimal integer literals are not permitted"},
      {"99999999999999999999", 0, "integer literal too large (integers are 64-bit)"},
      {"1abc", 0, "invalid decimal literal"},
      {"1__0", 0, "invalid decimal literal"},
      {"a.b", 1, "attribute access is not supported"},
      {"a[1]", 1, "indexing is not supported"},
      {"a is None", 2, "'is' is not supported; use '==' or '!='"},
      {"a not b", 6, "expected 'in' after 'not'"},
      {"max(x=1)", 4, "keyword arguments are not supported"},
      {"[x for x in l for y in l]", 14, "only one 'for' and one 'if' are supported in a comprehension"},
      {"[x for 1 in l]", 7, "expected a loop variable name after 'for'"},
      {"lambda + 1", 0, "invalid syntax: unexpected keyword 'lambda'"},
      {"3j", 0, "complex numbers are not supported"},
      {"(x for x in l)", 3, "generator expressions are not supported; use a list [... for ...]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.source);
    const ExpressionError e = parse_error(c.source);
    EXPECT_EQ(e.column(), c.column);
    EXPECT_EQ(e.message(), c.message);
    EXPECT_EQ(e.source(), c.source);
  }
}

TEST(ExpressionErrors, WhatShowsMessageSourceAndCaret) {
  const ExpressionError e = parse_error("(a + b");
  // The column in the text is 1-based, like a compiler's; column() is the 0-based offset into the source.
  EXPECT_EQ(std::string(e.what()), "'(' was never closed (column 1)\n  (a + b\n  ^");
  const ExpressionError e2 = parse_error("block_size_x * 2 <= 1024)");
  EXPECT_EQ(std::string(e2.what()),
            "unmatched ')' (column 25)\n  block_size_x * 2 <= 1024)\n                          ^");
  EXPECT_EQ(std::string(parse_error("1 +").what()), "unexpected end of expression (column 4)\n  1 +\n     ^");
}

TEST(ExpressionErrors, UnknownNameWithContext) {
  const std::string source = "blok_size_x * 2 <= 1024";
  const NodePtr root = parse_expression(source);
  try {
    CompiledExpression::compile(*root, source, {"block_size_x"}, {type_bit(ValueType::Int)}, {});
    FAIL() << "expected ExpressionError";
  } catch (const ExpressionError& e) {
    EXPECT_EQ(e.message(), "unknown name 'blok_size_x'");
    EXPECT_EQ(e.column(), 0);
    const ExpressionError c = e.with_context("constraint 2");
    EXPECT_EQ(std::string(c.what()),
              "constraint 2: unknown name 'blok_size_x' (column 1)\n  blok_size_x * 2 <= 1024\n  ^");
    EXPECT_EQ(c.context(), "constraint 2");
    EXPECT_EQ(c.message(), e.message());
    EXPECT_EQ(c.column(), e.column());
    // A second context goes in front of the first.
    EXPECT_EQ(c.with_context("file x.json").context(), "file x.json, constraint 2");
  }
  // The tree evaluator reports the same, at the name's column.
  const NodePtr r2 = parse_expression("1 + tile * 2");
  try {
    evaluate(*r2, [](std::string_view) -> const Value* { return nullptr; }, "1 + tile * 2");
    FAIL() << "expected ExpressionError";
  } catch (const ExpressionError& e) {
    EXPECT_EQ(std::string(e.what()), "unknown name 'tile' (column 5)\n  1 + tile * 2\n      ^");
  }
  EXPECT_THROW(evaluate_constant_expression("[i for i in range(3)] + [j]"), ExpressionError);
}

struct TypeCase {
  const char* source;
  int column;
  const char* message;
};

TEST(ExpressionErrors, StaticTypeMismatchPointsAtTheOperator) {
  const std::vector<std::string> names{"a", "s", "f", "l", "n", "m"};
  const std::vector<TypeSet> types{type_bit(ValueType::Int),
                                   type_bit(ValueType::String),
                                   type_bit(ValueType::Float) | type_bit(ValueType::Int),
                                   type_bit(ValueType::List),
                                   type_bit(ValueType::None),
                                   type_bit(ValueType::Int) | type_bit(ValueType::String)};
  const TypeCase cases[] = {
      {"a - 'x'", 2, "unsupported operand types for -: 'int' and 'str'"},
      {"(a)  -  'x'", 5, "unsupported operand types for -: 'int' and 'str'"},
      {"f - s", 2, "unsupported operand types for -: 'int|float' and 'str'"},
      {"s < 3", 2, "type mismatch: '<' not supported between 'str' and 'int'"},
      {"'abc' < 3", 6, "type mismatch: '<' not supported between 'str' and 'int'"},
      {"32 <= s <= 1024", 3, "type mismatch: '<=' not supported between 'int' and 'str'"},
      {"1 < a <= s", 6, "type mismatch: '<=' not supported between 'int' and 'str'"},
      {"a in 3", 2, "type mismatch: 'in' needs a list, or a str on both sides, not 'int' in 'int'"},
      {"-s", 0, "type mismatch: bad operand type for unary -: 'str'"},
      {"n + 1", 2, "unsupported operand types for +: 'NoneType' and 'int'"},
      {"l * 1.5", 2, "unsupported operand types for *: 'list' and 'float'"},
      {"len(a)", 4, "type mismatch: len() argument 1 cannot be 'int'"},
      {"round(a, 1, 2)", 0, "type mismatch: round() takes 1 or 2 arguments (3 given)"},
      {"range()", 0, "type mismatch: range() takes 1 to 3 arguments (0 given)"},
      {"min()", 0, "type mismatch: min() takes at least 1 argument (0 given)"},
      {"abs(s)", 4, "type mismatch: abs() argument 1 cannot be 'str'"},
      {"[x - 'a' for x in range(3)]", 3, "unsupported operand types for -: 'int' and 'str'"},
      {"[x for x in a]", 12, "type mismatch: 'int' object is not iterable"},
      {"zz + 1", 0, "unknown name 'zz'"},
      {"1 + (2 if a else zz)", 17, "unknown name 'zz'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.source);
    const NodePtr root = parse_expression(c.source);
    try {
      CompiledExpression::compile(*root, c.source, names, types, {});
      ADD_FAILURE() << "expected a static error";
    } catch (const ExpressionError& e) {
      EXPECT_EQ(e.message(), c.message);
      EXPECT_EQ(e.column(), c.column);
    }
  }
  // Some combination of the possible types works: compiles, and the failing combinations fail at run time.
  for (const char* ok : {"m + 1", "m < 3", "m * 2", "-m", "len(m)", "f + a", "a if a else s", "s == 3", "s != a"}) {
    SCOPED_TRACE(ok);
    const NodePtr root = parse_expression(ok);
    EXPECT_NO_THROW(CompiledExpression::compile(*root, ok, names, types, {}));
  }
  const NodePtr root = parse_expression("m + 1");
  const auto code = CompiledExpression::compile(*root, "m + 1", names, types, {});
  std::vector<Value> slots{Value(1), Value("s"), Value(1.0), Value(Value::List{}), Value(), Value("str")};
  try {
    code.evaluate(slots.data());
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    EXPECT_EQ(e.kind(), EvalErrorKind::Type);
    EXPECT_EQ(std::string(e.what()), "TypeError: can only concatenate str (not \"int\") to str");
  }
  slots[5] = Value(41);
  EXPECT_EQ(code.evaluate(slots.data()).repr(), "42");
}

EvalErrorKind eval_error_kind(const std::string& source) {
  try {
    evaluate_constant_expression(source);
  } catch (const EvalError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no EvalError for " << source;
  return EvalErrorKind::Type;
}

TEST(ExpressionErrors, DynamicErrorKindsAndMessages) {
  EXPECT_EQ(eval_error_kind("1 / 0"), EvalErrorKind::ZeroDivision);
  EXPECT_EQ(eval_error_kind("5 % 0"), EvalErrorKind::ZeroDivision);
  EXPECT_EQ(eval_error_kind("5.0 // 0"), EvalErrorKind::ZeroDivision);
  EXPECT_EQ(eval_error_kind("0 ** -1"), EvalErrorKind::ZeroDivision);
  EXPECT_EQ(eval_error_kind("9223372036854775807 + 1"), EvalErrorKind::Overflow);
  EXPECT_EQ(eval_error_kind("2 ** 63"), EvalErrorKind::Overflow);
  EXPECT_EQ(eval_error_kind("10.0 ** 400"), EvalErrorKind::Overflow);
  EXPECT_EQ(eval_error_kind("(-8) ** 0.5"), EvalErrorKind::Value);
  EXPECT_EQ(eval_error_kind("int('x')"), EvalErrorKind::Value);
  EXPECT_EQ(eval_error_kind("'a' < 1"), EvalErrorKind::Type);
  try {
    evaluate_constant_expression("1 // 0");
  } catch (const EvalError& e) {
    EXPECT_EQ(std::string(e.what()), "ZeroDivisionError: integer division or modulo by zero");
  }
  try {
    evaluate_constant_expression("'a' < 1");
  } catch (const EvalError& e) {
    EXPECT_EQ(std::string(e.what()), "TypeError: '<' not supported between instances of 'str' and 'int'");
  }
}

TEST(ExpressionErrors, CompiledRaisesSameKindsAtRunTime) {
  const std::vector<std::string> names{"a", "b"};
  const std::vector<TypeSet> types{type_bit(ValueType::Int), type_bit(ValueType::Int)};
  auto kind = [&](const char* source, std::int64_t a, std::int64_t b) {
    const NodePtr root = parse_expression(source);
    const auto code = CompiledExpression::compile(*root, source, names, types, {});
    const Value slots[] = {Value(a), Value(b)};
    try {
      code.evaluate_bool(slots);
    } catch (const EvalError& e) {
      return static_cast<int>(e.kind());
    }
    return -1;
  };
  EXPECT_EQ(kind("a % b == 0", 5, 0), static_cast<int>(EvalErrorKind::ZeroDivision));
  EXPECT_EQ(kind("a / b > 1", 5, 0), static_cast<int>(EvalErrorKind::ZeroDivision));
  EXPECT_EQ(kind("a * b > 1", std::int64_t{1} << 40, std::int64_t{1} << 40), static_cast<int>(EvalErrorKind::Overflow));
  EXPECT_EQ(kind("a ** b > 1", 10, 30), static_cast<int>(EvalErrorKind::Overflow));
  EXPECT_EQ(kind("b == 0 or a % b == 0", 5, 0), -1);  // short-circuit: no error
  EXPECT_EQ(kind("a % b == 0", 6, 3), -1);
}

struct ConstantErrorCase {
  const char* source;
  int column;
  const char* message;
};

// Issue 19 item 8: a subexpression that raises whatever the parameters are is an error when the expression is
// compiled (a constraint loaded, a metric read), with the caret under the operation that raises.
TEST(ExpressionErrors, ConstantErrorsAreStaticErrors) {
  const std::vector<std::string> names{"x", "s"};
  const std::vector<TypeSet> types{type_bit(ValueType::Int), type_bit(ValueType::String)};
  const ConstantErrorCase cases[] = {
      {"x % 0 == 0", 2, "always raises ZeroDivisionError: the divisor is 0"},
      {"x // (2 - 2) > 1", 2, "always raises ZeroDivisionError: the divisor is 0"},
      {"x / 0.0", 2, "always raises ZeroDivisionError: the divisor is 0"},
      {"x % False", 2, "always raises ZeroDivisionError: the divisor is 0"},
      {"x > 2**63", 5, "always raises OverflowError: integer result does not fit in 64 bits"},
      {"x + (1 // 0)", 7, "always raises ZeroDivisionError: integer division or modulo by zero"},
      {"x * ('a' + 1)", 9, "unsupported operand types for +: 'str' and 'int'"},  // the type checker says it first
      {"x * max([])", 4, "always raises ValueError: max() arg is an empty sequence"},
      {"x if x else int('abc')", 12, "always raises ValueError: invalid literal for int() with base 10: 'abc'"},
      {"max(x, 10**19)", 9, "always raises OverflowError: integer result does not fit in 64 bits"},
      {"x < -(-9223372036854775807 - 1)", 4, "always raises OverflowError: integer result does not fit in 64 bits"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.source);
    const NodePtr root = parse_expression(c.source);
    try {
      CompiledExpression::compile(*root, c.source, names, types, {});
      ADD_FAILURE() << "expected a static error";
    } catch (const ExpressionError& e) {
      EXPECT_EQ(e.message(), c.message);
      EXPECT_EQ(e.column(), c.column);
    }
  }
  // Errors that depend on the configuration, or that are never evaluated, stay run-time matters.
  for (const char* ok : {"x == 0 or 10 // x > 1", "True or 1 // 0", "[1 // 0 for i in range(0)] == []", "x % 1 == 0",
                         "x ** -1 > 0", "2**62 > x"}) {
    SCOPED_TRACE(ok);
    const NodePtr root = parse_expression(ok);
    EXPECT_NO_THROW(CompiledExpression::compile(*root, ok, names, types, {}));
  }
}

TEST(ExpressionErrors, EvaluationErrorsKnowWhereTheyHappened) {
  try {
    evaluate_constant_expression("[1, 2, 3 // 0]");
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    EXPECT_EQ(e.kind(), EvalErrorKind::ZeroDivision);
    EXPECT_EQ(e.column(), 9);  // the '//'
  }
  try {
    evaluate_constant_expression("[2**i for i in range(70)]");
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    EXPECT_EQ(e.kind(), EvalErrorKind::Overflow);
    EXPECT_EQ(e.column(), 2);
  }
  try {
    evaluate_constant_expression("len(1)");
    FAIL() << "expected EvalError";
  } catch (const EvalError& e) {
    EXPECT_EQ(e.column(), 0);
  }
}

}  // namespace
