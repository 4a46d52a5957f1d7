#pragma once
// A child process that owns the backend, so that a kernel that crashes or never ends costs one configuration, not the
// tuning run. The parent forks it *before* any backend exists (no OpenCL/CUDA driver state, no driver threads are
// ever forked); the child builds its KernelRunner (backend + set_arguments, from data inherited through the fork),
// says hello with the device information and then serves RunRequests over a socketpair until it reads EOF.
//
// Protocol (both directions): frames of [u64 length][u8 type][payload], payloads encoded by kernel_run.hpp.
//   child -> parent: hello(DeviceInfo) | setup_failed(u8 unavailable, message) | result(RunResult)
//   parent -> child: run(RunRequest)
// A request that observes launches (RunRequest::observe_launches) adds, per timed launch, child -> parent
// launch_ready, parent -> child go (after the parent's observers' before_start), child -> parent launch_started; the
// parent polls its observers about once a millisecond until the next frame.
// Outputs needed for verification travel back to the parent in the result (the reference stays in the parent).
//
// The parent waits with poll() until a deadline. On timeout it SIGKILLs the worker's process group (the worker and
// any compiler it started), reaps it and reports a timeout; a worker that dies (EOF) is reaped and its signal or exit
// code reported. Either way the WorkerProcess is dead and the caller starts a new one for the next configuration.
// The worker's own process group also keeps a terminal's Ctrl-C from reaching it: the parent decides what stops.
//
// Forking: fork() copies only the calling thread. The child must not need a lock another parent thread held at the
// fork, so create workers while no other threads are busy (the CLI's only other thread then is the console's
// heartbeat, which holds no lock the child uses: it writes with write(2), not stdio); glibc's malloc is fork-safe. The child ends with _exit(), never running the parent's atexit handlers or static destructors, and gets
// SIGKILL when the thread that forked it dies (PR_SET_PDEATHSIG), so a killed tuner leaves no worker behind.
#include <sys/types.h>

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "kernel_run.hpp"

namespace ktune::live::detail {

struct WorkerReply {
  enum class Kind { result, timeout, died, interrupted };
  Kind kind = Kind::result;
  RunResult result;     // Kind::result
  Phase phase = Phase::idle;  // timeout / died: the step the worker was in
  std::array<double, 4> spent_ms{};  // timeout / died: ms per Phase of the lost request, the last step included
  std::string message;  // timeout / died: "worker killed by SIGSEGV", "worker exited with code 3"
  // What the worker wrote to its stdout and stderr since the last reply (kernel printf, driver warnings): captured,
  // so that it can be shown naming its configuration and never mixes into the parent's stdout (--json).
  std::string output;
};

class WorkerProcess {
 public:
  using Clock = std::chrono::steady_clock;
  // Forks and waits (until `setup_deadline`) for the child's hello. Throws BackendUnavailable when the child's
  // factory did, std::runtime_error for any other setup failure (message, death or timeout of the child).
  WorkerProcess(const std::function<std::unique_ptr<KernelRunner>()>& make_runner, Clock::time_point setup_deadline);
  ~WorkerProcess();  // closes the socket (the child exits on EOF); kills the child if it does not
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  const DeviceInfo& device_info() const { return device_info_; }
  bool alive() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  // Sends the request and waits for the result until `deadline`. After a timeout or death the worker is not alive.
  // A stop request (interruption.hpp) ends the wait within 100 ms: the worker is killed and the reply says so.
  // `events`: told of the timed launches of a request that observes them.
  WorkerReply run(const RunRequest& request, Clock::time_point deadline, LaunchEvents* events = nullptr);

 private:
  enum class Wait { frame, timeout, eof, interrupted };
  // While waiting, `events` (if any) is polled about once a millisecond.
  Wait read_frame(std::string& payload, std::uint8_t& type, Clock::time_point deadline, LaunchEvents* events = nullptr);
  std::string kill_and_reap();  // SIGKILL the group, reap; returns how it ended
  std::string reap_dead();      // reap a child that closed its socket; returns how it ended
  void end();                   // closes the socket, lets an idle child exit, kills one that does not
  std::string take_output();    // the captured output so far (at most kOutputLimit bytes shown), then empties it
  static constexpr std::size_t kOutputLimit = 16384;

  pid_t pid_ = -1;
  int fd_ = -1;
  int output_fd_ = -1;  // an in-memory file the child's stdout and stderr point to (-1: not captured)
  PhaseBoard* board_ = nullptr;  // shared with the child (an anonymous shared mapping)
  DeviceInfo device_info_;
};

}  // namespace ktune::live::detail
