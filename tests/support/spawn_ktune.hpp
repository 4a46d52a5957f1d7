#pragma once
// Starting `ktune` in the background from tests that signal it (interruption) or watch its files while it runs.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "run_ktune.hpp"

extern char** environ;

namespace ktune::testing {

class SpawnedKtune {
 public:
  // Starts `ktune args...` (no shell) with stdout and stderr going to files in the test's temp directory.
  explicit SpawnedKtune(const std::vector<std::string>& args, const std::string& name = "spawned") {
    out_path_ = (cli_temp_dir() / (name + ".out")).string();
    err_path_ = (cli_temp_dir() / (name + ".err")).string();
    std::vector<std::string> all{KTUNE_BINARY};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawn(&pid_, all[0].c_str(), &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~SpawnedKtune() {
    if (pid_ > 0 && !finished_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  SpawnedKtune(const SpawnedKtune&) = delete;
  SpawnedKtune& operator=(const SpawnedKtune&) = delete;

  bool started() const { return pid_ > 0; }
  void signal(int sig) const { ::kill(pid_, sig); }
  // Whether it is still running (reaps it if not).
  bool running() {
    if (finished_) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      finished_ = true;
      status_ = status;
      return false;
    }
    return true;
  }
  // Waits until it ends (at most `limit`, then SIGKILL). exit_code: the exit status, or -signal if a signal ended it.
  KtuneRun wait(std::chrono::seconds limit = std::chrono::seconds(60)) {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    while (running() && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!finished_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status_, 0);
      finished_ = true;
      timed_out_ = true;
    }
    KtuneRun run;
    run.exit_code = WIFEXITED(status_) ? WEXITSTATUS(status_) : WIFSIGNALED(status_) ? -WTERMSIG(status_) : -1000;
    run.out = read_text(out_path_);
    run.err = read_text(err_path_);
    return run;
  }
  bool timed_out() const { return timed_out_; }
  std::string err_so_far() const { return read_text(err_path_); }

 private:
  pid_t pid_ = -1;
  bool finished_ = false, timed_out_ = false;
  int status_ = 0;
  std::string out_path_, err_path_;
};

// Polls `condition` every 5 ms until it holds (true) or `limit` passes (false).
inline bool wait_until(const std::function<bool()>& condition, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto give_up = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < give_up) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

}  // namespace ktune::testing
