#pragma once
// Small POSIX pieces shared by the writers that must not lose data (output_file.cpp, kernel_tuner_cache_writer.cpp).
#include <sys/types.h>

#include <string>
#include <string_view>

namespace ktune::io::posix {

// Writes all of `text` at `offset` of `fd`, retrying short writes and EINTR. False with errno set (a write that
// makes no progress is ENOSPC) when it cannot.
bool write_fully(int fd, std::string_view text, off_t offset);

// Creates and opens (O_RDWR) a new temporary file beside `target`: ".<name>.ktune-XXXXXX" in the same folder, so
// that renaming it over the target is atomic. Returns the descriptor (or -1 with errno set) and sets `path`.
int create_beside(const std::string& target, std::string& path);

// The folder of `path` ("." for a bare file name).
std::string folder_of(const std::string& path);

}  // namespace ktune::io::posix
