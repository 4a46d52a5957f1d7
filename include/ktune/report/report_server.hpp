#pragma once
// The live view's server: HTTP on 127.0.0.1 only, one thread of its own. GET / answers the live page, GET /data.json
// the current data (page_data_text); anything else 404. The tuning loop never waits for it: the data comes from
// `provider`, called on the server's thread when a browser asks (about once a second per open page), and a closed
// browser asks nothing.
#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

namespace ktune::report {

class ReportServer {
 public:
  // The page data ({"title", "version", "items"}), asked for on the server's thread.
  using Provider = std::function<nlohmann::json()>;

  // Listens on 127.0.0.1:`port` (0: any free port). Throws std::runtime_error naming the port when it cannot.
  ReportServer(int port, Provider provider);
  ~ReportServer();  // stops the thread and closes the socket
  ReportServer(const ReportServer&) = delete;
  ReportServer& operator=(const ReportServer&) = delete;

  int port() const { return port_; }
  std::string url() const;  // "http://127.0.0.1:PORT/"

 private:
  void serve();
  void answer(int connection);

  Provider provider_;
  int listener_ = -1, port_ = 0;
  int wake_[2] = {-1, -1};  // a pipe: the destructor writes to end serve()'s wait
  std::thread thread_;
};

}  // namespace ktune::report
