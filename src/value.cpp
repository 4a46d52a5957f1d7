// Value: Python-like scalars and lists with Python's repr() and == semantics.
#include "ktune/value.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>


namespace ktune {

double Value::to_double() const {
  switch (type()) {
    case ValueType::Bool: return as_bool() ? 1.0 : 0.0;
    case ValueType::Int: return static_cast<double>(as_int());
    case ValueType::Float: return as_float();
    default: return 0.0;
  }
}

bool Value::truthy() const {
  switch (type()) {
    case ValueType::None: return false;
    case ValueType::Bool: return as_bool();
    case ValueType::Int: return as_int() != 0;
    case ValueType::Float: return as_float() != 0.0;
    case ValueType::String: return !as_string().empty();
    case ValueType::List: return !as_list().empty();
  }
  return false;
}

namespace {

// Python's repr of a str: single quotes unless the text contains ' but no ".
std::string string_repr(const std::string& s) {
  const bool has_single = s.find('\'') != std::string::npos;
  const bool has_double = s.find('"') != std::string::npos;
  const char quote = (has_single && !has_double) ? '"' : '\'';
  std::string out;
  out.reserve(s.size() + 2);
  out += quote;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == quote || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;  // printable ASCII and UTF-8 bytes of printable characters stay as they are
    }
  }
  out += quote;
  return out;
}

}  // namespace

std::string Value::repr() const {
  switch (type()) {
    case ValueType::None: return "None";
    case ValueType::Bool: return as_bool() ? "True" : "False";
    case ValueType::Int: return std::to_string(as_int());
    case ValueType::Float: return python_float_repr(as_float());
    case ValueType::String: return string_repr(as_string());
    case ValueType::List: {
      std::string out = "[";
      bool first = true;
      for (const Value& v : as_list()) {
        if (!first) out += ", ";
        first = false;
        out += v.repr();
      }
      out += ']';
      return out;
    }
  }
  return "None";
}

std::string Value::str() const { return is_string() ? as_string() : repr(); }

std::string Value::type_name() const {
  switch (type()) {
    case ValueType::None: return "NoneType";
    case ValueType::Bool: return "bool";
    case ValueType::Int: return "int";
    case ValueType::Float: return "float";
    case ValueType::String: return "str";
    case ValueType::List: return "list";
  }
  return "NoneType";
}

std::string python_float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0.0) return std::signbit(d) ? "-0.0" : "0.0";
  // Shortest round-trip digits, then Python's float_repr_style layout.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  const std::string sci(buf, res.ptr);
  const auto e_pos = sci.find('e');
  std::string mantissa = sci.substr(0, e_pos);
  const int exponent = std::stoi(sci.substr(e_pos + 1));
  const bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (const char c : mantissa)
    if (c != '.') digits += c;
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 16) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out += digits.substr(1);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
    out += ebuf;
    return out;
  }
  const int point = exponent + 1;  // digits before the decimal point
  if (point <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-point), '0');
    out += digits;
  } else if (static_cast<std::size_t>(point) >= digits.size()) {
    out += digits;
    out.append(static_cast<std::size_t>(point) - digits.size(), '0');
    out += ".0";
  } else {
    out += digits.substr(0, static_cast<std::size_t>(point));
    out += '.';
    out += digits.substr(static_cast<std::size_t>(point));
  }
  return out;
}

int python_compare_int_float(std::int64_t i, double d) {
  if (std::isnan(d)) return 2;
  constexpr double two63 = 9223372036854775808.0;
  if (d >= two63) return -1;
  if (d < -two63) return 1;
  const double t = std::trunc(d);
  const auto ti = static_cast<std::int64_t>(t);  // exact: |t| < 2^63
  if (i < ti) return -1;
  if (i > ti) return 1;
  if (d > t) return -1;
  if (d < t) return 1;
  return 0;
}

bool python_equal(const Value& a, const Value& b) {
  if (a.is_numeric() && b.is_numeric()) {
    if (a.is_float() || b.is_float()) {
      if (a.is_float() && b.is_float()) return a.as_float() == b.as_float();
      const Value& f = a.is_float() ? a : b;
      const Value& i = a.is_float() ? b : a;
      const std::int64_t iv = i.is_bool() ? (i.as_bool() ? 1 : 0) : i.as_int();
      return python_compare_int_float(iv, f.as_float()) == 0;
    }
    const std::int64_t av = a.is_bool() ? (a.as_bool() ? 1 : 0) : a.as_int();
    const std::int64_t bv = b.is_bool() ? (b.as_bool() ? 1 : 0) : b.as_int();
    return av == bv;
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case ValueType::None: return true;
    case ValueType::String: return a.as_string() == b.as_string();
    case ValueType::List: {
      const auto& la = a.as_list();
      const auto& lb = b.as_list();
      if (la.size() != lb.size()) return false;
      for (std::size_t i = 0; i < la.size(); ++i)
        if (!python_equal(la[i], lb[i])) return false;
      return true;
    }
    default: return false;
  }
}

bool same_value(const Value& a, const Value& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case ValueType::None: return true;
    case ValueType::Bool: return a.as_bool() == b.as_bool();
    case ValueType::Int: return a.as_int() == b.as_int();
    case ValueType::Float: {
      const double x = a.as_float(), y = b.as_float();
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
      return x == y;
    }
    case ValueType::String: return a.as_string() == b.as_string();
    case ValueType::List: {
      const auto& la = a.as_list();
      const auto& lb = b.as_list();
      if (la.size() != lb.size()) return false;
      for (std::size_t i = 0; i < la.size(); ++i)
        if (!same_value(la[i], lb[i])) return false;
      return true;
    }
  }
  return false;
}

}  // namespace ktune
