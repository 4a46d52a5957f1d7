#include <algorithm>
#include <deque>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/strategy_plugins.hpp"
#include "strategies/registry.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune {

namespace {

// A deque: registering a strategy (a plug-in loaded on first use) leaves the StrategyInfo pointers handed out valid.
std::deque<StrategyInfo>& registry_storage() {
  // An explicit list: self-registration from static initialisers is dropped by the linker in static libraries.
  static std::deque<StrategyInfo> registry = [] {
    std::deque<StrategyInfo> all{strategies::brute_force_info(), strategies::random_sample_info()};
    for (auto family : {strategies::local_search_strategies, strategies::evolutionary_strategies,
                        strategies::continuous_strategies, strategies::bayesian_strategies,
                        strategies::generated_and_ensemble_strategies, strategies::multiobjective_strategies})
      for (auto& info : family()) all.push_back(std::move(info));
    return all;
  }();
  return registry;
}

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

const std::deque<StrategyInfo>& strategy_registry() { return registry_storage(); }

void register_strategy(StrategyInfo info) {
  if (info.name.empty()) throw std::invalid_argument("a strategy needs a name");
  if (!info.make) throw std::invalid_argument(fmt::format("strategy '{}' has no factory", info.name));
  if (strategies::find_registered_strategy(info.name))
    throw std::invalid_argument(fmt::format("strategy '{}' exists already", info.name));
  const std::lock_guard lock(registry_mutex());
  registry_storage().push_back(std::move(info));
}

const StrategyInfo* strategies::find_registered_strategy(std::string_view name) {
  const std::lock_guard lock(registry_mutex());
  for (const auto& info : registry_storage())
    if (info.name == name) return &info;
  return nullptr;
}

const StrategyInfo* find_strategy(std::string_view name) {
  if (const StrategyInfo* info = strategies::find_registered_strategy(name)) return info;
  if (!is_strategy_plugin_path(name)) return nullptr;
  load_strategy_plugin(std::string(name));  // registers it under `name`, or throws saying why not
  return strategies::find_registered_strategy(name);
}

std::vector<std::pair<std::string, Value>> parse_strategy_settings(std::string_view name,
                                                                   const std::vector<std::string>& settings) {
  const StrategyInfo* info = find_strategy(name);
  if (!info) make_strategy(name);  // throws the error that lists the known strategies
  std::vector<std::pair<std::string, Value>> parsed;
  for (const auto& s : settings) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw HyperparameterError(fmt::format("strategy '{}': '{}' is not name=value", name, s));
    const std::string key = s.substr(0, eq), text = s.substr(eq + 1);
    const auto spec = std::find_if(info->hyperparameters.begin(), info->hyperparameters.end(),
                                   [&](const auto& h) { return h.name == key; });
    if (spec == info->hyperparameters.end()) Hyperparameters::resolve(info->name, info->hyperparameters, {{key, Value()}});
    parsed.emplace_back(key, parse_hyperparameter_text(info->name, *spec, text));
  }
  return parsed;
}

std::unique_ptr<Strategy> make_strategy(std::string_view name,
                                        const std::vector<std::pair<std::string, Value>>& hyperparameters) {
  const StrategyInfo* info = find_strategy(name);
  if (!info) {
    std::vector<std::string> names;
    for (const auto& i : strategy_registry()) names.push_back(i.name);
    throw HyperparameterError(fmt::format("unknown strategy '{}'; known: {}", name, fmt::join(names, ", ")));
  }
  return info->make(Hyperparameters::resolve(info->name, info->hyperparameters, hyperparameters));
}

}  // namespace ktune
