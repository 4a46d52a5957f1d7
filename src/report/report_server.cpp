#include "ktune/report/report_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "ktune/report/html_page.hpp"
#include "support/socket_io.hpp"

namespace ktune::report {
namespace {

constexpr std::size_t kMaxRequest = 16 * 1024;
constexpr int kRequestMs = 2000;  // a client that sends no request in this time is dropped

void reply(int fd, const char* status, const char* type, const std::string& body) {
  const std::string head = fmt::format(
      "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n"
      "X-Content-Type-Options: nosniff\r\n\r\n",
      status, type, body.size());
  if (support::send_all(fd, head.data(), head.size())) (void)support::send_all(fd, body.data(), body.size());
}

}  // namespace

ReportServer::ReportServer(int port, Provider provider) : provider_(std::move(provider)) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener_ < 0)
    throw std::runtime_error(fmt::format("the live view: cannot open a socket: {}", std::strerror(errno)));
  const int yes = 1;
  (void)::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // this machine only
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::bind(listener_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener_, 16) != 0 || ::pipe2(wake_, O_CLOEXEC) != 0) {
    const int saved = errno;
    ::close(listener_);
    throw std::runtime_error(
        fmt::format("the live view cannot listen on 127.0.0.1:{}: {}", port, std::strerror(saved)));
  }
  socklen_t length = sizeof address;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { serve(); });
}

ReportServer::~ReportServer() {
  (void)!::write(wake_[1], "x", 1);
  if (thread_.joinable()) thread_.join();
  for (int fd : {listener_, wake_[0], wake_[1]})
    if (fd >= 0) ::close(fd);
}

std::string ReportServer::url() const { return fmt::format("http://127.0.0.1:{}/", port_); }

void ReportServer::serve() {
  for (;;) {
    pollfd fds[2] = {{listener_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    const int connection = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;
    answer(connection);
    ::close(connection);
  }
}

void ReportServer::answer(int connection) {
  // One request per connection: its head, read until the blank line (bodies are not needed: only GET is served).
  std::string request;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kRequestMs);
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < kMaxRequest) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{connection, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) return;
    char buffer[4096];
    const ssize_t n = ::recv(connection, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    request.append(buffer, static_cast<std::size_t>(n));
  }
  const std::string line = request.substr(0, request.find("\r\n"));
  const auto space = line.find(' ');
  const std::string method = line.substr(0, space);
  std::string target = space == std::string::npos ? "" : line.substr(space + 1, line.find(' ', space + 1) - space - 1);
  target = target.substr(0, target.find('?'));
  if (method != "GET") return reply(connection, "405 Method Not Allowed", "text/plain", "only GET\n");
  try {
    if (target == "/" || target == "/index.html") {
      const nlohmann::json data = provider_();
      PageOptions page;
      page.title = data.value("title", std::string("ktune live view"));
      page.live = true;
      return reply(connection, "200 OK", "text/html; charset=utf-8", html_page(data, page));
    }
    if (target == "/data.json") return reply(connection, "200 OK", "application/json", page_data_text(provider_()));
  } catch (const std::exception& e) {
    return reply(connection, "500 Internal Server Error", "text/plain", std::string(e.what()) + "\n");
  }
  reply(connection, "404 Not Found", "text/plain", "not found\n");
}

}  // namespace ktune::report
