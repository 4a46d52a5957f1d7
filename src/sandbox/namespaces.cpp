#include "sandbox/namespaces.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ktune::sandbox::detail {
namespace {

bool write_text(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const std::size_t n = std::strlen(text);
  const bool ok = ::write(fd, text, n) == static_cast<ssize_t>(n);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

}  // namespace

bool enter_namespaces(bool user, int flags) {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (::unshare(flags | (user ? CLONE_NEWUSER : 0)) != 0) return false;
  if (!user) return true;
  // Root inside, the caller outside: one user, one group, and no setgroups (which an unprivileged map requires).
  char map[64];
  std::snprintf(map, sizeof map, "0 %u 1", static_cast<unsigned>(uid));
  if (!write_text("/proc/self/uid_map", map)) return false;
  if (!write_text("/proc/self/setgroups", "deny") && errno != ENOENT) return false;
  std::snprintf(map, sizeof map, "0 %u 1", static_cast<unsigned>(gid));
  return write_text("/proc/self/gid_map", map);
}

}  // namespace ktune::sandbox::detail
