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
  double cost = std::numeric_limits<double>::infinity();
  if (entry.status == Status::ok && !values.empty()) {
    if (objectives_.size() == 1 || scalarization_.kind == Scalarization::Kind::lexicographic) {
      cost = objective_cost(objectives_.front(), values.front());
    } else {
      // Only weighted sums of several objectives pay for this allocation; the single-objective path does not.
      std::vector<double> c(values.size());
      for (std::size_t j = 0; j < values.size(); ++j) c[j] = objective_cost(objectives_[j], values[j]);
      cost = scalarization_(c);
    }
  }
  costs_.push_back(cost);
  if (cost != std::numeric_limits<double>::infinity() && better_than_best(position)) best_ = position;
  return position;
}

bool Trace::better_than_best(std::size_t position) const {
  if (!best_) return true;
  const double a = costs_[position], b = costs_[*best_];
  if (a != b || objectives_.size() == 1 || scalarization_.kind != Scalarization::Kind::lexicographic) return a < b;
  // Lexicographic: equal first objectives are decided by the next ones.
  const auto va = values(position), vb = values(*best_);
  for (std::size_t j = 1; j < objectives_.size(); ++j) {
    const double ca = objective_cost(objectives_[j], va[j]), cb = objective_cost(objectives_[j], vb[j]);
    if (ca != cb) return ca < cb;
  }
  return false;
}

std::vector<double> objective_costs(const Trace& trace, std::size_t position) {
  const auto& objectives = trace.objectives();
  std::vector<double> costs(objectives.size(), std::numeric_limits<double>::infinity());
  if (trace[position].status != Status::ok) return costs;
  const auto values = trace.values(position);
  for (std::size_t j = 0; j < objectives.size(); ++j) costs[j] = objective_cost(objectives[j], values[j]);
  return costs;
}

std::vector<double> Trace::best_so_far() const {
  std::vector<double> curve(costs_.size());
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < costs_.size(); ++i) curve[i] = best = std::min(best, costs_[i]);
  return curve;
}

}  // namespace ktune
