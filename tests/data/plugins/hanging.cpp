// A plug-in that evaluates 5 configurations and then loops forever without asking for another.
#include <memory>

#include <ktune/plugin.hpp>

namespace {

class Hanging final : public ktune::Strategy {
 public:
  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {
    for (int i = 0; i < 5; ++i) (void)cost(static_cast<std::size_t>(rng.below(space.size())));
    for (volatile unsigned long spin = 0;; spin = spin + 1) {
    }
  }
};

ktune::StrategyInfo describe() {
  return {"hanging", "evaluates 5 random configurations, then spins forever", {},
          [](const ktune::Hyperparameters&) { return std::make_unique<Hanging>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
