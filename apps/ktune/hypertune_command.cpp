// `ktune hypertune`: tunes the hyperparameters of a strategy ("tuning the tuner"). Every setting is scored by the
// methodology on brute-forced training spaces in simulation; a meta-strategy (brute force, or any other strategy)
// searches the settings through the ordinary tuning loop, and the results are a Kernel Tuner cache with the
// objective `score`, resumable and itself usable as a space for `ktune compare`.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "number_options.hpp"
#include "progress_line.hpp"
#include "ktune/jobs/hypertuning.hpp"
#include "ktune/methodology/hyperparameter_space.hpp"
#include "ktune/tuning/interruption.hpp"

namespace ktune::cli {
namespace {

struct HypertuneOptions {
  HypertuneRequest request;
  std::optional<std::uint64_t> budget;
  std::optional<double> time_limit;
  bool json = false, quiet = false;
  std::size_t top = 10;
};

// Settings scored / settings to score, elapsed and estimated time left, best score so far (see ProgressLine).
class Progress final : public TuningListener {
 public:
  Progress(std::size_t total, bool enabled) : total_(total), line_(enabled) {}
  void on_evaluation(const CostFunction& cost, std::size_t) override {
    const auto best = cost.trace().best();
    line_.show(fmt::format("  hypertune: {}, {}", line_.count_text(cost.evaluations(), total_, "settings"),
                           best ? fmt::format("best score {:.4f}", cost.trace().values(*best).front())
                                : std::string("no score yet")),
               cost.evaluations() == total_);
  }
  void finish() { line_.finish(); }

 private:
  std::size_t total_;
  ProgressLine line_;
};

int run_hypertune(HypertuneOptions& o) {
  o.request.budget.max_evaluations = o.budget;
  o.request.budget.time_limit_seconds = o.time_limit;
  // Under mpirun every setting's runs are dealt over the ranks and every rank scores them, so that every rank's
  // meta-strategy chooses the same next setting. Rank 0 writes the scores' cache and prints; the others keep a private
  // copy of the cache (read for resuming, appended like rank 0's), removed at the end.
  const parallel::MpiSession& mpi = mpi_session();
  std::string private_cache;
  if (mpi.active()) {
    if (o.time_limit || o.request.isolate) {
      if (mpi.rank() == 0)
        std::cerr << "ktune hypertune: error: under mpirun, --time-limit (ranks would stop at different settings) and "
                     "--isolate are not supported\n";
      return kExitUsage;
    }
    o.request.partition = parallel::mpi_run_partition(mpi, /*every_rank_scores=*/true);
    if (mpi.rank() != 0) {
      o.quiet = true;
      if (!o.request.output_path.empty()) {
        private_cache = fmt::format("{}.rank{}", o.request.output_path, mpi.rank());
        std::error_code ec;
        std::filesystem::remove(private_cache, ec);
        if (std::filesystem::exists(o.request.output_path))
          std::filesystem::copy_file(o.request.output_path, private_cache, ec);
        o.request.output_path = private_cache;
      }
      // Its report is rank 0's; should /dev/null not open, it is shown twice, which is harmless (returning here
      // would leave the other ranks at the barrier).
      if (!std::freopen("/dev/null", "w", stdout)) std::cerr << "ktune hypertune: rank output not silenced\n";
    }
    mpi.barrier();  // every copy is taken before rank 0 appends
  }
  const struct RemovePrivateCache {
    const std::string& path;
    ~RemovePrivateCache() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove(path, ec);
    }
  } remove_private_cache{private_cache};
  o.request.on_message = [&o](JobMessageLevel level, const std::string& text) {
    if (!o.quiet || level == JobMessageLevel::loss) std::cerr << "ktune hypertune: " << text << "\n";
  };
  std::optional<Hypertuning> job;
  try {
    job.emplace(o.request);
  } catch (const JobError& e) {
    std::cerr << "ktune hypertune: error: " << e.what() << "\n";
    return e.kind() == JobError::Kind::request ? kExitUsage : kExitInputError;
  }
  Progress progress(job->settings_to_score(), !o.quiet);
  const HypertuneOutcome out = job->run({&progress});
  progress.finish();
  const int exit_status = out.interrupted ? interrupted_exit_status(stop_signal()) : kExitOk;
  if (out.interrupted && !o.quiet)
    std::cerr << fmt::format("ktune hypertune: interrupted after {} settings scored{}\n", out.result.evaluations,
                             o.request.output_path.empty()
                                 ? ""
                                 : fmt::format("; {} resumes the run", o.request.output_path));
  if (o.json)
    std::cout << hypertune_report_json(*job, out).dump(2) << "\n";
  else
    write_hypertune_report(std::cout, *job, out, o.top);
  if (!out.figures.empty() && !o.json) std::cout << "figures: " << out.figures << "\n";
  const auto why = out.figures_error.empty() ? nothing_scored(out) : out.figures_error;
  if (why) {  // a run that scored nothing is no result, and figures that could not be written are lost output
    std::cerr << "ktune hypertune: error: " << *why << "\n";
    return kExitInputError;
  }
  return exit_status;
}

}  // namespace

Command add_hypertune_command(CLI::App& app) {
  auto o = std::make_shared<HypertuneOptions>();
  CLI::App* sub = app.add_subcommand(
      "hypertune", "Tune the hyperparameters of a strategy by its methodology score on brute-forced training spaces");
  sub->add_option("--strategy", o->request.strategy, "The strategy whose hyperparameters are tuned")->required();
  sub->add_option("--hyperspace", o->request.hyperspace_path,
                  "T1 file over the hyperparameters (default: a grid around the declared defaults)");
  sub->add_option("--spaces", o->request.spaces, "Brute-forced training spaces (Kernel Tuner cache or T4 files)")->required();
  sub->add_option("--test-spaces", o->request.test_spaces,
                  "Re-score the best, median and worst settings and the defaults on these spaces");
  sub->add_option("--meta-strategy", o->request.meta_strategy, "Strategy that searches the settings")->capture_default_str();
  sub->add_option("--meta-set", o->request.meta_settings, "Meta-strategy hyperparameter name=value (repeatable)");
  sub->add_option("--repeats", o->request.repeats, "Runs per setting and space")
      ->capture_default_str()
      ->check(whole_number(1, 1'000'000));
  sub->add_option("--budget,--max-fevals", o->budget, "Score at most this many settings")->check(whole_number(1));
  sub->add_option("--time-limit", o->time_limit, "Stop after this many seconds (wall clock)")
      ->check(real_number(0, 1e12, true));
  sub->add_option("--seed", o->request.seed, "Seed of the runs and of the meta-strategy")
      ->capture_default_str()
      ->check(seed_number());
  sub->add_option("--threads", o->request.threads, "Threads (0: all cores)")->capture_default_str()->check(thread_count());
  add_baseline_option(sub, o->request.baseline);
  sub->add_option("--output", o->request.output_path,
                  "Kernel Tuner cache of the scores (objective score): resumed if present, appended per setting");
  sub->add_option("--top", o->top, "Settings listed in the table")->capture_default_str()->check(whole_number(0, kLargeCount));
  sub->add_option("--cv", o->request.cross_validation,
                  "Cross-validate the selection: leave one GPU out (gpu), one kernel out (kernel), or K folds; "
                  "reports the held-out score of the chosen setting per fold");
  sub->add_option("--confirm", o->request.confirm,
                  "Re-score this many of the best settings and the defaults with fresh seeds (and the best of them on "
                  "the test spaces) before recommending one")
      ->check(whole_number(0, 1'000'000));
  sub->add_option("--confirm-seeds", o->request.confirm_seeds, "Fresh seeds for --confirm")->capture_default_str()
      ->check(whole_number(1, 10'000));
  sub->add_option("--defaults", o->request.reference,
                  "The settings to beat, as a strategy label (name:key=value,...; default: the strategy's defaults)");
  sub->add_flag("--isolate", o->request.isolate,
                "Run each strategy run in a worker process: one that crashes, hangs or throws loses that run");
  sub->add_option("--isolate-limit", o->request.isolation_seconds,
                  "With --isolate: seconds of a run's strategy time before it is stopped")
      ->capture_default_str()
      ->check(real_number(0, 1e9, true));
  sub->add_flag("--charge-strategy-time", o->request.charge_strategy_time,
                "Advance each run's clock by its strategy's own time too, as live (not reproducible exactly)");
  sub->add_option("--objectives", o->request.objectives,
                  "Two or more objectives NAME[:min|:max] (comma-separated or repeated): a multi-objective strategy's "
                  "settings are scored by their improvement of IGD+ over random search")
      ->delimiter(',');
  sub->add_option("--evaluations", o->request.evaluations, "With --objectives: evaluations per run")
      ->capture_default_str()
      ->check(whole_number(1));
  sub->add_option("--checkpoints", o->request.checkpoints,
                  "With --objectives: evaluation counts whose improvements are averaged (default 50 100 150 200)")
      ->check(whole_number(1));
  sub->add_option("--plot", o->request.plot_dir,
                  "Write SVG figures (the distribution of the settings' scores, the score by each hyperparameter) and "
                  "an index.html into this directory");
  sub->add_flag("--json", o->json, "Print one JSON object (stable interface)");
  sub->add_flag("--quiet", o->quiet, "No progress line or warnings");
  return {sub, [o] { return run_hypertune(*o); }};
}

}  // namespace ktune::cli
