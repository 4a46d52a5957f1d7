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
  // Any thread; holds the lock only to append (the summary never runs under it).
  void add(EvaluationRecord record);
  // Page data (page_data), "version" the count of records; summarized again only when records came.
  nlohmann::json data();

 private:
  std::mutex added_mutex_;               // the tuning loop's side: records not yet summarized
  std::vector<EvaluationRecord> added_;
  std::mutex data_mutex_;                // the readers' side
  ReportRun run_;
  SummaryOptions options_;
  bool summarized_ = false;
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
