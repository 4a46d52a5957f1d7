#include "ktune/report/live_run.hpp"

#include "ktune/report/html_page.hpp"
#include "ktune/tuning/recorded_evaluation.hpp"

namespace ktune::report {

LiveRun::LiveRun(ReportRun run, SummaryOptions options) : run_(std::move(run)), options_(std::move(options)) {}

void LiveRun::add(EvaluationRecord record) {
  const std::lock_guard lock(mutex_);
  run_.records.push_back(std::move(record));
}

nlohmann::json LiveRun::data() {
  ReportRun copy;
  {
    const std::lock_guard lock(mutex_);
    if (summarized_ == run_.records.size()) return data_;
    copy = run_;  // summarized outside the lock: the tuning loop never waits for a summary
  }
  const std::size_t count = copy.records.size();
  nlohmann::json data = page_data({summarize_run(copy, options_)}, copy.name, count);
  const std::lock_guard lock(mutex_);
  summarized_ = count;
  data_ = std::move(data);
  return data_;
}

void LiveRunRecorder::on_evaluation(const CostFunction& cost, std::size_t position) {
  run_.add(recorded_evaluation(cost.evaluator(), cost.trace()[position]));
}

}  // namespace ktune::report
