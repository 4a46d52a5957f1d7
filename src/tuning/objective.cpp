#include "ktune/tuning/objective.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace ktune {

std::optional<bool> infer_higher_is_better(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  // Errors of accuracy measures (RMSE, max relative error, ...) are minimised too.
  static constexpr std::array<std::string_view, 18> minimised{
      "time",  "energy", "cost",   "loss",   "error",     "mse",          "rmse",       "mae",       "mre",
      "nrmse", "nmae",   "rmsre",  "memory", "power",     "footprint",    "max relative", "nrmse-mean", "nrmse-rms"};
  static constexpr std::array<std::string_view, 10> maximised{"fitness",  "score",    "gflop/s", "tflop/s",
                                                              "gb/s",     "tb/s",     "gflops/w", "tflops/w",
                                                              "gflop/j",  "tflop/j"};
  for (auto m : minimised)
    if (lower == m) return false;
  for (auto m : maximised)
    if (lower == m) return true;
  // The methodology's substring rules, for names such as "kernel_time" or "GFLOPS".
  if (lower.find("time") != std::string::npos || lower.find("error") != std::string::npos ||
      lower.find("energy") != std::string::npos)
    return false;
  for (std::string_view part : {"score", "flop/s", "flops", "gb/s"})
    if (lower.find(part) != std::string::npos) return true;
  return std::nullopt;
}

std::vector<Objective> make_objectives(const std::vector<std::string>& names, const std::vector<bool>& maximize) {
  if (names.empty()) throw std::invalid_argument("no objective given");
  if (maximize.size() > 1 && maximize.size() != names.size())
    throw std::invalid_argument(fmt::format("{} objectives but {} directions", names.size(), maximize.size()));
  std::vector<Objective> objectives;
  for (std::size_t i = 0; i < names.size(); ++i) {
    Objective o{names[i], false};
    if (!maximize.empty()) {
      o.higher_is_better = maximize.size() == 1 ? maximize[0] : maximize[i];
    } else if (auto inferred = infer_higher_is_better(names[i])) {
      o.higher_is_better = *inferred;
    } else {
      throw std::invalid_argument(fmt::format(
          "cannot tell whether objective '{}' is to be minimised or maximised: say so (--maximize or --minimize)",
          names[i]));
    }
    objectives.push_back(std::move(o));
  }
  return objectives;
}

std::vector<Objective> parse_objectives(const std::vector<std::string>& texts) {
  std::vector<Objective> objectives;
  for (const std::string& text : texts) {
    std::size_t pos = 0;
    while (pos <= text.size()) {
      const std::size_t end = std::min(text.find(',', pos), text.size());
      std::string item = text.substr(pos, end - pos);
      pos = end + 1;
      std::optional<bool> higher;
      const auto colon = item.rfind(':');
      if (colon != std::string::npos) {
        const std::string direction = item.substr(colon + 1);
        if (direction == "min" || direction == "minimize" || direction == "minimise") {
          higher = false;
        } else if (direction == "max" || direction == "maximize" || direction == "maximise") {
          higher = true;
        } else {
          throw std::invalid_argument(
              fmt::format("objective '{}': the direction after ':' must be min or max, not '{}'", item, direction));
        }
        item.resize(colon);
      }
      if (item.empty()) throw std::invalid_argument(fmt::format("objectives '{}': an empty objective name", text));
      for (const auto& o : objectives)
        if (o.name == item) throw std::invalid_argument(fmt::format("objective '{}' is given twice", item));
      if (!higher) higher = infer_higher_is_better(item);
      if (!higher)
        throw std::invalid_argument(fmt::format(
            "cannot tell whether objective '{}' is to be minimised or maximised: write {}:min or {}:max", item, item,
            item));
      objectives.push_back({item, *higher});
    }
  }
  return objectives;
}

double Scalarization::operator()(std::span<const double> costs) const {
  if (costs.empty()) return std::numeric_limits<double>::infinity();
  if (kind == Kind::lexicographic) return costs.front();
  double sum = 0;
  for (std::size_t i = 0; i < costs.size(); ++i) {
    if (!std::isfinite(costs[i])) return std::numeric_limits<double>::infinity();
    const double w = i < weights.size() ? weights[i] : 0.0;
    if (w != 0) sum += w * costs[i];
  }
  return sum;
}

Scalarization parse_scalarization(std::string_view text, std::size_t objectives) {
  Scalarization s;
  if (text.empty() || text == "lexicographic") return s;
  constexpr std::string_view prefix = "weighted_sum";
  if (text.substr(0, prefix.size()) != prefix)
    throw std::invalid_argument(fmt::format("scalarization '{}': expected 'lexicographic' or 'weighted_sum:W1,W2,...'",
                                            text));
  s.kind = Scalarization::Kind::weighted_sum;
  std::string_view rest = text.substr(prefix.size());
  if (rest.empty()) {  // equal weights
    s.weights.assign(objectives, 1.0);
    return s;
  }
  if (rest.front() != ':')
    throw std::invalid_argument(fmt::format("scalarization '{}': expected ':' at position {}", text, prefix.size()));
  std::size_t pos = prefix.size() + 1;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string item(text.substr(pos, end - pos));
    char* stop = nullptr;
    const double w = std::strtod(item.c_str(), &stop);
    if (item.empty() || stop != item.c_str() + item.size() || !std::isfinite(w))
      throw std::invalid_argument(fmt::format("scalarization '{}': '{}' at position {} is not a number", text, item, pos));
    s.weights.push_back(w);
    pos = end + 1;
  }
  if (s.weights.size() != objectives)
    throw std::invalid_argument(fmt::format("scalarization '{}': {} weights for {} objectives", text, s.weights.size(),
                                            objectives));
  return s;
}

}  // namespace ktune
