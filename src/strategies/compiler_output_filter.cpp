#include "ktune/tuning/compiler_output_filter.hpp"

#include <filesystem>
#include <vector>

#include <fmt/format.h>

namespace ktune {

std::string own_diagnostics(std::string_view output, const std::string& source_path, CompilerOutputLimits limits) {
  const std::string own = source_path + ":";
  const std::string name = std::filesystem::path(source_path).filename().string();
  // A line that starts at column 0 opens a diagnostic (or a context line such as "In file included from"); the
  // indented lines under it (source excerpts, carets, "required from") belong to it. Only the ones opened by a line
  // about the source itself are kept: an excerpt under another file's diagnostic is that file's text.
  std::vector<std::string> kept;
  std::size_t left_out = 0;
  bool keep = false;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line[0] != ' ' && line[0] != '\t') keep = line.substr(0, own.size()) == own;
    if (!keep) {
      ++left_out;
      continue;
    }
    std::string text(line);
    if (text.compare(0, own.size(), own) == 0) text = name + text.substr(source_path.size());
    kept.push_back(std::move(text));
  }
  std::string out;
  std::size_t shown = 0;
  for (const std::string& line : kept) {
    if (shown == limits.lines) break;
    if (out.size() + line.size() + 1 > limits.bytes) {
      if (shown == 0) {  // one very long line (a template's name): its start rather than nothing
        out += line.substr(0, limits.bytes) + "...\n";
        ++shown;
      }
      break;
    }
    out += line;
    out += '\n';
    ++shown;
  }
  if (shown < kept.size()) out += fmt::format("... ({} more lines)\n", kept.size() - shown);
  if (left_out > 0) out += fmt::format("({} lines about other files left out)\n", left_out);
  return out;
}

}  // namespace ktune
