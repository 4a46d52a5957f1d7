// `ktune compare`: strategies scored by the community methodology on brute-forced spaces (simulation), or with
// --stats only the spaces' statistics. Tables for people, --json for programs, --output for the whole report (curves
// included), --plot for SVG figures.
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "number_options.hpp"
#include "progress_line.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/jobs/comparison_job.hpp"
#include "ktune/jobs/comparison_reports.hpp"
#include "ktune/jobs/space_worst_cases.hpp"
#include "ktune/methodology/svg_report.hpp"
#include "ktune/tuning/interruption.hpp"

namespace ktune::cli {
namespace {

using namespace ktune::methodology;

struct CompareOptions {
  CompareRequest request;
  bool json = false, quiet = false, by_space = false;
  std::string output_path, plot_dir;
};

// Atomically: a run killed or a disk full while writing leaves the previous report whole.
void write_report(const std::string& path, const nlohmann::json& report) {
  io::write_file_atomically(path, report.dump() + "\n");
}

int run_multiobjective(const ComparisonJob& job, const CompareOptions& o) {
  MoComparisonReport report;
  try {
    report = job.run_multiobjective();
  } catch (const Interrupted&) {
    std::cerr << "ktune compare: interrupted; a multi-objective comparison needs every run, nothing was scored\n";
    return interrupted_exit_status(stop_signal());
  }
  if (!o.output_path.empty()) write_report(o.output_path, multiobjective_comparison_json(report, true));
  if (!o.plot_dir.empty()) write_svg_report(report, job.objectives(), o.plot_dir);
  if (o.json) {
    std::cout << multiobjective_comparison_json(report, false).dump(2) << "\n";
  } else {
    write_multiobjective_table(std::cout, report, job.request().options, job.request().budget);
    if (!o.plot_dir.empty()) std::cout << "figures: " << o.plot_dir << "/index.html\n";
  }
  return kExitOk;
}

int run_scores(const ComparisonJob& job, const CompareOptions& o, ProgressLine& progress) {
  const ComparisonReport report = job.run();
  progress.finish();
  if (!o.output_path.empty()) {
    nlohmann::json full = comparison_json(report, true);
    full["settings"] = comparison_settings_json(job.request().options);
    write_report(o.output_path, full);
  }
  // Interrupted: the tables and reports hold what finished; figures need every curve.
  const bool plot = !o.plot_dir.empty() && !report.interrupted;
  if (plot) write_svg_report(report, o.plot_dir);
  if (o.json) {
    nlohmann::json j = comparison_json(report, false);
    if (o.by_space) j["by_space"] = space_worst_cases_json(space_worst_cases(report));
    std::cout << j.dump(2) << "\n";
  } else {
    write_score_table(std::cout, report, job.request().options);
    if (o.by_space) write_space_worst_cases(std::cout, space_worst_cases(report));
    if (plot) std::cout << "figures: " << o.plot_dir << "/index.html\n";
  }
  return report.interrupted ? interrupted_exit_status(stop_signal()) : kExitOk;
}

int run_compare(CompareOptions& o) {
  // Under mpirun the runs are dealt over the ranks and gathered; every rank then holds the whole result and rank 0
  // alone prints and writes it.
  const parallel::MpiSession& mpi = mpi_session();
  if (mpi.active()) {
    if (o.request.options.isolate) {
      if (mpi.rank() == 0) std::cerr << "ktune compare: error: --isolate is not supported under mpirun yet\n";
      return kExitUsage;
    }
    o.request.options.partition = parallel::mpi_run_partition(mpi);
    if (mpi.rank() != 0) {
      o.request.options.progress = nullptr;
      std::optional<ComparisonJob> job;
      try {
        job.emplace(o.request);
      } catch (const std::exception&) {
        return kExitInputError;  // rank 0 reads the same input and reports the error
      }
      if (job->multiobjective() || o.request.stats_only) return kExitOk;  // rank 0 computes those alone
      job->run();  // its share of the runs, handed to rank 0 (an error here aborts every rank: see main)
      return kExitOk;
    }
  }
  ProgressLine progress(!o.quiet && !o.request.strategies.empty());
  o.request.options.progress = [&](std::size_t done, std::size_t total) {
    progress.show(fmt::format("  compare: {}", progress.count_text(done, total, "runs")), done == total);
  };
  try {
    // Before any run: an output that cannot be written, or that would overwrite an input, is refused at once.
    std::vector<io::NamedPath> inputs;
    for (const auto& space : o.request.spaces) inputs.push_back({"--spaces", space});
    io::refuse_overlapping_paths(inputs, {{"--output", o.output_path}});
    if (!o.output_path.empty()) io::check_output_path(o.output_path, "--output");
    if (!o.plot_dir.empty()) io::check_output_path(o.plot_dir + "/index.html", "--plot");
    const ComparisonJob job(o.request);
    if (job.multiobjective()) return run_multiobjective(job, o);
    if (o.request.stats_only) {
      const auto stats = job.statistics();
      o.json ? void(std::cout << statistics_json(stats).dump(2) << "\n") : write_statistics_table(std::cout, stats);
      return kExitOk;
    }
    return run_scores(job, o, progress);
  } catch (const JobError& e) {
    progress.finish();
    std::cerr << "ktune compare: error: " << e.what() << "\n";
    return e.kind() == JobError::Kind::request ? kExitUsage : kExitInputError;
  } catch (const io::InputError& e) {  // writing the report or the figures
    std::cerr << "ktune compare: error: " << e.what() << "\n";
    return kExitInputError;
  } catch (const std::invalid_argument& e) {
    std::cerr << "ktune compare: error: " << e.what() << "\n";
    return kExitInputError;
  }
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App* sub = app.add_subcommand("compare", "Score strategies by the community methodology on brute-forced spaces");
  sub->add_option("--spaces", o->request.spaces, "Brute-forced Kernel Tuner cache or T4 files (one per space)");
  sub->add_option("--strategies", o->request.strategies, "Strategies: name or name:key=value,key=value");
  sub->add_option("--runs", o->request.runs, "NAME=FILE: recorded runs to score too (a trace file, or a T4 file per run)");
  sub->add_option("--transfer", o->request.transfer, "Results of the spaces' kernels measured elsewhere: each strategy "
                  "is scored cold and as LABEL+transfer (docs/transfer.md)");
  sub->add_option("--transfer-set", o->request.transfer_settings,
                  "Transfer search settings: opening=N|sources control=N guided=N min_agreement=X");
  sub->add_option("--repeats", o->request.options.repeats, "Runs per strategy and space")
      ->capture_default_str()
      ->check(whole_number(1, 1'000'000));
  sub->add_option("--seed", o->request.options.seed, "Seed of the runs and of the curve bagging")
      ->capture_default_str()
      ->check(seed_number());
  sub->add_option("--cutoff", o->request.options.cutoff_end, "End of the time range: this fraction of the way from the median "
                                                     "to the optimum")
      ->capture_default_str()
      ->check(real_number(0, 1, true));
  sub->add_option("--cutoff-start", o->request.options.cutoff_start, "Start of the time range")
      ->capture_default_str()
      ->check(real_number(0, 1, false));
  sub->add_option("--resolution", o->request.options.resolution, "Time points")->capture_default_str()->check(
      whole_number(2, 1'000'000));
  add_baseline_option(sub, o->request.options.baseline);
  sub->add_option("--iterations", o->request.iterations, "auto[:...]: replay adaptive repetition on the recorded runs "
                  "(objective time; docs/live-tuning.md)")->check(repetition_text());
  sub->add_flag("--avoid-failures", o->request.options.avoid_failures,
                "Learned failure avoidance in every run (+transfer runs: also from the sources' failures)");
  sub->add_flag("--charge-strategy-time", o->request.options.charge_strategy_time,
                "Advance each run's clock by its strategy's own time too, as live (not reproducible exactly)");
  sub->add_option("--threads", o->request.options.threads, "Threads (0: all cores)")->capture_default_str()->check(thread_count());
  sub->add_option("--objective", o->request.options.objective, "Objective (default: the files', else time)");
  sub->add_option("--objectives", o->request.objectives,
                  "Several objectives, NAME[:min|:max] (comma-separated or repeated): a multi-objective comparison "
                  "by IGD+ against random search");
  sub->add_option("--budget", o->request.budget, "Multi-objective: evaluations per run")->capture_default_str()->check(
      whole_number(1, kLargeCount));
  sub->add_option("--checkpoints", o->request.checkpoints, "Multi-objective: evaluation counts to report (default 50 100 150 200)")
      ->check(whole_number(1, kLargeCount));
  sub->add_option("--derive", o->request.derived,
                  "NAME=EXPRESSION: a measurement computed from each record's parameters and measurements "
                  "(e.g. smem=block_size_x*tile*4), usable as an objective (repeatable)");
  sub->add_flag("--stats", o->request.stats_only, "Only print the statistics of the spaces");
  sub->add_flag("--isolate", o->request.options.isolate,
                "Run each strategy in a worker process: one that crashes, hangs or throws loses that run (reported)");
  sub->add_option("--isolate-limit", o->request.options.isolation_seconds,
                  "With --isolate: seconds of a run's strategy time before it is stopped")
      ->capture_default_str()
      ->check(real_number(0, 1e9, true));
  sub->add_flag("--by-space", o->by_space,
                "Also report each strategy's worst space and its largest shortfall against random_sample");
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  sub->add_flag("--quiet", o->quiet, "No progress line");
  sub->add_option("--output", o->output_path, "Write the whole report (curves included) as JSON");
  sub->add_option("--plot", o->plot_dir, "Write SVG figures and an index.html into this directory");
  return {sub, [o] { return run_compare(*o); }};
}

}  // namespace ktune::cli
