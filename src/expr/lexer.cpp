// Tokenizer for the Python expression subset: numbers, strings, names/keywords and operators.
#include "ktune/expr/parser.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>

#include "ktune/expr/errors.hpp"

namespace ktune::expr {

namespace {

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    int last_end = 0;
    while (true) {
      while (pos_ < src_.size() && (is_space(src_[pos_]) || is_line_continuation())) pos_ += src_[pos_] == '\\' ? 2 : 1;
      if (pos_ >= src_.size()) break;
      Token t = next();
      last_end = t.end;
      out.push_back(std::move(t));
    }
    Token end;
    end.kind = TokenKind::End;
    end.begin = end.end = last_end;
    out.push_back(std::move(end));
    return out;
  }

 private:
  bool is_line_continuation() const {
    return src_[pos_] == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n';
  }
  [[noreturn]] void fail(const std::string& message, std::size_t column) const {
    throw ExpressionError(message, std::string(src_), static_cast<int>(column));
  }

  Token next() {
    const std::size_t start = pos_;
    const char c = src_[pos_];
    if (is_digit(c) || (c == '.' && pos_ + 1 < src_.size() && is_digit(src_[pos_ + 1]))) return number();
    if (c == '\'' || c == '"') return string();
    if (is_name_start(c)) {
      while (pos_ < src_.size() && is_name_char(src_[pos_])) ++pos_;
      Token t;
      t.kind = TokenKind::Name;
      t.text = std::string(src_.substr(start, pos_ - start));
      t.begin = static_cast<int>(start);
      t.end = static_cast<int>(pos_);
      return t;
    }
    static constexpr std::string_view two_char_ops[] = {"**", "//", "==", "!=", "<=", ">="};
    for (const auto op : two_char_ops) {
      if (src_.substr(pos_, 2) == op) return op_token(2);
    }
    static constexpr std::string_view one_char_ops = "+-*/%<>()[],=.";
    if (one_char_ops.find(c) != std::string_view::npos) return op_token(1);
    std::string shown(1, c);
    if (static_cast<unsigned char>(c) < 0x20) shown = "\\x" + std::to_string(static_cast<int>(c));
    fail("invalid character '" + shown + "'", start);
  }

  Token op_token(std::size_t len) {
    Token t;
    t.kind = TokenKind::Op;
    t.text = std::string(src_.substr(pos_, len));
    t.begin = static_cast<int>(pos_);
    t.end = static_cast<int>(pos_ + len);
    pos_ += len;
    return t;
  }

  // Digits with single underscores between them (Python 3.6+ literal syntax). Appends the digits to `out`.
  void digits(std::string& out, bool (*valid)(char), std::size_t literal_start) {
    bool last_underscore = false;
    bool any = false;
    while (pos_ < src_.size() && (valid(src_[pos_]) || src_[pos_] == '_')) {
      if (src_[pos_] == '_') {
        if (last_underscore || !any) fail("invalid decimal literal", literal_start);
        last_underscore = true;
      } else {
        out += src_[pos_];
        last_underscore = false;
        any = true;
      }
      ++pos_;
    }
    if (last_underscore) fail("invalid decimal literal", literal_start);
  }

  Token number() {
    const std::size_t start = pos_;
    Token t;
    t.begin = static_cast<int>(start);
    std::string text;
    bool is_float = false;
    int base = 10;
    if (src_[pos_] == '0' && pos_ + 1 < src_.size()) {
      const char p = static_cast<char>(src_[pos_ + 1] | 0x20);
      if (p == 'x' || p == 'o' || p == 'b') {
        base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
        pos_ += 2;
        if (pos_ < src_.size() && src_[pos_] == '_') ++pos_;
        bool (*valid)(char) = base == 16 ? +[](char ch) { return is_digit(ch) || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f'); }
                              : base == 8 ? +[](char ch) { return ch >= '0' && ch <= '7'; }
                                          : +[](char ch) { return ch == '0' || ch == '1'; };
        digits(text, valid, start);
        if (text.empty()) fail("invalid " + std::string(base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary") + " literal", start);
      }
    }
    if (base == 10) {
      digits(text, is_digit, start);
      if (pos_ < src_.size() && src_[pos_] == '.') {
        is_float = true;
        text += '.';
        ++pos_;
        if (pos_ < src_.size() && is_digit(src_[pos_])) digits(text, is_digit, start);
      }
      if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
        std::size_t save = pos_;
        std::string exp = "e";
        ++pos_;
        if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) exp += src_[pos_++];
        if (pos_ < src_.size() && is_digit(src_[pos_])) {
          digits(exp, is_digit, start);
          text += exp;
          is_float = true;
        } else {
          pos_ = save;  // reported below as an invalid literal
        }
      }
    }
    if (pos_ < src_.size() && (src_[pos_] == 'j' || src_[pos_] == 'J')) fail("complex numbers are not supported", start);
    if (pos_ < src_.size() && (is_name_char(src_[pos_]) || src_[pos_] == '.')) fail("invalid decimal literal", start);
    t.end = static_cast<int>(pos_);
    t.text = std::string(src_.substr(start, pos_ - start));
    if (is_float) {
      t.kind = TokenKind::Float;
      errno = 0;
      t.value = Value(std::strtod(text.c_str(), nullptr));  // correctly rounded; 1e999 gives inf like Python
      return t;
    }
    t.kind = TokenKind::Int;
    if (base == 10 && text.size() > 1 && text[0] == '0' && text.find_first_not_of('0') != std::string::npos)
      fail("leading zeros in decimal integer literals are not permitted", start);
    std::uint64_t v = 0;
    for (const char ch : text) {
      const int d = is_digit(ch) ? ch - '0' : (ch | 0x20) - 'a' + 10;
      if (v > (std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(d)) / static_cast<std::uint64_t>(base) ||
          v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d) >
              static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail("integer literal too large (integers are 64-bit)", start);
      v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
    }
    t.value = Value(static_cast<std::int64_t>(v));
    return t;
  }

  Token string() {
    const std::size_t start = pos_;
    const char quote = src_[pos_++];
    std::string out;
    while (true) {
      if (pos_ >= src_.size() || src_[pos_] == '\n') fail("unterminated string literal", start);
      const char c = src_[pos_++];
      if (c == quote) break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= src_.size()) fail("unterminated string literal", start);
      const char e = src_[pos_++];
      switch (e) {
        case '\n': break;  // line continuation inside a string
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'v': out += '\v'; break;
        case 'x': {
          auto hex = [](char h) -> int {
            if (is_digit(h)) return h - '0';
            const char l = static_cast<char>(h | 0x20);
            return (l >= 'a' && l <= 'f') ? l - 'a' + 10 : -1;
          };
          if (pos_ + 1 >= src_.size() || hex(src_[pos_]) < 0 || hex(src_[pos_ + 1]) < 0)
            fail("invalid \\x escape in string literal", pos_ - 2);
          const int code = hex(src_[pos_]) * 16 + hex(src_[pos_ + 1]);
          pos_ += 2;
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else {  // a code point U+0080..U+00FF, stored as UTF-8
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default:
          if (e >= '0' && e <= '7') {  // octal escape, up to 3 digits
            int code = e - '0';
            for (int k = 0; k < 2 && pos_ < src_.size() && src_[pos_] >= '0' && src_[pos_] <= '7'; ++k)
              code = code * 8 + (src_[pos_++] - '0');
            if (code < 0x80) {
              out += static_cast<char>(code);
            } else {
              out += static_cast<char>(0xC0 | (code >> 6));
              out += static_cast<char>(0x80 | (code & 0x3F));
            }
          } else {  // unknown escapes keep the backslash, like Python
            out += '\\';
            out += e;
          }
      }
    }
    Token t;
    t.kind = TokenKind::String;
    t.value = Value(std::move(out));
    t.begin = static_cast<int>(start);
    t.end = static_cast<int>(pos_);
    t.text = std::string(src_.substr(start, pos_ - start));
    return t;
  }

  std::string_view src_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) { return Lexer(source).run(); }

}  // namespace ktune::expr
