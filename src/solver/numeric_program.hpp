#pragma once
// A constraint over numeric parameters compiled to a flat stack program on doubles. Two evaluations share it:
// point evaluation (every parameter bound: exact Python semantics for values that doubles hold exactly, i.e.
// integers up to 2^53; a result beyond that is reported as inexact and the caller evaluates exactly, since Python
// integers are exact and ours raise OverflowError beyond int64) and interval evaluation (some parameters only known to lie in [min, max] of their
// domain), which proves a partial assignment can never satisfy the constraint: the solver's bounds pruning.
#include <cstdint>
#include <functional>
#include <string_view>
#include <optional>
#include <vector>

#include "ktune/expr/ast.hpp"

namespace ktune::solver {

struct Interval {
  double lo, hi;
};

class NumericProgram {
 public:
  // Compiles `root` if it only uses numeric constants of magnitude up to kExactLimit, slots (name -> param index
  // via slot_of, -1 if unknown) whose values are all such numbers, and operations with numeric results. Returns
  // nullopt otherwise.
  static std::optional<NumericProgram> compile(const expr::Node& root,
                                               const std::function<int(std::string_view)>& slot_of);

  // Magnitude up to which every integer is a double: results beyond it may differ from Python's.
  static constexpr double kExactLimit = 9007199254740992.0;  // 2^53
  // The `error` of an evaluation whose result may be inexact (a value beyond kExactLimit): not a Python
  // exception; evaluate the configuration with the exact evaluator (expr::CompiledExpression) instead.
  static const char* const kInexact;

  // Point evaluation: vars[p] is the value of parameter p. Returns false and sets `error` on a Python
  // exception (ZeroDivisionError, complex result...): the configuration is invalid; or to kInexact.
  bool evaluate(const double* vars, double& result, const char*& error) const;
  bool truthy(const double* vars, bool& ok) const {
    double r;
    const char* err = nullptr;
    ok = evaluate(vars, r, err);
    return ok && r != 0.0;
  }
  // Batch evaluation for the solver's innermost loop: every parameter is bound (vars) except `var`, which takes
  // each of lane_values[0..lanes) in turn (lanes <= 64). Bit i of the result is set when the constraint holds
  // for lane i; bit i of `errors` when evaluating raised (a Python exception makes the configuration invalid).
  // Sub-expressions that do not depend on `var` are computed once for all lanes. `inexact` is set when a value
  // went beyond kExactLimit: the lanes where that happened are among `errors`, so when it is set every lane of
  // `errors` must be evaluated exactly before it is counted as an error.
  std::uint64_t evaluate_lanes(const double* vars, std::size_t var, const double* lane_values, std::size_t lanes,
                               std::uint64_t& errors, const char*& error_message, bool& inexact) const;
  // Interval evaluation. Returns false only when the constraint is certainly false for every point in the box
  // (never on an error: errors make that part unknown).
  bool may_hold(const Interval* box) const;
  // Whether interval evaluation can ever prove falsity (false when a comparison only sees unknown intervals,
  // e.g. for % with non-constant divisor).
  bool interval_useful() const { return interval_useful_; }

  enum class Op : std::uint8_t {
    Const, Var, Neg, Pos, Not, Add, Sub, Mul, Div, FloorDiv, Mod, Pow,
    Eq, Ne, Lt, Le, Gt, Ge, InList, NotInList,
    Min, Max, Abs, Int, Float, Round,
    // Point code only: short-circuit control flow.
    JumpIfFalsyKeep, JumpIfTruthyKeep, JumpIfFalsyPop, Jump,
    // Interval code only: eager forms of and / or / if-else (operands evaluated, errors become unknown).
    And, Or, IfElse,
  };
  struct Instr {
    Op op;
    std::uint32_t arg = 0;  // slot, jump target, argument count, list offset
    std::uint32_t arg2 = 0; // list length
    double value = 0;
  };

 private:
  std::vector<Instr> code_;           // point evaluation
  std::vector<Instr> interval_code_;  // interval evaluation
  std::vector<double> lists_;  // constant lists for `in`
  std::size_t max_stack_ = 0;
  bool interval_useful_ = false;
  friend class NumericCompiler;
};

}  // namespace ktune::solver
