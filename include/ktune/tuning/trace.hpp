#pragma once
// The trace of a tuning run: every unique evaluation in the order it happened, with its place on the tuning clock.
// Compact (index arrays and flat numbers) because simulations append millions of entries per second.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ktune/tuning/objective.hpp"
#include "ktune/status.hpp"

namespace ktune {

struct TraceEntry {
  std::uint64_t index = 0;  // configuration index in the search space (lazy spaces pass 2^32)
  Status status = Status::ok;
  bool resumed = false;     // taken from an earlier run's cache: not evaluated, not charged, not counted
  double charged_ms = 0;    // what this evaluation added to the tuning clock
  double clock_ms = 0;      // the tuning clock once it was charged
  double strategy_ms = 0;   // the strategy's own time before it asked for this evaluation (measured)
};

class Trace {
 public:
  explicit Trace(std::vector<Objective> objectives, Scalarization scalarization = {})
      : objectives_(std::move(objectives)), scalarization_(std::move(scalarization)) {}

  const std::vector<Objective>& objectives() const { return objectives_; }
  const Scalarization& scalarization() const { return scalarization_; }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const TraceEntry& operator[](std::size_t position) const { return entries_[position]; }
  const std::vector<TraceEntry>& entries() const { return entries_; }
  // The measured objective values of entry `position` (NaN where unavailable).
  std::span<const double> values(std::size_t position) const {
    return {values_.data() + position * objectives_.size(), objectives_.size()};
  }
  // The scalar cost of entry `position` that strategies minimise: the objectives' costs (negated when higher is
  // better) scalarised (by default the first); +inf for failures and missing values.
  double cost(std::size_t position) const { return costs_[position]; }
  // The position of the best entry (lowest cost; lexicographic: equal first objectives decided by the next ones;
  // the earliest on full ties), if any succeeded.
  std::optional<std::size_t> best() const { return best_; }
  // The best cost after each entry: the best-so-far curve.
  std::vector<double> best_so_far() const;

  void reserve(std::size_t n);
  // Appends an entry; `values` has one number per objective. Returns its position.
  std::size_t append(const TraceEntry& entry, std::span<const double> values);

 private:
  bool better_than_best(std::size_t position) const;

  std::vector<Objective> objectives_;
  Scalarization scalarization_;
  std::vector<TraceEntry> entries_;
  std::vector<double> values_;
  std::vector<double> costs_;
  std::optional<std::size_t> best_;
};

// Cost of one objective value: negated when higher is better, +inf when not a finite number.
double objective_cost(const Objective& objective, double value);
// The costs of every objective of entry `position` (all +inf for a failure).
std::vector<double> objective_costs(const Trace& trace, std::size_t position);

}  // namespace ktune
