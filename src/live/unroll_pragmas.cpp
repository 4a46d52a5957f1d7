#include "unroll_pragmas.hpp"

#include <cctype>
#include <string_view>
#include <vector>

namespace ktune::live::detail {
namespace {

void skip_blanks(std::string_view line, std::size_t& at) {
  while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
}

bool take(std::string_view line, std::size_t& at, std::string_view word) {
  if (line.substr(at, word.size()) != word) return false;
  at += word.size();
  return true;
}

// Whether `line` is "#pragma unroll NAME" (blanks anywhere between, nothing after but blanks or a // comment).
bool is_unroll_pragma_of(std::string_view line, std::string_view name) {
  std::size_t at = 0;
  skip_blanks(line, at);
  if (!take(line, at, "#")) return false;
  skip_blanks(line, at);
  if (!take(line, at, "pragma")) return false;
  skip_blanks(line, at);
  if (!take(line, at, "unroll")) return false;
  const std::size_t before_name = at;
  skip_blanks(line, at);
  if (at == before_name || !take(line, at, name)) return false;
  if (at < line.size() && (std::isalnum(static_cast<unsigned char>(line[at])) || line[at] == '_')) return false;
  skip_blanks(line, at);
  return at == line.size() || line[at] == '\r' || line.substr(at, 2) == "//";
}

}  // namespace

std::string blank_zero_unroll_pragmas(std::string code, const Defines& defines) {
  std::vector<std::string_view> zero;
  for (const auto& [name, value] : defines)
    if (name.starts_with("loop_unroll_factor") && value == "0") zero.push_back(name);
  if (zero.empty()) return code;
  std::size_t begin = 0;
  while (begin < code.size()) {
    std::size_t end = code.find('\n', begin);
    if (end == std::string::npos) end = code.size();
    const std::string_view line(code.data() + begin, end - begin);
    for (std::string_view name : zero)
      if (is_unroll_pragma_of(line, name)) {
        code.replace(begin, end - begin, std::string(end - begin, ' '));
        break;
      }
    begin = end + 1;
  }
  return code;
}

}  // namespace ktune::live::detail
