#pragma once
// A strategy run in a worker process, so that one that crashes, hangs or throws costs its run and not the caller
// (an untrusted plug-in, a strategy written by a language model). The worker is forked with the space, the random
// generator and a cost function of its own whose evaluations are asked of the caller's cost function over a pipe:
// the caller's trace, budget and evaluator stay the only ones, and a worker that sees the same answers makes the
// same choices, so an isolated run has the trace the strategy has in process.
//
// The worker runs in a sandbox (ktune/sandbox/sandbox.hpp) under the strategy filter from its start: no file of the
// user's, no network, no new process, an empty environment, limits on memory, CPU, files. Made from a recipe, the
// strategy object itself is made in the worker, so that a plug-in (prepared by prepare_isolated_strategy) is loaded
// there and nowhere else.
//
// The limit is on the strategy's own time (the wall clock minus the time the caller spends evaluating): a worker
// that neither asks for an evaluation nor finishes within it is killed. A crash, a kill, an exception or a broken
// protocol, or the sandbox stopping it end the run with StrategyFailed (tune() records StopReason::strategy_failed and
// keeps what was evaluated).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ktune/sandbox/sandbox.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/value.hpp"

namespace ktune {

struct IsolationOptions {
  IsolationOptions() = default;
  explicit IsolationOptions(double seconds) : strategy_seconds(seconds) {}
  double strategy_seconds = 300;  // the strategy's own time a run may take; <= 0: no limit
  // The worker's sandbox. Its CPU time limit, unless set, is twice the strategy's own time plus 10 s.
  sandbox::Limits sandbox;
  sandbox::Layers disabled;  // layers turned off (tests of the degraded mode)
};

// A strategy by name (registered, or a plug-in's path) and its settings: made by make_strategy in the worker.
struct StrategyRecipe {
  std::string name;
  std::vector<std::pair<std::string, Value>> settings;
};

class IsolatedStrategy final : public Strategy {
 public:
  IsolatedStrategy(StrategyRecipe recipe, IsolationOptions options = {});
  // A strategy object made by the caller (its code is the caller's, already loaded): only its run is isolated.
  IsolatedStrategy(std::unique_ptr<Strategy> strategy, IsolationOptions options = {});
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override;

 private:
  std::unique_ptr<Strategy> strategy_;
  StrategyRecipe recipe_;
  IsolationOptions options_;
};

}  // namespace ktune
