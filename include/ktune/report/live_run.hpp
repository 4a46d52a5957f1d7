#pragma once
// A run as it goes, for the live view: the tuning loop adds each record (a copy under a lock, nothing more), and the
// server's thread summarizes them when a page asks and something was added since.
#include <cstddef>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ktune/report/run_summary.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune::report {

class LiveRun {
 public:
  // `run`: what is known before the first result (names, problem, objectives) and any records resumed.
  LiveRun(ReportRun run, SummaryOptions options);
  void add(EvaluationRecord record);  // any thread
  nlohmann::json data();              // page data (page_data), "version" the count of records

 private:
  std::mutex mutex_;
  ReportRun run_;
  SummaryOptions options_;
  std::size_t summarized_ = SIZE_MAX;
  nlohmann::json data_;
};

// The listener that feeds a LiveRun from a tuning loop.
class LiveRunRecorder final : public TuningListener {
 public:
  explicit LiveRunRecorder(LiveRun& run) : run_(run) {}
  void on_evaluation(const CostFunction& cost, std::size_t position) override;

 private:
  LiveRun& run_;
};

}  // namespace ktune::report
