#pragma once
// A pull parser over JSON text for the large results files: the caller walks objects and arrays with callbacks and
// builds its own structures directly, without a DOM. Lenient where Kernel Tuner's files need it: Python's NaN,
// Infinity and -Infinity are numbers, and running out of text (a file cut short by an interrupted run) is reported
// as EndOfInput, apart from syntax errors, so the caller can keep what was complete.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ktune/io/json_file.hpp"
#include "ktune/value.hpp"

namespace ktune::io {

// The text ended before the value being read was complete.
struct EndOfInput {};

// read_value() met a JSON object, which a Value cannot hold; `position` is the object's byte offset.
struct NotAValue {
  std::size_t position;
};

struct JsonNumber {
  bool is_integer = false;  // written without fraction or exponent and within the int64 range
  std::int64_t integer = 0;
  double real = 0;  // the value as a double (also for integers)
};

class LenientJsonReader {
 public:
  // `text` must outlive the reader. Syntax errors throw InputError naming `source_name` with byte, line and column.
  LenientJsonReader(const std::string& text, const std::string& source_name, std::size_t start = 0)
      : text_(text), source_name_(source_name), p_(text.data() + start), end_(text.data() + text.size()) {}
  LenientJsonReader(std::string&& text, const std::string& source_name, std::size_t start = 0) = delete;

  std::size_t position() const { return static_cast<std::size_t>(p_ - text_.data()); }
  const std::string& source_name() const { return source_name_; }

  // The next character after blanks, not consumed; EndOfInput at the end of the text.
  char peek() {
    skip_blanks();
    if (p_ == end_) throw EndOfInput{};
    return *p_;
  }
  // True when only blanks are left.
  bool at_end() {
    skip_blanks();
    return p_ == end_;
  }
  void expect(char c) {
    if (peek() != c) syntax_error(std::string("expected '") + c + "'");
    ++p_;
  }

  // Checks that the text is a JSON object: a syntax error if it is not JSON, an InputError naming the kind of value
  // if it is another value.
  void expect_top_level_object();

  // Reads an object, calling on_member(std::string_view key) with the reader at the member's value, which the
  // callback must read (or skip). The key stays valid during the callback.
  template <class OnMember>
  void read_object(OnMember&& on_member) {
    skip_blanks();
    const Nesting nesting(*this);
    expect('{');
    if (peek() == '}') {
      ++p_;
      return;
    }
    std::string key_buffer;  // used only for keys with escapes
    for (;;) {
      if (peek() != '"') syntax_error("expected a string as object key");
      const std::string_view key = read_string_into(key_buffer);
      expect(':');
      on_member(key);
      const char c = peek();
      ++p_;
      if (c == '}') return;
      if (c != ',') syntax_error_at(position() - 1, "expected ',' or '}' after an object member");
    }
  }

  // Reads an array, calling on_element() with the reader at each element, which the callback must read.
  template <class OnElement>
  void read_array(OnElement&& on_element) {
    skip_blanks();
    const Nesting nesting(*this);
    expect('[');
    if (peek() == ']') {
      ++p_;
      return;
    }
    for (;;) {
      on_element();
      const char c = peek();
      ++p_;
      if (c == ']') return;
      if (c != ',') syntax_error_at(position() - 1, "expected ',' or ']' after an array element");
    }
  }

  // A string, unescaped. The view points into the text or into a buffer that the next read_string() reuses.
  std::string_view read_string() {
    if (peek() != '"') syntax_error("expected a string");
    return read_string_into(scratch_);
  }

  // A number: JSON syntax, or NaN, Infinity, -Infinity. A number that ends the text is incomplete (the documents
  // read here are objects), so it raises EndOfInput.
  JsonNumber read_number() {
    skip_blanks();
    const char* const start = p_;
    const char* q = p_;
    if (q != end_ && *q == '-') ++q;
    if (q == end_) throw EndOfInput{};
    if (*q == 'I' || (*q == 'N' && q == start)) return read_non_finite();
    bool integer = true;
    std::uint64_t magnitude = 0;  // of the integer part; used when it has at most 18 digits (no overflow)
    const char* const digits = q;
    if (*q == '0') {
      ++q;
    } else if (is_digit(*q)) {
      while (q != end_ && is_digit(*q)) magnitude = magnitude * 10 + static_cast<unsigned>(*q++ - '0');
    } else {
      syntax_error("expected a value");
    }
    if (q != end_ && *q == '.') {
      integer = false;
      if (++q == end_) throw EndOfInput{};
      if (!is_digit(*q)) syntax_error_at(static_cast<std::size_t>(q - text_.data()), "expected a digit after '.'");
      while (q != end_ && is_digit(*q)) ++q;
    }
    if (q != end_ && (*q == 'e' || *q == 'E')) {
      integer = false;
      if (++q != end_ && (*q == '+' || *q == '-')) ++q;
      if (q == end_) throw EndOfInput{};
      if (!is_digit(*q)) syntax_error_at(static_cast<std::size_t>(q - text_.data()), "expected a digit in the exponent");
      while (q != end_ && is_digit(*q)) ++q;
    }
    if (q == end_) throw EndOfInput{};
    JsonNumber n;
    if (integer && q - digits <= 18) {  // the common short integer, without a second pass
      n.is_integer = true;
      n.integer = start == digits ? static_cast<std::int64_t>(magnitude) : -static_cast<std::int64_t>(magnitude);
      n.real = static_cast<double>(n.integer);
      p_ = q;
      return n;
    }
    if (integer) {
      const auto [ptr, ec] = std::from_chars(start, q, n.integer);
      if (ec == std::errc() && ptr == q) {
        n.is_integer = true;
        n.real = static_cast<double>(n.integer);
        p_ = q;
        return n;
      }
    }
    n.real = parse_double(start, q);
    p_ = q;
    return n;
  }
  double read_double() { return read_number().real; }

  // A scalar or an array (as a List): integers become Int, other numbers Float. Throws NotAValue for an object.
  Value read_value();
  // Any JSON value (NaN and infinities as doubles). For the small parts of a file.
  nlohmann::json read_json();
  void skip_value();

  [[noreturn]] void syntax_error(const std::string& detail) const { syntax_error_at(position(), detail); }
  [[noreturn]] void syntax_error_at(std::size_t byte, const std::string& detail) const;

 private:
  [[noreturn]] void too_deep() const;
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  void skip_blanks() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  // At the opening quote. Returns a view into the text when there are no escapes, else into `buffer`.
  std::string_view read_string_into(std::string& buffer) {
    const char* const start = ++p_;
    while (p_ != end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') return {start, static_cast<std::size_t>(p_++ - start)};
      if (c == '\\' || c < 0x20) return read_escaped_string(start, buffer);
      ++p_;
    }
    throw EndOfInput{};
  }
  std::string_view read_escaped_string(const char* start, std::string& buffer);
  JsonNumber read_non_finite();
  double parse_double(const char* begin, const char* end) const;
  // Consumes `word` (true, false, null, ...) at the current position.
  void read_word(std::string_view word);
  // Counts the nesting depth (objects and arrays, the top level is 1), so deep input cannot exhaust the stack of the
  // recursive readers and callbacks: deeper than kMaxJsonDepth is a syntax error at the bracket that opens the level.
  class Nesting {
   public:
    explicit Nesting(LenientJsonReader& reader) : reader_(reader) {
      if (reader_.depth_ >= static_cast<int>(kMaxJsonDepth)) reader_.too_deep();
      ++reader_.depth_;
    }
    ~Nesting() { --reader_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    LenientJsonReader& reader_;
  };

  const std::string& text_;
  std::string source_name_;
  const char* p_;
  const char* end_;
  std::string scratch_;
  int depth_ = 0;
};

}  // namespace ktune::io
