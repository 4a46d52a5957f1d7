#pragma once
// What a tuning run optimises: one or more named measurements, each minimised or maximised.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct Objective {
  std::string name;  // a measurement name: "time", "GFLOP/s", "energy", ...
  bool higher_is_better = false;
};

// The direction Kernel Tuner and the methodology infer from a name: time, energy, cost, loss (and any name containing
// "time") are minimised; fitness, score, GFLOP/s, TFLOP/s, GB/s, TB/s, GFLOPS/W, TFLOPS/W, GFLOP/J, TFLOP/J (and any
// name containing "score", "flop/s", "flops" or "gb/s", case-insensitive) are maximised; std::nullopt if unknown.
std::optional<bool> infer_higher_is_better(std::string_view name);

// Objectives for `names` with directions inferred; `maximize` (one flag for all, or one per name) overrides.
// Throws std::invalid_argument naming the objective whose direction is unknown and not given.
std::vector<Objective> make_objectives(const std::vector<std::string>& names,
                                       const std::vector<bool>& maximize = {});

}  // namespace ktune
