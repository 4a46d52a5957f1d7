#pragma once
#include <stdexcept>
#include <string>

namespace ktune::expr {

// A static error in an expression (syntax, unknown name, type mismatch, a constant part that always raises).
// what() names the context, the message and the column (1-based, as compilers count), and shows the source with a
// caret under that column:
//   constraint 2: unknown name 'blok_size_x' (column 1)
//     blok_size_x * 2 <= 1024
//     ^
class ExpressionError : public std::runtime_error {
 public:
  // `column` is the 0-based offset of the offending character in `source`.
  ExpressionError(std::string message, std::string source, int column, std::string context = "");
  const std::string& message() const { return message_; }
  const std::string& source() const { return source_; }
  int column() const { return column_; }  // 0-based offset into source(); messages show column() + 1
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
  // 0-based offset in the source of the operation that raised (its operator, or the call), -1 when unknown. The
  // tree evaluator sets it; the compiled form does not (it keeps no positions in its hot loop).
  int column() const { return column_; }
  void set_column(int column) { column_ = column; }

 private:
  EvalErrorKind kind_;
  int column_ = -1;
};

}  // namespace ktune::expr
