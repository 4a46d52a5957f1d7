#include "compile_pool.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "cpu_affinity.hpp"
#include "ktune/tuning/interruption.hpp"
#include "milliseconds_since.hpp"
#include "support/socket_io.hpp"

using ktune::support::read_all;
using ktune::support::send_all;

namespace ktune::live::detail {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

bool send_frame(int fd, const json& message) {
  const std::string text = message.dump(-1, ' ', false, json::error_handler_t::replace);
  const std::uint64_t size = text.size();
  return send_all(fd, &size, sizeof size) && send_all(fd, text.data(), text.size());
}

std::optional<json> read_frame(int fd) {
  std::uint64_t size = 0;
  if (!read_all(fd, &size, sizeof size) || size > (std::uint64_t{1} << 32)) return std::nullopt;
  std::string text(size, '\0');
  if (!read_all(fd, text.data(), text.size())) return std::nullopt;
  json message = json::parse(text, nullptr, false);
  if (message.is_discarded()) return std::nullopt;
  return message;
}

// The worker: its own backend, one compile at a time, until the socket closes. Never returns.
[[noreturn]] void serve(int fd, const std::function<std::unique_ptr<Backend>()>& factory, const KernelSource& base,
                        const std::vector<int>& cpus) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::setpgid(0, 0);  // its own group: a timeout kills the compiler it started too
  pin_to_cpus(cpus);
  std::unique_ptr<Backend> backend;
  try {
    backend = factory();
  } catch (const std::exception& e) {
    send_frame(fd, {{"hello", false}, {"message", e.what()}});
    ::_exit(0);
  }
  send_frame(fd, {{"hello", backend && backend->supports_prebuild()}});
  while (auto message = read_frame(fd)) {
    RunRequest request;
    request.kernel_name = (*message)["kernel_name"].get<std::string>();
    request.code = (*message)["code"].get<std::string>();
    for (const auto& d : (*message)["defines"]) request.defines.emplace_back(d[0].get<std::string>(), d[1].get<std::string>());
    const std::string dir = (*message)["dir"].get<std::string>();
    json reply = {{"index", (*message)["index"]}};
    const auto start = Clock::now();
    try {
      reply["artifact"] = backend->prebuild(source_for(base, request), request.defines, dir);
      reply["ok"] = true;
    } catch (const CompileError& e) {
      reply["ok"] = false;
      reply["message"] = e.what();
      reply["log"] = e.log();
    } catch (const std::exception& e) {
      reply["ok"] = false;
      reply["message"] = e.what();
      reply["log"] = "";
    }
    reply["compile_ms"] = ms_since(start);
    if (!send_frame(fd, reply)) break;
  }
  ::_exit(0);
}

}  // namespace

CompilePool::CompilePool(std::size_t workers, std::function<std::unique_ptr<Backend>()> factory, KernelSource source,
                         std::vector<int> cpus, double timeout_s)
    : factory_(std::move(factory)), source_(std::move(source)), cpus_(std::move(cpus)), timeout_s_(timeout_s),
      limit_(2 * workers + 1), workers_(workers), root_(std::make_unique<TemporaryDirectory>()) {
  for (auto& w : workers_) {
    start_worker(w);
    if (broken_) break;
  }
  if (broken_)
    for (auto& w : workers_) stop_worker(w);
}

CompilePool::~CompilePool() {
  for (auto& w : workers_) stop_worker(w);
}

void CompilePool::start_worker(Worker& w) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    broken_ = true;
    return;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    broken_ = true;
    return;
  }
  if (pid == 0) {
    ::close(fds[0]);
    serve(fds[1], factory_, source_, cpus_);
  }
  ::setpgid(pid, pid);
  ::close(fds[1]);
  w.pid = pid;
  w.fd = fds[0];
  w.busy.reset();
  // The hello says whether this backend can compile apart from measuring at all.
  pollfd p{w.fd, POLLIN, 0};
  const auto hello = ::poll(&p, 1, 30000) > 0 ? read_frame(w.fd) : std::nullopt;
  if (!hello || !hello->value("hello", false)) {
    stop_worker(w);
    broken_ = true;
  }
}

void CompilePool::stop_worker(Worker& w) {
  if (w.pid <= 0) return;
  ::kill(-w.pid, SIGKILL);
  ::kill(w.pid, SIGKILL);
  while (::waitpid(w.pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  ::close(w.fd);
  const std::optional<std::size_t> lost = w.busy;
  w = Worker{};
  if (lost) release(*lost);  // its half-written directory
}

bool CompilePool::has(std::size_t index) const {
  if (done_.count(index)) return true;
  for (const auto& w : workers_)
    if (w.busy == index) return true;
  return std::any_of(queue_.begin(), queue_.end(), [&](const auto& q) { return q.first == index; });
}

bool CompilePool::submit(std::size_t index, const RunRequest& request) {
  if (broken_ || has(index)) return false;
  std::size_t ahead = queue_.size() + done_.size();
  for (const auto& w : workers_) ahead += w.busy ? 1 : 0;
  if (ahead >= limit_) return false;
  queue_.emplace_back(index, request);
  dispatch();
  return true;
}

void CompilePool::dispatch() {
  for (auto& w : workers_) {
    if (queue_.empty() || broken_) return;
    if (w.pid <= 0) start_worker(w);
    if (w.pid <= 0 || w.busy) continue;
    auto [index, request] = std::move(queue_.front());
    queue_.pop_front();
    const std::filesystem::path dir = root_->path() / ("c" + std::to_string(index));
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    directories_[index] = dir;
    json defines = json::array();
    for (const auto& [name, value] : request.defines) defines.push_back({name, value});
    if (!send_frame(w.fd, {{"index", index}, {"kernel_name", request.kernel_name}, {"code", request.code},
                           {"defines", defines}, {"dir", dir.string()}})) {
      stop_worker(w);  // lost: the configuration is compiled where it is measured
      continue;
    }
    w.busy = index;
    w.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s_));
  }
}

bool CompilePool::collect(Worker& w, int timeout_ms) {
  if (w.pid <= 0 || !w.busy) return false;
  pollfd p{w.fd, POLLIN, 0};
  const int ready = ::poll(&p, 1, timeout_ms);
  if (ready <= 0) {
    if (Clock::now() > w.deadline) stop_worker(w);  // a compile past the limit: measured where it is compiled
    return false;
  }
  const auto reply = read_frame(w.fd);
  if (!reply) {
    stop_worker(w);
    return false;
  }
  Prebuilt result;
  result.ok = reply->value("ok", false);
  result.artifact = reply->value("artifact", "");
  result.message = reply->value("message", "");
  result.log = reply->value("log", "");
  result.compile_ms = reply->value("compile_ms", 0.0);
  done_[*w.busy] = std::move(result);
  w.busy.reset();
  return true;
}

void CompilePool::pump() {
  for (auto& w : workers_) collect(w, 0);
  dispatch();
}

std::optional<Prebuilt> CompilePool::take(std::size_t index) {
  pump();
  if (auto it = std::find_if(queue_.begin(), queue_.end(), [&](const auto& q) { return q.first == index; });
      it != queue_.end()) {
    // Still queued: it goes first, and waits for a free worker.
    auto job = std::move(*it);
    queue_.erase(it);
    queue_.push_front(std::move(job));
    for (;;) {
      dispatch();
      if (queue_.empty() || queue_.front().first != index) break;  // started
      if (broken_ || stop_requested()) {
        queue_.pop_front();
        release(index);
        return std::nullopt;
      }
      for (auto& w : workers_) collect(w, 5);
    }
  }
  for (;;) {
    if (auto it = done_.find(index); it != done_.end()) {
      Prebuilt result = std::move(it->second);
      done_.erase(it);
      dispatch();  // the freed worker starts on the next one while this one is measured
      return result;
    }
    const auto w = std::find_if(workers_.begin(), workers_.end(), [&](const Worker& x) { return x.busy == index; });
    if (w == workers_.end() || stop_requested()) return std::nullopt;  // lost, or never submitted
    collect(*w, 20);
  }
}

void CompilePool::release(std::size_t index) {
  if (auto it = directories_.find(index); it != directories_.end()) {
    std::error_code ec;
    std::filesystem::remove_all(it->second, ec);
    directories_.erase(it);
  }
}

void CompilePool::clear_queue() {
  for (const auto& [index, request] : queue_) release(index);
  queue_.clear();
}

}  // namespace ktune::live::detail
