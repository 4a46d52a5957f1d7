#include "ktune/design/candidate_scorer.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <new>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/sandbox/sandbox.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/tuning/strategy_plugins.hpp"
#include "support/socket_io.hpp"

namespace ktune::design {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Candidates run under this name in the worker, so that their runs' seeds do not depend on their file names.
constexpr const char* kCandidateName = "design_candidate";
constexpr std::size_t kErrorLimit = 4000;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string cut(std::string text) {
  if (text.size() > kErrorLimit) text = text.substr(0, kErrorLimit) + "\n... (cut)";
  return text;
}

// The worker, in its sandbox: compile (the compiler may start processes), then, under the strategy filter, load and
// score; tell the parent in JSON lines on `fd`. Never returns.
[[noreturn]] void worker(const std::string& given, const std::string& source, const std::string& folder,
                         const methodology::Comparison& spaces, int fd, std::size_t memory_bytes) {
  const auto send = [fd](const json& message) {
    const std::string line = message.dump() + "\n";
    support::send_all(fd, line.data(), line.size());
  };
  bool loaded = false;
  try {
    const auto start = Clock::now();
    const StrategyPluginInfo compiled = compile_strategy_plugin(source, PluginBuild{true, folder});
    sandbox::enter_strategy_phase();  // before its static constructors run
    const StrategyPluginInfo info = load_strategy_plugin(compiled.library);
    loaded = true;
    send({{"phase", "compiled"}, {"seconds", seconds_since(start)}, {"name", info.declared_name},
          {"compile_log", compiled.compile_log}});
    StrategyInfo candidate = *find_strategy(compiled.library);
    candidate.name = kCandidateName;
    register_strategy(std::move(candidate));
    const methodology::ComparisonReport report = spaces.run({methodology::parse_strategy_spec(kCandidateName)});
    json per_space = json::array();
    for (const auto& space : report.spaces) per_space.push_back({space.name, space.strategies.at(0).score});
    const double score = report.aggregate.at(0).score;
    if (!std::isfinite(score)) {
      send({{"phase", "done"}, {"stage", "run"}, {"error", "the strategy's runs could not be scored (no score)"}});
    } else {
      send({{"phase", "done"}, {"stage", "scored"}, {"score", score}, {"per_space", per_space},
            {"run_seconds", report.run_seconds}, {"scoring_seconds", report.scoring_seconds}});
    }
  } catch (const std::bad_alloc&) {
    send({{"phase", "done"}, {"stage", "memory"},
          {"error", fmt::format("ran out of memory (the limit is {} MiB)", memory_bytes >> 20)}});
  } catch (const std::exception& e) {
    // A compiler's message names the scratch copy; the caller knows the candidate by the path it gave.
    std::string what = e.what();
    for (std::size_t at; !loaded && (at = what.find(source)) != std::string::npos;)
      what.replace(at, source.size(), given);
    send({{"phase", "done"}, {"stage", loaded ? "run" : "compile"},
          {"error", loaded ? fmt::format("the strategy threw an exception: {}", what) : what}});
  } catch (...) {
    send({{"phase", "done"}, {"stage", "run"}, {"error", "the strategy threw something that is not a std::exception"}});
  }
  ::_exit(0);
}

std::string signal_text(int signal) {
  const char* name = ::strsignal(signal);
  return fmt::format("signal {} ({})", signal, name ? name : "?");
}

// The candidate's own folder (its source copy and library), removed when it has been scored.
class CandidateFolder {
 public:
  explicit CandidateFolder(const std::filesystem::path& parent) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    std::string name = (parent / "candidate-XXXXXX").string();
    if (!::mkdtemp(name.data()))
      throw std::runtime_error(fmt::format("cannot create a folder for a candidate in {}: {}", parent.string(),
                                           std::strerror(errno)));
    path_ = name;
  }
  ~CandidateFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  CandidateFolder(const CandidateFolder&) = delete;
  CandidateFolder& operator=(const CandidateFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

CandidateScorer::CandidateScorer(const methodology::Comparison& spaces, ScoringLimits limits,
                                 std::string scratch_directory)
    : spaces_(spaces), limits_(limits), scratch_directory_(std::move(scratch_directory)) {
  if (scratch_directory_.empty()) scratch_directory_ = std::filesystem::temp_directory_path().string();
}

CandidateScore CandidateScorer::score(const std::string& path) const {
  const auto start = Clock::now();
  CandidateScore result;
  const CandidateFolder folder(scratch_directory_);
  int messages[2], errors[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, messages) != 0)
    throw std::runtime_error("cannot create a socket for a candidate's worker");
  if (::pipe2(errors, O_CLOEXEC) != 0) {
    ::close(messages[0]);
    ::close(messages[1]);
    throw std::runtime_error("cannot create a pipe for a candidate's worker");
  }
  // The sandbox: the candidate's source copied into a private scratch folder at the candidate folder's path,
  // ktune's headers read-only, the compiler named as ktune would name it, and a CPU limit from the wall-clock ones.
  sandbox::Options box;
  box.limits = limits_.sandbox;
  box.disabled = limits_.disabled;
  if (box.limits.cpu_seconds <= 0)
    box.limits.cpu_seconds = (limits_.compile_seconds + limits_.run_seconds + 10) *
                             std::max(1u, std::thread::hardware_concurrency());
  box.scratch = folder.path();
  box.inputs = {path};
  box.read_only = plugin_include_directories();
  box.environment = plugin_compile_environment();
  box.keep_descriptors = {messages[1], errors[1]};
  const std::string source = folder.path() + "/" + std::filesystem::path(path).filename().string();
  const int message_fd = messages[1], error_fd = errors[1];
  sandbox::Process process;
  try {
    process = sandbox::spawn(box, [&] {
      ::dup2(error_fd, STDERR_FILENO);
      ::dup2(error_fd, STDOUT_FILENO);  // a candidate that prints must not write into the caller's output
      worker(path, source, folder.path(), spaces_, message_fd, limits_.sandbox.memory_bytes);
    });
  } catch (...) {
    for (int fd : {messages[0], messages[1], errors[0], errors[1]}) ::close(fd);
    throw;
  }
  ::close(messages[1]);
  ::close(errors[1]);

  std::string lines, stderr_text;
  bool compiled = false, timed_out = false, interrupted = false;
  auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits_.compile_seconds));
  json done;
  bool open[2] = {true, true};
  while (open[0] || open[1]) {
    pollfd fds[2] = {{messages[0], POLLIN, 0}, {errors[0], POLLIN, 0}};
    const int ready = ::poll(fds, 2, 50);
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (!open[i] || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buffer[4096];
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        open[i] = false;
        continue;
      }
      if (i == 1) {
        stderr_text.append(buffer, static_cast<std::size_t>(n));
        if (stderr_text.size() > 2 * kErrorLimit) stderr_text.erase(0, stderr_text.size() - kErrorLimit);
        continue;
      }
      lines.append(buffer, static_cast<std::size_t>(n));
      for (std::size_t eol; (eol = lines.find('\n')) != std::string::npos;) {
        json message = json::parse(lines.substr(0, eol), nullptr, false);
        lines.erase(0, eol + 1);
        if (message.is_discarded()) continue;
        if (message.value("phase", "") == "compiled") {
          compiled = true;
          result.compile_seconds = message.value("seconds", 0.0);
          result.declared_name = message.value("name", "");
          result.compile_log = message.value("compile_log", "");
          deadline = Clock::now() +
                     std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limits_.run_seconds));
        } else if (message.value("phase", "") == "done") {
          done = std::move(message);
        }
      }
    }
    if (!timed_out && !interrupted && (Clock::now() > deadline || stop_requested())) {
      (stop_requested() ? interrupted : timed_out) = true;
      process.kill();  // and everything it started
    }
  }
  ::close(messages[0]);
  ::close(errors[0]);
  const int status = process.wait();
  const std::string stopped = process.sandbox_reason(status);
  result.wall_seconds = seconds_since(start);
  if (interrupted) throw Interrupted();

  const std::string tail = stderr_text.size() > kErrorLimit ? stderr_text.substr(stderr_text.size() - kErrorLimit)
                                                            : stderr_text;
  if (timed_out) {
    result.stage = "timeout";
    result.error = compiled ? fmt::format("the strategy did not finish its runs within the {:g} s limit (wall clock): "
                                          "an endless loop, or far too slow",
                                          limits_.run_seconds)
                            : fmt::format("compiling took longer than the {:g} s limit", limits_.compile_seconds);
  } else if (!stopped.empty()) {
    result.stage = "sandbox";
    result.error = fmt::format("the {} was stopped by the sandbox: it {}", compiled ? "strategy" : "plug-in", stopped);
  } else if (done.is_object()) {
    result.stage = done.value("stage", "run");
    result.ok = result.stage == "scored";
    result.error = cut(done.value("error", ""));
    if (result.ok) {
      result.score = done.value("score", 0.0);
      for (const auto& entry : done["per_space"])
        result.per_space.emplace_back(entry[0].get<std::string>(), entry[1].get<double>());
      result.run_seconds = done.value("run_seconds", 0.0);
      result.scoring_seconds = done.value("scoring_seconds", 0.0);
    }
  } else if (WIFSIGNALED(status)) {
    const bool memory = WTERMSIG(status) == SIGKILL;  // the kernel's OOM killer; we sent none
    result.stage = memory ? "memory" : "crash";
    result.error = fmt::format("the {} crashed: {}", compiled ? "strategy" : "plug-in's loading", signal_text(WTERMSIG(status)));
    if (!tail.empty()) result.error += "\n" + cut(tail);
  } else {
    result.stage = "crash";
    // A sanitizer's or the C++ runtime's handler ends the process itself (abort, exit status 1).
    result.error = fmt::format("the {} crashed: its worker exited with status {} before reporting",
                               compiled ? "strategy" : "plug-in's loading", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    if (!tail.empty()) result.error += "\n" + cut(tail);
  }
  return result;
}

}  // namespace ktune::design
