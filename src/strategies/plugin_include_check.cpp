#include "ktune/tuning/plugin_include_check.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include <fmt/format.h>

namespace ktune {
namespace {

// The C++23 standard library's headers and the C headers it includes (both spellings).
const std::set<std::string_view>& standard_headers() {
  static const std::set<std::string_view> headers = {
      "algorithm", "any", "array", "atomic", "barrier", "bit", "bitset", "charconv", "chrono", "codecvt", "compare",
      "complex", "concepts", "condition_variable", "coroutine", "deque", "exception", "execution", "expected",
      "filesystem", "flat_map", "flat_set", "format", "forward_list", "fstream", "functional", "future", "generator",
      "initializer_list", "iomanip", "ios", "iosfwd", "iostream", "istream", "iterator", "latch", "limits", "list",
      "locale", "map", "mdspan", "memory", "memory_resource", "mutex", "new", "numbers", "numeric", "optional",
      "ostream", "print", "queue", "random", "ranges", "ratio", "regex", "scoped_allocator", "semaphore", "set",
      "shared_mutex", "source_location", "span", "spanstream", "sstream", "stack", "stacktrace", "stdexcept",
      "stdfloat", "stop_token", "streambuf", "string", "string_view", "strstream", "syncstream", "system_error",
      "thread", "tuple", "type_traits", "typeindex", "typeinfo", "unordered_map", "unordered_set", "utility",
      "valarray", "variant", "vector", "version",
      "cassert", "cctype", "cerrno", "cfenv", "cfloat", "cinttypes", "climits", "clocale", "cmath", "csetjmp",
      "csignal", "cstdarg", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctime", "cuchar", "cwchar",
      "cwctype", "assert.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h", "limits.h", "locale.h",
      "math.h", "setjmp.h", "signal.h", "stdarg.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h",
      "time.h", "uchar.h", "wchar.h", "wctype.h"};
  return headers;
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// <ktune/...>: a relative path of plain names inside ktune's include folder (no "..", no empty part).
bool ktune_header(std::string_view name) {
  if (name.substr(0, 6) != "ktune/" || name.size() == 6) return false;
  std::size_t start = 6;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    for (char c : part)
      if (!identifier_char(c) && c != '.' && c != '-') return false;
    start = end + 1;
  }
  return true;
}

struct LogicalLine {
  std::size_t number;  // of its first physical line
  std::string text;
};

// The source as the directives see it (translation phases 1-3): backslash-newline splices joined, each comment one
// space, a raw string literal kept on its line (newlines in it become spaces, no splicing in it, as the compiler
// does), and string and character literals ended at a newline. Directives start only at a logical line's start.
std::vector<LogicalLine> logical_lines(std::string_view s) {
  std::vector<LogicalLine> lines{{1, {}}};
  std::size_t i = 0, physical = 1;
  // A splice: a backslash, optional blanks (GCC allows them, with a warning), a newline.
  const auto splice_at = [&](std::size_t at) -> std::size_t {
    if (at >= s.size() || s[at] != '\\') return 0;
    std::size_t j = at + 1;
    while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\f' || s[j] == '\v')) ++j;
    return j < s.size() && s[j] == '\n' ? j + 1 - at : 0;
  };
  const auto skip_splices = [&] {
    for (std::size_t n; (n = splice_at(i)) != 0; i += n) ++physical;
  };
  // The next character after splices, without consuming it.
  const auto peek = [&](std::size_t ahead = 0) -> char {
    std::size_t j = i;
    for (;;) {
      for (std::size_t n; (n = splice_at(j)) != 0;) j += n;
      if (j >= s.size()) return '\0';
      if (ahead == 0) return s[j];
      ++j;
      --ahead;
    }
  };
  const auto take = [&]() -> char {
    skip_splices();
    const char c = s[i++];
    if (c == '\n') ++physical;
    return c;
  };
  const auto new_line = [&] { lines.push_back({physical, {}}); };
  std::string token;  // the identifier just read (for raw string prefixes)
  while (skip_splices(), i < s.size()) {
    std::string& out = lines.back().text;
    const char c = peek();
    if (c == '\n') {
      take();
      new_line();
      token.clear();
      continue;
    }
    if (c == '/' && peek(1) == '/') {  // a line comment ends at the (spliced) newline
      while (skip_splices(), i < s.size() && s[i] != '\n') take();
      out += ' ';
      token.clear();
      continue;
    }
    if (c == '/' && peek(1) == '*') {
      take();
      take();
      while (skip_splices(), i < s.size() && !(peek() == '*' && peek(1) == '/')) take();
      if (i < s.size()) {
        take();
        take();
      }
      out += ' ';
      token.clear();
      continue;
    }
    if (c == '"' && (token == "R" || token == "u8R" || token == "uR" || token == "UR" || token == "LR")) {
      // Raw: read literally up to )delimiter".
      take();
      std::string delimiter;
      while (i < s.size() && s[i] != '(' && s[i] != '\n' && delimiter.size() <= 16) delimiter += s[i++];
      const std::string end = ")" + delimiter + "\"";
      const std::size_t close = s.find(end, i);
      const std::size_t stop = close == std::string_view::npos ? s.size() : close + end.size();
      for (; i < stop; ++i) {
        if (s[i] == '\n') ++physical;
        out += s[i] == '\n' ? ' ' : s[i];
      }
      token.clear();
      continue;
    }
    if (c == '"' || c == '\'') {  // ends at its quote or, unterminated, at the line's end
      out += take();
      while (skip_splices(), i < s.size() && s[i] != '\n') {
        const char d = take();
        out += d;
        if (d == '\\' && (skip_splices(), i < s.size()) && s[i] != '\n') out += take();
        else if (d == c) break;
      }
      token.clear();
      continue;
    }
    const auto digit = [](char d) { return std::isdigit(static_cast<unsigned char>(d)) != 0; };
    if (digit(c) || (c == '.' && digit(peek(1)))) {
      // A pp-number, whose ' are digit separators, not character literals.
      out += take();
      for (;;) {
        const char d = peek();
        if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') && (peek(1) == '+' || peek(1) == '-')) {
          out += take();
          out += take();
        } else if (d == '\'' && identifier_char(peek(1))) {
          out += take();
          out += take();
        } else if (identifier_char(d) || d == '.') {
          out += take();
        } else {
          break;
        }
      }
      token.clear();
      continue;
    }
    if (identifier_char(c)) {
      token.clear();
      while (identifier_char(peek())) token += take();
      out += token;
      continue;
    }
    out += take();
    token.clear();
  }
  return lines;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string shown(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 60)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return text.size() > 60 ? out + "..." : out;
}

// The header an #include or a header-unit import names: "<name>" or "\"name\"" (empty: not a plain header name).
std::string_view header_name(std::string_view rest, char& open) {
  rest = trimmed(rest);
  if (rest.empty() || (rest[0] != '<' && rest[0] != '"')) return {};
  open = rest[0];
  const std::size_t close = rest.find(open == '<' ? '>' : '"', 1);
  if (close == std::string_view::npos) return {};
  return rest.substr(1, close - 1);
}

constexpr const char* kAllowed = "an untrusted plug-in may include only ktune's headers (<ktune/...>) and the C++ "
                                 "standard library";

}  // namespace

std::optional<std::string> refused_include(std::string_view source) {
  for (const LogicalLine& line : logical_lines(source)) {
    std::string_view text = trimmed(line.text);
    const auto refuse = [&](const std::string& what) {
      return fmt::format("line {}: {} is refused: {}", line.number, what, kAllowed);
    };
    std::string what;  // "#include", "import"...
    std::string_view rest;
    if (text.substr(0, 1) == "#" || text.substr(0, 2) == "%:") {
      text = trimmed(text.substr(text[0] == '#' ? 1 : 2));
      std::size_t n = 0;
      while (n < text.size() && identifier_char(text[n])) ++n;
      const std::string_view directive = text.substr(0, n);
      rest = text.substr(n);
      if (!directive.empty() && std::isdigit(static_cast<unsigned char>(directive[0])))
        return refuse("a line marker (# NUMBER \"file\")");
      if (directive == "line" || directive == "include_next" || directive == "import" || directive == "embed")
        return refuse("#" + std::string(directive));
      if (directive != "include") continue;
      what = "#include";
    } else {
      // A C++20 header unit, [export] import <header>; or "header";, reads that file.
      if (text.substr(0, 6) == "export" && (text.size() == 6 || !identifier_char(text[6])))
        text = trimmed(text.substr(6));
      if (text.substr(0, 6) != "import" || (text.size() > 6 && identifier_char(text[6]))) continue;
      rest = text.substr(6);
      const std::string_view after = trimmed(rest);
      if (after.empty() || (after[0] != '<' && after[0] != '"')) continue;  // a named module, not a file
      what = "import";
    }
    char open = 0;
    const std::string_view name = header_name(rest, open);
    if (name.empty())
      return refuse(fmt::format("{} of something that is not a plain <header> ({})", what, shown(trimmed(rest))));
    if (standard_headers().count(name) || ktune_header(name)) continue;
    return refuse(fmt::format("{} of {}{}{}", what, open, shown(name), open == '<' ? '>' : '"'));
  }
  return std::nullopt;
}

}  // namespace ktune
