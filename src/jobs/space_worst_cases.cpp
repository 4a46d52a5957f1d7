#include "ktune/jobs/space_worst_cases.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ktune/io/json_value.hpp"

namespace ktune {

std::vector<SpaceWorstCase> space_worst_cases(const methodology::ComparisonReport& report) {
  std::optional<std::size_t> random_column;
  for (std::size_t k = 0; k < report.strategies.size(); ++k)
    if (report.strategies[k] == "random_sample") random_column = k;
  std::vector<SpaceWorstCase> cases;
  for (std::size_t k = 0; k < report.strategies.size(); ++k) {
    SpaceWorstCase c;
    c.strategy = report.strategies[k];
    c.worst_score = std::numeric_limits<double>::infinity();
    double sum = 0;
    std::size_t scored = 0;
    for (const auto& space : report.spaces) {
      const double score = space.strategies[k].score;
      if (std::isnan(score)) continue;
      sum += score;
      ++scored;
      if (score < c.worst_score) {
        c.worst_score = score;
        c.worst_space = space.name;
      }
      if (!random_column || *random_column == k) continue;
      const double random = space.strategies[*random_column].score;
      if (std::isnan(random)) continue;
      if (!c.shortfall || score - random < *c.shortfall) {
        c.shortfall = score - random;
        c.shortfall_space = space.name;
      }
    }
    c.mean = scored ? sum / static_cast<double>(scored) : std::nan("");
    if (!scored) c.worst_score = std::nan("");
    cases.push_back(std::move(c));
  }
  return cases;
}

nlohmann::json space_worst_cases_json(const std::vector<SpaceWorstCase>& cases) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::json j{{"strategy", c.strategy},
                     {"mean", io::number_or_null(c.mean)},
                     {"worst_space", c.worst_space},
                     {"worst_score", io::number_or_null(c.worst_score)}};
    j["shortfall_space"] = c.shortfall_space ? nlohmann::json(*c.shortfall_space) : nlohmann::json();
    j["shortfall_vs_random"] = c.shortfall ? io::number_or_null(*c.shortfall) : nlohmann::json();
    out.push_back(std::move(j));
  }
  return out;
}

void write_space_worst_cases(std::ostream& out, const std::vector<SpaceWorstCase>& cases) {
  std::size_t width = 20;
  for (const auto& c : cases) width = std::max(width, c.strategy.size() + 2);
  out << fmt::format("\nPer-space worst cases (mean of space scores; lowest space; furthest below random_sample)\n");
  out << fmt::format("{:<{}}{:>8}  {:<28}{:>8}  {:<28}{:>9}\n", "strategy", width, "mean", "worst space", "score",
                     "vs random_sample on", "gap");
  for (const auto& c : cases) {
    out << fmt::format("{:<{}}{:>8.3f}  {:<28}{:>8.3f}", c.strategy, width, c.mean, c.worst_space, c.worst_score);
    if (c.shortfall) out << fmt::format("  {:<28}{:>+9.3f}", *c.shortfall_space, *c.shortfall);
    out << "\n";
  }
}

}  // namespace ktune
