#include "ktune/tuning/budget.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ktune {

void Budget::validate() const {
  if (max_evaluations && *max_evaluations == 0) throw std::invalid_argument("max evaluations must be at least 1");
  if (max_fraction && !(*max_fraction > 0 && *max_fraction <= 1))
    throw std::invalid_argument(fmt::format("fraction of the space must be in (0, 1], got {}", *max_fraction));
  if (time_limit_seconds && !(*time_limit_seconds > 0 && std::isfinite(*time_limit_seconds)))
    throw std::invalid_argument(fmt::format("time limit must be a positive number of seconds, got {}",
                                            *time_limit_seconds));
  if (target && !std::isfinite(*target)) throw std::invalid_argument("target must be a finite number");
}

std::uint64_t Budget::evaluation_limit(std::uint64_t space_size) const {
  std::uint64_t limit = space_size;
  if (max_evaluations) limit = std::min(limit, *max_evaluations);
  if (max_fraction)
    limit = std::min(limit, static_cast<std::uint64_t>(std::ceil(*max_fraction * static_cast<double>(space_size))));
  return limit;
}

std::string Budget::describe() const {
  std::vector<std::string> parts;
  if (max_evaluations)
    parts.push_back(fmt::format("max {} evaluation{}", *max_evaluations, *max_evaluations == 1 ? "" : "s"));
  if (max_fraction) parts.push_back(fmt::format("{}% of the space", *max_fraction * 100));
  if (time_limit_seconds) parts.push_back(fmt::format("{} s", *time_limit_seconds));
  if (target) parts.push_back(fmt::format("target {}", *target));
  return parts.empty() ? "unlimited" : fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace ktune
