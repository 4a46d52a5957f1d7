#pragma once
// One tuning run: a strategy searches a space through a cost function backed by an evaluator, within a budget.
// The same inputs and seed give the same trace, whatever the strategy (in simulation, where the clock is
// charged recorded times; strategy time is charged only when asked).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/trace.hpp"

namespace ktune {

// A result known from an earlier run (a resumed cache file).
struct ResumedResult {
  std::size_t index = 0;
  Status status = Status::ok;
  std::vector<double> values;  // one per objective
};

struct TuningOptions {
  Budget budget;
  std::uint64_t seed = 0;
  bool charge_strategy_time = false;
  std::vector<TuningListener*> listeners;
  std::vector<ResumedResult> resumed;
  Scalarization scalarization;  // several objectives, single-objective strategy: how they make one cost
  std::size_t pending_evaluations = 0;  // a constant liar for one-at-a-time strategies (CostFunctionOptions)
  bool resumed_count_toward_budget = true;  // CostFunctionOptions
  bool avoid_failures = false;              // CostFunctionOptions: learned failure avoidance
  std::shared_ptr<const TransferPrior> failure_sources;  // CostFunctionOptions: with avoid_failures
  // Configurations evaluated first, in order, before the strategy runs (a user's starting point); known ones cost
  // nothing, and the budget can end among them.
  std::vector<std::size_t> first;
};

struct TuningResult {
  explicit TuningResult(Trace t) : trace(std::move(t)) {}
  Trace trace;
  std::uint64_t evaluations = 0;  // unique configurations evaluated (resumed ones not included)
  double clock_ms = 0;            // the tuning clock at the end
  StopReason stop_reason = StopReason::strategy_finished;
  double wall_seconds = 0;        // real time of the run
  std::string failure;            // StopReason::strategy_failed: what happened to the strategy
  std::uint64_t deferred = 0;     // avoid_failures: configurations answered as failures without a measurement

  double clock_seconds() const { return clock_ms / 1000.0; }
};

// Runs `strategy` until it returns or the budget ends. Throws std::invalid_argument for a bad budget; exceptions
// from the strategy or the evaluator (other than the budget's end) propagate.
TuningResult tune(const SearchSpace& space, Evaluator& evaluator, Strategy& strategy, const TuningOptions& options);

}  // namespace ktune
