// `ktune export RESULTS... --header FILE.h | --wisdom FILE`: the best configurations of any results (Kernel Tuner
// caches, T4, CSV, results stores, Kernel Tuner results files) as a header with device targets or as wisdom for the
// runtime library. The job is ExportJob (jobs/export_job.hpp); this verb binds flags and prints.
#include <iostream>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"
#include "ktune/jobs/export_job.hpp"
#include "number_options.hpp"

namespace ktune::cli {
namespace {

struct ExportOptions {
  ExportRequest request;
  bool json = false;
};

int run_export_command(const ExportOptions& o) {
  ExportResult result;
  try {
    result = run_export(
        o.request, [](JobMessageLevel, const std::string& text) { std::cerr << "ktune export: " << text << "\n"; });
  } catch (const JobError& e) {
    std::cerr << "ktune export: error: " << e.what() << "\n";
    return e.kind() == JobError::Kind::request ? kExitUsage : kExitInputError;
  }
  if (o.json)
    std::cout << export_report_json(result).dump(2) << "\n";
  else
    write_export_summary(std::cout, result);
  return kExitOk;
}

}  // namespace

Command add_export_command(CLI::App& app) {
  auto o = std::make_shared<ExportOptions>();
  CLI::App* sub = app.add_subcommand(
      "export", "Best configurations of results as a C header with device targets (Kernel Tuner's) or as wisdom");
  sub->add_option("results", o->request.results_paths,
                  "Kernel Tuner caches, T4 files, ktune CSV, results stores, Kernel Tuner results files")
      ->required();
  sub->add_option("--header", o->request.header_path, "Write a header with -DTARGET_<device> targets (one kernel)");
  sub->add_option("--wisdom", o->request.wisdom_path, "Add to this wisdom file (created if absent; newer entries win)");
  sub->add_option("--kernel", o->request.kernel_name,
                  "Kernel name for results without one (T4, CSV); for results with kernel names: export only this one");
  sub->add_option("--device", o->request.device_name, "Device name for results without one (T4, CSV)");
  sub->add_option("--problem-size", o->request.problem_size, "Problem size AxB for results without one (T4, CSV)");
  sub->add_option("--objective", o->request.objective,
                  "NAME[:min|:max] (default: the results' first objective, else time)");
  sub->add_option("--top", o->request.top_percent,
                  "Header: configurations within this percent of each device's best take part (Kernel Tuner's)")
      ->capture_default_str()
      ->check(real_number(0, std::numeric_limits<double>::infinity(), false));
  sub->add_option("--default", o->request.defaults,
                  "NAME=C-LITERAL for every parameter: the kernel's default configuration (repeat, or list)");
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  return {sub, [o] { return run_export_command(*o); }};
}

}  // namespace ktune::cli
