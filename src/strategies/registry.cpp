#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/tuning/strategy.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune {

const std::vector<StrategyInfo>& strategy_registry() {
  // An explicit list: self-registration from static initialisers is dropped by the linker in static libraries.
  static const std::vector<StrategyInfo> registry = {
      strategies::brute_force_info(),
      strategies::random_sample_info(),
  };
  return registry;
}

const StrategyInfo* find_strategy(std::string_view name) {
  for (const auto& info : strategy_registry())
    if (info.name == name) return &info;
  return nullptr;
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
