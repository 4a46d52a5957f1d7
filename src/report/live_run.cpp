#include "ktune/report/live_run.hpp"

#include "ktune/report/html_page.hpp"
#include "ktune/tuning/recorded_evaluation.hpp"

namespace ktune::report {

LiveRun::LiveRun(ReportRun run, SummaryOptions options) : run_(std::move(run)), options_(std::move(options)) {}

void LiveRun::add(EvaluationRecord record) {
  const std::lock_guard lock(added_mutex_);
  added_.push_back(std::move(record));
}

nlohmann::json LiveRun::data() {
  const std::lock_guard reading(data_mutex_);
  std::vector<EvaluationRecord> added;
  {
    const std::lock_guard lock(added_mutex_);
    added.swap(added_);
  }
  if (!added.empty() || !summarized_) {
    for (auto& r : added) run_.records.push_back(std::move(r));
    data_ = page_data({summarize_run(run_, options_)}, run_.name, run_.records.size());
    summarized_ = true;
  }
  return data_;
}

void LiveRunRecorder::on_evaluation(const CostFunction& cost, std::size_t position) {
  run_.add(recorded_evaluation(cost.evaluator(), cost.trace()[position]));
}

}  // namespace ktune::report
