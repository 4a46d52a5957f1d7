#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ktune/expr/ast.hpp"
#include "ktune/expr/errors.hpp"

namespace ktune::expr {

// Parses one Python expression (the subset documented in docs/constraint-language.md).
// Throws ExpressionError with the column of the problem on any syntax error.
NodePtr parse_expression(std::string_view source);

// Tokens of an expression (used by the parser; exposed for tests and tools).
enum class TokenKind { Int, Float, String, Name, Op, End };
struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;  // source text (operators and names: the operator or name itself)
  Value value;       // Int, Float, String: the literal's value
  int begin = 0;     // 0-based column
  int end = 0;
};
// Splits `source` into tokens, ending with one End token. Throws ExpressionError on invalid characters/literals.
std::vector<Token> tokenize(std::string_view source);

}  // namespace ktune::expr
