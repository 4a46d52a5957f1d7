// ExpressionError: message plus the source line with a caret under the offending column.
#include "ktune/expr/errors.hpp"

#include <algorithm>
#include <string>

namespace ktune::expr {

ExpressionError::ExpressionError(std::string message, std::string source, int column, std::string context)
    : std::runtime_error(format(message, source, column, context)),
      message_(std::move(message)),
      source_(std::move(source)),
      column_(column),
      context_(std::move(context)) {}

ExpressionError ExpressionError::with_context(const std::string& context) const {
  std::string combined = context;
  if (!context_.empty()) combined = context.empty() ? context_ : context + ", " + context_;
  return ExpressionError(message_, source_, column_, combined);
}

std::string ExpressionError::format(const std::string& message, const std::string& source, int column,
                                    const std::string& context) {
  // The source is shown on one line; tabs are kept in the caret line so the caret stays aligned, and a UTF-8
  // character takes one caret column (and counts as one column in the message).
  std::string shown = source;
  std::replace(shown.begin(), shown.end(), '\n', ' ');
  std::replace(shown.begin(), shown.end(), '\r', ' ');
  const auto col = static_cast<std::size_t>(std::clamp(column, 0, static_cast<int>(shown.size())));
  std::string pad;
  std::size_t characters = 0;
  for (std::size_t i = 0; i < col; ++i) {
    const auto c = static_cast<unsigned char>(shown[i]);
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    pad += (c == '\t') ? '\t' : ' ';
    ++characters;
  }
  std::string out = context.empty() ? message : context + ": " + message;
  out += " (column " + std::to_string(characters + 1) + ")";
  out += "\n  " + shown + "\n  " + pad + "^";
  return out;
}

}  // namespace ktune::expr
