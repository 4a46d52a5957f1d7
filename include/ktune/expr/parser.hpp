#pragma once
#include <string_view>

#include "ktune/expr/ast.hpp"
#include "ktune/expr/errors.hpp"

namespace ktune::expr {

// Parses one Python expression (the subset documented in docs/constraint-language.md).
// Throws ExpressionError with the column of the problem on any syntax error.
NodePtr parse_expression(std::string_view source);

}  // namespace ktune::expr
