// auto: the strategy ktune recommends when the user names none but gives a budget (docs/strategies.md, "The default
// strategy"). Two stages: `first` for the first `handover` new evaluations, then `then`, which starts from the best
// configurations the first stage found. Nothing is spent on choosing: every evaluation is one of a search's, so its
// first evaluations are the first stage's at any budget. The stages and the handover point are chosen by the nested
// validation protocol (bench/protocol/), every choice inside leave-one-kernel-out folds. `ktune tune` without
// --strategy and the Python module with strategy=None use it when there is a budget, brute_force when there is none
// (as Kernel Tuner).
#include <cstdint>
#include <memory>
#include <string>

#include "ktune/search_space.hpp"
#include "ktune/tuning/budget.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/strategy.hpp"
#include "strategies/prior_guided.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {

namespace {

struct AutoSettings {
  std::string first, then;
  std::uint64_t handover = 0;  // new evaluations of the first stage; 0: the first stage is the whole run
  Prior prior;                 // for a bayes_opt first stage (transfer); empty: none
};

AutoSettings settings_from(const Hyperparameters& h) {
  return {h.get_string("first"), h.get_string("then"), static_cast<std::uint64_t>(h.get_int("handover")), {}};
}

class Auto final : public Strategy {
 public:
  explicit Auto(AutoSettings s) : s_(std::move(s)) {}

  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    if (s_.handover == 0 || s_.then == "none") {
      first_stage()->run(space, cost, rng);
      return;
    }
    // The run's own budget ends the first stage too (BudgetExhausted passes); only the stage's end hands over. A
    // first stage that returns early (a small space done) hands over as well.
    cost.begin_stage(s_.handover);
    try {
      first_stage()->run(space, cost, rng);
    } catch (const StageEnded&) {
    }
    cost.end_stage();
    make_strategy(s_.then)->run(space, cost, rng);
  }

 private:
  std::unique_ptr<Strategy> first_stage() const {
    // bayes_opt's pool and training-set cap as when the stages were chosen (issue 35's protocol; bayes_opt's own
    // defaults are smaller since, for speed).
    const std::vector<std::pair<std::string, Value>> chosen_with{{"maxcandidates", Value(std::int64_t{2048})},
                                                                  {"maxobservations", Value(std::int64_t{200})}};
    if (s_.first == "bayes_opt")
      return s_.prior.empty() ? make_strategy("bayes_opt", chosen_with)
                              : make_bayes_opt_with_prior(chosen_with, s_.prior);
    return make_strategy(s_.first);
  }

  AutoSettings s_;
};

}  // namespace

StrategyInfo auto_info() {
  return {"auto",
          "the recommended default when a budget is given: bayes_opt for the first evaluations, then hybrid_vndx "
          "from the best configurations found (its settings name the stages)",
          {{"first", HyperparameterType::String, Value(std::string("bayes_opt")), {}, {},
            {"pso", "bayes_opt", "diff_evo", "hybrid_vndx", "genetic_algorithm"},
            "the first stage's strategy (its defaults)"},
           {"then", HyperparameterType::String, Value(std::string("hybrid_vndx")), {}, {},
            {"none", "pso", "hybrid_vndx"},
            "the second stage's strategy, which starts from the best configurations found (none: no second stage)"},
           {"handover", HyperparameterType::Int, Value(100), 0.0, {}, {},
            "new evaluations of the first stage before the second takes over (0: the first stage is the whole run)"}},
          [](const Hyperparameters& h) { return std::make_unique<Auto>(settings_from(h)); }};
}

std::unique_ptr<Strategy> make_auto_with_prior(const std::vector<std::pair<std::string, Value>>& hyperparameters,
                                               Prior prior) {
  const StrategyInfo info = auto_info();
  AutoSettings s = settings_from(Hyperparameters::resolve("auto", info.hyperparameters, hyperparameters));
  s.prior = std::move(prior);
  return std::make_unique<Auto>(std::move(s));
}

}  // namespace ktune::strategies

namespace ktune {

std::string default_strategy(const Budget& budget) {
  const bool limited = budget.max_evaluations || budget.max_fraction || budget.time_limit_seconds;
  return limited ? "auto" : "brute_force";
}

}  // namespace ktune
