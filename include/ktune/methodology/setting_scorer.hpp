#pragma once
// What scores one setting of a strategy in `ktune hypertune`: the methodology score on brute-forced spaces
// (ComparisonScorer), or, for a multi-objective strategy, its IGD+ against random search (IgdPlusScorer). Higher is
// better for both.
#include <memory>
#include <string>
#include <vector>

#include "ktune/methodology/comparison.hpp"
#include "ktune/methodology/multiobjective_comparison.hpp"

namespace ktune::methodology {

// ComparisonScorer's measure, and what a scores' cache that records none was scored by.
inline constexpr const char* kMethodologyScore = "methodology score";

struct SettingScore {
  double aggregate = 0;
  std::vector<double> per_space;  // in space_names() order
};

class SettingScorer {
 public:
  virtual ~SettingScorer() = default;
  virtual std::vector<std::string> space_names() const = 0;
  // Throws Interrupted when stopped (a partial score is no score), HyperparameterError for a bad setting.
  virtual SettingScore score(const StrategySpec& spec) const = 0;
  virtual bool charge_strategy_time() const = 0;
  // What the score measures, recorded with every scored setting: a cache scored by another measure is not resumed.
  virtual std::string measure() const = 0;
};

// The methodology's aggregate score and the per-space scores. `comparison` must outlive the scorer.
class ComparisonScorer final : public SettingScorer {
 public:
  explicit ComparisonScorer(const Comparison& comparison) : comparison_(comparison) {}
  std::vector<std::string> space_names() const override { return comparison_.space_names(); }
  SettingScore score(const StrategySpec& spec) const override;
  bool charge_strategy_time() const override { return comparison_.options().charge_strategy_time; }
  std::string measure() const override { return kMethodologyScore; }

 private:
  const Comparison& comparison_;
};

// A multi-objective strategy's improvement of IGD+ over random search (compare_multiobjective): per space the mean
// over the checkpoints of 1 - median IGD+ / random search's median IGD+, the aggregate the mean over the spaces.
// 0 is as good as random search, 1 finds the true front.
class IgdPlusScorer final : public SettingScorer {
 public:
  IgdPlusScorer(std::vector<ComparisonSpace> spaces, MoComparisonOptions options);
  std::vector<std::string> space_names() const override { return names_; }
  SettingScore score(const StrategySpec& spec) const override;
  bool charge_strategy_time() const override { return false; }
  std::string measure() const override;  // "IGD+ improvement over random_sample: A, B; 200 evaluations; ..."

 private:
  std::vector<ComparisonSpace> spaces_;
  MoComparisonOptions options_;
  std::vector<std::string> names_;
};

}  // namespace ktune::methodology
