#include "ktune/report/comparison_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace ktune::report {

using json = nlohmann::json;

bool is_comparison_report(const json& document) {
  return document.is_object() && document.contains("spaces") && document.contains("aggregate") &&
         document["spaces"].is_array() && document["aggregate"].is_object();
}

json summarize_comparison(const json& report, const std::string& name, const std::string& source) {
  if (!is_comparison_report(report))
    throw std::invalid_argument(fmt::format("{}: not a comparison report (no \"spaces\" and \"aggregate\")", source));
  // Strategies by aggregate score, best first (a strategy without a score last).
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [strategy, a] : report["aggregate"].items())
    order.emplace_back(a.value("score", json()).is_number() ? a["score"].get<double>() : -1e300, strategy);
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  json out{{"kind", "comparison"},       {"name", name},           {"source", source}, {"strategies", json::array()},
           {"aggregate", json::array()}, {"spaces", json::array()}};
  if (report.contains("settings")) out["settings"] = report["settings"];
  for (const auto& [score, strategy] : order) {
    const json& a = report["aggregate"][strategy];
    if (!a.contains("performance"))
      throw std::invalid_argument(
          fmt::format("{}: the comparison has no curves; write it with ktune compare --output "
                      "FILE (not --json)",
                      source));
    out["strategies"].push_back(strategy);
    out["aggregate"].push_back({{"strategy", strategy},
                                {"score", a.value("score", json())},
                                {"error", a.value("error", json())},
                                {"performance", a["performance"]}});
  }
  for (const auto& s : report["spaces"]) {
    json space{{"name", s.value("name", "")},
               {"stats", s.value("stats", json::object())},
               {"time_points", s.value("time_points", json::array())},
               {"scores", s.value("scores", json::object())},
               {"performance", json::object()}};
    if (s.contains("strategies"))
      for (const auto& [strategy, c] : s["strategies"].items()) space["performance"][strategy] = c["performance"];
    out["spaces"].push_back(std::move(space));
  }
  return out;
}

}  // namespace ktune::report
