#include "live/temporary_directory.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>

namespace ktune::live {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kPrefix = "ktune-";

// The pid in "ktune-<pid>-XXXXXX", if the name has that shape.
std::optional<pid_t> owner_of(const std::string& name) {
  if (!name.starts_with(kPrefix)) return std::nullopt;
  const std::size_t start = kPrefix.size(), dash = name.find('-', start);
  if (dash == std::string::npos || dash == start || dash - start > 10 || name.size() - dash != 7) return std::nullopt;
  long long pid = 0;
  for (std::size_t i = start; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    pid = pid * 10 + (name[i] - '0');
  }
  if (pid <= 0 || pid > 0x7fffffff) return std::nullopt;
  return static_cast<pid_t>(pid);
}

bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

template <typename Predicate>
std::size_t remove_where(Predicate owned) {
  std::size_t removed = 0;
  std::error_code error;
  for (fs::directory_iterator it(temporary_base(), error), end; !error && it != end; it.increment(error)) {
    const auto pid = owner_of(it->path().filename().string());
    std::error_code ignored;
    if (!pid || !owned(*pid) || !it->is_directory(ignored)) continue;
    // Only our own: a directory of another user's ktune is theirs to clean.
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) != 0 || info.st_uid != ::getuid()) continue;
    if (fs::remove_all(it->path(), ignored) > 0) ++removed;
  }
  return removed;
}

}  // namespace

fs::path temporary_base() {
  const char* base = std::getenv("TMPDIR");
  return base && *base ? fs::path(base) : fs::path("/tmp");
}

TemporaryDirectory::TemporaryDirectory() {
  std::string pattern = (temporary_base() / (std::string(kPrefix) + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a temporary directory from " + pattern + ": " + std::strerror(errno));
  path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::size_t remove_temporary_directories_of(pid_t pid) {
  return remove_where([pid](pid_t owner) { return owner == pid; });
}

std::size_t remove_orphaned_temporary_directories() {
  return remove_where([](pid_t owner) { return !process_exists(owner); });
}

}  // namespace ktune::live
