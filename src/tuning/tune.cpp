#include "ktune/tuning/tune.hpp"

#include <chrono>

#include "ktune/rng.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/search_space.hpp"

namespace ktune {

TuningResult tune(const SearchSpace& space, Evaluator& evaluator, Strategy& strategy, const TuningOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CostFunction cost(space, evaluator,
                    {options.budget, options.charge_strategy_time, options.listeners, options.scalarization,
                     options.pending_evaluations, options.resumed_count_toward_budget, options.avoid_failures,
                     options.failure_sources});
  for (const auto& r : options.resumed) cost.add_resumed(r.index, r.status, r.values);
  Rng rng(options.seed);
  std::string failure;
  try {
    for (std::size_t index : options.first) (void)cost(index);
    if (!cost.exhausted()) strategy.run(space, cost, rng);
  } catch (const BudgetExhausted&) {
    // The budget ended: the run is complete.
  } catch (const StrategyFailed& e) {
    failure = e.what();
  }
  try {
    cost.settle();  // what the strategy was answered with lies for is measured and recorded
  } catch (const BudgetExhausted&) {
  }
  TuningResult result{cost.take_trace()};
  result.evaluations = cost.evaluations();
  result.clock_ms = cost.clock_ms();
  result.deferred = cost.deferrals();
  result.stop_reason = cost.stop_reason().value_or(StopReason::strategy_finished);
  if (!failure.empty() && !cost.stop_reason()) {
    // A worker that did not stop when Ctrl-C asked it to is stopped: the run was interrupted, not failed.
    result.stop_reason = stop_requested() ? StopReason::interrupted : StopReason::strategy_failed;
    result.failure = std::move(failure);
  }
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace ktune
