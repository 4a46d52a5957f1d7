#include "ktune/tuning/repetition_replay.hpp"

#include <algorithm>
#include <numeric>

namespace ktune {

RepetitionReplay::RepetitionReplay(SimulationEvaluator& recorded, RepetitionPolicy policy, Statistic statistic)
    : recorded_(recorded), policy_(policy), statistic_(statistic) {
  applies_ = policy_.adaptive && time_is_the_objective(recorded_.objectives());
}

EvaluationOutcome RepetitionReplay::evaluate(std::size_t index) {
  EvaluationOutcome outcome = recorded_.evaluate(index);
  if (!applies_ || outcome.status != Status::ok) return outcome;
  const std::span<const double> runs = recorded_.recorded_runs(index);
  if (runs.size() < 2) return outcome;
  // The live evaluator's steps (live_evaluator.cpp): min_runs, then half again the runs so far, within what was
  // recorded.
  RepetitionPolicy policy = policy_;
  policy.max_runs = std::min<int>(policy.max_runs, static_cast<int>(runs.size()));
  std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(policy.min_runs), runs.size());
  RunSummary summary = summarize_runs(runs.first(n), statistic_, true);
  RepetitionDecision decision;
  for (;;) {
    decision = decide(policy, summary, best_ ? &*best_ : nullptr, typical_.value());
    if (decision != RepetitionDecision::more) break;
    const int more = next_runs(policy, n);
    if (more == 0) {  // fewer recorded runs than min_runs: all of them
      decision = RepetitionDecision::capped;
      break;
    }
    n += static_cast<std::size_t>(more);
    summary = summarize_runs(runs.first(n), statistic_, true);
  }
  taken_ += n;
  recorded_runs_ += runs.size();
  rejected_ += decision == RepetitionDecision::rejected;
  const double not_taken = std::accumulate(runs.begin() + static_cast<std::ptrdiff_t>(n), runs.end(), 0.0);
  outcome.charged_ms = std::max(0.0, outcome.charged_ms - not_taken);
  value_ = summary.value;
  outcome.objectives = {&value_, 1};
  if (!best_ || summary.value < best_->value) best_ = summary;
  typical_.add(summary);
  return outcome;
}

}  // namespace ktune
