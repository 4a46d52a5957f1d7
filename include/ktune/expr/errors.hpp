#pragma once
#include <stdexcept>
#include <string>

namespace ktune::expr {

// A static error in an expression (syntax, unknown name, type mismatch). what() names the context, the
// message and shows the source with a caret under the offending column:
//   constraint 2: unknown name 'blok_size_x'
//     blok_size_x * 2 <= 1024
//     ^
class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(std::string message, std::string source, int column, std::string context = "");
  const std::string& message() const { return message_; }
  const std::string& source() const { return source_; }
  int column() const { return column_; }
  const std::string& context() const { return context_; }
  // Same error with a context prefix such as "constraint 2" or "file x.json, parameter 'tile'".
  ExpressionError with_context(const std::string& context) const;

 private:
  static std::string format(const std::string& message, const std::string& source, int column, const std::string& context);
  std::string message_, source_;
  int column_;
  std::string context_;
};

// A dynamic error while evaluating for one configuration. The solver counts it and treats the
// configuration as invalid; it never aborts construction.
enum class EvalErrorKind { ZeroDivision, Type, Value, Overflow };

class EvalError : public std::runtime_error {
 public:
  EvalError(EvalErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  EvalErrorKind kind() const { return kind_; }

 private:
  EvalErrorKind kind_;
};

}  // namespace ktune::expr
