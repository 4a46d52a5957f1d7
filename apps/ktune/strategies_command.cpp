// `ktune strategies`: every strategy with its hyperparameters (human or --json).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/strategy_plugins.hpp"

namespace ktune::cli {

nlohmann::json strategies_json(const std::vector<const StrategyInfo*>& strategies) {
  nlohmann::json list = nlohmann::json::array();
  for (const StrategyInfo* p : strategies) {
    const StrategyInfo& info = *p;
    nlohmann::json hyper = nlohmann::json::array();
    for (const auto& h : info.hyperparameters) {
      nlohmann::json j{{"name", h.name},
                       {"type", to_string(h.type)},
                       {"default", io::value_to_json(h.default_value)},
                       {"description", h.description}};
      j["min"] = h.min ? nlohmann::json(*h.min) : nlohmann::json(nullptr);
      j["max"] = h.max ? nlohmann::json(*h.max) : nlohmann::json(nullptr);
      if (!h.choices.empty()) j["choices"] = h.choices;
      hyper.push_back(std::move(j));
    }
    nlohmann::json sets = nlohmann::json::array();
    for (const auto& set : hyperparameter_sets(info.name)) {
      nlohmann::json values = nlohmann::json::object();
      for (const auto& [name, value] : set.values) values[name] = io::value_to_json(value);
      sets.push_back({{"name", set.name}, {"description", set.description}, {"values", std::move(values)}});
    }
    nlohmann::json j{{"name", info.name},
                     {"description", info.description},
                     {"hyperparameters", std::move(hyper)},
                     {"sets", std::move(sets)}};
    if (is_strategy_plugin_path(info.name)) {
      const StrategyPluginInfo plugin = load_strategy_plugin(info.name);  // loaded already: what it said
      j["plugin"] = {{"declared_name", plugin.declared_name},
                     {"library", plugin.library},
                     {"ktune_version", plugin.ktune_version}};
    }
    list.push_back(std::move(j));
  }
  return {{"strategies", std::move(list)}};
}

struct StrategiesOptions {
  bool json = false;
  std::vector<std::string> plugins;
};

Command add_strategies_command(CLI::App& app) {
  auto o = std::make_shared<StrategiesOptions>();
  CLI::App* sub = app.add_subcommand("strategies", "List the search strategies and their hyperparameters");
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  sub->add_option("--plugin", o->plugins,
                  "Only these strategy plug-ins (.so, or .cpp compiled and cached): what they declare (repeatable)");
  return {sub, [o] {
            std::vector<const StrategyInfo*> shown;
            try {
              // Loaded by path: anything that is not a plug-in file is refused with the reason (as `tune` does).
              for (const auto& path : o->plugins) {
                load_strategy_plugin(path);
                shown.push_back(find_strategy(path));
              }
            } catch (const HyperparameterError& e) {
              std::cerr << "ktune strategies: error: " << e.what() << "\n";
              return kExitUsage;  // an unusable plug-in is a usage error, in every verb
            }
            if (o->plugins.empty())
              for (const auto& info : strategy_registry()) shown.push_back(&info);
            if (o->json) {
              std::cout << strategies_json(shown).dump(2) << "\n";
              return kExitOk;
            }
            for (const StrategyInfo* p : shown) {
              const StrategyInfo& info = *p;
              std::cout << fmt::format("{:<16} {}\n", info.name, info.description);
              for (const auto& h : info.hyperparameters)
                std::cout << fmt::format("    {:<14} {:<6} default {:<8} {:<16} {}\n", h.name, to_string(h.type),
                                         h.default_value.repr(), h.range_text(), h.description);
              for (const auto& set : hyperparameter_sets(info.name)) {
                std::vector<std::string> values;
                for (const auto& [name, value] : set.values) values.push_back(name + "=" + value.repr());
                std::cout << fmt::format("    set={:<10} {}: {}\n", set.name, set.description, fmt::join(values, " "));
              }
            }
            std::cout << "Set hyperparameters with: ktune tune ... --strategy NAME --set name=value (or set=SET)\n";
            return kExitOk;
          }};
}

}  // namespace ktune::cli
