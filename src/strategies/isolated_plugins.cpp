#include "ktune/tuning/isolated_plugins.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/io/json_value.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/isolated_strategy.hpp"
#include "ktune/tuning/plugin_include_check.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/strategy_plugins.hpp"
#include "live/temporary_directory.hpp"
#include "strategies/plugin_files.hpp"
#include "strategies/registry.hpp"
#include "support/socket_io.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr double kCompileSeconds = 300;  // the compiler's wall clock in the sandbox

using plugin_files::ends_with;
using plugin_files::refuse;

// This process's folder for compiled isolated plug-ins, removed when it exits (or, after a kill -9, by the next
// live run: live/temporary_directory.hpp).
const std::string& library_folder() {
  static const live::TemporaryDirectory folder = [] {
    try {
      return live::TemporaryDirectory();
    } catch (const std::exception& e) {
      throw HyperparameterError(fmt::format("cannot create a folder for isolated plug-ins: {}", e.what()));
    }
  }();
  static const std::string path = folder.path().string();
  return path;
}

json spec_to_json(const HyperparameterSpec& s) {
  json j{{"name", s.name},       {"type", static_cast<int>(s.type)}, {"default", io::value_to_json(s.default_value)},
         {"choices", s.choices}, {"description", s.description},    {"min_exclusive", s.min_exclusive}};
  if (s.min) j["min"] = *s.min;
  if (s.max) j["max"] = *s.max;
  return j;
}

HyperparameterSpec spec_from_json(const json& j) {
  HyperparameterSpec s;
  s.name = j.at("name").get<std::string>();
  s.type = static_cast<HyperparameterType>(j.at("type").get<int>());
  s.default_value = io::value_from_json(j.at("default"));
  s.choices = j.at("choices").get<std::vector<std::string>>();
  s.description = j.at("description").get<std::string>();
  s.min_exclusive = j.at("min_exclusive").get<bool>();
  if (j.contains("min")) s.min = j["min"].get<double>();
  if (j.contains("max")) s.max = j["max"].get<double>();
  return s;
}

// In the sandbox: compile (a .cpp), load under the strategy filter, and say what the plug-in declares.
[[noreturn]] void inspect(const std::string& path, const std::string& source, int fd) {
  json answer;
  try {
    const std::string library =
        ends_with(path, ".cpp") ? compile_strategy_plugin(source, PluginBuild{true, library_folder()}).library : path;
    sandbox::enter_strategy_phase();
    const StrategyInfo strategy = open_strategy_plugin(path, library);
    if (!strategy.make)
      throw HyperparameterError(fmt::format("strategy plug-in '{}': its strategy has no factory", path));
    json specs = json::array();
    for (const auto& spec : strategy.hyperparameters) specs.push_back(spec_to_json(spec));
    answer = {{"library", library},
              {"declared_name", strategy.name},
              {"description", fmt::format("plug-in '{}': {}", strategy.name, strategy.description)},
              {"hyperparameters", specs}};
  } catch (const std::exception& e) {
    // Its messages name the scratch copy; the user knows the file by the path given.
    std::string what = e.what();
    for (std::size_t at; (at = what.find(source)) != std::string::npos;) what.replace(at, source.size(), path);
    answer = {{"error", what}};
  }
  const std::string text = answer.dump();
  support::send_all(fd, text.data(), text.size());
  ::_exit(0);
}

// Outside a sandbox, a prepared plug-in's strategy: each run isolated, in a sandboxed worker that makes the plug-in's
// own (the same trace as in process). A plug-in isolated once in a process is never loaded in it.
class AlwaysIsolated final : public Strategy {
 public:
  explicit AlwaysIsolated(StrategyRecipe recipe) : recipe_(std::move(recipe)) {}
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    IsolatedStrategy(recipe_).run(space, cost, rng);
  }

 private:
  StrategyRecipe recipe_;
};

struct Prepared {
  std::string library;
};

std::mutex& prepared_mutex() {
  static std::mutex m;
  return m;
}

std::map<std::string, Prepared, std::less<>>& prepared() {
  static std::map<std::string, Prepared, std::less<>> m;
  return m;
}

json inspect_in_sandbox(const std::string& path, const sandbox::Layers& disabled) {
  // A folder of its own for the sandbox's scratch (it is a private tmpfs inside; without a mount namespace, itself).
  std::optional<live::TemporaryDirectory> folder;
  try {
    folder.emplace();
  } catch (const std::exception& e) {
    refuse(path, fmt::format("cannot create a scratch folder to compile it in: {}", e.what()));
  }
  const std::string scratch = folder->path().string();
  int channel[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) refuse(path, "cannot create a socket pair");
  sandbox::Options box;
  box.disabled = disabled;
  box.scratch = scratch;
  PluginCompileView compile_view = plugin_compile_view();
  box.read_only = std::move(compile_view.read_only);
  box.writable = {library_folder()};
  const std::string absolute = fs::absolute(path).lexically_normal().string();
  if (ends_with(path, ".cpp")) box.inputs = {absolute};
  else box.read_only.push_back(absolute);
  box.environment = std::move(compile_view.environment);
  box.keep_descriptors = {channel[1]};
  const std::string source = scratch + "/" + fs::path(path).filename().string();
  const int fd = channel[1];
  sandbox::Process process = sandbox::spawn(box, [&] {
    ::dup2(STDERR_FILENO, STDOUT_FILENO);  // nothing it prints goes into ktune's output
    inspect(ends_with(path, ".cpp") ? path : absolute, source, fd);
  });
  ::close(channel[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kCompileSeconds);
  bool timed_out = false;
  for (;;) {
    pollfd p{channel[0], POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) {
      char buffer[4096];
      const ssize_t n = ::read(channel[0], buffer, sizeof buffer);
      if (n <= 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
    } else if (std::chrono::steady_clock::now() > deadline) {
      timed_out = true;
      process.kill();
      break;
    }
  }
  ::close(channel[0]);
  const int status = process.wait();
  if (timed_out) refuse(path, fmt::format("compiling and loading it took longer than {:g} s", kCompileSeconds));
  if (const std::string stopped = process.sandbox_reason(status); !stopped.empty())
    refuse(path, "was stopped by the sandbox while loading: it " + stopped);
  const json answer = json::parse(text, nullptr, false);
  if (answer.is_discarded() || !answer.is_object())
    refuse(path, "its loading in the sandbox ended without an answer (it crashed, or exited, as it was loaded)");
  if (answer.contains("error")) throw HyperparameterError(answer["error"].get<std::string>());
  return answer;
}

}  // namespace

void prepare_isolated_strategy(const std::string& strategy, const sandbox::Layers& disabled) {
  const std::string name = strategy.substr(0, strategy.find(':'));  // as parse_strategy_spec splits a label
  if (!is_strategy_plugin_path(name)) return;
  const std::lock_guard lock(prepared_mutex());
  if (prepared().count(name) || strategies::find_registered_strategy(name)) return;
  plugin_files::check_is_file(name);
  // Checked here too, so that the message comes before any sandbox starts.
  if (ends_with(name, ".cpp"))
    if (const auto why = refused_include(plugin_files::read_file(name))) refuse(name, *why);
  const json answer = inspect_in_sandbox(name, disabled);
  StrategyInfo info;
  info.name = name;
  info.description = answer.at("description").get<std::string>();
  for (const auto& spec : answer.at("hyperparameters")) info.hyperparameters.push_back(spec_from_json(spec));
  const std::string library = answer.at("library").get<std::string>();
  // In a sandboxed worker: the plug-in's own strategy. Here: one that runs it in such a worker.
  info.make = [name, library](const Hyperparameters& h) -> std::unique_ptr<Strategy> {
    if (sandbox::inside()) return open_strategy_plugin(name, library).make(h);
    return std::make_unique<AlwaysIsolated>(
        StrategyRecipe{name, std::vector<std::pair<std::string, Value>>(h.values().begin(), h.values().end())});
  };
  register_strategy(std::move(info));
  prepared()[name] = Prepared{library};
}

std::vector<std::string> isolated_strategy_files(std::string_view name) {
  const std::lock_guard lock(prepared_mutex());
  const auto it = prepared().find(name);
  if (it == prepared().end()) return {};
  return {it->second.library};
}

}  // namespace ktune
