#pragma once
// When a tuning run stops. Every limit is optional and they combine: the run ends at the first one reached.
#include <cstdint>
#include <optional>
#include <string>

namespace ktune {

struct Budget {
  // Unique configurations evaluated (revisits are free and not counted).
  std::optional<std::uint64_t> max_evaluations;
  // The same as a fraction of the search space, in (0, 1]; ceil(fraction * size) evaluations.
  std::optional<double> max_fraction;
  // Seconds on the tuning clock: simulated in simulation, wall clock live.
  std::optional<double> time_limit_seconds;
  // Stop once the best value of the (first) objective is at least this good (<= when minimising, >= maximising).
  std::optional<double> target;

  // Throws std::invalid_argument for a non-positive or non-finite limit.
  void validate() const;
  // max_evaluations and max_fraction combined for a space of `space_size` configurations (and the space size).
  std::uint64_t evaluation_limit(std::uint64_t space_size) const;
  std::string describe() const;  // "max 100 evaluations, 60 s", "unlimited"
};

}  // namespace ktune
