#pragma once
// Whole reads and writes on a socket to a worker process (live kernels, isolated strategies). Writes use
// MSG_NOSIGNAL: a peer that died makes them fail instead of raising SIGPIPE in this process.
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace ktune::support {

// Writes the whole buffer; false when the peer is gone.
inline bool send_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Blocking read of exactly `size` bytes; false on end of file or error.
inline bool read_all(int fd, void* data, std::size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace ktune::support
