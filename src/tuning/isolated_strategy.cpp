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
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/tuning/isolated_plugins.hpp"
#include "live/temporary_directory.hpp"
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

[[noreturn]] void report_throw(int channel, const std::string& what) {
  const std::uint32_t size = static_cast<std::uint32_t>(std::min<std::size_t>(what.size(), 4000));
  (void)(write_value(channel, kThrew) && write_value(channel, size) && send_all(channel, what.data(), size));
  ::_exit(1);
}

// In the sandbox: the strategy made (from the recipe, when there is no object), then run.
[[noreturn]] void run_worker(Strategy* given, const StrategyRecipe& recipe, const SearchSpace& space,
                             const CostFunction& caller, Rng& rng, int channel) {
  const int requests = channel;
  std::unique_ptr<Strategy> made;
  if (!given) {
    try {
      made = make_strategy(recipe.name, recipe.settings);
    } catch (const std::exception& e) {
      report_throw(requests, fmt::format("could not be made: {}", e.what()));
    }
  }
  Strategy& strategy = given ? *given : *made;
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
    report_throw(requests, e.what());
  } catch (...) {
    const std::uint32_t size = 0;
    (void)(write_value(requests, kThrew) && write_value(requests, size));
    ::_exit(1);
  }
  (void)write_value(requests, kDone);
  ::_exit(0);
}

std::string ended_text(int status, sandbox::Process& process) {
  if (const std::string stopped = process.sandbox_reason(status); !stopped.empty())
    return "was stopped by the sandbox: it " + stopped;
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
  Supervisor(sandbox::Process process, int channel, double limit_seconds)
      : process_(std::move(process)), channel_(channel), limit_(limit_seconds) {}
  ~Supervisor() { ::close(channel_); }  // the process, if it still runs, is killed and reaped with process_

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
      if (!read_value(channel_, kind)) fail(ended());
      if (kind == kDone) {
        (void)reap();
        return;
      }
      if (kind == kThrew) {
        std::uint32_t size = 0;
        std::string what;
        if (read_value(channel_, size) && size <= 4000) {
          what.resize(size);
          if (!read_all(channel_, what.data(), size)) what.clear();
        }
        (void)reap();
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
      fail(ended());
  }

  // After the budget ended: the worker's answer does not matter, only that it is gone.
  void finish_quietly() {
    pollfd p{channel_, POLLIN, 0};
    if (::poll(&p, 1, 2000) > 0) {
      char kind = 0;
      (void)read_value(channel_, kind);
    }
  }

  // The worker closed its pipe: it ends now, or is ended a second later.
  int reap() {
    if (const auto status = process_.wait_for(1.0)) return *status;
    process_.kill();
    return process_.wait();
  }

  // How the worker ended, once it has.
  std::string ended() {
    const int status = reap();
    return ended_text(status, process_);
  }

  [[noreturn]] void fail(const std::string& what) {
    process_.kill();
    (void)process_.wait();
    throw StrategyFailed("the isolated strategy " + what);
  }

  sandbox::Process process_;
  int channel_;
  double limit_;
};

}  // namespace

IsolatedStrategy::IsolatedStrategy(StrategyRecipe recipe, IsolationOptions options)
    : recipe_(std::move(recipe)), options_(std::move(options)) {}

IsolatedStrategy::IsolatedStrategy(std::unique_ptr<Strategy> strategy, IsolationOptions options)
    : strategy_(std::move(strategy)), options_(std::move(options)) {}

void IsolatedStrategy::run(const SearchSpace& space, CostFunction& cost, Rng& rng) {
  // The sandbox's scratch folder: a private tmpfs at this path inside; without a mount namespace, this folder.
  std::optional<live::TemporaryDirectory> scratch;
  try {
    scratch.emplace();
  } catch (const std::exception& e) {
    throw StrategyFailed(fmt::format("no scratch folder for a worker process: {}", e.what()));
  }
  int channel[2];  // [0] the caller's end, [1] the worker's
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0)
    throw StrategyFailed(fmt::format("no channel to a worker process: {}", std::strerror(errno)));
  sandbox::Options box;
  box.limits = options_.sandbox;
  if (box.limits.cpu_seconds <= 0 && options_.strategy_seconds > 0)
    box.limits.cpu_seconds = 2 * options_.strategy_seconds + 10;
  box.disabled = options_.disabled;
  box.scratch = scratch->path().string();
  box.allow_processes = false;  // the strategy filter from the start: nothing but the strategy runs in it
  if (!strategy_) box.read_only = isolated_strategy_files(recipe_.name);
  box.keep_descriptors = {channel[1]};
  const int worker_end = channel[1];
  std::optional<sandbox::Process> process;
  try {
    process.emplace(sandbox::spawn(box, [&] {
      ::dup2(STDERR_FILENO, STDOUT_FILENO);  // nothing it prints goes into ktune's output
      run_worker(strategy_.get(), recipe_, space, cost, rng, worker_end);
    }));
  } catch (const std::exception& e) {
    ::close(channel[0]);
    ::close(channel[1]);
    throw StrategyFailed(fmt::format("cannot start a worker process: {}", e.what()));
  }
  ::close(channel[1]);
  Supervisor(std::move(*process), channel[0], options_.strategy_seconds).serve(cost);
}

}  // namespace ktune
