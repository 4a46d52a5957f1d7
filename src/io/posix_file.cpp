#include "io/posix_file.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace ktune::io::posix {

bool write_fully(int fd, std::string_view text, off_t offset) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string folder_of(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

int create_beside(const std::string& target, std::string& path) {
  path = (std::filesystem::path(folder_of(target)) /
          ("." + std::filesystem::path(target).filename().string() + ".ktune-XXXXXX"))
             .string();
  return ::mkstemp(path.data());
}

}  // namespace ktune::io::posix
