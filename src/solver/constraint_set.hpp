#pragma once
// From constraint strings to the smallest constraints the solver checks: parse, substitute named constants,
// fold constant subexpressions, split top-level `and` and comparison chains, recognise specialised forms and
// compile each one to its fast form.
#include <optional>
#include <string>
#include <vector>

#include "ktune/expr/ast.hpp"
#include "ktune/expr/evaluator.hpp"
#include "ktune/problem.hpp"
#include "solver/numeric_program.hpp"

namespace ktune::solver {

enum class ConstraintKind {
  Constant,       // no parameter left after folding
  Unary,          // one parameter: applied as a domain filter before search
  MaxProduct, MinProduct, ExactProduct,  // p1*p2*...*pk <=, >=, == constant
  MaxSum, MinSum, ExactSum,              // p1+p2+...+pk <=, >=, == constant
  Divisibility,   // a % b == 0
  Equality,       // a == b
  Inequality,     // a != b
  Ordering,       // a < b, a <= b, ...
  General,
};
const char* to_string(ConstraintKind kind);

struct PreparedConstraint {
  std::string text;    // the smallest constraint as Python source
  std::string origin;  // "constraint 3" (1-based position among Problem::all_constraints())
  std::string source;  // the full original constraint string (error columns refer to it)
  expr::NodePtr ast;
  std::vector<std::size_t> params;  // ascending parameter indices used
  ConstraintKind kind = ConstraintKind::General;
  std::optional<NumericProgram> numeric;              // when every operand is numeric
  std::optional<expr::CompiledExpression> compiled;   // always (slots = all parameters)
};

// Throws expr::ExpressionError (with the constraint's position as context) or ProblemError.
std::vector<PreparedConstraint> prepare_constraints(const Problem& problem);

// Names of parameters used by a tree (excluding comprehension variables).
void collect_names(const expr::Node& node, std::vector<std::string>& out);

}  // namespace ktune::solver
