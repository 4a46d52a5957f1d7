#include "ktune/methodology/hyperparameter_evaluator.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "ktune/methodology/hyperparameter_space.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/interruption.hpp"

namespace ktune::methodology {
namespace {

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
  return fmt::format("{:%Y-%m-%d %H:%M:%S}.{:06d}+00:00", fmt::gmtime(std::chrono::system_clock::to_time_t(now)), us);
}

}  // namespace

HyperparameterEvaluator::HyperparameterEvaluator(const SearchSpace& hyperspace, std::string strategy,
                                                 const Comparison& training,
                                                 std::vector<std::pair<std::string, Value>> fixed)
    : HyperparameterEvaluator(hyperspace, std::move(strategy), std::make_shared<ComparisonScorer>(training),
                              std::move(fixed)) {}

HyperparameterEvaluator::HyperparameterEvaluator(const SearchSpace& hyperspace, std::string strategy,
                                                 std::shared_ptr<const SettingScorer> scorer,
                                                 std::vector<std::pair<std::string, Value>> fixed)
    : space_(hyperspace),
      strategy_(std::move(strategy)),
      scorer_(std::move(scorer)),
      fixed_(std::move(fixed)),
      space_names_(scorer_->space_names()) {
  if (!find_strategy(strategy_)) (void)make_strategy(strategy_);  // throws, listing the known strategies
}

EvaluationOutcome HyperparameterEvaluator::evaluate(std::size_t index) {
  const auto start = std::chrono::steady_clock::now();
  ScoredSetting s;
  const auto settings = hyperparameter_settings(space_.problem(), space_.values_at(index));
  s.label = strategy_label(strategy_, settings);
  try {
    StrategySpec spec{s.label, strategy_, settings};
    spec.hyperparameters.insert(spec.hyperparameters.end(), fixed_.begin(), fixed_.end());
    (void)make_strategy(spec.name, spec.hyperparameters);  // rejects a bad combination before any run
    // Interrupted: a partial score is no score, and the setting is scored again on resume.
    SettingScore scored = scorer_->score(spec);
    s.score = scored.aggregate;
    s.space_scores = std::move(scored.per_space);
  } catch (const Interrupted&) {
    throw;
  } catch (const HyperparameterError& e) {
    s.status = Status::invalid;
    s.message = e.what();
  } catch (const std::exception& e) {
    s.status = Status::runtime_failed;
    s.message = e.what();
  }
  s.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  s.timestamp = utc_timestamp();
  const auto& stored = scored_.insert_or_assign(index, std::move(s)).first->second;
  value_ = stored.status == Status::ok ? stored.score : std::nan("");
  return {stored.status, std::span<const double>(&value_, 1), stored.wall_ms};
}

const ScoredSetting* HyperparameterEvaluator::scored(std::size_t index) const {
  const auto it = scored_.find(index);
  return it == scored_.end() ? nullptr : &it->second;
}

EvaluationRecord HyperparameterEvaluator::record(std::size_t index) const {
  const ScoredSetting* s = scored(index);
  if (!s) throw std::logic_error(fmt::format("hyperparameter setting {} has not been evaluated", index));
  EvaluationRecord r;
  r.config = space_.values_at(index);
  r.status = s->status;
  r.message = s->message;
  if (s->status == Status::ok) {
    r.measurements.push_back({"score", Value(s->score), ""});
    for (std::size_t i = 0; i < s->space_scores.size() && i < space_names_.size(); ++i)
      r.measurements.push_back({"score_" + space_names_[i], Value(s->space_scores[i]), ""});
  }
  r.measurements.push_back({"fixed_hyperparameters", Value(settings_text(fixed_)), ""});
  const bool charged = scorer_->charge_strategy_time();
  r.measurements.push_back({"strategy_time_on_clock", Value(strategy_time_text(charged)), ""});
  r.measurements.push_back({"score_measure", Value(scorer_->measure()), ""});
  // What the setting cost, so that a meta-strategy comparison on this file charges the real scoring time.
  r.runtimes_ms = {s->wall_ms};
  r.benchmark_ms = s->wall_ms;
  r.timestamp = s->timestamp;
  return r;
}

std::vector<double> score_settings(const Comparison& spaces, const std::vector<StrategySpec>& settings) {
  std::vector<double> scores;
  const ComparisonScorer scorer(spaces);
  for (const auto& spec : settings) {
    try {
      scores.push_back(scorer.score(spec).aggregate);
    } catch (const std::runtime_error&) {
      scores.push_back(std::nan(""));
    }
  }
  return scores;
}

std::vector<double> mean_scores_over_seeds(const std::vector<ComparisonSpace>& spaces, ComparisonOptions options,
                                           const std::vector<StrategySpec>& settings,
                                           const std::vector<std::uint64_t>& seeds) {
  if (seeds.empty()) throw std::invalid_argument("no seed to score on");
  std::vector<double> sums(settings.size(), 0.0);
  for (const std::uint64_t seed : seeds) {
    options.seed = seed;
    const ComparisonReport report = Comparison(spaces, options).run(settings);
    if (report.interrupted) throw Interrupted();
    for (std::size_t i = 0; i < settings.size(); ++i) sums[i] += report.aggregate[i].score;
  }
  for (double& s : sums) s /= static_cast<double>(seeds.size());
  return sums;
}

}  // namespace ktune::methodology
