#pragma once
// One tuning run as a job: the rules of `ktune tune`, callable from C++ (and the Python module).
//
//   TuneRequest request;
//   request.simulate_path = "A100_T4.json.gz";          // or problem_path = a T1 file to tune live
//   request.strategy = "genetic_algorithm";
//   request.budget.max_evaluations = 100;
//   TuneJob job(std::move(request));                     // opens and checks everything; throws JobError
//   TuneOutcome outcome = job.run();                     // Ctrl-C ends it early: stop_reason == interrupted
//   nlohmann::json report = tune_report_json(job, outcome, /*with_trace=*/false);
//
// The job resolves the objectives and their directions (the request's, else the T1 file's, else the results file's,
// else time), builds the search space (with Kernel Tuner's implicit block-size limit: the request's, else the live
// device's, else 1024), opens the live backend or the simulation, resumes from a cache file and appends to it, and
// turns the trace into records (resumed results keep the records of the cache).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/evaluation_record.hpp"
#include "ktune/jobs/job_error.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/objective.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"

namespace ktune {

// Overrides of a T1 file's KernelSpecification for a live run.
struct LiveOverrides {
  std::optional<std::string> backend;    // cpp, opencl, cuda
  std::optional<std::string> statistic;  // mean, median, min
  std::optional<std::string> compiler;   // cpp backend
  std::optional<int> platform, device;
  // Timed runs per configuration: a number, "auto" or "auto:min=..,max=..,precision=..,reject=.." (ktune/repetition.hpp).
  std::optional<std::string> iterations;
  std::optional<double> timeout_seconds;
  bool verify = true;
  bool isolate = true;                 // kernels in a worker process (crashes and hangs cost one configuration)
  std::vector<std::string> observers;  // powercap, nvml
  // Compile workers beside the measuring one (LiveEvaluatorOptions::compile_workers): the strategy's batches are
  // compiled ahead on spare cores. 0: none. CPU devices measure on all cores, so none is the default everywhere; a
  // backend that cannot compile apart from measuring ignores it.
  std::size_t compile_workers = 0;
  // Several devices measuring at once (ConcurrentEvaluator): device indices as `device` takes them, one measuring
  // worker each; `all_devices`: every device of the platform. Empty and false: the one `device`. Devices of
  // different models are refused unless `mixed_devices` (their results would be pooled).
  std::vector<int> devices;
  bool all_devices = false;
  bool mixed_devices = false;
};

// A device that measures somewhere else (another MPI rank: parallel/mpi_tuning.hpp) behind an Evaluator.
struct RemoteDevice {
  std::string where;  // "rank 1", for reports
  std::unique_ptr<Evaluator> evaluator;
};

struct TuneRequest {
  std::string problem_path;   // T1, ktune JSON or Kernel Tuner cache; a live run needs a T1 file with a kernel
  std::string simulate_path;  // a brute-forced Kernel Tuner cache or T4 file to replay; empty: a live run
  // The problem and the kernel in memory instead of files (the Python module, C++ programs): `problem` replaces
  // problem_path; a live run with `problem` and `kernel` needs no T1 file.
  std::optional<Problem> problem;
  std::optional<live::KernelSpecification> kernel;
  std::string strategy;  // empty: default_strategy(budget), i.e. auto with a budget, else brute_force
  std::vector<std::string> settings;  // strategy hyperparameters, name=value
  // A strategy object of the caller's (a Python strategy object) run instead of a registered one: `strategy` then
  // only names it in reports, and it takes no settings. It cannot be isolated (it lives in the caller's process).
  std::shared_ptr<Strategy> strategy_object;
  Budget budget;
  std::uint64_t seed = 0;
  std::vector<std::string> objectives;  // NAME[:min|:max], comma-separated or one per element
  std::optional<bool> maximize;         // the direction of every objective named without one (default: by name)
  std::string scalarize;                // several objectives, one-objective strategy: lexicographic, weighted_sum:W,..
  std::vector<std::string> derived;     // simulation: NAME=EXPRESSION measurements
  // Constraints (Python syntax, as in a T1 file) added to the problem's: a live run tunes fewer configurations, a
  // simulation replays only the recorded configurations that satisfy them (Kernel Tuner's tune_cache restrictions).
  std::vector<std::string> restrictions;
  // A restriction as code (a Python callable, a C++ lambda): a configuration, its values in the order of the
  // problem's parameters, stays in the space when it returns true. Applied after the expression restrictions, once
  // per configuration while the space is built; what it throws refuses the input with its message.
  std::function<bool(const Problem& problem, const std::vector<Value>& values)> keep;
  bool charge_strategy_time = false;
  // A constant liar (CostFunctionOptions::pending_evaluations): with several devices, a strategy that asks one
  // configuration at a time keeps up to this many measuring at once. 0: none.
  std::size_t pending_evaluations = 0;
  std::optional<std::int64_t> max_threads;  // the implicit block-size limit
  bool implicit_block_constraint = true;
  std::string cache_path;  // resumed if it exists, appended to per result
  // Resume a cache recorded for another device, problem size or kernel build (refused otherwise, naming the field
  // and both values, as Kernel Tuner refuses).
  bool reuse_cache = false;
  // A results store (store/results_store.hpp, docs/store.md), created if absent: the results it holds for this
  // kernel, device, problem size and build are resumed as a cache's are (reuse_cache: those of any device, size and
  // build), and every new result is added as it is measured. Empty: none.
  std::string store_path;
  // Transfer (docs/transfer.md): results of this kernel measured elsewhere (other devices, problem sizes): Kernel
  // Tuner caches, T4 files, results stores. The strategy (a registered one, auto by default) then runs as a transfer
  // search (tuning/transfer_search.hpp) that starts from them. Single objective only.
  std::vector<std::string> transfer;
  std::vector<std::string> transfer_settings;  // name=value (TransferSettings)
  // Configurations evaluated first, in this order, before the strategy runs (Kernel Tuner's strategy option x0, the
  // user's starting point). Each must be a configuration of the space (refused otherwise, naming it); the strategy
  // then finds it measured, so strategies that build on the best so far (local searches, auto's second stage, the
  // transfer search) take it into account at no cost.
  struct StartConfiguration {
    std::vector<std::string> names;  // the parameters the values are of, each once; empty: the problem's order
    std::vector<Value> values;
  };
  std::vector<StartConfiguration> start;
  // Results resumed from the cache count toward max_evaluations and the fraction, as Kernel Tuner counts cached
  // configurations: rerunning a finished command measures nothing. False: the budget is for new measurements.
  bool budget_counts_resumed = true;
  // Outputs written by write_outputs() at the end (T4 results, CSV of every evaluation). They, and the cache, are
  // checked before anything is measured: missing folders are created, an unwritable place or an output that names
  // an input or another output is refused at once.
  std::string output_path, csv_path;
  // A wisdom file (runtime/wisdom.hpp, docs/integration.md), created if absent: write_outputs() adds the winner for
  // this kernel, device (as the backend reports it) and problem size, replacing an older entry of the same. The
  // kernel is declared with its parameters and, as its default, the T1 ReferenceConfiguration if there is one. One
  // objective only. Empty: none.
  std::string wisdom_path;
  // The strategy in a worker process (IsolatedStrategy) with this limit on its own time: a crash, hang or exception
  // ends the run with stop reason "strategy failed" and keeps what was evaluated.
  bool isolate_strategy = false;
  double isolation_seconds = 300;
  // A confirmed winner (live runs, objective time): after the search, the best `confirm_top` configurations are
  // timed again, interleaved so that drift hits all alike, and the winner is the best of that (docs/live-tuning.md).
  std::size_t confirm_top = 0;
  // Learned failure avoidance (tuning/failure_model.hpp, docs/live-tuning.md): opt-in, since its gain is modest
  // (6-32% fewer failing evaluations on spaces where 40-55% fail) and not free for every strategy. Not with
  // brute_force, which must measure everything.
  bool avoid_failures = false;
  // The live view (report/report_server.hpp): a page on http://127.0.0.1:PORT/ (0: any free port; the job says which
  // in a note) that shows the run as it goes, served while the run lasts. nullopt: none.
  std::optional<int> dashboard_port;
  LiveOverrides live;
  // A live run measured elsewhere: called once the space is built, it returns the devices (at least one) that the
  // run spreads its evaluations over (ConcurrentEvaluator), instead of opening the backend here.
  std::function<std::vector<RemoteDevice>(const SearchSpace& space, const std::vector<Objective>& objectives)>
      remote_devices;
  // Only open the space and the live evaluator, to measure for another process (an MPI rank): no cache is opened and
  // run() is refused; measuring_evaluator() measures.
  bool measure_only = false;
  // Notes and warnings on the way (an observer not available, a results file cut short, a cache that stopped being
  // written); the run goes on. The text is "warning: ..." or "note: ...".
  std::function<void(JobMessageLevel, const std::string&)> on_message;
};

// One of the configurations timed again at the end (TuneRequest::confirm_top).
struct ConfirmedConfiguration {
  std::size_t position = 0;  // its trace position
  RunSummary summary;        // of the confirmation's runs alone
  bool winner = false;
  bool tied = false;         // statistically tied with the winner (the 95% intervals overlap); the winner too
  std::string failure;       // not "": it failed this time (why), and is not ranked
};

struct TuneOutcome {
  explicit TuneOutcome(TuningResult r) : result(std::move(r)) {}
  TuningResult result;
  std::vector<EvaluationRecord> records;  // one per trace position
  std::optional<std::size_t> best;        // trace position of the best result
  std::vector<std::size_t> pareto_front;  // several objectives: trace positions, ascending in the first objective
  std::size_t resumed = 0;                // results taken from the cache file
  bool budget_counts_resumed = true;      // they counted toward the evaluation budget
  bool cache_failed = false;              // the cache stopped being written (said as a loss; it resumes as it is)
  bool store_failed = false;              // the results store stopped being written (said as a loss)
  std::vector<std::string> transfer_sources;  // the sources the run started from (request.transfer that matched)
  std::size_t failures = 0;               // evaluations that did not end ok
  // TuneRequest::confirm_top: the configurations timed again, the winner first, then by their confirmed time. The
  // winner is `best` from then on.
  std::vector<ConfirmedConfiguration> confirmed;
};

class TuneJob {
 public:
  explicit TuneJob(TuneRequest request);
  ~TuneJob();
  TuneJob(const TuneJob&) = delete;
  TuneJob& operator=(const TuneJob&) = delete;

  // Runs the strategy until its budget ends, it finishes, or a stop is requested (request_stop(), Ctrl-C).
  // `listeners` see every evaluation (a console, a progress bar). Once per job.
  TuneOutcome run(const std::vector<TuningListener*>& listeners = {});

  const TuneRequest& request() const;
  const SearchSpace& space() const;
  const std::vector<Objective>& objectives() const;
  const Scalarization& scalarization() const;
  const Evaluator& evaluator() const;
  // The evaluator of a measure_only job (throws std::logic_error for another job).
  Evaluator& measuring_evaluator();
  bool live() const;
  // "live on DEVICE (BACKEND backend)" or "simulated from FILE (DEVICE)".
  std::string description() const;
  // The transfer sources the strategy starts from (request.transfer's that are of this kernel); empty: none.
  const std::vector<std::string>& transfer_sources() const;
  // The strategy's hyperparameters, defaults filled in.
  std::vector<std::pair<std::string, Value>> hyperparameters() const;
  // T4 results (`path`) and CSV of every evaluation, each written atomically (io/output_file.hpp); throw
  // io::InputError when the file cannot be written (the previous file is then unchanged).
  void write_t4(const std::string& path, const TuneOutcome& outcome) const;
  void write_csv(const std::string& path, const TuneOutcome& outcome) const;
  // Adds the winner to the wisdom file `path` (request.wisdom_path), written atomically; throws io::InputError
  // naming the file (a run without a successful result or a problem size, a wisdom file that is not one).
  void write_wisdom(const std::string& path, const TuneOutcome& outcome) const;
  // The request's output_path, csv_path and wisdom_path: each is attempted whatever happened to the other. Returns why each
  // failed one failed (empty: all written).
  std::vector<std::string> write_outputs(const TuneOutcome& outcome) const;

  struct State;

 private:
  friend nlohmann::json tune_report_json(const TuneJob& job, const TuneOutcome& outcome, bool with_trace);
  std::unique_ptr<State> state_;
};

// The stable `ktune tune --json` object: best, Pareto front, counts, statuses, objectives, settings, simulation or
// live details, and every evaluation when `with_trace`.
nlohmann::json tune_report_json(const TuneJob& job, const TuneOutcome& outcome, bool with_trace);

// What `ktune tune` prints: where it ran, the counts, the best configuration and its measurements, the Pareto front.
void write_tune_summary(std::ostream& out, const TuneJob& job, const TuneOutcome& outcome);

}  // namespace ktune
