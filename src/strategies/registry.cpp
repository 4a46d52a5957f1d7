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
