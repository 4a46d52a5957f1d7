// A plug-in that throws after 7 evaluations.
#include <memory>
#include <stdexcept>

#include <ktune/plugin.hpp>

namespace {

class Throwing final : public ktune::Strategy {
 public:
  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {
    for (int i = 0; i < 7; ++i) (void)cost(static_cast<std::size_t>(rng.below(space.size())));
    throw std::runtime_error("the plug-in gave up");
  }
};

ktune::StrategyInfo describe() {
  return {"throwing", "evaluates 7 random configurations, then throws", {},
          [](const ktune::Hyperparameters&) { return std::make_unique<Throwing>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
