#pragma once
// Simulation: replays a brute-forced results file (Kernel Tuner cache or T4). Objective values and times come from
// the file; a configuration costs, on its first evaluation, what was recorded for it (compilation + sum of runtimes
// + framework + verification). Configurations missing from the file are failures ("invalid") costing nothing;
// recorded failures (compile, runtime, ...) are failures that cost their recorded time.
//
// The file is mapped onto the search space once, so evaluate() is two array reads.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "ktune/io/results_file.hpp"
#include "ktune/tuning/evaluator.hpp"

namespace ktune {

class SearchSpace;

// The results file does not fit the problem or the objectives. what() says what differs.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SimulationEvaluator final : public Evaluator {
 public:
  // Throws SimulationError when the file's parameter names differ from the problem's, when none of its records is a
  // configuration of `space`, or when an objective is found in none of its successful records (the message lists
  // the measurements there are). Records outside the space are ignored (counted in records_outside_space());
  // for a configuration recorded twice the last record counts, as when Kernel Tuner reads its cache.
  SimulationEvaluator(const SearchSpace& space, std::shared_ptr<const io::ResultsFile> results,
                      std::vector<Objective> objectives);

  const std::vector<Objective>& objectives() const override { return objectives_; }
  bool simulated() const override { return true; }
  EvaluationOutcome evaluate(std::size_t index) override {
    const std::uint32_t row = row_of_[index];
    if (row == kAbsent) return {Status::invalid, missing_values_, 0.0};
    return {status_[row], {values_.data() + std::size_t{row} * objectives_.size(), objectives_.size()}, charged_[row]};
  }
  EvaluationRecord record(std::size_t index) const override;
  std::string device_name() const override { return results_->device_name; }
  std::string kernel_name() const override { return results_->kernel_name; }

  // The per-run times recorded for `index` (Kernel Tuner's "times"); empty when none or absent.
  std::span<const double> recorded_runs(std::size_t index) const {
    const std::uint32_t row = row_of_[index];
    if (row == kAbsent) return {};
    return results_->records[row].runtimes_ms;
  }
  std::size_t configurations_recorded() const { return recorded_; }     // space configurations found in the file
  std::size_t records_outside_space() const { return outside_; }
  const io::ResultsFile& results() const { return *results_; }

 private:
  static constexpr std::uint32_t kAbsent = 0xffffffffu;
  const SearchSpace& space_;
  std::shared_ptr<const io::ResultsFile> results_;
  std::vector<Objective> objectives_;
  std::vector<std::size_t> param_of_column_;  // space parameter p <- record column param_of_column_[p]
  std::vector<std::uint32_t> row_of_;         // per space index: record row, or kAbsent
  std::vector<Status> status_;                // per record row
  std::vector<double> values_;                // per record row, one per objective
  std::vector<double> charged_;               // per record row (ms)
  std::vector<double> missing_values_;        // NaNs for absent configurations
  std::size_t recorded_ = 0, outside_ = 0;
};

// Throws SimulationError, naming what is recorded, when no record of `results` has `objective`.
void check_objective_recorded(const io::ResultsFile& results, std::string_view objective);
// Throws SimulationError when `objective` is "time" and successful cache entries recorded no time, only a
// benchmark_time (ResultsFile::time_stand_ins): that is no kernel time.
void check_time_not_stood_in(const io::ResultsFile& results, std::string_view objective);

// The search space of a results file used without a problem definition: its recorded configurations, failures
// included (they are part of the space: a strategy may run into them), except those recorded as invalid.
SearchSpace space_from_results(const io::ResultsFile& results);

}  // namespace ktune
