#include "ktune/tuning/trace.hpp"

#include <cmath>
#include <limits>

namespace ktune {

double objective_cost(const Objective& objective, double value) {
  if (!std::isfinite(value)) return std::numeric_limits<double>::infinity();
  return objective.higher_is_better ? -value : value;
}

void Trace::reserve(std::size_t n) {
  entries_.reserve(n);
  values_.reserve(n * objectives_.size());
  costs_.reserve(n);
}

std::size_t Trace::append(const TraceEntry& entry, std::span<const double> values) {
  const std::size_t position = entries_.size();
  entries_.push_back(entry);
  values_.insert(values_.end(), values.begin(), values.end());
  const double cost = entry.status == Status::ok && !values.empty()
                          ? objective_cost(objectives_.front(), values.front())
                          : std::numeric_limits<double>::infinity();
  costs_.push_back(cost);
  if (cost != std::numeric_limits<double>::infinity() && (!best_ || cost < costs_[*best_])) best_ = position;
  return position;
}

std::vector<double> Trace::best_so_far() const {
  std::vector<double> curve(costs_.size());
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < costs_.size(); ++i) curve[i] = best = std::min(best, costs_[i]);
  return curve;
}

}  // namespace ktune
