// auto: the strategy ktune recommends when the user names none but gives a budget (docs/strategies.md, "The default
// strategy"). It is chosen by held-out score under the validation protocol (docs/hyperparameters.md), not by the
// score on the spaces a strategy's defaults were tuned on; `ktune tune` without --strategy and the Python module with
// strategy=None use it when there is a budget, brute_force when there is none (as Kernel Tuner).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ktune/search_space.hpp"
#include "ktune/tuning/budget.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/uniform_sample_stream.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

namespace {

// The portfolio, by the budget in evaluations: constraint-aware PSO with its defaults below kLargeBudget, the hybrid
// VND above. PSO has the best held-out mean and worst case on budgets of a few dozen to a few hundred evaluations;
// with more, hybrid_vndx's k-NN surrogate has the data it needs, and on the twelve GPU spaces it beats PSO on four of
// the five spaces whose methodology budget is above 550 evaluations. The portfolio scores 0.676 there against PSO's
// 0.638 (seeds 0-3, 100 repeats; docs/strategies.md).
constexpr const char* kSmallBudget = "pso";
constexpr const char* kLargeBudget = "hybrid_vndx";
constexpr double kLargeBudgetEvaluations = 550;
// With a time budget, the number of evaluations it allows is estimated from what a few uniform samples cost. Three,
// not more: on a budget of 50 evaluations every probe is one PSO does not choose (five cost 0.01-0.02 of the mean).
constexpr std::size_t kProbe = 3;

class Auto final : public Strategy {
 public:
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    make_strategy(large_budget(space, cost, rng) ? kLargeBudget : kSmallBudget)->run(space, cost, rng);
  }

 private:
  static bool large_budget(const SearchSpace& space, CostFunction& cost, Rng& rng) {
    const Budget& budget = cost.options().budget;
    double evaluations = static_cast<double>(budget.evaluation_limit(space.size()));
    if (budget.time_limit_seconds && space.size() > 0) {
      // The probe: random_sample's first configurations (the stream), whose results the chosen strategy then knows.
      // The median of their costs on the tuning clock, as the methodology sizes its budgets by the median time (a
      // mean, pulled up by one slow configuration of a skewed space, underestimates the budget; on the twelve GPU
      // spaces the two make the same choices).
      UniformSampleStream probe(space.size(), rng);
      std::vector<double> took;
      for (std::size_t i = 0; i < kProbe; ++i) {
        const auto index = probe.next_unevaluated(cost);
        if (!index) break;
        const double before = cost.clock_ms();
        cost(*index);
        took.push_back(cost.clock_ms() - before);
      }
      if (!took.empty()) {
        std::nth_element(took.begin(), took.begin() + took.size() / 2, took.end());
        const double median_ms = took[took.size() / 2];
        if (median_ms > 0) evaluations = std::min(evaluations, *budget.time_limit_seconds * 1e3 / median_ms);
      }
    }
    return evaluations >= kLargeBudgetEvaluations;
  }
};

}  // namespace

StrategyInfo auto_info() {
  return {"auto",
          std::string("the recommended default when a budget is given: ") + kSmallBudget +
              " (constraint-aware, its defaults) when the budget allows fewer than 550 evaluations, " + kLargeBudget +
              " when it allows more (a time budget is converted by the median cost of 3 uniform samples)",
          {},
          [](const Hyperparameters&) { return std::make_unique<Auto>(); }};
}

}  // namespace ktune::strategies

namespace ktune {

std::string default_strategy(const Budget& budget) {
  const bool limited = budget.max_evaluations || budget.max_fraction || budget.time_limit_seconds;
  return limited ? "auto" : "brute_force";
}

}  // namespace ktune
