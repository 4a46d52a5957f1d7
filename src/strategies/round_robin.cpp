// round_robin: pyATF's round-robin ensemble. The techniques (random, Hamming hill climber, differential
// recombination, pattern search) propose one configuration each in turn; they share the archive of the best
// configurations, so the recombination and the pattern search build on what the others found.
#include "strategies/strategy_infos.hpp"
#include "strategies/technique.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

class RoundRobin final : public Strategy {
 public:
  explicit RoundRobin(std::size_t start_sample) : start_sample_(start_sample) {}
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    auto techniques = make_default_techniques();
    std::size_t next = 0;
    run_ensemble(space, cost, rng, start_sample_, techniques,
                 [&](Rng&) {
                   const std::size_t t = next;
                   next = (next + 1) % techniques.size();
                   return t;
                 },
                 [](std::size_t, bool) {});
  }

 private:
  std::size_t start_sample_;
};

}  // namespace

StrategyInfo round_robin_info() {
  return {"round_robin",
          "round-robin ensemble (pyATF): random, hill climbing, DE recombination and pattern search take turns",
          {start_sample_spec()},
          [](const Hyperparameters& h) {
            return std::make_unique<RoundRobin>(static_cast<std::size_t>(h.get_int("start_sample")));
          }};
}

}  // namespace ktune::strategies
