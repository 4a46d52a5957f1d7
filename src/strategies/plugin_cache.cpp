#include "strategies/plugin_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace ktune::plugin_cache {

namespace fs = std::filesystem;

fs::path directory() {
  if (const char* dir = std::getenv("KTUNE_PLUGIN_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "ktune" / "plugins";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "ktune" / "plugins";
  return fs::temp_directory_path() / fmt::format("ktune-plugins-{}", ::getuid());
}

std::uintmax_t size_bound() {
  if (const char* mb = std::getenv("KTUNE_PLUGIN_CACHE_MB"); mb && *mb) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(mb, &end, 10);
    if (end && *end == '\0') return static_cast<std::uintmax_t>(value) << 20;
  }
  return std::uintmax_t{256} << 20;
}

void touch(const fs::path& library) {
  std::error_code ec;
  fs::last_write_time(library, fs::file_time_type::clock::now(), ec);  // best effort: a read-only cache still loads
}

std::size_t evict(const fs::path& dir, std::uintmax_t bound, const fs::path& keep) {
  if (bound == 0) return 0;
  struct Entry {
    fs::path path;
    fs::file_time_type time;
    std::uintmax_t size;
  };
  std::vector<Entry> entries;
  std::uintmax_t total = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    if (!it->is_regular_file(e) || e) continue;
    const std::uintmax_t size = it->file_size(e);
    const fs::file_time_type time = it->last_write_time(e);
    if (e) continue;
    total += size;
    const std::string ext = it->path().extension().string();
    const bool in_progress = (ext == ".partial" || ext == ".log") && now - time < std::chrono::hours(1);
    if (it->path() == keep || in_progress) continue;
    entries.push_back({it->path(), time, size});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.time < b.time; });
  std::size_t removed = 0;
  for (const Entry& entry : entries) {
    if (total <= bound) break;
    std::error_code e;
    if (fs::remove(entry.path, e)) {  // another ktune that loaded it keeps its mapping
      total -= entry.size;
      ++removed;
    }
  }
  return removed;
}

}  // namespace ktune::plugin_cache
