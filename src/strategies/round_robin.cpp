// round_robin: pyATF's round-robin ensemble. The techniques (random, Hamming hill climber, differential
// recombination, pattern search) propose one configuration each in turn; they share the archive of the best
// configurations, so the recombination and the pattern search build on what the others found.
#include "strategies/strategy_infos.hpp"
#include "strategies/technique.hpp"

namespace ktune::strategies {
namespace {

class RoundRobin final : public Strategy {
 public:
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    auto techniques = make_default_techniques();
    std::size_t next = 0;
    run_ensemble(space, cost, rng, techniques,
                 [&](Rng&) {
                   const std::size_t t = next;
                   next = (next + 1) % techniques.size();
                   return t;
                 },
                 [](std::size_t, bool) {});
  }
};

}  // namespace

StrategyInfo round_robin_info() {
  return {"round_robin",
          "round-robin ensemble (pyATF): random, hill climbing, DE recombination and pattern search take turns",
          {},
          [](const Hyperparameters&) { return std::make_unique<RoundRobin>(); }};
}

}  // namespace ktune::strategies
