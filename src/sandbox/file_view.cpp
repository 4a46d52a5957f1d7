#include "sandbox/file_view.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace ktune::sandbox::detail {
namespace {

namespace fs = std::filesystem;

// Where the old root is while the view is built, and where the view is built.
constexpr const char* kOld = "/old";
constexpr const char* kNew = "/new";

std::string error(const std::string& step, const std::string& path) {
  return fmt::format("{} {}: {}", step, path, std::strerror(errno));
}

// Creates every folder of `path` (absolute) under the view.
bool make_folders(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  return !ec;
}

// The flags a bind mount's read-only remount must keep: a mount namespace may not drop those locked by its parent.
unsigned long kept_flags(const std::string& path) {
  struct statvfs s {};
  if (::statvfs(path.c_str(), &s) != 0) return 0;
  unsigned long flags = 0;
  if (s.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (s.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (s.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (s.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (s.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (s.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

// Binds the old root's `path` at the same path in the view; a symbolic link is made again as a link.
std::string bind(const std::string& path, bool writable, bool required) {
  const std::string source = kOld + path, target = kNew + path;
  struct stat st {};
  if (::lstat(source.c_str(), &st) != 0) return required ? error("cannot see", path) : std::string();
  if (S_ISLNK(st.st_mode)) {
    char link[4096];
    const ssize_t n = ::readlink(source.c_str(), link, sizeof link - 1);
    if (n < 0) return error("cannot read the link", path);
    link[n] = 0;
    if (!make_folders(fs::path(target).parent_path().string())) return error("cannot make a folder for", path);
    if (::symlink(link, target.c_str()) != 0 && errno != EEXIST) return error("cannot make the link", path);
    return {};
  }
  if (S_ISDIR(st.st_mode)) {
    if (!make_folders(target)) return error("cannot make the folder", path);
  } else {
    if (!make_folders(fs::path(target).parent_path().string())) return error("cannot make a folder for", path);
    const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) return error("cannot make a mount point for", path);
    if (fd >= 0) ::close(fd);
  }
  if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
    return error("cannot bind", path);
  if (!writable &&
      ::mount(nullptr, target.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | kept_flags(target), nullptr) != 0)
    return error("cannot make read-only", path);
  return {};
}

std::string copy_into(const std::string& file, const std::string& folder) {
  std::ifstream in(kOld + file, std::ios::binary);
  if (!in) return error("cannot read", file);
  const std::string target = kNew + folder + "/" + fs::path(file).filename().string();
  std::ofstream out(target, std::ios::binary);
  out << in.rdbuf();
  out.close();
  if (!out) return error("cannot copy into the scratch folder", file);
  return {};
}

}  // namespace

std::string build_file_view(const Options& options, bool mount_proc) {
  // Nothing done here reaches the parent's namespace.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return error("cannot make private", "/");
  // A tmpfs becomes the root; the old root stays reachable at /old while the view is built at /new.
  if (::mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=16m") != 0)
    return error("cannot mount a tmpfs on", "/tmp");
  if (::chdir("/tmp") != 0 || ::mkdir("old", 0755) != 0 || ::mkdir("new", 0755) != 0)
    return error("cannot prepare", "/tmp");
  if (::syscall(SYS_pivot_root, "/tmp", "/tmp/old") != 0) return error("cannot pivot into", "/tmp");
  if (::chdir("/") != 0) return error("cannot enter", "/");
  // The view is a mount of its own, so that it can become the root.
  if (::mount(kNew, kNew, nullptr, MS_BIND | MS_REC, nullptr) != 0) return error("cannot bind", kNew);

  for (const char* system : {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"})
    if (auto e = bind(system, false, false); !e.empty()) return e;
  for (const char* etc : {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives"})
    if (auto e = bind(etc, false, false); !e.empty()) return e;
  for (const char* device : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"})
    if (auto e = bind(device, true, true); !e.empty()) return e;
  for (const auto& [link, to] : {std::pair{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"},
                                 {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}})
    (void)::symlink(to, (std::string(kNew) + "/dev/" + link).c_str());
  for (const auto& path : options.read_only)
    if (auto e = bind(path, false, true); !e.empty()) return e;
  for (const auto& path : options.writable)
    if (auto e = bind(path, true, true); !e.empty()) return e;
  if (!make_folders(std::string(kNew) + "/tmp")) return error("cannot make", "/tmp");

  // The scratch folder: a tmpfs of a bounded size, with the caller's inputs copied in.
  const std::string scratch = kNew + options.scratch;
  if (!make_folders(scratch)) return error("cannot make the scratch folder", options.scratch);
  const std::string size =
      fmt::format("mode=0700,size={}", std::max<std::size_t>(options.limits.scratch_bytes, 1 << 20));
  if (::mount("tmpfs", scratch.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, size.c_str()) != 0)
    return error("cannot mount the scratch folder", options.scratch);
  for (const auto& input : options.inputs)
    if (auto e = copy_into(input, options.scratch); !e.empty()) return e;

  if (mount_proc) {
    const std::string proc = std::string(kNew) + "/proc";
    make_folders(proc);
    // A container that masks parts of its /proc refuses a new one: the view then has none.
    (void)::mount("proc", proc.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr);
  }

  // Drop the old root, make the view the root, and make its top read-only.
  if (::umount2(kOld, MNT_DETACH) != 0) return error("cannot detach", kOld);
  if (::chdir(kNew) != 0) return error("cannot enter", kNew);
  if (::syscall(SYS_pivot_root, ".", ".") != 0) return error("cannot pivot into", kNew);
  if (::umount2(".", MNT_DETACH) != 0) return error("cannot detach the old root", "/");
  if (::chdir("/") != 0) return error("cannot enter", "/");
  if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | kept_flags("/"), nullptr) != 0)
    return error("cannot make read-only", "/");
  return {};
}

}  // namespace ktune::sandbox::detail
