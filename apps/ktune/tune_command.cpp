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
#include <fmt/ranges.h>

#include "commands.hpp"
#include "ktune/parallel/mpi_tuning.hpp"
#include "ktune/tuning/console_reporter.hpp"
#include "ktune/tuning/interruption.hpp"
#include "tune_options.hpp"

namespace ktune::cli {
namespace {


// The live-only flags given to a simulated run (they would be ignored without a word).
std::vector<std::string> live_flags_given(const TuneOptions& o) {
  const LiveOverrides& l = o.request.live;
  std::vector<std::string> given;
  const auto note = [&](bool set, const char* flag) {
    if (set) given.push_back(flag);
  };
  note(l.backend.has_value(), "--backend");
  note(l.iterations.has_value() && l.iterations->rfind("auto", 0) != 0, "--iterations N");  // auto: replayed
  note(l.statistic.has_value(), "--statistic");
  note(l.timeout_seconds.has_value(), "--timeout");
  note(l.platform.has_value(), "--platform");
  note(l.device.has_value(), "--device");
  note(l.compiler.has_value(), "--compiler");
  note(o.no_verify, "--no-verify");
  note(o.in_process, "--in-process");
  note(!o.devices.empty(), "--devices");
  note(l.mixed_devices, "--mixed-devices");
  note(l.compile_workers > 0, "--compile-workers");
  note(!l.observers.empty(), "--observer");
  return given;
}

int run_tune(TuneOptions& o) {
  const auto fail = [](const std::string& message, int code) {
    std::cerr << "ktune tune: error: " << message << "\n";
    return code;
  };
  if (const auto given = live_flags_given(o); !o.request.simulate_path.empty() && !given.empty())
    return fail(fmt::format("{} {} for live runs; this run replays {} (leave {} out)", fmt::join(given, ", "),
                            given.size() == 1 ? "is" : "are", o.request.simulate_path,
                            given.size() == 1 ? "it" : "them"),
                kExitUsage);
  if (o.maximize && o.minimize) return fail("--maximize and --minimize exclude each other", kExitUsage);
  TuneRequest& request = o.request;
  request.budget.max_evaluations = o.max_fevals;
  request.budget.max_fraction = o.fraction;
  request.budget.time_limit_seconds = o.time_limit;
  request.budget.target = o.target;
  if (o.maximize || o.minimize) request.maximize = o.maximize;
  request.implicit_block_constraint = !o.no_implicit_block_constraint;
  request.budget_counts_resumed = !o.budget_new_only;
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
    if (!job->transfer_sources().empty())
      strategy_text += fmt::format(", with transfer from {} source{}", job->transfer_sources().size(),
                                   job->transfer_sources().size() == 1 ? "" : "s");
    console.header({space.problem().name, job->description(), strategy_text, request.budget, request.seed}, space);
    listeners.push_back(&console);
  }
  const TuneOutcome outcome = job->run(listeners);
  console.finish();

  // Every output is attempted, and a failed one does not keep the others, --json or the summary from being written.
  const std::vector<std::string> failed_outputs = job->write_outputs(outcome);
  for (const auto& why : failed_outputs) fail(why, kExitInputError);

  // Interrupted: everything above was written with what was measured; the exit status tells the shell why.
  const TuningResult& result = outcome.result;
  // A failed (isolated) strategy: what it evaluated is written and reported, and the exit status says it failed.
  const int exit_status = result.stop_reason == StopReason::interrupted ? interrupted_exit_status(stop_signal())
                          : result.stop_reason == StopReason::strategy_failed || !failed_outputs.empty() ||
                                    outcome.cache_failed || outcome.store_failed
                              ? kExitInputError
                              : kExitOk;
  if (result.stop_reason == StopReason::strategy_failed)
    std::cerr << fmt::format("ktune tune: error: {} after {} evaluation{}; results written\n", result.failure,
                             result.evaluations, result.evaluations == 1 ? "" : "s");
  if (result.stop_reason == StopReason::interrupted && !o.quiet)
    std::cerr << fmt::format("ktune tune: interrupted after {} evaluation{}; results written{}\n", result.evaluations,
                             result.evaluations == 1 ? "" : "s",
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
  add_tune_flags(sub, *o);
  return {sub, [o] { return run_tune(*o); }};
}

}  // namespace ktune::cli
