// A plug-in that crashes (a null dereference) after 10 evaluations: under --isolate it costs its run, not ktune.
#include <cstdlib>
#include <memory>

#include <ktune/plugin.hpp>

namespace {

class Crashing final : public ktune::Strategy {
 public:
  void run(const ktune::SearchSpace& space, ktune::CostFunction& cost, ktune::Rng& rng) override {
    for (int i = 0; i < 10; ++i) (void)cost(static_cast<std::size_t>(rng.below(space.size())));
    volatile int* null = nullptr;
    *null = 1;
    std::abort();  // if the write did not crash
  }
};

ktune::StrategyInfo describe() {
  return {"crashing", "evaluates 10 random configurations, then crashes", {},
          [](const ktune::Hyperparameters&) { return std::make_unique<Crashing>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
