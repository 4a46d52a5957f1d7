#include "ktune/design/reply_parser.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <tuple>
#include <vector>

namespace ktune::design {
namespace {

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Block {
  std::string tag, code;
};

bool is_cpp_tag(const std::string& tag) {
  const std::string t = lower(tag);
  return t == "cpp" || t == "c++" || t == "cxx" || t == "cc" || t == "c";
}

// Text lines with the fenced blocks taken out.
void split_blocks(const std::string& text, std::vector<Block>& blocks, std::vector<std::string>& prose) {
  std::size_t pos = 0;
  bool inside = false;
  Block current;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string stripped = trim(line);
    if (stripped.rfind("```", 0) == 0) {
      if (!inside) {
        inside = true;
        current = Block{trim(stripped.substr(3)), ""};
      } else {
        inside = false;
        blocks.push_back(std::move(current));
        current = Block{};
      }
    } else if (inside) {
      current.code += line;
      current.code += '\n';
    } else {
      prose.push_back(line);
    }
    if (end == text.size()) break;
    pos = end + 1;
  }
  if (inside && !trim(current.code).empty()) blocks.push_back(std::move(current));  // cut short: keep what came
}

std::string strip_markup(std::string s) {
  s = trim(s);
  while (!s.empty() && (s.front() == '#' || s.front() == '*' || s.front() == '>' || s.front() == '-')) s.erase(0, 1);
  while (!s.empty() && s.back() == '*') s.pop_back();
  return trim(s);
}

}  // namespace

std::string strip_reasoning(const std::string& text) {
  std::string out = text;
  for (;;) {
    const std::size_t open = out.find("<think>");
    if (open == std::string::npos) break;
    const std::size_t close = out.find("</think>", open);
    if (close == std::string::npos) {
      out.erase(open);  // reasoning that never ended: nothing after it is an answer
      break;
    }
    out.erase(open, close + 8 - open);
  }
  if (const std::size_t close = out.find("</think>"); close != std::string::npos) out.erase(0, close + 8);
  return out;
}

ParsedReply parse_reply(const std::string& text) {
  const std::string answer = strip_reasoning(text);
  std::vector<Block> blocks;
  std::vector<std::string> prose;
  split_blocks(answer, blocks, prose);
  // Ranked by: exports the plug-in, tagged as C++, length.
  const auto rank = [](const Block& b) {
    return std::tuple(b.code.find("KTUNE_STRATEGY_PLUGIN") != std::string::npos, is_cpp_tag(b.tag), b.code.size());
  };
  const Block* chosen = nullptr;
  for (const auto& b : blocks)
    if (!chosen || rank(b) > rank(*chosen)) chosen = &b;
  if (!chosen || trim(chosen->code).empty())
    throw ReplyError(
        "the reply has no code block: answer with one line '# Description: ...' and the whole plug-in in one "
        "```cpp fenced block");

  ParsedReply parsed;
  parsed.code = chosen->code;
  static const std::regex description(R"(^\W*description\W*[:\-]\s*(.+)$)", std::regex::icase);
  for (const auto& line : prose) {
    std::smatch m;
    if (std::regex_search(line, m, description)) {
      parsed.description = strip_markup(m[1].str());
      break;
    }
  }
  if (parsed.description.empty())
    for (const auto& line : prose)
      if (const std::string s = strip_markup(line); !s.empty()) {
        parsed.description = s;
        break;
      }
  if (parsed.description.size() > 300) parsed.description = parsed.description.substr(0, 300) + "...";
  // describe() returns {"name", "description", ...}: the first string literal after `return {`.
  static const std::regex name(R"(return\s*(?:ktune::StrategyInfo\s*)?\{\s*\"([^\"]+)\")");
  std::smatch m;
  if (std::regex_search(parsed.code, m, name)) parsed.name = m[1].str();
  return parsed;
}

}  // namespace ktune::design
