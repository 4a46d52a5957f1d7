#pragma once
// Private working directories of the live backends ("$TMPDIR/ktune-<pid>-XXXXXX", or /tmp), named after the process
// that made them so that what a killed process leaves behind can be told apart from what a live one is using: the
// worker's parent removes a dead worker's directories at once (a timeout SIGKILLs the worker mid-compile), and every
// live tuning run first removes those of processes that no longer exist (after a kill -9 of ktune itself).
#include <sys/types.h>

#include <filesystem>

namespace ktune::live {

class TemporaryDirectory {
 public:
  TemporaryDirectory();  // throws std::runtime_error when it cannot be made
  ~TemporaryDirectory();  // removes it with everything in it
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The directory temporary directories go in: $TMPDIR when set, else /tmp.
std::filesystem::path temporary_base();
// Removes the temporary directories made by process `pid` (which has ended). Returns how many.
std::size_t remove_temporary_directories_of(pid_t pid);
// Removes the temporary directories of processes that no longer exist. Returns how many.
std::size_t remove_orphaned_temporary_directories();

}  // namespace ktune::live
