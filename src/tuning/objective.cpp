#include "ktune/tuning/objective.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

namespace ktune {

std::optional<bool> infer_higher_is_better(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  // Errors of accuracy measures (RMSE, max relative error, ...) are minimised too.
  static constexpr std::array<std::string_view, 10> minimised{"time", "energy", "cost", "loss", "error",
                                                              "mse",  "rmse",   "mae",  "mre",  "nrmse"};
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

}  // namespace ktune
