#include "io/json_text.hpp"

#include <cmath>

#include <fmt/format.h>

namespace ktune::io {

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (const char ch : text) {
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(ch));
        } else {
          out += ch;  // UTF-8 passes through
        }
    }
  }
  out += '"';
}

void append_json_number(std::string& out, double number) {
  if (std::isnan(number)) {
    out += "NaN";
  } else if (std::isinf(number)) {
    out += number > 0 ? "Infinity" : "-Infinity";
  } else {
    out += python_float_repr(number);
  }
}

void append_json_value(std::string& out, const Value& value) {
  switch (value.type()) {
    case ValueType::None: out += "null"; return;
    case ValueType::Bool: out += value.as_bool() ? "true" : "false"; return;
    case ValueType::Int: fmt::format_to(std::back_inserter(out), "{}", value.as_int()); return;
    case ValueType::Float: append_json_number(out, value.as_float()); return;
    case ValueType::String: append_json_string(out, value.as_string()); return;
    case ValueType::List: {
      out += '[';
      bool first = true;
      for (const Value& item : value.as_list()) {
        if (!first) out += ", ";
        first = false;
        append_json_value(out, item);
      }
      out += ']';
      return;
    }
  }
}

}  // namespace ktune::io
