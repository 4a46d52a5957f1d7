#include "ktune/design/candidate_scorer.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/rng.hpp"
#include "ktune/sandbox/sandbox.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/tuning/strategy.hpp"
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

// A hyperparameter's value as `name=value` text that parse_hyperparameter_text reads back.
std::string setting_text(const std::string& name, const Value& value) {
  if (value.is_string()) return name + "=" + value.str();
  if (value.is_bool()) return name + "=" + (value.as_bool() ? "true" : "false");
  return name + "=" + value.repr();
}

// The settings to score, the first the defaults, or the fixed ones alone (parse_strategy_settings reads them against
// the registered candidate): HyperparameterSearch's draws over the declared ranges.
std::vector<std::vector<std::pair<std::string, Value>>> settings_to_score(const StrategyInfo& info,
                                                                          const HyperparameterSearch& search,
                                                                          const std::vector<std::string>& fixed) {
  std::vector<std::vector<std::pair<std::string, Value>>> out{parse_strategy_settings(info.name, fixed)};
  if (!fixed.empty()) return out;
  Rng rng(search.seed);
  for (std::size_t k = 1; k < search.settings; ++k) {
    std::vector<std::pair<std::string, Value>> setting;
    for (const HyperparameterSpec& h : info.hyperparameters) {
      switch (h.type) {
        case HyperparameterType::Int:  // bounds beyond 2^53 (or not numbers) are no range to draw from
          if (h.min && h.max && *h.max >= *h.min && std::abs(*h.min) < 0x1p53 && std::abs(*h.max) < 0x1p53) {
            const auto low = static_cast<std::int64_t>(std::ceil(*h.min)), high = static_cast<std::int64_t>(*h.max);
            if (high >= low)
              setting.emplace_back(h.name, Value(low + static_cast<std::int64_t>(
                                                           rng.below(static_cast<std::uint64_t>(high - low) + 1))));
          }
          break;
        case HyperparameterType::Float:
          if (h.min && h.max && *h.max > *h.min && std::isfinite(*h.max - *h.min))  // (min, max] or [min, max)
            setting.emplace_back(h.name, Value(h.min_exclusive ? *h.max - (*h.max - *h.min) * rng.uniform01()
                                                               : *h.min + (*h.max - *h.min) * rng.uniform01()));
          break;
        case HyperparameterType::Bool:
          setting.emplace_back(h.name, Value(rng.below(2) == 1));
          break;
        case HyperparameterType::String:
          if (!h.choices.empty()) setting.emplace_back(h.name, Value(h.choices[rng.below(h.choices.size())]));
          break;
      }
    }
    if (setting.empty()) break;  // nothing declared with a range: the defaults are all there is
    out.push_back(std::move(setting));
  }
  return out;
}

// The worker, in its sandbox: compile (the compiler may start processes), then, under the strategy filter, load and
// score; tell the parent in JSON lines on `fd`. Never returns.
[[noreturn]] void worker(const std::string& given, const std::string& source, const std::string& folder,
                         const methodology::Comparison& spaces, const HyperparameterSearch& search,
                         const std::vector<std::string>& fixed, int fd, std::size_t memory_bytes) {
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
    register_strategy(candidate);
    const auto settings = settings_to_score(candidate, search, fixed);
    // Each setting in a comparison of its own (the same seeds for all): a setting whose runs cannot be scored (it
    // stops at once, it throws) costs itself only; the candidate fails when every setting does, with the first's
    // error.
    std::optional<std::size_t> best;  // the best setting so far and its report
    std::optional<methodology::ComparisonReport> best_report;
    std::optional<double> default_score;
    std::string first_error;
    double run_seconds = 0, scoring_seconds = 0;
    for (std::size_t k = 0; k < settings.size(); ++k) {
      std::optional<methodology::ComparisonReport> report;
      try {
        report = spaces.run({{fmt::format("{}#{}", kCandidateName, k), kCandidateName, settings[k]}});
      } catch (const std::bad_alloc&) {
        throw;
      } catch (const std::exception& e) {
        if (k == 0) first_error = fmt::format("the strategy threw an exception: {}", e.what());
        continue;
      }
      run_seconds += report->run_seconds;
      scoring_seconds += report->scoring_seconds;
      const double score = report->aggregate.at(0).score;
      if (!std::isfinite(score)) {
        if (k == 0) first_error = "the strategy's runs could not be scored (no score)";
        continue;
      }
      if (k == 0 && settings.size() > 1) default_score = score;
      if (!best || score > best_report->aggregate.at(0).score) {  // the earliest on a tie
        best = k;
        best_report = std::move(report);
      }
    }
    if (!best) {
      send({{"phase", "done"}, {"stage", "run"}, {"error", first_error}});
    } else {
      json per_space = json::array();
      for (const auto& space : best_report->spaces) per_space.push_back({space.name, space.strategies.at(0).score});
      json chosen = json::array();
      for (const auto& [name, value] : settings[*best]) chosen.push_back(setting_text(name, value));
      send({{"phase", "done"}, {"stage", "scored"}, {"score", best_report->aggregate.at(0).score},
            {"per_space", per_space}, {"settings", chosen},
            {"default_score", default_score ? json(*default_score) : json(nullptr)},
            {"settings_scored", settings.size()}, {"run_seconds", run_seconds}, {"scoring_seconds", scoring_seconds}});
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
                                 std::string scratch_directory, HyperparameterSearch search)
    : spaces_(spaces), limits_(limits), scratch_directory_(std::move(scratch_directory)), search_(search) {
  if (scratch_directory_.empty()) scratch_directory_ = std::filesystem::temp_directory_path().string();
}

CandidateScore CandidateScorer::score(const std::string& path, const std::vector<std::string>& settings) const {
  // Before the candidate's own time starts: the first call builds the precompiled headers (seconds).
  PluginCompileView compile_view = plugin_compile_view();
  const auto start = Clock::now();
  // The run limit holds per setting scored.
  const double run_seconds =
      limits_.run_seconds * static_cast<double>(settings.empty() ? std::max<std::size_t>(1, search_.settings) : 1);
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
  // ktune's headers (and their precompiled form) read-only, the compiler named as ktune would name it, and a CPU
  // limit from the wall-clock ones.
  sandbox::Options box;
  box.limits = limits_.sandbox;
  box.disabled = limits_.disabled;
  if (box.limits.cpu_seconds <= 0)
    box.limits.cpu_seconds = (limits_.compile_seconds + run_seconds + 10) *
                             std::max(1u, std::thread::hardware_concurrency());
  box.scratch = folder.path();
  box.inputs = {path};
  box.read_only = std::move(compile_view.read_only);
  box.environment = std::move(compile_view.environment);
  box.keep_descriptors = {messages[1], errors[1]};
  const std::string source = folder.path() + "/" + std::filesystem::path(path).filename().string();
  const int message_fd = messages[1], error_fd = errors[1];
  sandbox::Process process;
  try {
    process = sandbox::spawn(box, [&] {
      ::dup2(error_fd, STDERR_FILENO);
      ::dup2(error_fd, STDOUT_FILENO);  // a candidate that prints must not write into the caller's output
      worker(path, source, folder.path(), spaces_, search_, settings, message_fd, limits_.sandbox.memory_bytes);
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
                     std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(run_seconds));
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
                                          run_seconds)
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
      for (const auto& text : done.value("settings", json::array())) result.settings.push_back(text.get<std::string>());
      result.settings_scored = done.value("settings_scored", std::size_t{1});
      if (done.contains("default_score") && done["default_score"].is_number())
        result.default_score = done["default_score"].get<double>();
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
