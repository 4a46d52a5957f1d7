#pragma once
// Live evaluation: each configuration is planned (defines, geometry), compiled, verified against a reference, run
// once to warm up and `iterations` times timed on a real backend. Failures cost that one configuration: compile
// errors (log kept), launch errors, wrong output, timeouts and crashes become statuses and tuning goes on.
//
// Isolation (the default): the backend lives in a worker process, forked before the backend is created, so a kernel
// that segfaults kills only the worker and one that never ends is SIGKILLed at the spec's timeout; a fresh worker
// is started for the next configuration. Without isolation everything runs in this process: faster to debug, but a
// crash ends the run and a timeout cannot be enforced (a hanging kernel hangs the tuner).
//
// Times (ms): compile_ms and verification_ms as measured around the backend calls, benchmark_ms around the warm-up
// and timed launches, runtimes_ms as the backend reports each launch; framework_ms is the rest of evaluate()'s wall
// time (planning, the worker round trips, comparing outputs, metrics, bookkeeping).
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "ktune/live/backend.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/live/launch_planner.hpp"
#include "ktune/live/observer.hpp"
#include "ktune/problem.hpp"
#include "ktune/tuning/evaluator.hpp"

namespace ktune {
class SearchSpace;
}

namespace ktune::live {

namespace detail {
struct Prebuilt;
class KernelRunner;
class WorkerProcess;
struct RunRequest;
struct WorkerReply;
class LaunchEvents;
}  // namespace detail

struct LiveEvaluatorOptions {
  // Measurements to optimise: "time", a metric, an accuracy measure, "compile_time". Empty: {time, minimised}.
  std::vector<Objective> objectives;
  bool isolate = true;
  // Creates the backend (in the worker when isolated). Empty: make_backend(spec.backend, spec.backend_options).
  std::function<std::unique_ptr<Backend>()> backend_factory;
  // Observers by name ("powercap", "nvml"): one that cannot observe on this machine is left out with a note
  // (observer_notes()); its measurements then do not exist (an objective on them is an error).
  std::vector<std::string> observers = {};
  ObserverOptions observer_options = {};  // its device is taken from the spec's backend options
  // What an isolated worker wrote to stdout/stderr while running a configuration (kernel printf, driver warnings),
  // with that configuration ("block_size_x=128, tile=2"). Empty: each line goes to stderr as
  // "[block_size_x=128, tile=2] line".
  std::function<void(const std::string& configuration, const std::string& output)> on_worker_output = {};
  // Compile workers (isolated runs of a backend that can compile apart from measuring, Backend::supports_prebuild):
  // the configurations a strategy announces (Evaluator::prepare, its batches) are compiled by this many processes
  // while the measuring worker measures. On a CPU device (the cpp backend) the measuring worker and the compile
  // workers are pinned to disjoint cores. 0: compile where measured, one configuration after the other.
  std::size_t compile_workers = 0;
};

// The device `spec` names, as its backend reports it, before any space is built: Kernel Tuner takes the block-size
// limit of the implicit constraint from the device. The backend starts in a short-lived worker process when
// `isolate` (so no driver state is left in this process before the evaluator forks its own worker). Throws as the
// LiveEvaluator's constructor does for an unavailable backend, and Interrupted.
DeviceInfo probe_device(const KernelSpecification& spec, bool isolate = true,
                        const std::function<std::unique_ptr<Backend>()>& backend_factory = {});

class LiveEvaluator final : public Evaluator {
 public:
  // Validates the spec, makes the arguments, loads the source, reads reference files, starts the backend (a worker
  // process when isolated) and, for a reference configuration, runs it once for the expected outputs. Throws
  // BackendUnavailable when the backend cannot run here, std::invalid_argument / io::InputError for a bad spec, and
  // std::runtime_error when the reference configuration fails (naming it and why). `problem`, `space` must outlive it.
  LiveEvaluator(const Problem& problem, const SearchSpace& space, KernelSpecification spec,
                LiveEvaluatorOptions options = {});
  ~LiveEvaluator() override;
  LiveEvaluator(const LiveEvaluator&) = delete;
  LiveEvaluator& operator=(const LiveEvaluator&) = delete;

  const std::vector<Objective>& objectives() const override { return objectives_; }
  bool simulated() const override { return false; }
  EvaluationOutcome evaluate(std::size_t index) override;
  // Times configuration `index` again (a confirmation): compiled afresh, one warm-up, `runs` timed runs, no
  // verification (it passed when it was evaluated), nothing recorded. Empty when it fails this time (why in `why`).
  std::vector<double> time_again(std::size_t index, int runs, std::string* why = nullptr);
  void prepare(std::span<const std::size_t> upcoming) override;
  bool wants_prepare() const override { return compile_workers() > 0; }
  EvaluationRecord record(std::size_t index) const override;
  std::string device_name() const override { return device_info_.name; }
  std::string kernel_name() const override { return spec_.kernel_name; }

  const DeviceInfo& device_info() const { return device_info_; }
  const KernelSpecification& specification() const { return spec_; }
  // Worker processes started so far (1 after construction when isolated; +1 after each timeout or crash).
  std::size_t workers_started() const { return workers_started_; }
  // Compile workers at work (0 when compiling where measured: none asked, not isolated, or a backend that cannot);
  // configurations measured from a compile worker's build.
  std::size_t compile_workers() const;
  std::size_t prebuilt_configurations() const { return prebuilt_count_; }
  // The observers observing, and why each of the others cannot ("powercap: no /sys/class/powercap ...").
  const std::vector<std::string>& observers() const { return observers_; }
  const std::vector<std::string>& observer_notes() const { return observer_notes_; }
  // The repetition in force (the spec's, fixed when observers need it) and why it differs from the spec's, or "".
  const RepetitionPolicy& repetition() const { return spec_.repetition; }
  const std::string& repetition_note() const { return repetition_note_; }

 private:
  using Clock = std::chrono::steady_clock;
  void start_backend(Clock::time_point deadline);
  Clock::time_point setup_deadline() const;
  detail::WorkerReply run(const detail::RunRequest& request, Clock::time_point deadline,
                          detail::LaunchEvents* events = nullptr);
  void run_reference_configuration();
  // `prepared`: the compile part of the request made by prepare() (the caller's code generated once); `prebuilt`:
  // a compile worker's build of it.
  EvaluationRecord evaluate_config(const std::vector<Value>& config, const detail::RunRequest* prepared = nullptr,
                                   const detail::Prebuilt* prebuilt = nullptr);
  void top_up_compiles();
  void show_worker_output(const std::vector<Value>& config, const std::string& output) const;
  // "" when the outputs are correct, else why not; fills `measurements` with the accuracy measures.
  std::string check_outputs(const std::vector<std::vector<std::byte>>& outputs,
                            std::map<std::string, double, std::less<>>& measurements) const;

  const Problem& problem_;
  const SearchSpace& space_;
  KernelSpecification spec_;
  std::vector<Objective> objectives_;
  bool isolate_;
  std::function<std::unique_ptr<Backend>()> factory_;
  LaunchPlanner planner_;
  std::vector<KernelArgument> arguments_;
  KernelSource source_;
  DeviceInfo device_info_;
  std::unique_ptr<detail::WorkerProcess> worker_;
  std::unique_ptr<detail::KernelRunner> in_process_;
  std::size_t workers_started_ = 0;
  // Worker restarts that failed in a row; this many end the run (each one before cost its configuration).
  static constexpr std::size_t kWorkerRestarts = 3;
  std::size_t failed_restarts_ = 0;
  std::vector<std::string> observers_, observer_notes_;
  std::string repetition_note_;            // why the repetition is not what the spec asked, or ""
  bool reject_on_time_ = false;            // early rejection applies (the one objective is the time, minimised)
  std::optional<RunSummary> best_time_;    // the fastest configuration's runs so far
  TypicalSpread typical_spread_;           // the scatter of the configurations' runs so far
  ObserverOptions observer_options_;
  std::function<void(const std::string&, const std::string&)> on_worker_output_;

  // Verification: the arguments read back after the check run, their expected contents (reference), tolerances.
  bool verify_ = false;
  std::vector<std::uint32_t> read_back_;
  std::vector<std::optional<KernelArgument>> expected_;  // per read_back_ entry; empty: not compared
  std::vector<bool> tolerance_check_;                    // per read_back_ entry; false when an accuracy measure replaces it
  std::vector<std::size_t> accuracy_position_;           // per spec_.accuracy entry: its read_back_ position

  struct Pipeline;  // the compile workers and what was announced to them (live_evaluator.cpp)
  std::unique_ptr<Pipeline> pipeline_;
  std::vector<int> measuring_cpus_;  // the measuring worker's cores (empty: not pinned)
  std::size_t prebuilt_count_ = 0;

  std::unordered_map<std::size_t, EvaluationRecord> records_;
  std::vector<double> values_;  // objective values of the last evaluate()
  std::map<std::string, double, std::less<>> measurements_;  // of the last evaluate(): metrics' inputs, objectives
};

}  // namespace ktune::live
