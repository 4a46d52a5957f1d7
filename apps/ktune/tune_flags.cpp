// The flags of `ktune tune` (tune_options.hpp): each bound to the request field it sets, with its range checked.
#include <limits>

#include "number_options.hpp"
#include "ktune/live/observer.hpp"
#include "tune_options.hpp"

namespace ktune::cli {

void add_tune_flags(CLI::App* sub, TuneOptions& o) {
  sub->add_option("problem", o.request.problem_path,
                  "Problem file (T1, ktune JSON or Kernel Tuner cache); when simulating it may be left out and the "
                  "space is the recorded configurations");
  sub->add_option("--simulate", o.request.simulate_path, "Replay this Kernel Tuner cache or T4 file (.json or .json.gz)");
  sub->add_option("--strategy", o.request.strategy,
                  "Search strategy (see ktune strategies); default: auto with a budget, else brute_force");
  sub->add_option("--set", o.request.settings, "Strategy hyperparameter name=value (repeatable)");
  sub->add_option("--max-fevals", o.max_fevals, "Stop after this many unique evaluations")->check(whole_number(1));
  sub->add_option("--time-limit", o.time_limit, "Stop after this many seconds on the tuning clock")
      ->check(real_number(0, 1e12, true));
  sub->add_option("--fraction", o.fraction, "Stop after this fraction of the search space")
      ->check(real_number(0, 1, true));
  sub->add_option("--target", o.target, "Stop once the objective reaches this value")
      ->check(real_number(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), false));
  sub->add_option("--seed", o.request.seed, "Seed of every random choice")->capture_default_str()->check(seed_number());
  sub->add_option("--objective,--objectives", o.request.objectives,
                  "Objective measurement(s), NAME[:min|:max], comma-separated or repeated (default: the file's, else "
                  "time); with several, the result is their Pareto front");
  sub->add_option("--scalarize", o.request.scalarize,
                  "Several objectives, single-objective strategy: lexicographic (default) or weighted_sum:W1,W2,...");
  sub->add_option("--derive", o.request.derived,
                  "Simulation: NAME=EXPRESSION, a measurement computed from each record's parameters and "
                  "measurements, usable as an objective (repeatable)");
  sub->add_option("--restrict", o.request.restrictions,
                  "A constraint (Python syntax) added to the problem's; in simulation, only recorded configurations "
                  "that satisfy it are replayed (repeatable)");
  sub->add_flag("--maximize", o.maximize, "Maximise the objective (default: inferred from its name)");
  sub->add_flag("--minimize", o.minimize, "Minimise the objective");
  sub->add_flag("--charge-strategy-time", o.request.charge_strategy_time,
                "Charge the strategy's own time to the simulated clock (as Kernel Tuner does)");
  sub->add_flag("--avoid-failures", o.request.avoid_failures,
                "Learned failure avoidance: defer configurations that the run's failures (and --transfer sources' "
                "failures, once they repeat here) predict to fail");
  sub->add_option("--confirm-top", o.request.confirm_top,
                  "Live: time the best K again at the end, interleaved, and say which are tied with the winner")
      ->check(whole_number(1, 1000));
  sub->add_option_function<std::string>(
         "--dashboard",
         [&o](const std::string& port) { o.request.dashboard_port = port.empty() ? 0 : std::stoi(port); },
         "A live view of the run on http://127.0.0.1:PORT/ (no PORT: any free one, printed)")
      ->expected(0, 1)
      ->check(CLI::Range(0, 65535) | CLI::IsMember({""}));
  sub->add_option("--output", o.request.output_path, "Write the results as a T4 file");
  sub->add_option("--cache", o.request.cache_path,
                  "Kernel Tuner cache file: resumed if present (it must be of the same device, problem size and "
                  "kernel), appended per result; locked while the run writes it");
  sub->add_flag("--reuse-cache", o.request.reuse_cache,
                "Resume a --cache recorded on another device, problem size or kernel build, taking its results as "
                "this run's");
  sub->add_option("--store", o.request.store_path,
                  "Results store (SQLite, created if absent; docs/store.md): resumed from by the --cache rules, every "
                  "result recorded into it as it is measured; safe for several runs at once")
      ->envname("KTUNE_STORE");
  sub->add_option("--wisdom", o.request.wisdom_path,
                  "Add the winner to this wisdom file (created if absent) for the application's runtime "
                  "(docs/integration.md)");
  sub->add_option("--transfer", o.request.transfer,
                  "Results of this kernel measured elsewhere (other devices, problem sizes): Kernel Tuner caches, T4 "
                  "files, results stores. The search starts from their best configurations, and falls back to cold "
                  "tuning where this device disagrees (docs/transfer.md)");
  sub->add_option("--transfer-set", o.request.transfer_settings,
                  "Transfer search settings: opening=N|sources control=N guided=N min_agreement=X sharpness=X "
                  "agreed=STRATEGY");
  sub->add_flag("--budget-new-only", o.budget_new_only,
                "The evaluation budget counts only new measurements (by default resumed results count too, so "
                "rerunning a finished command measures nothing)");
  sub->add_option("--csv", o.request.csv_path, "Write the results as CSV");
  auto* max_threads = sub->add_option("--max-threads", o.request.max_threads,
                                      "Limit of the implicit block-size constraint (default: live, the device's "
                                      "maximum block size; simulated, 1024 as Kernel Tuner)")
                          ->check(whole_number(1, std::numeric_limits<std::int64_t>::max()));
  sub->add_flag("--no-implicit-block-constraint", o.no_implicit_block_constraint,
                "Do not add Kernel Tuner's implicit block_size_x*block_size_y*block_size_z <= max_threads")
      ->excludes(max_threads);
  sub->add_flag("--json", o.json, "Print one JSON object (stable interface)");
  sub->add_flag("--trace", o.trace, "Include every evaluation in the JSON output");
  auto* quiet = sub->add_flag("--quiet", o.quiet, "No header, configuration lines, progress line or warnings on stderr");
  auto* verbose = sub->add_flag("--verbose", o.verbose,
                "One line per evaluated configuration on stderr in simulated runs too (live runs show them unless "
                "--quiet)");
  // Live tuning (a T1 file with a KernelSpecification, no --simulate): overrides of the file's settings.
  sub->add_option("--backend", o.request.live.backend, "Live: the backend (cpp, opencl, cuda) instead of the file's language");
  sub->add_option("--iterations", o.request.live.iterations,
                  "Live: timed launches per configuration after one warm-up: a number, or auto (the default unless the "
                  "T1 file sets Iterations: 3 to 31 runs, until the 95% interval is within 2% or the configuration is "
                  "clearly slower than the best; auto:min=3,max=31,precision=0.02,reject=1)")
      ->check(repetition_text());
  sub->add_option("--statistic", o.request.live.statistic, "Live: the time objective over the launches: mean, median or min");
  sub->add_option("--timeout", o.request.live.timeout_seconds, "Live: seconds per configuration (compile + verify + benchmark)")
      ->check(real_number(0, 1e9, true));
  sub->add_option("--platform", o.request.live.platform, "Live: OpenCL platform index")->check(whole_number(0, 1'000'000));
  sub->add_option("--device", o.request.live.device, "Live: device index (OpenCL device within the platform, CUDA ordinal)")
      ->check(whole_number(0, 1'000'000));
  sub->add_option("--compiler", o.request.live.compiler, "Live, cpp backend: the compiler command (default $CXX or c++)");
  sub->add_flag("--no-verify", o.no_verify, "Live: skip verification against the reference");
  sub->add_option("--devices", o.devices,
                  "Live: measure on several devices at once, one worker each: device indices (0,1,3) or all; the "
                  "strategy's batches are spread over them, results as with one device");
  sub->add_flag("--mixed-devices", o.request.live.mixed_devices,
                "Live: pool the results of --devices of different models (refused otherwise)");
  sub->add_option("--pending", o.request.pending_evaluations,
                  "A constant liar: a strategy that asks one configuration at a time gets an estimate for up to this "
                  "many new ones while they are measured (on several devices, or ranks), and goes on; 0: none")
      ->capture_default_str()
      ->check(whole_number(0, 1'000'000));
  sub->add_option("--rank-timeout", o.rank_timeout,
                  "Under mpirun: seconds of silence after which a measuring rank is taken for dead (its "
                  "configuration goes to another rank)")
      ->capture_default_str()
      ->check(real_number(0, 1e9, true));
  sub->add_option("--compile-workers", o.request.live.compile_workers,
                  "Live: processes that compile the strategy's next configurations while one is measured (on a CPU "
                  "device pinned to other cores than the measurement); 0: none")
      ->capture_default_str()
      ->check(whole_number(0, 1024));
  sub->add_option("--observer", o.request.live.observers,
                  "Live: also observe energy and power: powercap (Linux RAPL, CPU) or nvml (NVIDIA GPU); repeatable. "
                  "Skipped with a note where the machine does not expose them")
      ->check(CLI::IsMember(live::observer_names()));
  sub->add_flag("--isolate", o.request.isolate_strategy,
                "Run the strategy in a worker process: a crash, hang or exception (an untrusted plug-in) ends the run "
                "with what was evaluated");
  sub->add_option("--isolate-limit", o.request.isolation_seconds,
                  "With --isolate: seconds of the strategy's own time before it is stopped")
      ->capture_default_str()
      ->check(real_number(0, 1e9, true));
  sub->add_flag("--in-process", o.in_process,
                "Live: run kernels in this process (debugging; a crash ends the run and timeouts are not enforced)");
  quiet->excludes(verbose);
}

}  // namespace ktune::cli
