#pragma once
// What a tuning run optimises: one or more named measurements, each minimised or maximised.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct Objective {
  std::string name;  // a measurement name: "time", "GFLOP/s", "energy", ...
  bool higher_is_better = false;
  bool operator==(const Objective&) const = default;
};

// The direction Kernel Tuner and the methodology infer from a name: time, energy, cost, loss (and any name containing
// "time") are minimised; fitness, score, GFLOP/s, TFLOP/s, GB/s, TB/s, GFLOPS/W, TFLOPS/W, GFLOP/J, TFLOP/J (and any
// name containing "score", "flop/s", "flops" or "gb/s", case-insensitive) are maximised; std::nullopt if unknown.
std::optional<bool> infer_higher_is_better(std::string_view name);

// Whether the run's one objective is the time, minimised: what per-run repetition (early rejection, its replay) and
// the confirmation of a winner reason about.
inline bool time_is_the_objective(const std::vector<Objective>& objectives) {
  return objectives.size() == 1 && objectives[0].name == "time" && !objectives[0].higher_is_better;
}

// Objectives for `names` with directions inferred; `maximize` (one flag for all, or one per name) overrides.
// Throws std::invalid_argument naming the objective whose direction is unknown and not given.
std::vector<Objective> make_objectives(const std::vector<std::string>& names,
                                       const std::vector<bool>& maximize = {});

// Objectives from texts "name", "name:min" or "name:max", each possibly a comma-separated list ("time,energy:min").
// Without a suffix the direction is inferred from the name. Throws std::invalid_argument naming the text for an
// empty name, a bad suffix, a name given twice or a direction that cannot be inferred.
std::vector<Objective> parse_objectives(const std::vector<std::string>& texts);

// How several objectives become the one cost that single-objective strategies minimise. Costs are objective values
// negated when higher is better, so every weight applies to a minimised quantity.
//   lexicographic (default): the first objective's cost; the best configuration is chosen by the first objective,
//     equal values decided by the second, and so on (the strategy itself sees only the first).
//   weighted_sum: sum of weight_i * cost_i (+inf if any is); weights as given, no normalisation.
struct Scalarization {
  enum class Kind { lexicographic, weighted_sum };
  Kind kind = Kind::lexicographic;
  std::vector<double> weights;  // weighted_sum: one per objective

  double operator()(std::span<const double> costs) const;
};
// "lexicographic" or "weighted_sum:w1,w2,..." (one weight per objective). Throws std::invalid_argument naming the
// position of what is wrong.
Scalarization parse_scalarization(std::string_view text, std::size_t objectives);

}  // namespace ktune
