#pragma once
// What a report page shows of one tuning run, computed here so that the page only draws it: the best value against
// evaluations and time, the objective's distribution, each parameter's effect and importance, the best
// configurations with their intervals, the failures by reason and by parameter value, and for two objectives the
// Pareto front. The summary's size does not grow with the run (a 10^5-record run gives the same few hundred numbers
// as a 10^3-record one, but for the Pareto cloud, which is thinned to `max_points`).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ktune/evaluation_record.hpp"
#include "ktune/problem.hpp"

namespace ktune::report {

// One run as read from any results file or a store's space: its records in the order they were measured.
struct ReportRun {
  std::string name;                      // shown as the run's title
  std::string source;                    // the file it was read from
  std::string format;                    // "Kernel Tuner cache", "T4", "CSV", "results store"
  std::string device_name, kernel_name;  // "" when unknown
  nlohmann::json problem_size;           // null when unknown
  Problem problem;                       // parameters in the records' order
  std::vector<std::string> objectives;   // the file's ("" entries none); "NAME:max" / "NAME:min" allowed
  std::vector<EvaluationRecord> records;
};

struct SummaryOptions {
  std::vector<std::string> objectives;  // overrides the run's; empty: the run's, else "time"
  std::size_t top = 20;                 // rows of the best-configurations table
  std::size_t max_points = 4000;        // points of the Pareto cloud (the front is always whole)
};

// The summary of `run` (the JSON the page draws; its fields are listed in docs/report.md). Throws
// std::invalid_argument naming an objective whose direction cannot be inferred (give it as NAME:max or NAME:min).
nlohmann::json summarize_run(const ReportRun& run, const SummaryOptions& options = {});

}  // namespace ktune::report
