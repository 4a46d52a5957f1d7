#include "sandbox/namespaces.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
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
  // A process that is not dumpable has its /proc/self files owned by root: an ordinary user could not write its own
  // maps (EACCES). Dumpable while they are written, then as it was (the sandboxed process is not started yet).
  const int dumpable = ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
  if (dumpable != 1) (void)::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  // Root inside, the caller outside: one user, one group, and no setgroups (which an unprivileged map requires).
  char map[64];
  std::snprintf(map, sizeof map, "0 %u 1", static_cast<unsigned>(uid));
  bool ok = write_text("/proc/self/uid_map", map);
  ok = ok && (write_text("/proc/self/setgroups", "deny") || errno == ENOENT);
  std::snprintf(map, sizeof map, "0 %u 1", static_cast<unsigned>(gid));
  ok = ok && write_text("/proc/self/gid_map", map);
  const int saved = errno;
  if (dumpable == 0) (void)::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  errno = saved;
  return ok;
}

}  // namespace ktune::sandbox::detail
