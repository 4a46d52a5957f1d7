#pragma once

#include <string>

namespace ktune::live {

// A file name as the inside of a C string literal (for #line and #include in generated sources).
inline std::string c_string_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace ktune::live
