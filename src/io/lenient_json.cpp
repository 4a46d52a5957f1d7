#include "io/lenient_json.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"

namespace ktune::io {

namespace {


int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

}  // namespace

void LenientJsonReader::syntax_error_at(std::size_t byte, const std::string& detail) const {
  throw_json_syntax_error(text_, byte, detail, source_name_);
}

void LenientJsonReader::too_deep() const {
  syntax_error("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
}

void LenientJsonReader::expect_top_level_object() {
  const char c = peek();
  if (c == '{') return;
  const char* kind = c == '[' ? "an array" : c == '"' ? "a string" : c == 't' || c == 'f' ? "a boolean" : c == 'n' ? "null"
                   : c == '-' || c == 'N' || c == 'I' || is_digit(c) ? "a number" : nullptr;
  if (kind == nullptr) syntax_error("expected a JSON object");
  throw InputError(source_name_, "", std::string("expected a JSON object at the top level, got ") + kind);
}

std::string_view LenientJsonReader::read_escaped_string(const char* start, std::string& buffer) {
  buffer.assign(start, p_);
  // Four hex digits after "\u" at `at`, or -1 if not hex; EndOfInput if the text ends first.
  const auto read_hex4 = [&](const char* at) -> long {
    long code = 0;
    for (int k = 0; k < 4; ++k) {
      if (at + k == end_) throw EndOfInput{};
      const int d = hex_digit(at[k]);
      if (d < 0) return -1;
      code = code * 16 + d;
    }
    return code;
  };
  while (p_ != end_) {
    const auto c = static_cast<unsigned char>(*p_);
    if (c == '"') {
      ++p_;
      return buffer;
    }
    if (c < 0x20) syntax_error("control character in a string (must be escaped)");
    if (c != '\\') {
      buffer += static_cast<char>(c);
      ++p_;
      continue;
    }
    if (++p_ == end_) break;
    const char e = *p_++;
    switch (e) {
      case '"': buffer += '"'; break;
      case '\\': buffer += '\\'; break;
      case '/': buffer += '/'; break;
      case 'b': buffer += '\b'; break;
      case 'f': buffer += '\f'; break;
      case 'n': buffer += '\n'; break;
      case 'r': buffer += '\r'; break;
      case 't': buffer += '\t'; break;
      case 'u': {
        long code = read_hex4(p_);
        if (code < 0) syntax_error("expected four hex digits after \\u");
        p_ += 4;
        // A high surrogate followed by a low one is one code point; lone surrogates are kept as they are (Python
        // accepts them too).
        if (code >= 0xD800 && code < 0xDC00 && end_ - p_ >= 2 && p_[0] == '\\' && p_[1] == 'u') {
          const long low = read_hex4(p_ + 2);
          if (low >= 0xDC00 && low < 0xE000) {
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            p_ += 6;
          }
        }
        append_utf8(buffer, static_cast<std::uint32_t>(code));
        break;
      }
      default: syntax_error_at(position() - 1, std::string("invalid escape '\\") + e + "' in a string");
    }
  }
  throw EndOfInput{};
}

void LenientJsonReader::read_word(std::string_view word) {
  const auto left = static_cast<std::size_t>(end_ - p_);
  const std::string_view here(p_, std::min(left, word.size()));
  if (here != word.substr(0, here.size())) syntax_error("expected a value");
  if (left <= word.size()) throw EndOfInput{};  // cut inside the word, or the word ends the text
  p_ += word.size();
}

JsonNumber LenientJsonReader::read_non_finite() {
  JsonNumber n;
  if (*p_ == '-') {
    ++p_;
    read_word("Infinity");
    n.real = -std::numeric_limits<double>::infinity();
  } else if (*p_ == 'I') {
    read_word("Infinity");
    n.real = std::numeric_limits<double>::infinity();
  } else {
    read_word("NaN");
    n.real = std::numeric_limits<double>::quiet_NaN();
  }
  return n;
}

double LenientJsonReader::parse_double(const char* begin, const char* end) const {
  double d = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, d);
  if (ec == std::errc() && ptr == end) return d;
  // Out of range: strtod gives what Python does (inf for overflow, 0 or a subnormal for underflow).
  const std::string copy(begin, end);
  return std::strtod(copy.c_str(), nullptr);
}

Value LenientJsonReader::read_value() {
  switch (peek()) {
    case '"': return Value(std::string(read_string()));
    case 't': read_word("true"); return Value(true);
    case 'f': read_word("false"); return Value(false);
    case 'n': read_word("null"); return Value();
    case '{': throw NotAValue{position()};
    case '[': {
      Value::List list;
      read_array([&] { list.push_back(read_value()); });
      return Value(std::move(list));
    }
    default: {
      const JsonNumber n = read_number();
      return n.is_integer ? Value(n.integer) : Value(n.real);
    }
  }
}

nlohmann::json LenientJsonReader::read_json() {
  switch (peek()) {
    case '"': return std::string(read_string());
    case 't': read_word("true"); return true;
    case 'f': read_word("false"); return false;
    case 'n': read_word("null"); return nullptr;
    case '{': {
      nlohmann::json object = nlohmann::json::object();
      read_object([&](std::string_view key) { object[std::string(key)] = read_json(); });
      return object;
    }
    case '[': {
      nlohmann::json array = nlohmann::json::array();
      read_array([&] { array.push_back(read_json()); });
      return array;
    }
    default: {
      const JsonNumber n = read_number();
      if (n.is_integer) return n.integer;
      return n.real;
    }
  }
}

void LenientJsonReader::skip_value() {
  switch (peek()) {
    case '"': (void)read_string(); return;
    case 't': read_word("true"); return;
    case 'f': read_word("false"); return;
    case 'n': read_word("null"); return;
    case '{': {
      read_object([&](std::string_view) { skip_value(); });
      return;
    }
    case '[': {
      read_array([&] { skip_value(); });
      return;
    }
    default: (void)read_number(); return;
  }
}

}  // namespace ktune::io
