#pragma once
// "Tuning the tuner": a setting of a strategy's hyperparameters is a configuration, and evaluating it means scoring
// the strategy with those settings by the methodology on a set of brute-forced training spaces. As an Evaluator,
// the hyperparameter space is searched by any strategy (the meta-strategy) through the ordinary tuning loop, with
// its budgets, memoisation and cache files; the objective is `score` (higher is better).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ktune/methodology/comparison.hpp"
#include "ktune/methodology/setting_scorer.hpp"
#include "ktune/tuning/evaluator.hpp"

namespace ktune {
class SearchSpace;
}

namespace ktune::methodology {

// One scored setting.
struct ScoredSetting {
  std::string label;  // "name:key=value,..." (see strategy_label)
  Status status = Status::ok;
  double score = 0;                 // the aggregate methodology score over the training spaces
  std::vector<double> space_scores;  // per training space, in Comparison::space_names() order
  double wall_ms = 0;               // what scoring it took
  std::string message;              // why it failed: a rejected combination, runs that never reached the range
  std::string timestamp;            // UTC, when it was scored
};

// The `strategy_time_on_clock` measurement of a scored setting: whether its runs' clocks were charged the
// strategy's own time (ComparisonOptions::charge_strategy_time).
inline std::string strategy_time_text(bool charged) { return charged ? "charged" : "not charged"; }

class HyperparameterEvaluator final : public Evaluator {
 public:
  // `hyperspace` is built from a HyperparameterSpace of `strategy`; `training` holds the prepared training spaces.
  // Both must outlive the evaluator. `fixed`: the hyperparameters the grid does not vary and their values (see
  // fixed_hyperparameters; empty: the defaults, implicitly). A setting's runs are seeded by its label, which names
  // the grid's values only: with the defaults as `fixed`, `ktune compare --strategies LABEL` gives the same score.
  HyperparameterEvaluator(const SearchSpace& hyperspace, std::string strategy, const Comparison& training,
                          std::vector<std::pair<std::string, Value>> fixed = {});
  // Scored by another measure (setting_scorer.hpp: IGD+ against random search for a multi-objective strategy).
  HyperparameterEvaluator(const SearchSpace& hyperspace, std::string strategy,
                          std::shared_ptr<const SettingScorer> scorer,
                          std::vector<std::pair<std::string, Value>> fixed = {});

  const std::vector<Objective>& objectives() const override { return objectives_; }
  // The tuning clock is the wall clock: scoring a setting is real work, not a replay.
  bool simulated() const override { return false; }
  // Scores the setting (all cores, deterministic for the comparison's seed). A combination the strategy rejects is
  // `invalid`, a setting whose runs fail is `runtime_failed`; both cost their time and tuning goes on.
  EvaluationOutcome evaluate(std::size_t index) override;
  // Measurements: `score`, `score_<space>` per training space, `fixed_hyperparameters` (the values the grid did
  // not vary, "k=v,..."; a resumed file must match them) and `strategy_time_on_clock` (strategy_time_text; so must it).
  // times / benchmark_time: the scoring's wall time.
  EvaluationRecord record(std::size_t index) const override;
  std::string device_name() const override { return "ktune hypertune"; }
  std::string kernel_name() const override { return "hyperparamtuning_" + strategy_; }

  const ScoredSetting* scored(std::size_t index) const;  // nullptr if not evaluated

 private:
  const SearchSpace& space_;
  std::string strategy_;
  std::shared_ptr<const SettingScorer> scorer_;
  std::vector<std::pair<std::string, Value>> fixed_;
  std::vector<Objective> objectives_{{"score", true}};
  std::vector<std::string> space_names_;
  std::unordered_map<std::size_t, ScoredSetting> scored_;
  double value_ = 0;
};

// Scores settings on spaces, each in its own comparison run. Returns one aggregate score per setting (NaN where the
// setting's runs failed).
std::vector<double> score_settings(const Comparison& spaces, const std::vector<StrategySpec>& settings);

// The mean aggregate score of each setting over `seeds` (one comparison per seed, the options otherwise as given):
// fresh seeds re-score the best settings of a search without the luck that made them the best. Throws what
// Comparison throws.
std::vector<double> mean_scores_over_seeds(const std::vector<ComparisonSpace>& spaces, ComparisonOptions options,
                                           const std::vector<StrategySpec>& settings,
                                           const std::vector<std::uint64_t>& seeds);

}  // namespace ktune::methodology
