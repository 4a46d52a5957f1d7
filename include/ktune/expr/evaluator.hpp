#pragma once
// Evaluation with Python semantics: a generic tree evaluator (for one-off evaluation such as T1 value lists)
// and CompiledExpression, the flat form used in hot loops (names resolved to slots once, no maps or strings).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ktune/expr/ast.hpp"
#include "ktune/expr/errors.hpp"

namespace ktune::expr {

// Returns the value bound to a name, or nullptr if unknown.
using NameResolver = std::function<const Value*(std::string_view name)>;

// Evaluates a tree. Unknown names throw ExpressionError (with column); runtime failures throw EvalError.
Value evaluate(const Node& node, const NameResolver& names, std::string_view source = {});

// Evaluates a self-contained expression such as a T1 "Values" string: "[2**i for i in range(0, 6)]".
Value evaluate_constant_expression(std::string_view source);

// Set of possible ValueTypes, as a bit mask (1u << ValueType).
using TypeSet = std::uint32_t;
constexpr TypeSet type_bit(ValueType t) { return 1u << static_cast<unsigned>(t); }
// The types `values` have (a parameter's values: what CompiledExpression::compile wants for its slot).
TypeSet types_of(const std::vector<Value>& values);

class CompiledExpression {
 public:
  // Resolves every Name to a slot (index into slot_names) or folds it to a constant. slot_types[i] is the set of
  // types the values of slot i can have; an operation that fails for every possible combination of operand types
  // is a static type error. Throws ExpressionError (unknown name, type mismatch) pointing into `source`.
  static CompiledExpression compile(const Node& root, std::string_view source, const std::vector<std::string>& slot_names,
                                    const std::vector<TypeSet>& slot_types,
                                    const std::map<std::string, Value, std::less<>>& constants);

  // Evaluates with slots[i] the value of slot i. Throws EvalError.
  Value evaluate(const Value* slots) const;
  bool evaluate_bool(const Value* slots) const { return evaluate_truthy(slots); }
  // The set of types the result can have.
  TypeSet result_types() const { return result_types_; }
  // Whether a statically typed numeric program exists (every slot used has exactly one of the types int, float,
  // bool, and only numeric operations are used); it runs first and falls back to the general code on errors.
  bool has_fast_path() const { return !fast_code_.empty(); }
  // Human-readable listing of the bytecode, one instruction per line (for debugging and tests).
  std::string disassemble() const;

  struct Instr {
    std::uint16_t op;       // opcode (implementation defined)
    std::uint16_t arg = 0;  // slot / constant index / operand count / jump target
    std::uint32_t arg2 = 0;
  };

 private:
  std::vector<Instr> code_;
  std::vector<Value> constants_;
  TypeSet result_types_ = 0;
  std::size_t max_stack_ = 0;
  std::size_t num_locals_ = 0;                   // comprehension loop variables
  std::vector<std::vector<std::int64_t>> int_sets_;  // sorted constant int lists for fast `in`
  // Statically typed numeric program on unboxed registers (empty if the expression does not qualify); it bails
  // out to code_ on anything unusual. Encoding in src/expr/bytecode.hpp.
  std::vector<std::uint64_t> fast_code_;
  std::vector<std::uint64_t> fast_consts_;
  bool evaluate_truthy(const Value* slots) const;  // evaluate(slots).truthy() without building a Value
  friend struct CompiledExpressionBuilder;
};

// Python operator semantics, shared by all evaluators. Throw EvalError.
namespace ops {
Value unary(UnaryOp op, const Value& a);
Value binary(BinaryOp op, const Value& a, const Value& b);
bool compare(CompareOp op, const Value& a, const Value& b);
// Built-in calls: min max abs int float round len range list str bool sum.
Value call(std::string_view function, const std::vector<Value>& args);
bool is_known_function(std::string_view function);

// Float semantics of Python's // and % (result of % takes the sign of the divisor). Throw on division by zero.
double floordiv(double a, double b);
double mod(double a, double b);
std::int64_t floordiv(std::int64_t a, std::int64_t b);
std::int64_t mod(std::int64_t a, std::int64_t b);
// Python's round(x) (banker's rounding) for a float.
double round_half_even(double x);
}  // namespace ops

}  // namespace ktune::expr
