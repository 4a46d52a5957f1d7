// A plug-in with one hyperparameter whose every run throws at once: `hypertune` can score none of its settings.
#include <memory>
#include <stdexcept>

#include <ktune/plugin.hpp>

namespace {

class AlwaysThrowing final : public ktune::Strategy {
 public:
  void run(const ktune::SearchSpace&, ktune::CostFunction&, ktune::Rng&) override {
    throw std::runtime_error("this strategy never runs");
  }
};

ktune::StrategyInfo describe() {
  return {"always_throwing_tunable", "throws at once, whatever its setting",
          {{"knob", ktune::HyperparameterType::Int, ktune::Value(1), 1.0, 3.0, {}, "changes nothing"}},
          [](const ktune::Hyperparameters&) { return std::make_unique<AlwaysThrowing>(); }};
}

}  // namespace

KTUNE_STRATEGY_PLUGIN(describe)
