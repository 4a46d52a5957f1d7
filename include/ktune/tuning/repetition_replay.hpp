#pragma once
// Adaptive repetition replayed on a simulation (ktune/repetition.hpp, docs/live-tuning.md): each configuration's
// recorded per-run times (Kernel Tuner caches' "times") are taken in their recorded order until the policy decides,
// as a live run would have decided on those runs. The strategy gets the statistic of the runs taken, and the tuning
// clock is charged for those runs only (the recorded charge less the runs not taken). Early rejection compares with
// the best configuration of this run, so a replay keeps state: one per tuning run, over a shared recording.
//
// It applies to the objective "time" (minimised, the only objective); anything else, and configurations recorded
// with fewer than two runs, are passed on as recorded.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ktune/repetition.hpp"
#include "ktune/tuning/evaluator.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"

namespace ktune {

class RepetitionReplay final : public Evaluator {
 public:
  // `recorded` must outlive the replay. It is only read (a SimulationEvaluator answers from its tables), so the
  // runs of a comparison share one.
  RepetitionReplay(SimulationEvaluator& recorded, RepetitionPolicy policy, Statistic statistic = Statistic::mean);

  const std::vector<Objective>& objectives() const override { return recorded_.objectives(); }
  bool simulated() const override { return true; }
  EvaluationOutcome evaluate(std::size_t index) override;
  EvaluationRecord record(std::size_t index) const override { return recorded_.record(index); }
  std::string device_name() const override { return recorded_.device_name(); }
  std::string kernel_name() const override { return recorded_.kernel_name(); }

  // Runs taken and runs recorded over the configurations replayed so far (the saving is 1 - taken / recorded).
  std::uint64_t runs_taken() const { return taken_; }
  std::uint64_t runs_recorded() const { return recorded_runs_; }
  // Configurations stopped early as clearly slower than the best.
  std::uint64_t rejected() const { return rejected_; }

 private:
  SimulationEvaluator& recorded_;
  RepetitionPolicy policy_;
  Statistic statistic_;
  bool applies_;
  std::optional<RunSummary> best_;
  TypicalSpread typical_;
  double value_ = 0;
  std::uint64_t taken_ = 0, recorded_runs_ = 0, rejected_ = 0;
};

}  // namespace ktune
