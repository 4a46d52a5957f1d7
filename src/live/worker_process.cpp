#include "worker_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <new>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "ktune/tuning/interruption.hpp"
#include "live/temporary_directory.hpp"
#include "support/socket_io.hpp"

namespace ktune::live::detail {
namespace {

enum : std::uint8_t { kHello = 1, kSetupFailed = 2, kResult = 3, kRun = 4, kLaunchReady = 5, kGo = 6, kLaunchStarted = 7 };

using support::read_all;
using support::send_all;

bool send_frame(int fd, std::uint8_t type, const std::string& payload) {
  std::string frame(sizeof(std::uint64_t) + 1, '\0');
  const std::uint64_t length = payload.size() + 1;
  std::memcpy(frame.data(), &length, sizeof length);
  frame[sizeof length] = static_cast<char>(type);
  frame += payload;
  return send_all(fd, frame.data(), frame.size());
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = ::sigabbrev_np(sig);
    return abbrev ? fmt::format("worker killed by SIG{}", abbrev) : fmt::format("worker killed by signal {}", sig);
  }
  if (WIFEXITED(status)) return fmt::format("worker exited with code {}", WEXITSTATUS(status));
  return "worker ended";
}

// The child: never returns.
[[noreturn]] void serve(int fd, pid_t parent, const std::function<std::unique_ptr<KernelRunner>()>& make_runner,
                        PhaseBoard* board) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(0);  // the parent died before prctl took effect
  ::setpgid(0, 0);                          // its own group, so a timeout also kills a compiler it started
  ::signal(SIGPIPE, SIG_IGN);
  // A crashing kernel must end the worker with its signal (reported to the parent), not run the parent's handlers
  // (sanitizers, crash reporters) in a half-broken process.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  // stdout is captured, not a terminal: line-buffer it, so that what a kernel prints before it crashes is seen.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::unique_ptr<KernelRunner> runner;
  try {
    runner = make_runner();
  } catch (const BackendUnavailable& e) {
    std::string payload(1, '\1');
    send_frame(fd, kSetupFailed, payload + e.what());
    ::_exit(0);
  } catch (const std::exception& e) {
    std::string payload(1, '\0');
    send_frame(fd, kSetupFailed, payload + e.what());
    ::_exit(0);
  }
  runner->report_phase_to(board);
  // Observed launches: the parent's observers run between our frames; a launch waits for their before_start().
  runner->set_launch_hook([fd](LaunchEvent event) {
    if (event == LaunchEvent::started) {
      if (!send_frame(fd, kLaunchStarted, "")) ::_exit(0);
      return;
    }
    if (!send_frame(fd, kLaunchReady, "")) ::_exit(0);
    std::uint64_t length = 0;
    char type = 0;
    if (!read_all(fd, reinterpret_cast<char*>(&length), sizeof length) || length != 1 || !read_all(fd, &type, 1) ||
        static_cast<std::uint8_t>(type) != kGo)
      ::_exit(0);  // the parent is gone or confused: nothing to report to
  });
  std::string out;
  encode(runner->backend().device_info(), out);
  if (!send_frame(fd, kHello, out)) ::_exit(0);
  for (;;) {
    std::uint64_t length = 0;
    if (!read_all(fd, reinterpret_cast<char*>(&length), sizeof length) || length == 0) break;
    std::string frame(length, '\0');
    if (!read_all(fd, frame.data(), length) || static_cast<std::uint8_t>(frame[0]) != kRun) break;
    RunResult result;
    try {
      result = runner->run(decode_request(std::string_view(frame).substr(1)));
    } catch (const std::exception& e) {  // a malformed request: report it rather than vanish
      result.outcome = RunOutcome::error;
      result.message = e.what();
    }
    std::fflush(nullptr);  // what the kernel printed belongs to this configuration's reply
    out.clear();
    encode(result, out);
    if (!send_frame(fd, kResult, out)) break;
  }
  runner.reset();  // backends clean up (temporary files) on the way out
  ::_exit(0);
}

}  // namespace

WorkerProcess::WorkerProcess(const std::function<std::unique_ptr<KernelRunner>()>& make_runner,
                             Clock::time_point setup_deadline) {
  void* shared = ::mmap(nullptr, sizeof(PhaseBoard), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED)
    throw std::runtime_error(fmt::format("cannot share memory with the worker: {}", std::strerror(errno)));
  board_ = new (shared) PhaseBoard();
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    ::munmap(shared, sizeof(PhaseBoard));
    throw std::runtime_error(fmt::format("cannot create the worker's socket: {}", std::strerror(errno)));
  }
  // The child's stdout and stderr go to an in-memory file both processes share (no capture if there is none).
  output_fd_ = ::memfd_create("ktune-worker-output", MFD_CLOEXEC);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    if (output_fd_ >= 0) ::close(output_fd_);
    output_fd_ = -1;
    ::close(fds[0]);
    ::close(fds[1]);
    ::munmap(shared, sizeof(PhaseBoard));
    throw std::runtime_error(fmt::format("cannot start a worker process: {}", std::strerror(err)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    if (output_fd_ >= 0) {
      std::fflush(stdout);
      std::fflush(stderr);
      ::dup2(output_fd_, STDOUT_FILENO);
      ::dup2(output_fd_, STDERR_FILENO);
    }
    serve(fds[1], parent, make_runner, board_);
  }
  ::setpgid(pid, pid);  // also here: whichever of the two runs first, the group exists before we may kill it
  ::close(fds[1]);
  pid_ = pid;
  fd_ = fds[0];

  std::string payload;
  std::uint8_t type = 0;
  const Wait wait = read_frame(payload, type, setup_deadline);
  if (wait == Wait::interrupted) {
    kill_and_reap();
    throw Interrupted();
  }
  if (wait == Wait::timeout) {
    kill_and_reap();
    throw std::runtime_error("the worker process did not finish setting up the backend in time");
  }
  if (wait == Wait::eof) throw std::runtime_error("the worker process died setting up the backend: " + reap_dead());
  if (type == kSetupFailed) {
    const bool unavailable = !payload.empty() && payload[0] == '\1';
    std::string message = payload.empty() ? "" : payload.substr(1);
    reap_dead();
    if (unavailable) throw BackendUnavailable(message);
    throw std::runtime_error(message);
  }
  if (type != kHello) {
    kill_and_reap();
    throw std::runtime_error("worker protocol: expected hello");
  }
  device_info_ = decode_device_info(payload);
}

WorkerProcess::~WorkerProcess() {
  end();
  if (output_fd_ >= 0) ::close(output_fd_);
  board_->~PhaseBoard();
  ::munmap(board_, sizeof(PhaseBoard));
}

void WorkerProcess::end() {
  if (!alive()) return;
  ::close(fd_);
  fd_ = -1;
  // An idle worker exits at EOF at once; give it a moment to clean up, then insist.
  for (int i = 0; i < 200; ++i) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill_and_reap();
}

WorkerProcess::Wait WorkerProcess::read_frame(std::string& payload, std::uint8_t& type, Clock::time_point deadline,
                                              LaunchEvents* events) {
  std::string buffer;
  std::uint64_t length = 0;
  std::size_t want = sizeof length;
  bool have_length = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Wait::timeout;
    if (stop_requested()) return Wait::interrupted;
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, events ? 1 : 100)));
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Wait::eof;
    }
    if (ready == 0) {  // the deadline check above ends the wait
      if (events) events->during();
      continue;
    }
    char chunk[65536];
    const std::size_t room = std::min(sizeof chunk, want - buffer.size());
    const ssize_t n = ::read(fd_, chunk, room);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Wait::eof;
    buffer.append(chunk, static_cast<std::size_t>(n));
    if (buffer.size() < want) continue;
    if (!have_length) {
      std::memcpy(&length, buffer.data(), sizeof length);
      if (length == 0) return Wait::eof;
      have_length = true;
      buffer.clear();
      buffer.reserve(length);
      want = length;
      continue;
    }
    type = static_cast<std::uint8_t>(buffer[0]);
    payload.assign(buffer, 1);
    return Wait::frame;
  }
}

WorkerReply WorkerProcess::run(const RunRequest& request, Clock::time_point deadline, LaunchEvents* events) {
  if (!alive()) throw std::logic_error("WorkerProcess::run on a dead worker");
  std::string payload;
  encode(request, payload);
  WorkerReply reply;
  if (!send_frame(fd_, kRun, payload)) {
    reply.kind = WorkerReply::Kind::died;
    reply.message = reap_dead();
    return reply;
  }
  std::uint8_t type = 0;
  Wait wait = Wait::frame;
  if (!request.observe_launches) events = nullptr;
  for (;;) {
    payload.clear();
    wait = read_frame(payload, type, deadline, events);
    if (wait != Wait::frame || !events) break;
    if (type == kLaunchReady) {
      events->ready();
      if (!send_frame(fd_, kGo, "")) {
        wait = Wait::eof;
        break;
      }
    } else if (type == kLaunchStarted) {
      events->started();
    } else {
      break;
    }
  }
  if (events) events->finished();
  switch (wait) {
    case Wait::timeout:
      reply.kind = WorkerReply::Kind::timeout;
      kill_and_reap();
      reply.phase = static_cast<Phase>(board_->phase.load());
      reply.spent_ms = board_->spent_ms();
      reply.output = take_output();
      return reply;
    case Wait::interrupted:
      reply.kind = WorkerReply::Kind::interrupted;
      kill_and_reap();
      return reply;
    case Wait::eof:
      reply.kind = WorkerReply::Kind::died;
      reply.message = reap_dead();
      reply.phase = static_cast<Phase>(board_->phase.load());
      reply.spent_ms = board_->spent_ms();
      reply.output = take_output();  // a crashing kernel's last words
      return reply;
    case Wait::frame:
      break;
  }
  if (type != kResult) {
    kill_and_reap();
    throw std::runtime_error("worker protocol: expected a result");
  }
  reply.result = decode_result(payload);
  reply.output = take_output();
  return reply;
}

std::string WorkerProcess::take_output() {
  if (output_fd_ < 0) return "";
  struct stat st {};
  if (::fstat(output_fd_, &st) != 0 || st.st_size <= 0) return "";
  const auto size = static_cast<std::size_t>(st.st_size);
  std::string text(std::min(size, kOutputLimit), '\0');
  const ssize_t got = ::pread(output_fd_, text.data(), text.size(), 0);
  text.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  if (size > kOutputLimit) text += fmt::format("\n[... {} more bytes not shown]", size - kOutputLimit);
  // The child is idle or gone: rewinding the shared offset makes its next output start at the beginning again.
  if (::ftruncate(output_fd_, 0) != 0 || ::lseek(output_fd_, 0, SEEK_SET) < 0) {
    ::close(output_fd_);  // cannot empty it: stop capturing rather than show the same text again
    output_fd_ = -1;
  }
  return text;
}

std::string WorkerProcess::kill_and_reap() {
  std::string how = "worker killed";
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    how = describe_status(status);
    remove_temporary_directories_of(pid_);  // killed mid-compile, it could not remove its own
  }
  pid_ = -1;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  return how;
}

std::string WorkerProcess::reap_dead() {
  // The socket closed because the child is dying; its exit status follows within moments.
  for (int i = 0; i < 500 && pid_ > 0; ++i) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      remove_temporary_directories_of(pid_);  // a crash leaves them behind
      pid_ = -1;
      if (fd_ >= 0) ::close(fd_);
      fd_ = -1;
      return describe_status(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return kill_and_reap();  // it closed the socket but lingers: end it
}

}  // namespace ktune::live::detail
