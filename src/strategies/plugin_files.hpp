#pragma once
// What the loaders of plug-ins share: the error that names the file, and the checks of the file given
// (strategy_plugins.cpp loads a plug-in in this process, isolated_plugins.cpp only in sandboxes).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "ktune/tuning/hyperparameters.hpp"

namespace ktune::plugin_files {

[[noreturn]] inline void refuse(const std::string& path, const std::string& why) {
  throw HyperparameterError(fmt::format("strategy plug-in '{}': {}", path, why));
}

inline bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// FNV-1a, 64 bits: a stable content hash for the compile caches (not for security).
inline std::uint64_t fnv1a(std::string_view data, std::uint64_t h = 14695981039346656037ull) {
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// s as one word of a POSIX shell command.
inline std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Refuses a path that is no regular file, saying what it is instead.
inline void check_is_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st)) refuse(path, "is a folder, not a .so library or a .cpp source file");
  if (!std::filesystem::exists(st)) refuse(path, "no such file");
  if (!std::filesystem::is_regular_file(st)) refuse(path, "is not a regular file");
}

}  // namespace ktune::plugin_files
