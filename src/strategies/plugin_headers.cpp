#include "strategies/plugin_headers.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "ktune/plugin.hpp"
#include "strategies/plugin_cache.hpp"
#include "strategies/plugin_files.hpp"

namespace ktune::plugin_headers {

namespace {

namespace fs = std::filesystem;

using plugin_files::fnv1a;
using plugin_files::shell_quoted;

// The -I folders of `flags` (as strategy_plugins writes them: -I'dir').
std::vector<fs::path> include_dirs(const std::string& flags) {
  std::vector<fs::path> dirs;
  for (std::size_t at = flags.find("-I'"); at != std::string::npos; at = flags.find("-I'", at + 3)) {
    std::string dir;
    std::size_t i = at + 3;
    while (i < flags.size()) {
      if (flags.compare(i, 4, "'\\''") == 0) {
        dir += '\'';
        i += 4;
      } else if (flags[i] == '\'') {
        break;
      } else {
        dir += flags[i++];
      }
    }
    dirs.emplace_back(dir);
  }
  return dirs;
}

// What the precompiled header depends on: the compiler, the flags, and the text of every ktune header it may read
// (a header edited without a version change must not be served from an old .gch, whose declarations would no longer
// match the library the plug-in is loaded into).
std::uint64_t key_of(const std::string& cxx, const std::string& flags) {
  std::uint64_t h = fnv1a(fmt::format("{}\n{}\n{}\n{}", cxx, flags, kVersionString, kPluginAbiVersion));
  for (const fs::path& dir : include_dirs(flags)) {
    std::vector<fs::path> headers;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir / "ktune", ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) headers.push_back(it->path());
    std::sort(headers.begin(), headers.end());
    for (const fs::path& header : headers)
      h = fnv1a(plugin_files::read_file(header.string()), fnv1a(header.string(), h));
  }
  return h;
}

// Whether `cxx` is GCC (not Clang, which defines __GNUC__ too), asked once per compiler.
bool is_gcc(const std::string& cxx) {
  static std::mutex mutex;
  static std::map<std::string, bool> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(cxx); it != known.end()) return it->second;
  std::string macros;
  if (FILE* pipe = ::popen((cxx + " -dM -E -x c++ /dev/null 2>/dev/null").c_str(), "r")) {
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) macros.append(buffer, n);
    ::pclose(pipe);
  }
  const bool gcc = macros.find("#define __GNUC__ ") != std::string::npos &&
                   macros.find("#define __clang__ ") == std::string::npos;
  return known.emplace(cxx, gcc).first->second;
}

}  // namespace

fs::path directory() {
  if (const char* dir = std::getenv("KTUNE_PLUGIN_HEADERS_CACHE"); dir && *dir) return dir;
  return plugin_cache::directory();
}

fs::path header_path(const std::string& cxx, const std::string& flags, const fs::path& dir) {
  return dir / fmt::format("ktune-plugin-headers-{:016x}.hpp", key_of(cxx, flags));
}

std::optional<fs::path> precompiled(const std::string& cxx, const std::string& flags, const fs::path& dir,
                                    bool build) {
  if (!is_gcc(cxx)) return std::nullopt;
  // One build at a time in this process; other processes race harmlessly (each renames a complete file into place).
  static std::mutex mutex;
  static std::set<fs::path> failed;  // a build that failed is not retried by this process
  const fs::path header = header_path(cxx, flags, dir);
  const fs::path gch = header.string() + ".gch";
  std::lock_guard<std::mutex> lock(mutex);
  std::error_code ec;
  if (fs::exists(header, ec) && fs::exists(gch, ec)) {
    plugin_cache::touch(header);
    plugin_cache::touch(gch);
    return header;
  }
  if (!build || failed.contains(header)) return std::nullopt;
  fs::create_directories(dir, ec);
  const std::string pid = std::to_string(::getpid());
  const fs::path header_partial = header.string() + "." + pid + ".partial";
  const fs::path gch_partial = gch.string() + "." + pid + ".partial";
  const fs::path log = header.string() + "." + pid + ".log";
  std::ofstream(header_partial) << "// ktune's plug-in headers, precompiled beside this file (" << kVersionString
                                << ")\n#include <ktune/plugin.hpp>\n#include <ktune/strategy_toolkit.hpp>\n";
  const std::string command =
      fmt::format("{} {} -x c++-header {} -o {} > {} 2>&1", cxx, flags, shell_quoted(header_partial),
                  shell_quoted(gch_partial.string()), shell_quoted(log.string()));
  const int status = std::system(command.c_str());
  fs::remove(log, ec);
  bool ok = status == 0 && fs::exists(gch_partial, ec);
  if (ok) {
    // The header first: a .gch is only looked for beside its header.
    fs::rename(header_partial, header, ec);
    ok = !ec;
    if (ok) fs::rename(gch_partial, gch, ec);
    ok = ok && !ec;
  }
  fs::remove(header_partial, ec);
  fs::remove(gch_partial, ec);
  if (!ok) {
    failed.insert(header);
    return std::nullopt;
  }
  plugin_cache::evict(dir, plugin_cache::size_bound(), gch);
  if (!fs::exists(header, ec)) {  // the cache's bound is smaller than the two files: do without
    failed.insert(header);
    return std::nullopt;
  }
  return header;
}

}  // namespace ktune::plugin_headers
