#include "ktune/tuning/isolated_strategy.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/interruption.hpp"
#include "support/socket_io.hpp"

namespace ktune {
namespace {

// Frames. Worker -> caller: 'E' index (evaluate), 'D' (done: returned or its budget ended), 'X' message (threw).
// Caller -> worker: 'R' status, count, values..., charged_ms (a result), 'B' (the budget has ended).
constexpr char kEvaluate = 'E', kDone = 'D', kThrew = 'X', kResult = 'R', kBudgetEnded = 'B';

using support::read_all;
using support::send_all;

template <class T>
bool write_value(int fd, const T& v) {
  return send_all(fd, &v, sizeof v);
}
template <class T>
bool read_value(int fd, T& v) {
  return read_all(fd, &v, sizeof v);
}

// The worker's evaluator: every new configuration is asked of the caller.
class RemoteEvaluator final : public Evaluator {
 public:
  RemoteEvaluator(int channel, const Evaluator& caller)
      : channel_(channel), objectives_(caller.objectives()), simulated_(caller.simulated()) {}

  const std::vector<Objective>& objectives() const override { return objectives_; }
  bool simulated() const override { return simulated_; }
  EvaluationRecord record(std::size_t) const override { return {}; }

  EvaluationOutcome evaluate(std::size_t index) override {
    const std::uint64_t i = index;
    char kind = 0;
    if (!write_value(channel_, kEvaluate) || !write_value(channel_, i) || !read_value(channel_, kind))
      ::_exit(3);  // the caller is gone
    if (kind == kBudgetEnded) throw BudgetExhausted();
    std::uint8_t status = 0;
    std::uint32_t count = 0;
    if (kind != kResult || !read_value(channel_, status) || !read_value(channel_, count) || count > 1024) ::_exit(3);
    values_.resize(count);
    double charged = 0;
    if (!read_all(channel_, values_.data(), count * sizeof(double)) || !read_value(channel_, charged)) ::_exit(3);
    return {static_cast<Status>(status), values_, charged};
  }

 private:
  int channel_;
  std::vector<Objective> objectives_;
  bool simulated_;
  std::vector<double> values_;
};

[[noreturn]] void run_worker(Strategy& strategy, const SearchSpace& space, const CostFunction& caller, Rng& rng,
                             int channel) {
  // A crash is the worker's end, reported by its signal: no handler of the caller's (a sanitizer's, say) turns it
  // into an exit status.
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(signal, SIG_DFL);
  const int requests = channel;
  // The same budget and resumed results as the caller's cost function: the worker's own clock, counts and
  // budget_spent_fraction() follow the caller's, so the strategy decides as it would in process.
  RemoteEvaluator evaluator(channel, caller.evaluator());
  CostFunctionOptions options = caller.options();
  options.listeners.clear();
  options.pending_evaluations = 0;  // the caller measures; lies would be taken for measurements here
  CostFunction cost(space, evaluator, options);
  const Trace& trace = caller.trace();
  for (std::size_t p = 0; p < trace.size(); ++p)
    if (trace[p].resumed) cost.add_resumed(trace[p].index, trace[p].status, trace.values(p));
  try {
    if (!cost.exhausted()) strategy.run(space, cost, rng);
  } catch (const BudgetExhausted&) {
  } catch (const std::exception& e) {
    const std::string what = e.what();
    const std::uint32_t size = static_cast<std::uint32_t>(std::min<std::size_t>(what.size(), 4000));
    (void)(write_value(requests, kThrew) && write_value(requests, size) && send_all(requests, what.data(), size));
    ::_exit(1);
  } catch (...) {
    const std::uint32_t size = 0;
    (void)(write_value(requests, kThrew) && write_value(requests, size));
    ::_exit(1);
  }
  (void)write_value(requests, kDone);
  ::_exit(0);
}

std::string ended_text(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    const char* name = ::strsignal(signal);
    return fmt::format("crashed: signal {} ({})", signal, name ? name : "?");
  }
  if (WIFEXITED(status)) return fmt::format("exited with status {} without finishing", WEXITSTATUS(status));
  return "ended";
}

// The caller's side of one isolated run.
class Supervisor {
 public:
  Supervisor(pid_t pid, int channel, double limit_seconds) : pid_(pid), channel_(channel), limit_(limit_seconds) {}
  ~Supervisor() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    ::close(channel_);
  }

  void serve(CostFunction& cost) {
    using Clock = std::chrono::steady_clock;
    double used = 0;  // the strategy's own time so far
    for (;;) {
      // Wait for the worker's next frame, within what is left of its limit; a stop request is checked as it waits.
      const auto since = Clock::now();
      for (;;) {
        pollfd p{channel_, POLLIN, 0};
        const int ready = ::poll(&p, 1, 100);
        if (ready > 0) break;
        if (ready < 0 && errno != EINTR) fail("lost its pipe");
        const double waited = std::chrono::duration<double>(Clock::now() - since).count();
        if (limit_ > 0 && used + waited > limit_)
          fail(fmt::format("took longer than its limit of {:g} s of its own time (--isolate); stopped", limit_));
        if (stop_requested() && waited > 2) fail("did not stop when asked");
      }
      used += std::chrono::duration<double>(Clock::now() - since).count();
      char kind = 0;
      if (!read_value(channel_, kind)) fail(ended_text(reap()));
      if (kind == kDone) {
        reap();
        return;
      }
      if (kind == kThrew) {
        std::uint32_t size = 0;
        std::string what;
        if (read_value(channel_, size) && size <= 4000) {
          what.resize(size);
          if (!read_all(channel_, what.data(), size)) what.clear();
        }
        reap();
        fail(what.empty() ? "threw an exception" : "threw: " + what);
      }
      std::uint64_t index = 0;
      if (kind != kEvaluate || !read_value(channel_, index) || index >= cost.space().size())
        fail("broke the isolation protocol");
      answer(cost, static_cast<std::size_t>(index));
    }
  }

 private:
  void answer(CostFunction& cost, std::size_t index) {
    try {
      (void)cost(index);
    } catch (const BudgetExhausted&) {
      // Tell the worker, let it finish (it stops at once), then end the run as the budget says.
      (void)write_value(channel_, kBudgetEnded);
      finish_quietly();
      throw;
    }
    const Trace& trace = cost.trace();
    const std::size_t p = *cost.trace_position(index);
    const auto values = trace.values(p);
    const std::uint8_t status = static_cast<std::uint8_t>(trace[p].status);
    const std::uint32_t count = static_cast<std::uint32_t>(values.size());
    // A configuration known before (resumed, or a revisit the worker asks again) is charged nothing now.
    const double charged = trace[p].resumed ? 0.0 : trace[p].charged_ms;
    if (!write_value(channel_, kResult) || !write_value(channel_, status) || !write_value(channel_, count) ||
        !send_all(channel_, values.data(), count * sizeof(double)) || !write_value(channel_, charged))
      fail(ended_text(reap()));
  }

  // After the budget ended: the worker's answer does not matter, only that it is gone.
  void finish_quietly() {
    pollfd p{channel_, POLLIN, 0};
    if (::poll(&p, 1, 2000) > 0) {
      char kind = 0;
      (void)read_value(channel_, kind);
    }
  }

  int reap() {
    int status = 0;
    if (pid_ > 0) {
      // The worker closed its pipe: it ends now (or is ended).
      for (int i = 0; i < 50; ++i) {
        const pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
          pid_ = -1;
          return status;
        }
        ::usleep(20000);
      }
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      pid_ = -1;
    }
    return status;
  }

  [[noreturn]] void fail(const std::string& what) {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      reap();
    }
    throw StrategyFailed("the isolated strategy " + what);
  }

  pid_t pid_;
  int channel_;
  double limit_;
};

}  // namespace

IsolatedStrategy::IsolatedStrategy(std::unique_ptr<Strategy> strategy, IsolationOptions options)
    : strategy_(std::move(strategy)), options_(options) {}

void IsolatedStrategy::run(const SearchSpace& space, CostFunction& cost, Rng& rng) {
  int channel[2];  // [0] the caller's end, [1] the worker's
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0)
    throw StrategyFailed(fmt::format("no channel to a worker process: {}", std::strerror(errno)));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(channel[0]);
    ::close(channel[1]);
    throw StrategyFailed(fmt::format("cannot start a worker process: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    ::close(channel[0]);
    run_worker(*strategy_, space, cost, rng, channel[1]);
  }
  ::close(channel[1]);
  Supervisor(pid, channel[0], options_.strategy_seconds).serve(cost);
}

}  // namespace ktune
