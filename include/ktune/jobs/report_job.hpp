#pragma once
// `ktune report RESULTS... --html DIR`: the report pages of tuning runs and comparisons. Inputs are Kernel Tuner
// caches, T4 files, ktune CSV, results stores (one run per space) and `ktune compare --output` reports. The page of
// every run goes to DIR/<name>.html; DIR/index.html shows them all, view by view and side by side (html_page.hpp).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "ktune/jobs/job_error.hpp"
#include "ktune/report/run_summary.hpp"

namespace ktune {

struct ReportRequest {
  std::vector<std::string> inputs;
  std::string html_dir;                 // "" : no pages (report_data only)
  std::vector<std::string> objectives;  // "NAME", "NAME:max"; empty: each run's own, else time
  std::size_t top = 20;                 // rows of the best-configurations table
  std::string title;                    // "" : from the inputs
};

struct ReportPage {
  std::string path, name;
};

struct ReportResult {
  nlohmann::json data;            // what the index page draws: {"title", "items": [...], ...}
  std::vector<ReportPage> pages;  // index.html first
};

// The runs and comparisons of one input file (a store gives one run per space). Throws JobError (input) naming the
// file when it is none of the formats or cannot be read.
std::vector<nlohmann::json> summarize_input(const std::string& path, const report::SummaryOptions& options);

// Reads and summarizes every input and writes the pages. Throws JobError: no input, a bad input (naming the file),
// an output folder that cannot be written.
ReportResult run_report(const ReportRequest& request);

nlohmann::json report_result_json(const ReportResult& result);

// `ktune report --watch`: the inputs read again whenever one of them changes (size or modification time), as a run
// started elsewhere appends to its cache (Kernel Tuner's included); a file caught half-written keeps the last data
// until it reads whole again. For ReportServer's provider.
class WatchedReport {
 public:
  explicit WatchedReport(ReportRequest request);  // reads the inputs once: throws JobError as run_report does
  nlohmann::json data();                          // "version" counts the changes seen

 private:
  bool changed();
  ReportRequest request_;
  std::vector<std::pair<long long, long long>> stamps_;  // per input: size, modification time (ns)
  std::size_t version_ = 0;
  nlohmann::json data_;
};  // the stable `ktune report --json` object

}  // namespace ktune
