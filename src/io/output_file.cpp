// Atomic output files: write a temporary file beside the target, fsync, rename over the target, fsync the folder.
#include "ktune/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "io/posix_file.hpp"
#include "ktune/io/input_error.hpp"

namespace ktune::io {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw InputError(path, "", fmt::format("{}: {}", what, std::strerror(error)));
}

// The process's umask without changing it (umask() sets it, which races with other threads creating files).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  return 022;
}

void sync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the rename is done; a folder that cannot be opened for sync only weakens durability
  (void)::fsync(fd);
  ::close(fd);
}

}  // namespace

std::string resolve_output_path(const std::string& path) {
  std::string current = path;
  for (int depth = 0; depth < 40; ++depth) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(current, ec))) return current;
    const fs::path target = fs::read_symlink(current, ec);
    if (ec) fail(path, "cannot follow the symbolic link", ec.value());
    current = target.is_absolute() ? target.string() : (fs::path(current).parent_path() / target).string();
  }
  fail(path, "cannot follow the symbolic link", ELOOP);
}

void check_output_path(const std::string& given, const std::string& what) {
  const std::string path = resolve_output_path(given);
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw InputError(given, "", fmt::format("{} names a folder, not a file", what));
  const std::string folder = posix::folder_of(path);
  if (!fs::exists(folder, ec)) {
    fs::create_directories(folder, ec);
    if (ec) throw InputError(given, "", fmt::format("{}: cannot create the folder {}: {}", what, folder, ec.message()));
  } else if (!fs::is_directory(folder, ec)) {
    throw InputError(given, "", fmt::format("{}: {} is not a folder", what, folder));
  }
  // Proof that the folder takes a new file (the atomic write puts one there and renames it over the output): a
  // read-only folder or file system, or a missing permission, fails here, before anything is measured.
  std::string probe = (fs::path(folder) / ".ktune-check-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) fail(given, fmt::format("{}: cannot create a file in {}", what, folder), errno);
  ::close(fd);
  ::unlink(probe.c_str());
  // A full file system takes an empty file but not the output: said now rather than after the run.
  struct statvfs space {};
  if (::statvfs(folder.c_str(), &space) == 0 && space.f_bavail == 0)
    fail(given, fmt::format("{}: the file system of {} is full", what, folder), ENOSPC);
}

void write_file_atomically(const std::string& given, const std::string& content) {
  const std::string path = resolve_output_path(given);
  const std::string folder = posix::folder_of(path);
  std::string temporary;
  const int fd = posix::create_beside(path, temporary);
  if (fd < 0) fail(given, fmt::format("cannot create a temporary file in {}", folder), errno);
  struct stat old {};
  const mode_t mode = ::stat(path.c_str(), &old) == 0 ? (old.st_mode & 07777) : (0666 & ~current_umask());
  const auto abandon = [&](const std::string& what) {
    const int error = errno;
    ::close(fd);
    ::unlink(temporary.c_str());
    fail(given, what + " (the previous file, if any, is unchanged)", error);
  };
  if (!posix::write_fully(fd, content, 0)) abandon("cannot write");
  if (::fchmod(fd, mode) != 0) abandon("cannot set the permissions");
  if (::fsync(fd) != 0) abandon("cannot flush to disk");
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail(given, "cannot close", error);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail(given, "cannot replace the file", error);
  }
  sync_folder(folder);
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  std::ostringstream text;
  writer(text);
  write_file_atomically(path, std::move(text).str());
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
  const fs::path ra = fs::weakly_canonical(fs::absolute(resolve_output_path(a)), ec);
  const fs::path rb = fs::weakly_canonical(fs::absolute(resolve_output_path(b)), ec);
  return ra == rb;
}

void refuse_overlapping_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs) {
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o].path.empty()) continue;
    for (const NamedPath& in : inputs)
      if (!in.path.empty() && same_file(in.path, outputs[o].path))
        throw InputError(outputs[o].path, "",
                         fmt::format("{} would overwrite the {} file {}; give another path", outputs[o].option,
                                     in.option, in.path));
    for (std::size_t p = 0; p < o; ++p)
      if (!outputs[p].path.empty() && same_file(outputs[p].path, outputs[o].path))
        throw InputError(outputs[o].path, "",
                         fmt::format("{} and {} name the same file; give each its own", outputs[p].option,
                                     outputs[o].option));
  }
}

}  // namespace ktune::io
