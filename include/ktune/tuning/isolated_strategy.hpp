#pragma once
// A strategy run in a worker process, so that one that crashes, hangs or throws costs its run and not the caller
// (an untrusted plug-in, a strategy written by a language model). The worker is forked with the space, the random
// generator and a cost function of its own whose evaluations are asked of the caller's cost function over a pipe:
// the caller's trace, budget and evaluator stay the only ones, and a worker that sees the same answers makes the
// same choices, so an isolated run has the trace the strategy has in process.
//
// The limit is on the strategy's own time (the wall clock minus the time the caller spends evaluating): a worker
// that neither asks for an evaluation nor finishes within it is killed. A crash, a kill, an exception or a broken
// protocol end the run with StrategyFailed (tune() records StopReason::strategy_failed and keeps what was evaluated).
#include <memory>

#include "ktune/tuning/strategy.hpp"

namespace ktune {

struct IsolationOptions {
  double strategy_seconds = 300;  // the strategy's own time a run may take; <= 0: no limit
};

class IsolatedStrategy final : public Strategy {
 public:
  IsolatedStrategy(std::unique_ptr<Strategy> strategy, IsolationOptions options = {});
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override;

 private:
  std::unique_ptr<Strategy> strategy_;
  IsolationOptions options_;
};

}  // namespace ktune
