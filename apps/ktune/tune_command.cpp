// `ktune tune [PROBLEM] --simulate RESULTS` and `ktune tune T1FILE`: runs a strategy on a search space and reports the
// best configuration. Simulation replays a brute-forced Kernel Tuner cache or T4 file; without --simulate the T1 file's
// kernel is compiled and run on a live backend (in a worker process, so crashes and hangs cost one configuration).
#include <charconv>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "number_options.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/live/observer.hpp"
#include "ktune/parallel/mpi_tuning.hpp"
#include "ktune/tuning/console_reporter.hpp"
#include "ktune/tuning/interruption.hpp"

namespace ktune::cli {
namespace {

struct TuneOptions {
  TuneRequest request;  // the flags that map one to one
  std::optional<std::uint64_t> max_fevals;
  std::optional<double> time_limit, fraction, target;
  bool maximize = false, minimize = false;
  bool no_verify = false, in_process = false, no_implicit_block_constraint = false;
  std::string output_path, csv_path;
  std::string devices;  // --devices: "0,1,3" or "all"
  double rank_timeout = 60;
  bool json = false, quiet = false, trace = false, verbose = false;
};

int run_tune(TuneOptions& o) {
  const auto fail = [](const std::string& message, int code) {
    std::cerr << "ktune tune: error: " << message << "\n";
    return code;
  };
  if (o.maximize && o.minimize) return fail("--maximize and --minimize exclude each other", kExitUsage);
  TuneRequest& request = o.request;
  request.budget.max_evaluations = o.max_fevals;
  request.budget.max_fraction = o.fraction;
  request.budget.time_limit_seconds = o.time_limit;
  request.budget.target = o.target;
  if (o.maximize || o.minimize) request.maximize = o.maximize;
  request.implicit_block_constraint = !o.no_implicit_block_constraint;
  request.live.verify = !o.no_verify;
  request.live.isolate = !o.in_process;
  if (o.devices == "all") {
    request.live.all_devices = true;
  } else if (!o.devices.empty()) {
    std::size_t pos = 0;
    while (pos <= o.devices.size()) {
      const std::size_t end = std::min(o.devices.find(',', pos), o.devices.size());
      const std::string item = o.devices.substr(pos, end - pos);
      int d = -1;
      const auto [rest, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
      if (item.empty() || ec != std::errc() || rest != item.data() + item.size() || d < 0)
        return fail(fmt::format("--devices: '{}' is not a device index (give 0,1,3 or all)", item), kExitUsage);
      request.live.devices.push_back(d);
      pos = end + 1;
    }
  }
  request.on_message = [&o](JobMessageLevel level, const std::string& text) {
    if (!o.quiet || level == JobMessageLevel::loss) std::cerr << "ktune tune: " << text << "\n";
  };

  // Under mpirun: rank 0 runs the strategy, the other ranks measure (parallel/mpi_tuning.hpp).
  const parallel::MpiSession& mpi = mpi_session();
  if (mpi.active()) {
    const auto refuse = [&](const std::string& why) { return mpi.rank() == 0 ? fail(why, kExitUsage) : kExitUsage; };
    if (!request.simulate_path.empty()) return refuse("under mpirun, tune measures live (a simulation is one process)");
    if (request.isolate_strategy) return refuse("--isolate is not available under mpirun");
    if (request.live.all_devices) return refuse("under mpirun give --devices as a list: each rank takes one of them");
    if (!request.live.devices.empty()) {
      // Each rank takes the device of its place on its node.
      const auto& d = request.live.devices;
      request.live.device = d[static_cast<std::size_t>(mpi.local_rank()) % d.size()];
      request.live.devices.clear();
    }
    if (mpi.rank() != 0) {
      request.measure_only = true;
      request.on_message = [&o, &mpi](JobMessageLevel level, const std::string& text) {
        if (!o.quiet || level == JobMessageLevel::loss)
          std::cerr << fmt::format("ktune tune (rank {}): {}\n", mpi.rank(), text);
      };
      return parallel::serve_rank(mpi, [&request] { return std::make_unique<TuneJob>(request); });
    }
    parallel::MpiTuneOptions mpi_options;
    mpi_options.rank_timeout_seconds = o.rank_timeout;
    mpi_options.on_note = [&o](const std::string& text) {
      if (!o.quiet) std::cerr << "ktune tune: " << text << "\n";
    };
    try {
      request.remote_devices = parallel::mpi_rank_devices(mpi, mpi_options);
    } catch (const std::exception& e) {
      parallel::release_ranks(mpi);
      return fail(e.what(), kExitInputError);
    }
  }
  // Rank 0 releases the measuring ranks once the job is gone (what they had in flight has come back), whatever
  // happened.
  struct ReleaseRanks {
    const parallel::MpiSession& mpi;
    ~ReleaseRanks() { parallel::release_ranks(mpi); }
  } release_ranks{mpi};

  std::optional<TuneJob> job;
  try {
    job.emplace(request);
  } catch (const JobError& e) {
    return fail(e.what(), e.kind() == JobError::Kind::request ? kExitUsage : kExitInputError);
  } catch (const Interrupted&) {
    std::cerr << "ktune tune: interrupted before any configuration was measured\n";
    return interrupted_exit_status(stop_signal());
  }
  const SearchSpace& space = job->space();

  // The console (stderr): header, a line per configuration (live runs, or --verbose), progress; not with --quiet.
  ConsoleReporterOptions console_options;
  console_options.configuration_lines = o.verbose || (job->live() && !o.quiet);
  console_options.progress = !o.quiet;
  ConsoleReporter console(console_options);
  std::vector<TuningListener*> listeners;
  if (!o.quiet || o.verbose) {
    std::string strategy_text = job->request().strategy;  // the default resolved
    for (const auto& s : request.settings) strategy_text += " " + s;
    console.header({space.problem().name, job->description(), strategy_text, request.budget, request.seed}, space);
    listeners.push_back(&console);
  }
  const TuneOutcome outcome = job->run(listeners);
  console.finish();

  try {
    if (!o.output_path.empty()) job->write_t4(o.output_path, outcome);
    if (!o.csv_path.empty()) job->write_csv(o.csv_path, outcome);
  } catch (const io::InputError& e) {
    return fail(e.what(), kExitInputError);
  }

  // Interrupted: everything above was written with what was measured; the exit status tells the shell why.
  const TuningResult& result = outcome.result;
  // A failed (isolated) strategy: what it evaluated is written and reported, and the exit status says it failed.
  const int exit_status = result.stop_reason == StopReason::interrupted       ? interrupted_exit_status(stop_signal())
                          : result.stop_reason == StopReason::strategy_failed ? kExitInputError
                                                                              : kExitOk;
  if (result.stop_reason == StopReason::strategy_failed)
    std::cerr << fmt::format("ktune tune: error: {} after {} evaluations; results written\n", result.failure,
                             result.evaluations);
  if (result.stop_reason == StopReason::interrupted && !o.quiet)
    std::cerr << fmt::format("ktune tune: interrupted after {} evaluations; results written{}\n", result.evaluations,
                             request.cache_path.empty() ? "" : fmt::format(" ({} resumes the run)", request.cache_path));
  if (o.json) {
    std::cout << tune_report_json(*job, outcome, o.trace).dump(2) << "\n";
    return exit_status;
  }
  write_tune_summary(std::cout, *job, outcome);
  return exit_status;
}

}  // namespace

Command add_tune_command(CLI::App& app) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* sub = app.add_subcommand("tune", "Tune a problem live (a T1 file with a KernelSpecification) or simulated from a brute-forced results file");
  sub->add_option("problem", o->request.problem_path,
                  "Problem file (T1, ktune JSON or Kernel Tuner cache); when simulating it may be left out and the "
                  "space is the recorded configurations");
  sub->add_option("--simulate", o->request.simulate_path, "Replay this Kernel Tuner cache or T4 file (.json or .json.gz)");
  sub->add_option("--strategy", o->request.strategy,
                  "Search strategy (see ktune strategies); default: auto with a budget, else brute_force");
  sub->add_option("--set", o->request.settings, "Strategy hyperparameter name=value (repeatable)");
  sub->add_option("--max-fevals", o->max_fevals, "Stop after this many unique evaluations")->check(whole_number(1));
  sub->add_option("--time-limit", o->time_limit, "Stop after this many seconds on the tuning clock")
      ->check(real_number(0, 1e12, true));
  sub->add_option("--fraction", o->fraction, "Stop after this fraction of the search space")
      ->check(real_number(0, 1, true));
  sub->add_option("--target", o->target, "Stop once the objective reaches this value")
      ->check(real_number(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), false));
  sub->add_option("--seed", o->request.seed, "Seed of every random choice")->capture_default_str()->check(seed_number());
  sub->add_option("--objective,--objectives", o->request.objectives,
                  "Objective measurement(s), NAME[:min|:max], comma-separated or repeated (default: the file's, else "
                  "time); with several, the result is their Pareto front");
  sub->add_option("--scalarize", o->request.scalarize,
                  "Several objectives, single-objective strategy: lexicographic (default) or weighted_sum:W1,W2,...");
  sub->add_option("--derive", o->request.derived,
                  "Simulation: NAME=EXPRESSION, a measurement computed from each record's parameters and "
                  "measurements, usable as an objective (repeatable)");
  sub->add_option("--restrict", o->request.restrictions,
                  "A constraint (Python syntax) added to the problem's; in simulation, only recorded configurations "
                  "that satisfy it are replayed (repeatable)");
  sub->add_flag("--maximize", o->maximize, "Maximise the objective (default: inferred from its name)");
  sub->add_flag("--minimize", o->minimize, "Minimise the objective");
  sub->add_flag("--charge-strategy-time", o->request.charge_strategy_time,
                "Charge the strategy's own time to the simulated clock (as Kernel Tuner does)");
  sub->add_option("--output", o->output_path, "Write the results as a T4 file");
  sub->add_option("--cache", o->request.cache_path, "Kernel Tuner cache file: resumed if present, appended per result");
  sub->add_option("--csv", o->csv_path, "Write the results as CSV");
  auto* max_threads = sub->add_option("--max-threads", o->request.max_threads,
                                      "Limit of the implicit block-size constraint (default: live, the device's "
                                      "maximum block size; simulated, 1024 as Kernel Tuner)")
                          ->check(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  sub->add_flag("--no-implicit-block-constraint", o->no_implicit_block_constraint,
                "Do not add Kernel Tuner's implicit block_size_x*block_size_y*block_size_z <= max_threads")
      ->excludes(max_threads);
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  sub->add_flag("--trace", o->trace, "Include every evaluation in the JSON output");
  sub->add_flag("--quiet", o->quiet, "No header, configuration lines, progress line or warnings on stderr");
  sub->add_flag("--verbose", o->verbose,
                "One line per evaluated configuration on stderr in simulated runs too (live runs show them unless "
                "--quiet)");
  // Live tuning (a T1 file with a KernelSpecification, no --simulate): overrides of the file's settings.
  sub->add_option("--backend", o->request.live.backend, "Live: the backend (cpp, opencl, cuda) instead of the file's language");
  sub->add_option("--iterations", o->request.live.iterations, "Live: timed launches per configuration (after one warm-up)")
      ->check(whole_number(1, 1'000'000));
  sub->add_option("--statistic", o->request.live.statistic, "Live: the time objective over the launches: mean, median or min");
  sub->add_option("--timeout", o->request.live.timeout_seconds, "Live: seconds per configuration (compile + verify + benchmark)")
      ->check(real_number(0, 1e9, true));
  sub->add_option("--platform", o->request.live.platform, "Live: OpenCL platform index")->check(whole_number(0, 1'000'000));
  sub->add_option("--device", o->request.live.device, "Live: device index (OpenCL device within the platform, CUDA ordinal)")
      ->check(whole_number(0, 1'000'000));
  sub->add_option("--compiler", o->request.live.compiler, "Live, cpp backend: the compiler command (default $CXX or c++)");
  sub->add_flag("--no-verify", o->no_verify, "Live: skip verification against the reference");
  sub->add_option("--devices", o->devices,
                  "Live: measure on several devices at once, one worker each: device indices (0,1,3) or all; the "
                  "strategy's batches are spread over them, results as with one device");
  sub->add_flag("--mixed-devices", o->request.live.mixed_devices,
                "Live: pool the results of --devices of different models (refused otherwise)");
  sub->add_option("--pending", o->request.pending_evaluations,
                  "A constant liar: a strategy that asks one configuration at a time gets an estimate for up to this "
                  "many new ones while they are measured (on several devices, or ranks), and goes on; 0: none")
      ->capture_default_str()
      ->check(whole_number(0, 1'000'000));
  sub->add_option("--rank-timeout", o->rank_timeout,
                  "Under mpirun: seconds of silence after which a measuring rank is taken for dead (its "
                  "configuration goes to another rank)")
      ->capture_default_str()
      ->check(real_number(0, 1e9, true));
  sub->add_option("--compile-workers", o->request.live.compile_workers,
                  "Live: processes that compile the strategy's next configurations while one is measured (on a CPU "
                  "device pinned to other cores than the measurement); 0: none")
      ->capture_default_str()
      ->check(whole_number(0, 1024));
  sub->add_option("--observer", o->request.live.observers,
                  "Live: also observe energy and power: powercap (Linux RAPL, CPU) or nvml (NVIDIA GPU); repeatable. "
                  "Skipped with a note where the machine does not expose them")
      ->check(CLI::IsMember(live::observer_names()));
  sub->add_flag("--isolate", o->request.isolate_strategy,
                "Run the strategy in a worker process: a crash, hang or exception (an untrusted plug-in) ends the run "
                "with what was evaluated");
  sub->add_option("--isolate-limit", o->request.isolation_seconds,
                  "With --isolate: seconds of the strategy's own time before it is stopped")
      ->capture_default_str()
      ->check(real_number(0, 1e9, true));
  sub->add_flag("--in-process", o->in_process,
                "Live: run kernels in this process (debugging; a crash ends the run and timeouts are not enforced)");
  return {sub, [o] { return run_tune(*o); }};
}

}  // namespace ktune::cli
