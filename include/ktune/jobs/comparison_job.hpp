#pragma once
// Comparing strategies as a job: the rules of `ktune compare`, callable from C++.
//
// The spaces (brute-forced caches or T4 files) are loaded once, with derived measurements added; the objectives decide
// the kind of comparison: one objective, the methodology score P against random search (recorded runs may be scored
// too), or several, IGD+ against the true Pareto front and random search. `statistics()` gives only the spaces'
// statistics. Reports as JSON and text: ktune/jobs/comparison_reports.hpp.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ktune/jobs/job_error.hpp"
#include "ktune/methodology/comparison.hpp"
#include "ktune/methodology/multiobjective_comparison.hpp"
#include "ktune/tuning/objective.hpp"

namespace ktune {

struct CompareRequest {
  std::vector<std::string> spaces;      // results files, one per space
  std::vector<std::string> strategies;  // name or name:key=value,...
  std::vector<std::string> runs;        // NAME=FILE: recorded runs to score too (one objective)
  std::vector<std::string> objectives;  // NAME[:min|:max]; two or more: a multi-objective comparison
  std::vector<std::string> derived;     // NAME=EXPRESSION measurements added to every space
  methodology::ComparisonOptions options;  // repeats, seed, cutoffs, resolution, threads, baseline, progress
  std::size_t budget = 200;                // multi-objective: evaluations per run
  std::vector<std::size_t> checkpoints;    // multi-objective: evaluation counts reported
  bool stats_only = false;                 // only statistics() will be asked for
  // Transfer (docs/transfer.md): results files and stores of the spaces' kernels measured elsewhere. Each strategy
  // is then scored twice: cold, and as "LABEL+transfer", starting from the sources of the same kernel (same_kernel)
  // that did not measure the space itself (same_origin). One objective only.
  std::vector<std::string> transfer;
  std::vector<std::string> transfer_settings;  // name=value (TransferSettings)
  // "auto[:...]": adaptive repetition replayed on the recorded runs (ComparisonOptions::repetition); "": as recorded.
  std::string iterations;
};

class ComparisonJob {
 public:
  // Checks the request and loads the spaces; throws JobError.
  explicit ComparisonJob(CompareRequest request);
  ~ComparisonJob();
  ComparisonJob(const ComparisonJob&) = delete;
  ComparisonJob& operator=(const ComparisonJob&) = delete;

  const CompareRequest& request() const { return request_; }
  bool multiobjective() const { return objectives_.size() >= 2; }
  const std::vector<Objective>& objectives() const { return objectives_; }
  const std::vector<methodology::ComparisonSpace>& spaces() const { return spaces_; }

  std::vector<methodology::SpaceResult> statistics() const;
  // One objective. Interrupted (request_stop, Ctrl-C): the report holds the pairs whose runs all finished.
  methodology::ComparisonReport run() const;
  // Several objectives. Interrupted: throws Interrupted (the curves need every run).
  methodology::MoComparisonReport run_multiobjective() const;

 private:
  CompareRequest request_;
  std::vector<Objective> objectives_;
  std::vector<methodology::StrategySpec> strategies_;
  std::vector<std::pair<std::string, std::string>> runs_;  // label, file
  std::vector<methodology::ComparisonSpace> spaces_;

  void add_transfer();  // loads and matches the transfer sources, adds the "+transfer" strategies
};

}  // namespace ktune
