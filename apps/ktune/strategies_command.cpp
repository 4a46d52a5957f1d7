// `ktune strategies`: every strategy with its hyperparameters (human or --json).
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/tuning/strategy.hpp"

namespace ktune::cli {

nlohmann::json strategies_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& info : strategy_registry()) {
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
    list.push_back({{"name", info.name}, {"description", info.description}, {"hyperparameters", std::move(hyper)}});
  }
  return {{"strategies", std::move(list)}};
}

Command add_strategies_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("strategies", "List the search strategies and their hyperparameters");
  sub->add_flag("--json", *json, "Print one JSON object (stable interface)");
  return {sub, [json] {
            if (*json) {
              std::cout << strategies_json().dump(2) << "\n";
              return kExitOk;
            }
            for (const auto& info : strategy_registry()) {
              std::cout << fmt::format("{:<16} {}\n", info.name, info.description);
              for (const auto& h : info.hyperparameters)
                std::cout << fmt::format("    {:<14} {:<6} default {:<8} {:<16} {}\n", h.name, to_string(h.type),
                                         h.default_value.repr(), h.range_text(), h.description);
            }
            std::cout << "Set hyperparameters with: ktune tune ... --strategy NAME --set name=value\n";
            return kExitOk;
          }};
}

}  // namespace ktune::cli
