#include "problem_size_indexing.hpp"

#include <cctype>

namespace ktune::live {

namespace {
bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

std::string rewrite_problem_size_indexing(std::string_view s) {
  constexpr std::string_view kName = "ProblemSize";
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t at = s.find(kName, i);
    if (at == std::string_view::npos) break;
    std::size_t j = at + kName.size();
    const bool whole_word = (at == 0 || !identifier_char(s[at - 1])) && (j >= s.size() || !identifier_char(s[j]));
    // Match "ProblemSize [ d ]" with d in 0..2 (spaces allowed); anything else is left for the parser to report.
    const auto skip_spaces = [&] { while (j < s.size() && s[j] == ' ') ++j; };
    char axis = 0;
    if (whole_word) {
      skip_spaces();
      if (j < s.size() && s[j] == '[') {
        ++j;
        skip_spaces();
        if (j < s.size() && s[j] >= '0' && s[j] <= '2') {
          axis = "xyz"[s[j] - '0'];
          ++j;
          skip_spaces();
          if (!(j < s.size() && s[j] == ']')) axis = 0;
          ++j;
        }
      }
    }
    if (axis) {
      out.append(s.substr(i, at - i));
      out += "problem_size_";
      out += axis;
      i = j;
    } else {
      out.append(s.substr(i, at + kName.size() - i));
      i = at + kName.size();
    }
  }
  out.append(s.substr(i));
  return out;
}

}  // namespace ktune::live
