// `ktune report RESULTS... --html DIR`: report pages of tuning runs and comparisons (jobs/report_job.hpp), and
// `--watch` for a live page of a results file another process is writing (report/live_report.hpp). This verb binds
// flags and prints.
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "commands.hpp"
#include "ktune/jobs/report_job.hpp"
#include "ktune/report/report_server.hpp"
#include "ktune/tuning/interruption.hpp"

namespace ktune::cli {
namespace {

struct ReportOptions {
  ReportRequest request;
  bool json = false, watch = false;
  int port = 0;
};

// The live page of the inputs, served until Ctrl-C.
int watch(const ReportOptions& o) {
  std::optional<WatchedReport> watched;
  std::optional<report::ReportServer> server;
  try {
    watched.emplace(o.request);
    server.emplace(o.port, [&watched] { return watched->data(); });
  } catch (const JobError& e) {
    std::cerr << "ktune report: error: " << e.what() << "\n";
    return e.kind() == JobError::Kind::request ? kExitUsage : kExitInputError;
  } catch (const std::runtime_error& e) {
    std::cerr << "ktune report: error: " << e.what() << "\n";
    return kExitInputError;
  }
  std::cout << fmt::format("live view of {} file(s): {}  (Ctrl-C ends it)", o.request.inputs.size(), server->url())
            << std::endl;
  const InterruptHandler interrupts;
  while (!stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return kExitOk;
}

int run_report_command(const ReportOptions& o) {
  if (o.watch) return watch(o);
  if (o.request.html_dir.empty()) {
    std::cerr << "ktune report: error: say where the pages go (--html DIR) or watch the files live (--watch)\n";
    return kExitUsage;
  }
  ReportResult result;
  try {
    result = run_report(o.request);
  } catch (const JobError& e) {
    std::cerr << "ktune report: error: " << e.what() << "\n";
    return e.kind() == JobError::Kind::request ? kExitUsage : kExitInputError;
  }
  if (o.json) {
    std::cout << report_result_json(result).dump(2) << "\n";
  } else {
    for (const auto& page : result.pages) std::cout << fmt::format("{}  ({})\n", page.path, page.name);
  }
  return kExitOk;
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub =
      app.add_subcommand("report", "HTML report pages of tuning runs and comparisons (self-contained, offline)");
  sub->add_option("results", o->request.inputs,
                  "Kernel Tuner caches, T4 files, ktune CSV, results stores, ktune compare --output reports")
      ->required();
  sub->add_option("--html", o->request.html_dir, "Write the pages into this folder (index.html: all side by side)");
  sub->add_option("--objective", o->request.objectives,
                  "NAME[:min|:max], repeat for a Pareto front (default: each run's objectives, else time)");
  sub->add_option("--top", o->request.top, "Rows of the best-configurations table")->capture_default_str();
  sub->add_option("--title", o->request.title, "The page's title");
  sub->add_flag("--watch", o->watch,
                "Serve a live page on 127.0.0.1 that follows the files as they grow (Ctrl-C ends)");
  sub->add_option("--port", o->port, "--watch: the port (0: any free one)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  return {sub, [o] { return run_report_command(*o); }};
}

}  // namespace ktune::cli
