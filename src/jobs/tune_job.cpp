#include "ktune/jobs/tune_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <unordered_map>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/expr/errors.hpp"
#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"
#include "ktune/io/derived_measurements.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/problem_file.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/output_file.hpp"
#include "ktune/io/t4_results.hpp"
#include "ktune/io/results_csv.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/jobs/cache_recorder.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/live/launch_planner.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/tuning/repetition_replay.hpp"
#include "ktune/multiobjective/trace_front.hpp"
#include "ktune/runtime/wisdom.hpp"
#include "ktune/store/store_recorder.hpp"
#include "ktune/tuning/concurrent_evaluator.hpp"
#include "ktune/tuning/console_reporter.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/tuning/isolated_strategy.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/tuning/isolated_plugins.hpp"
#include "ktune/report/live_run.hpp"
#include "ktune/report/report_server.hpp"
#include "ktune/tuning/recorded_evaluation.hpp"
#include "ktune/tuning/strategy_plugins.hpp"
#include "ktune/tuning/transfer_search.hpp"
#include "ktune/tuning/transfer_sources.hpp"
#include "ktune/version.hpp"

namespace ktune {

struct TuneJob::State {
  TuneRequest request;
  std::vector<std::pair<std::string, Value>> settings;
  std::unique_ptr<Strategy> strategy;
  std::vector<Objective> objectives;
  std::vector<std::string> names;  // of the objectives
  Scalarization scalarization;
  std::optional<Problem> problem;
  std::shared_ptr<io::ResultsFile> results;
  std::optional<live::KernelSpecification> spec;
  std::optional<SearchSpace> space;
  std::unique_ptr<Evaluator> evaluator;
  std::unique_ptr<Evaluator> recording;  // the simulation a RepetitionReplay evaluator replays, when there is one
  SimulationEvaluator* simulation = nullptr;
  live::LiveEvaluator* live_evaluator = nullptr;
  nlohmann::json problem_size = nullptr;
  std::unique_ptr<io::KernelTunerCacheWriter> cache;
  // The results store (request.store_path): this run's space in it, and its session.
  std::unique_ptr<store::ResultsStore> store;
  store::SpaceOrigin store_origin;
  std::int64_t store_session = 0;
  std::vector<std::string> transfer_sources;  // names of the sources the strategy starts from
  std::shared_ptr<const TransferPrior> transfer_prior;  // --transfer: what the sources say (null: none)
  std::vector<std::size_t> start;  // request.start as configuration indices
  bool ran = false;

  void confirm(TuneOutcome& out);
  // What the first device's evaluator says of itself: observers it could not open, a repetition that differs from
  // the one asked for explicitly.
  void say_live_notes(const live::LiveEvaluator& e) const {
    for (const auto& note : e.observer_notes()) say(JobMessageLevel::note, "note: not observing " + note);
    if (!e.repetition_note().empty() && request.live.iterations) say(JobMessageLevel::note, "note: " + e.repetition_note());
  }
  void say(JobMessageLevel level, const std::string& text) const {
    if (request.on_message) request.on_message(level, text);
  }
  bool live() const { return request.simulate_path.empty(); }
  // What error messages name as the input: the problem file, else the results file, else the problem in memory.
  std::string input_path() const {
    if (!request.problem_path.empty()) return request.problem_path;
    if (!request.simulate_path.empty()) return request.simulate_path;
    return request.problem ? fmt::format("problem '{}'", request.problem->name) : std::string("the problem");
  }

  void open_strategy();
  void open_inputs();
  void apply_live_overrides();
  void resolve_objectives();
  void derive_measurements();
  void build_space_and_evaluator();
  void open_live_devices();
  void open_cache();
  void open_store();
  void open_transfer();
  void open_start();
  void check_outputs() const;

  // The device the spec names, probed once in a short-lived worker (its block-size limit, how many there are).
  std::optional<live::DeviceInfo> probed;
  const live::DeviceInfo& probe() {
    if (!probed) probed = live::probe_device(*spec, request.live.isolate);
    return *probed;
  }
  // Several devices: their evaluators behind one, and their indices (empty: one device).
  ConcurrentEvaluator* concurrent = nullptr;
  std::vector<std::string> device_labels;  // "device 1", "rank 2"
  // The devices (labelled in device_labels) behind one ConcurrentEvaluator. A lost device is a loss of capacity,
  // not of results: said as a warning, the run goes on.
  void measure_on(std::vector<std::unique_ptr<Evaluator>> devices) {
    auto c = std::make_unique<ConcurrentEvaluator>(std::move(devices), [this](std::size_t d, const std::string& why) {
      say(JobMessageLevel::warning, fmt::format("warning: {} lost ({}); what it was measuring goes to the others",
                                                device_labels.at(d), why));
    });
    concurrent = c.get();
    evaluator = std::move(c);
  }
  std::vector<int> device_indices;
  bool stopped_while_starting = false;  // a stop request came while the live evaluator started
};

namespace {

// Stands in for a live evaluator that a stop request ended while it started: nothing is measured with it (the cost
// function sees the stop before asking it).
class NothingMeasured final : public Evaluator {
 public:
  NothingMeasured(std::vector<Objective> objectives, std::string device)
      : objectives_(std::move(objectives)), device_(std::move(device)) {}
  const std::vector<Objective>& objectives() const override { return objectives_; }
  bool simulated() const override { return false; }
  EvaluationOutcome evaluate(std::size_t) override { throw Interrupted(); }
  EvaluationRecord record(std::size_t) const override {
    throw std::logic_error("NothingMeasured::record: nothing was measured");
  }
  std::string device_name() const override { return device_; }

 private:
  std::vector<Objective> objectives_;
  std::string device_;
};

// The configurations of `space` that `keep` accepts, in the same order, as a space of `problem` (the same
// parameters and value lists, so the same value indices).
SearchSpace subspace(const SearchSpace& space, Problem problem, const std::function<bool(const Config&)>& keep) {
  std::vector<Config> kept;
  for (std::size_t i = 0; i < space.size(); ++i) {
    Config config = space.config_at(i);
    if (keep(config)) kept.push_back(std::move(config));
  }
  return SearchSpace::from_configs(std::move(problem), kept, space.lex_order());
}

// The recorded configurations of `results` that satisfy `restrictions` as well: the results' own space (failures
// included, invalid ones not) intersected with the space the restrictions allow over the same parameters.
SearchSpace restricted_space_from_results(const io::ResultsFile& results, const std::vector<std::string>& restrictions) {
  Problem restricted = results.problem;
  restricted.constraints.insert(restricted.constraints.end(), restrictions.begin(), restrictions.end());
  restricted.max_threads = std::nullopt;  // the recorded configurations already passed the device's limit
  const SearchSpace allowed = SearchSpace::build(restricted);
  return subspace(space_from_results(results), std::move(restricted),
                  [&](const Config& config) { return allowed.index_of(config).has_value(); });
}

// The configurations of `space` that `keep` accepts.
SearchSpace kept_configurations(const SearchSpace& space,
                                const std::function<bool(const Problem&, const std::vector<Value>&)>& keep) {
  return subspace(space, space.problem(),
                  [&](const Config& config) { return keep(space.problem(), space.values_of(config)); });
}

nlohmann::json configuration_json(const Problem& problem, const std::vector<Value>& values) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t p = 0; p < problem.parameters.size(); ++p) j[problem.parameters[p].name] = io::value_to_json(values[p]);
  return j;
}

// The confirmation (TuneRequest::confirm_top) as the report and the T4 metadata give it.
nlohmann::json confirmed_json(const SearchSpace& space, const TuneOutcome& outcome) {
  nlohmann::json list = nlohmann::json::array();
  const Trace& trace = outcome.result.trace;
  for (const ConfirmedConfiguration& c : outcome.confirmed) {
    nlohmann::json item = {{"configuration", configuration_json(space.problem(), space.values_at(trace[c.position].index))},
                           {"evaluation", c.position + 1},
                           {"measured", io::number_or_null(trace.values(c.position).front())}};
    if (!c.failure.empty()) {
      item["failure"] = c.failure;
    } else {
      item["time"] = io::number_or_null(c.summary.value);
      item["interval"] = {io::number_or_null(c.summary.low), io::number_or_null(c.summary.high)};
      item["runs"] = c.summary.runs;
      item["outliers"] = c.summary.outliers;
      item["spread"] = io::number_or_null(c.summary.spread);
      item["winner"] = c.winner;
      item["tied_with_winner"] = c.tied;
    }
    list.push_back(std::move(item));
  }
  return list;
}

// --iterations as a policy, or the request refused naming what is wrong.
RepetitionPolicy iterations_policy(const std::string& text) {
  try {
    return RepetitionPolicy::parse(text);
  } catch (const std::invalid_argument& e) {
    refuse_request(fmt::format("--{}", e.what()));
  }
}

std::string statistic_name(live::Statistic s) {
  return s == live::Statistic::mean ? "mean" : s == live::Statistic::median ? "median" : "min";
}

// FNV-1a, 64 bits: a stable hash of the kernel's source for the cache's provenance (the same on every platform).
std::string source_hash(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

// The problem size in the form the caller gave it (a number, or a list of 1 to 3), each dimension a number where
// its expression needs no configuration (constants only), else the expression: what Kernel Tuner writes into its
// cache, and what tells a cache of n = 1M from one of n = 8M.
nlohmann::json problem_size_json(const live::KernelSpecification& spec, const Problem& problem) {
  const auto dimension = [&](const std::string& text) -> nlohmann::json {
    try {
      const Value v = expr::evaluate(
          *expr::parse_expression(text),
          [&](std::string_view name) -> const Value* {
            const auto it = problem.constants.find(name);
            return it == problem.constants.end() ? nullptr : &it->second;
          },
          text);
      if (v.is_int()) return v.as_int();
      if (v.is_float() && v.as_float() == std::floor(v.as_float()) && std::abs(v.as_float()) < 9e15)
        return static_cast<std::int64_t>(v.as_float());
    } catch (const std::exception&) {
      // Depends on the configuration (Kernel Tuner's problem_size = "num_blocks"): the expression itself.
    }
    return text;
  };
  if (spec.problem_size_dimensions <= 0) return dimension(spec.problem_size[0]);
  nlohmann::json dims = nlohmann::json::array();
  for (int d = 0; d < std::min(spec.problem_size_dimensions, 3); ++d) dims.push_back(dimension(spec.problem_size[d]));
  return dims;
}

// What makes two live runs' results comparable besides device, kernel name and problem size: the backend, the
// kernel source and how it was compiled.
nlohmann::json live_provenance(const live::KernelSpecification& spec) {
  std::string source = spec.kernel_code;
  if (source.empty() && !spec.kernel_file.empty()) {
    try {
      source = io::read_file_text(spec.kernel_file);
    } catch (const io::InputError&) {
      source = spec.kernel_file;  // not readable here: the backend will say so
    }
  }
  std::string compiler = spec.backend_options.compiler;
  if (compiler.empty() && spec.backend == "cpp") {
    const char* cxx = std::getenv("CXX");
    compiler = cxx != nullptr && *cxx != '\0' ? cxx : "c++";
  }
  nlohmann::json p = {{"backend", spec.backend},
                      {"kernel_source_hash", source_hash(source)},
                      {"compiler_options", spec.compiler_options}};
  if (!compiler.empty()) p["compiler"] = compiler;
  return p;
}

// A wisdom entry's problem size from the run's (a number or a list of numbers, as a cache writes it).
runtime::ProblemSize wisdom_problem_size(const nlohmann::json& size) {
  if (size.is_null()) throw std::invalid_argument("the run has none");
  runtime::ProblemSize out;
  for (const auto& d : size.is_array() ? size : nlohmann::json::array({size})) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 1) throw std::invalid_argument("not a positive integer");
    out.push_back(d.get<std::int64_t>());
  }
  if (out.empty() || out.size() > 3) throw std::invalid_argument("1 to 3 dimensions");
  return out;
}

// When the wisdom was written: UTC, ISO 8601.
std::string wisdom_date() {
  const auto now = std::chrono::system_clock::now();
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", fmt::gmtime(std::chrono::system_clock::to_time_t(now)));
}

}  // namespace

void TuneJob::State::open_strategy() {
  if (request.strategy.empty()) request.strategy = default_strategy(request.budget);
  // The caller's own strategy object: shared with the caller, run as it is.
  class Borrowed final : public Strategy {
   public:
    explicit Borrowed(std::shared_ptr<Strategy> s) : s_(std::move(s)) {}
    void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override { s_->run(space, cost, rng); }

   private:
    std::shared_ptr<Strategy> s_;
  };
  if (request.strategy_object) {
    if (!request.settings.empty()) refuse_request("a strategy object takes no settings");
    if (request.isolate_strategy) refuse_request("a strategy object cannot be isolated: give a registered strategy or a plug-in");
    strategy = std::make_unique<Borrowed>(request.strategy_object);
    try {
      request.budget.validate();
    } catch (const std::exception& e) {
      refuse_request(e.what());
    }
    return;
  }
  try {
    // An isolated plug-in is compiled and loaded only in a sandbox, and its strategy is made in the worker.
    if (request.isolate_strategy) prepare_isolated_strategy(request.strategy);
    settings = parse_strategy_settings(request.strategy, request.settings);
    if (request.isolate_strategy) {
      // A registered strategy's setting errors now, as in process (a plug-in's show in its worker).
      if (!is_strategy_plugin_path(request.strategy)) (void)make_strategy(request.strategy, settings);
      strategy = std::make_unique<IsolatedStrategy>(StrategyRecipe{request.strategy, settings},
                                                    IsolationOptions{request.isolation_seconds});
    } else {
      strategy = make_strategy(request.strategy, settings);
    }
    request.budget.validate();
  } catch (const std::exception& e) {
    refuse_request(e.what());
  }
}

void TuneJob::State::open_inputs() {
  if (live() && request.problem_path.empty() && !request.kernel)
    refuse_request("give a T1 file to tune live, or --simulate RESULTS (a Kernel Tuner cache or T4 file)");
  if (request.kernel && !request.problem) refuse_request("a kernel specification needs its problem");
  if (request.problem && !request.problem_path.empty())
    refuse_request("give the problem in memory or as a file, not both");
  try {
    if (live() && request.kernel) {
      problem = *request.problem;
      spec = *request.kernel;
      try {
        problem->validate();
        spec->validate(*problem);
      } catch (const std::invalid_argument& e) {
        refuse_input(fmt::format("{}: {}", input_path(), e.what()));
      }
    } else if (live()) {
      // Only a T1 file with a KernelSpecification says what to run. The file is read and parsed once: the problem
      // and the kernel come from the same document.
      const nlohmann::ordered_json ordered =
          io::parse_ordered_json_text(io::read_file_text(request.problem_path), request.problem_path);
      const nlohmann::json document(ordered);
      if (!document.is_object() || !document.contains("KernelSpecification"))
        refuse_request(fmt::format("{} has no KernelSpecification, so there is no kernel to tune live; give a T1 file "
                                   "with one, or replay results with --simulate RESULTS",
                                   request.problem_path));
      problem = io::parse_t1(document, request.problem_path);
      try {
        spec = live::parse_t1_kernel_specification(ordered, request.problem_path, *problem);
      } catch (const io::InputError& e) {
        refuse_input(fmt::format("{}\n  (the kernel cannot be tuned live as described; to replay a brute-forced "
                                 "results file instead, add --simulate RESULTS)",
                                 e.what()));
      }
    } else {
      if (request.problem) problem = *request.problem;
      else if (!request.problem_path.empty()) problem = io::read_problem_file(request.problem_path).problem;
      results = std::make_shared<io::ResultsFile>(io::read_results_file(request.simulate_path));
    }
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  } catch (const ProblemError& e) {
    refuse_input(fmt::format("{}: {}", input_path(), e.what()));
  }
  if (results && results->truncated)
    say(JobMessageLevel::warning, fmt::format("warning: {} was cut short (an interrupted run?); read {} complete records",
                     request.simulate_path, results->records.size()));
}

void TuneJob::State::apply_live_overrides() {
  if (!spec) return;
  const LiveOverrides& o = request.live;
  if (o.backend) spec->backend = *o.backend;
  if (o.iterations) spec->repetition = iterations_policy(*o.iterations);
  if (o.timeout_seconds) spec->timeout_s = *o.timeout_seconds;
  if (o.platform) spec->backend_options.platform = *o.platform;
  if (o.device) spec->backend_options.device = *o.device;
  if (!o.devices.empty()) {
    if (o.device && *o.device != o.devices.front())
      refuse_request("--device and --devices name different devices: give one of them");
    spec->backend_options.device = o.devices.front();  // the device probed for the block-size limit
  }
  if (o.compiler) spec->backend_options.compiler = *o.compiler;
  if (o.statistic) {
    if (*o.statistic == "mean") spec->statistic = live::Statistic::mean;
    else if (*o.statistic == "median") spec->statistic = live::Statistic::median;
    else if (*o.statistic == "min") spec->statistic = live::Statistic::min;
    else refuse_request(fmt::format("--statistic: '{}' is not mean, median or min", *o.statistic));
  }
  if (!o.verify) {
    spec->verification = {};
    spec->accuracy.clear();
  }
}

// As given (NAME[:min|:max]), else the T1 file's, else the results file's, else time; a given direction applies to
// names without one.
void TuneJob::State::resolve_objectives() {
  try {
    if (!request.objectives.empty() && !request.maximize) {
      objectives = parse_objectives(request.objectives);
    } else if (request.objectives.empty() && spec && !spec->objectives.empty()) {
      objectives = parse_objectives(spec->objectives);
    } else {
      std::vector<std::string> given;
      for (const auto& text : request.objectives) {
        std::size_t pos = 0;
        while (pos <= text.size()) {
          const std::size_t end = std::min(text.find(',', pos), text.size());
          given.push_back(text.substr(pos, end - pos));
          pos = end + 1;
        }
      }
      if (given.empty() && results) given = results->objectives;
      if (given.empty()) given = {"time"};
      std::vector<bool> direction;
      if (request.maximize) direction = {*request.maximize};
      objectives = make_objectives(given, direction);
    }
    for (const auto& obj : objectives) names.push_back(obj.name);
    scalarization = parse_scalarization(request.scalarize, objectives.size());
  } catch (const std::exception& e) {
    refuse_request(e.what());
  }
}

void TuneJob::State::derive_measurements() {
  if (request.derived.empty()) return;
  if (!results) refuse_request("--derive is for simulated runs (live runs have Metrics in the T1 file)");
  try {
    std::vector<io::DerivedMeasurement> derived;
    for (const auto& text : request.derived) derived.push_back(io::parse_derived_measurement(text));
    io::add_derived_measurements(*results, derived);
  } catch (const std::invalid_argument& e) {
    refuse_input(fmt::format("{}: {}", request.simulate_path, e.what()));
  }
}

// One live evaluator, or one per device behind a ConcurrentEvaluator. Worker processes are forked here, before
// anything else runs threads.
void TuneJob::State::open_live_devices() {
  const LiveOverrides& o = request.live;
  if (request.remote_devices) {
    std::vector<std::unique_ptr<Evaluator>> devices;
    for (RemoteDevice& d : request.remote_devices(*space, objectives)) {
      device_labels.push_back(d.where);
      devices.push_back(std::move(d.evaluator));
    }
    if (devices.empty()) throw std::runtime_error("no device to measure on");
    measure_on(std::move(devices));
    return;
  }
  auto options = [&] {
    live::LiveEvaluatorOptions options;
    options.objectives = objectives;
    options.isolate = o.isolate;
    options.observers = o.observers;
    options.compile_workers = o.compile_workers;
    return options;
  };
  std::vector<int> indices = o.devices;
  if (o.all_devices) {
    if (!indices.empty()) refuse_request("--devices: give indices or all, not both");
    for (std::size_t d = 0; d < probe().device_count; ++d) indices.push_back(static_cast<int>(d));
  }
  if (indices.size() <= 1) {
    if (indices.size() == 1) spec->backend_options.device = indices.front();
    auto e = std::make_unique<live::LiveEvaluator>(space->problem(), *space, *spec, options());
    live_evaluator = e.get();
    say_live_notes(*e);
    evaluator = std::move(e);
    return;
  }
  const std::size_t available = probe().device_count;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const int d = indices[i];
    if (d < 0 || static_cast<std::size_t>(d) >= available)
      refuse_request(fmt::format("--devices: there is no device {} (the {} backend has {} here: 0..{})", d,
                                 spec->backend, available, available - 1));
    if (std::find(indices.begin(), indices.begin() + static_cast<std::ptrdiff_t>(i), d) !=
        indices.begin() + static_cast<std::ptrdiff_t>(i))
      refuse_request(fmt::format("--devices: device {} is named twice", d));
  }
  if (o.compile_workers > 0)
    refuse_request("--compile-workers with several --devices: not supported (each device's worker compiles the "
                   "configurations it measures, so the devices already compile side by side)");
  std::vector<std::unique_ptr<Evaluator>> devices;
  for (const int d : indices) {
    live::KernelSpecification device_spec = *spec;
    device_spec.backend_options.device = d;
    auto e = std::make_unique<live::LiveEvaluator>(space->problem(), *space, std::move(device_spec), options());
    if (!live_evaluator) {
      live_evaluator = e.get();
      say_live_notes(*e);
    } else if (e->device_info().name != live_evaluator->device_info().name && !o.mixed_devices) {
      refuse_request(fmt::format("--devices: device {} is '{}' but device {} is '{}': results of different models "
                                 "are not pooled unless asked (--mixed-devices)",
                                 d, e->device_info().name, indices.front(), live_evaluator->device_info().name));
    }
    devices.push_back(std::move(e));
  }
  device_indices = indices;
  for (const int d : indices) device_labels.push_back(fmt::format("device {}", d));
  measure_on(std::move(devices));
}

void TuneJob::State::build_space_and_evaluator() {
  try {
    if (live()) {
      // The implicit block-size limit: as given, else the device's (as Kernel Tuner does), else Kernel Tuner's 1024.
      if (!request.implicit_block_constraint) {
        problem->max_threads = std::nullopt;
      } else if (request.max_threads) {
        problem->max_threads = *request.max_threads;
      } else {
        try {
          if (probe().max_threads > 0) problem->max_threads = static_cast<std::int64_t>(probe().max_threads);
        } catch (const Interrupted&) {
          stopped_while_starting = true;  // the device's limit is unknown: the space has none
        }
      }
      problem->constraints.insert(problem->constraints.end(), request.restrictions.begin(), request.restrictions.end());
      space.emplace(SearchSpace::build(*problem));
      if (request.keep) space.emplace(kept_configurations(*space, request.keep));
      problem_size = problem_size_json(*spec, *problem);
      try {
        if (!stopped_while_starting) open_live_devices();
      } catch (const Interrupted&) {
        stopped_while_starting = true;
      }
      if (stopped_while_starting) {
        // Ctrl-C while the device was probed or the reference computed: the run measures nothing but still ends as
        // an interrupted run does, with its (empty) outputs and report.
        evaluator = std::make_unique<NothingMeasured>(objectives, probed ? probed->name : std::string());
        live_evaluator = nullptr;
        concurrent = nullptr;
      }
    } else {
      if (problem && !request.implicit_block_constraint) problem->max_threads = std::nullopt;
      if (problem && request.max_threads) problem->max_threads = *request.max_threads;
      if (problem) {
        problem->constraints.insert(problem->constraints.end(), request.restrictions.begin(),
                                    request.restrictions.end());
        space.emplace(SearchSpace::build(*problem));
      } else if (!request.restrictions.empty()) {
        space.emplace(restricted_space_from_results(*results, request.restrictions));
      } else {
        space.emplace(space_from_results(*results));
      }
      if (request.keep) space.emplace(kept_configurations(*space, request.keep));
      auto e = std::make_unique<SimulationEvaluator>(*space, results, objectives);
      simulation = e.get();
      evaluator = std::move(e);
      if (request.live.iterations) {  // adaptive repetition replayed on the recorded runs
        const RepetitionPolicy policy = iterations_policy(*request.live.iterations);
        if (!policy.adaptive) refuse_request("--iterations N is for live runs; a simulation replays auto[:...] only");
        if (!time_is_the_objective(objectives))
          refuse_request("--iterations auto replays the runs of the objective time (minimised)");
        recording = std::move(evaluator);
        evaluator = std::make_unique<RepetitionReplay>(*simulation, policy);
      }
      problem_size = results->problem_size;
    }
  } catch (const JobError&) {
    throw;
  } catch (const Interrupted&) {
    throw;
  } catch (const SimulationError& e) {
    refuse_input(fmt::format("{}: {}", request.simulate_path, e.what()));
  } catch (const ProblemError& e) {
    refuse_input(fmt::format("{}: {}", input_path(), e.what()));
  } catch (const expr::ExpressionError& e) {
    refuse_input(fmt::format("{}: {}", input_path(), e.what()));
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  } catch (const live::BackendUnavailable& e) {
    refuse_input(fmt::format("the {} backend is not available here: {}\n  (to replay a brute-forced results file "
                             "instead, add --simulate RESULTS)",
                             spec->backend, e.what()));
  } catch (const std::exception& e) {  // a bad kernel specification, a failing reference configuration
    refuse_input(fmt::format("{}: {}", input_path(), e.what()));
  }
}

void TuneJob::State::open_cache() {
  // Stopped before measuring: the device is not known for sure, so the cache is neither labelled nor rewritten.
  if (request.cache_path.empty() || stopped_while_starting) return;
  try {
    io::CacheHeader header{evaluator->device_name(),
                           evaluator->kernel_name(),
                           problem_size,
                           space->problem(),
                           names,
                           spec ? live_provenance(*spec) : nlohmann::json(nullptr)};
    if (header.kernel_name.empty()) header.kernel_name = space->problem().name;
    cache = std::make_unique<io::KernelTunerCacheWriter>(request.cache_path, header,
                                                         io::CacheWriterOptions{request.reuse_cache});
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
}

// The store's space is the cache's header; its session says how this run measured (strategy, seed, the device).
void TuneJob::State::open_store() {
  if (request.store_path.empty() || stopped_while_starting) return;
  try {
    store_origin.kernel_name = evaluator->kernel_name().empty() ? space->problem().name : evaluator->kernel_name();
    store_origin.device_name = evaluator->device_name();
    store_origin.problem_size = problem_size;
    store_origin.problem = space->problem();
    for (const auto& o : objectives) store_origin.objectives.push_back(o.name + (o.higher_is_better ? ":max" : ":min"));
    store_origin.provenance = spec ? live_provenance(*spec) : nlohmann::json(nullptr);
    store::SessionInfo session;
    session.source = live() ? "ktune tune (live)" : "ktune tune --simulate " + request.simulate_path;
    session.strategy = request.strategy;
    session.seed = request.seed;
    if (probed) {
      session.device = {{"name", probed->name}, {"platform", probed->platform}};
      for (const auto& [key, value] : probed->properties) session.device[key] = value;
    }
    store = std::make_unique<store::ResultsStore>(request.store_path);
    store_session = store->begin_session(store->space_of(store_origin), std::move(session));
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
}

// The starting configurations as indices of the space: each must be one of its configurations.
void TuneJob::State::open_start() {
  const std::size_t n = space->num_params();
  for (std::size_t k = 0; k < request.start.size(); ++k) {
    const TuneRequest::StartConfiguration& given = request.start[k];
    std::string shown;
    for (std::size_t i = 0; i < given.values.size(); ++i)
      shown += (i ? ", " : "") + (given.names.size() == given.values.size() ? given.names[i] + "=" : "") +
               given.values[i].repr();
    if (given.values.size() != n || (!given.names.empty() && given.names.size() != n))
      refuse_request(fmt::format("start configuration {} [{}]: {} values for the {} parameters", k + 1, shown,
                                 given.values.size(), n));
    std::vector<Value> values = given.values;  // in the problem's order
    if (!given.names.empty())
      for (std::size_t p = 0; p < n; ++p) {
        const auto at = std::find(given.names.begin(), given.names.end(), space->param_name(p));
        if (at == given.names.end())
          refuse_request(fmt::format("start configuration {} [{}]: no value of parameter '{}'", k + 1, shown,
                                     space->param_name(p)));
        values[p] = given.values[static_cast<std::size_t>(at - given.names.begin())];
      }
    const auto config = space->config_of(values);
    if (!config)  // some value is not in its parameter's list: name it
      for (std::size_t p = 0; p < n; ++p) {
        const auto& declared = space->param_values(p);
        if (std::none_of(declared.begin(), declared.end(), [&](const Value& v) { return python_equal(v, values[p]); }))
          refuse_request(fmt::format("start configuration {} [{}]: {} is not a value of parameter '{}'", k + 1, shown,
                                     values[p].repr(), space->param_name(p)));
      }
    const auto index = config ? space->index_of(*config) : std::nullopt;
    if (!index)
      refuse_request(fmt::format("start configuration {} [{}] is not in the search space: it fails its restrictions{}",
                                 k + 1, shown, live() ? "" : " or was not recorded in the replayed results"));
    start.push_back(*index);
  }
}

// The strategy as a transfer search from the sources of this kernel.
void TuneJob::State::open_transfer() {
  if (request.transfer.empty()) return;
  if (objectives.size() != 1) refuse_request("--transfer is for one objective");
  if (request.strategy_object || is_strategy_plugin_path(request.strategy))
    refuse_request("--transfer needs a registered strategy (not a strategy object or plug-in)");
  TransferSettings ts;
  try {
    apply_transfer_settings(ts, request.transfer_settings);
    const std::string kernel = evaluator->kernel_name().empty() ? space->problem().name : evaluator->kernel_name();
    const std::vector<TransferSource> sources = merge_same_device(
        sources_for(read_transfer_sources(request.transfer), request.transfer, space->problem(), kernel));
    for (const auto& source : sources) transfer_sources.push_back(source.name);
    transfer_prior = std::make_shared<const TransferPrior>(*space, sources, objectives[0].name,
                                                           !objectives[0].higher_is_better);
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  } catch (const std::invalid_argument& e) {
    refuse_input(e.what());
  }
  if (request.isolate_strategy) {
    const TransferHandover h = transfer_handover(request.strategy, settings, ts);
    const IsolationOptions isolation{request.isolation_seconds};
    strategy = make_transfer_search(
        transfer_prior, ts,
        [h, isolation](auto) -> std::unique_ptr<Strategy> {
          return std::make_unique<IsolatedStrategy>(StrategyRecipe{h.agreed_name, h.agreed_hyperparameters}, isolation);
        },
        std::make_unique<IsolatedStrategy>(StrategyRecipe{h.cold_name, h.cold_hyperparameters}, isolation));
  } else {
    strategy = make_transfer_search(transfer_prior, ts, request.strategy, settings);
  }
}

// Before anything is measured: every output can be written, and none overwrites an input or another output.
void TuneJob::State::check_outputs() const {
  try {
    io::refuse_overlapping_paths({{"problem", request.problem_path}, {"--simulate", request.simulate_path}},
                                 {{"--cache", request.cache_path},
                                  {"--store", request.store_path},
                                  {"--output", request.output_path},
                                  {"--csv", request.csv_path},
                                  {"--wisdom", request.wisdom_path}});
    if (!request.output_path.empty()) io::check_output_path(request.output_path, "--output");
    if (!request.csv_path.empty()) io::check_output_path(request.csv_path, "--csv");
    if (!request.wisdom_path.empty()) io::check_output_path(request.wisdom_path, "--wisdom");
    if (!request.cache_path.empty()) io::check_output_path(request.cache_path, "--cache");
    if (!request.store_path.empty()) io::check_output_path(request.store_path, "--store");
  } catch (const io::InputError& e) {
    refuse_input(e.what());
  }
}

TuneJob::TuneJob(TuneRequest request) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.request = std::move(request);
  s.open_strategy();
  if (!s.request.measure_only) s.check_outputs();
  s.open_inputs();
  s.apply_live_overrides();
  s.resolve_objectives();
  if (!s.request.wisdom_path.empty() && s.objectives.size() != 1)
    refuse_request("--wisdom is for one objective (a wisdom entry is the best of one)");
  s.derive_measurements();
  if (s.request.isolate_strategy && s.request.pending_evaluations > 0)
    refuse_request("--pending does not go with --isolate (the isolated strategy would take estimates for measurements)");
  if (s.request.measure_only && (!s.live() || s.request.remote_devices))
    refuse_request("measure_only is for a live run that measures here");
  if (s.request.avoid_failures && s.request.strategy == "brute_force")
    refuse_request("--avoid-failures does not go with brute_force, which measures every configuration");
  if (s.request.confirm_top > 0) {
    if (!s.live() || s.request.remote_devices)
      refuse_request("--confirm-top is for a live run that measures here (a simulation has nothing to time again)");
    if (!time_is_the_objective(s.objectives))
      refuse_request("--confirm-top confirms the fastest: the objective must be time (minimised)");
  }
  s.build_space_and_evaluator();
  if (!s.request.measure_only) s.open_cache();
  if (!s.request.measure_only) s.open_store();
  if (!s.request.measure_only) s.open_transfer();
  s.open_start();
}

TuneJob::~TuneJob() = default;

TuneOutcome TuneJob::run(const std::vector<TuningListener*>& listeners) {
  State& s = *state_;
  if (s.ran) throw std::logic_error("TuneJob::run: a job runs once");
  if (s.request.measure_only) throw std::logic_error("TuneJob::run: a measure_only job only measures");
  s.ran = true;
  TuningOptions options;
  options.budget = s.request.budget;
  options.seed = s.request.seed;
  options.charge_strategy_time = s.request.charge_strategy_time;
  options.scalarization = s.scalarization;
  options.pending_evaluations = s.request.pending_evaluations;
  options.resumed_count_toward_budget = s.request.budget_counts_resumed;
  options.avoid_failures = s.request.avoid_failures;
  options.failure_sources = s.transfer_prior;  // with avoid_failures: the sources' failures, once they repeat here
  options.first = s.start;

  ResumedResults resumed;
  std::unique_ptr<CacheRecorder> recorder;
  if (s.cache) {
    resumed = resume_from(*s.cache, *s.space, s.objectives);
    options.resumed = resumed.results;
    recorder = std::make_unique<CacheRecorder>(*s.cache, [&s](const std::string& text) {
      s.say(JobMessageLevel::loss, "warning: " + text);
    });
    options.listeners.push_back(recorder.get());
  }
  std::unique_ptr<store::StoreRecorder> store_recorder;
  if (s.store) {
    // What the cache resumed stays; the store adds the configurations the cache does not hold.
    ResumedResults from_store = store::resume_from_store(*s.store, s.store_origin, s.request.reuse_cache, *s.space,
                                                         s.objectives);
    for (auto& r : from_store.results) {
      if (resumed.records.contains(r.index)) continue;
      resumed.records[r.index] = std::move(from_store.records.at(r.index));
      options.resumed.push_back(std::move(r));
    }
    store_recorder = std::make_unique<store::StoreRecorder>(*s.store, s.store_session, [&s](const std::string& text) {
      s.say(JobMessageLevel::loss, "warning: " + text);
    });
    options.listeners.push_back(store_recorder.get());
  }
  // The live view: its server summarizes on its own thread; the loop only hands over a copy of each record.
  std::unique_ptr<report::LiveRun> live_run;
  std::unique_ptr<report::LiveRunRecorder> live_recorder;
  std::unique_ptr<report::ReportServer> live_server;
  if (s.request.dashboard_port) {
    report::ReportRun run;
    run.kernel_name = s.evaluator->kernel_name().empty() ? s.space->problem().name : s.evaluator->kernel_name();
    run.device_name = s.evaluator->device_name();
    run.problem_size = s.problem_size;
    run.name = run.kernel_name + (run.device_name.empty() ? "" : " on " + run.device_name);
    run.source = s.input_path();
    run.format = s.live() ? "live run" : "simulation";
    run.problem = s.space->problem();
    for (const auto& o : s.objectives) run.objectives.push_back(o.name + (o.higher_is_better ? ":max" : ":min"));
    for (const auto& r : options.resumed)
      if (const auto it = resumed.records.find(r.index); it != resumed.records.end()) run.records.push_back(it->second);
    live_run = std::make_unique<report::LiveRun>(std::move(run), report::SummaryOptions{});
    try {
      live_server = std::make_unique<report::ReportServer>(*s.request.dashboard_port,
                                                           [&live_run] { return live_run->data(); });
      live_recorder = std::make_unique<report::LiveRunRecorder>(*live_run);
      options.listeners.push_back(live_recorder.get());
      s.say(JobMessageLevel::note, "the live view: " + live_server->url());
    } catch (const std::runtime_error& e) {
      s.say(JobMessageLevel::warning, fmt::format("warning: {}; tuning without it", e.what()));
    }
  }
  for (TuningListener* l : listeners) options.listeners.push_back(l);

  TuneOutcome out{tune(*s.space, *s.evaluator, *s.strategy, options)};
  if (s.cache) {
    try {
      s.cache->close();
    } catch (const io::InputError& e) {
      // Every complete entry is in the file, which resumes as it is; the run's other outputs are still written.
      s.say(JobMessageLevel::loss, fmt::format("warning: {}", e.what()));
      out.cache_failed = true;
    }
    out.cache_failed = out.cache_failed || s.cache->failed();
  }
  out.store_failed = store_recorder && store_recorder->failed();
  out.transfer_sources = s.transfer_sources;
  out.resumed = options.resumed.size();
  out.budget_counts_resumed = s.request.budget_counts_resumed;

  // Records: a resumed result keeps the record of the cache; a measured one gets its times on the tuning clock.
  const Trace& trace = out.result.trace;
  out.records.reserve(trace.size());
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const TraceEntry& e = trace[i];
    out.records.push_back(e.resumed ? resumed.records.at(e.index) : recorded_evaluation(*s.evaluator, e));
    out.failures += e.status != Status::ok;
  }
  out.best = trace.best();
  if (s.objectives.size() >= 2) out.pareto_front = pareto_front_positions(trace);
  // Not after Ctrl-C; a Ctrl-C during it keeps the best as measured (the outputs are still written).
  if (s.request.confirm_top > 0 && s.live_evaluator && out.best && out.result.stop_reason != StopReason::interrupted) {
    try {
      s.confirm(out);
    } catch (const Interrupted&) {
      out.confirmed.clear();
      s.say(JobMessageLevel::warning, "warning: the confirmation was interrupted; the best stays as measured");
    }
  }
  return out;
}

// The best K configurations timed again in kConfirmRounds rounds of kConfirmRunsPerRound runs each, one
// configuration after the other within a round (A B C A B C ...), so that a drift of the device (clocks,
// temperature, other load) over the minutes of the confirmation hits all of them alike. The winner is the best
// confirmed statistic; those whose 95% interval overlaps the winner's are tied with it.
void TuneJob::State::confirm(TuneOutcome& out) {
  constexpr int kConfirmRounds = 3;
  constexpr int kConfirmRunsPerRound = 5;
  const Trace& trace = out.result.trace;
  std::vector<std::size_t> positions;
  for (std::size_t p = 0; p < trace.size(); ++p)
    if (trace[p].status == Status::ok && std::isfinite(trace.cost(p))) positions.push_back(p);
  std::stable_sort(positions.begin(), positions.end(),
                   [&](std::size_t a, std::size_t b) { return trace.cost(a) < trace.cost(b); });
  if (positions.size() > request.confirm_top) positions.resize(request.confirm_top);
  std::vector<std::vector<double>> runs(positions.size());
  std::vector<std::string> failure(positions.size());
  for (int round = 0; round < kConfirmRounds; ++round)
    for (std::size_t k = 0; k < positions.size(); ++k) {
      if (!failure[k].empty()) continue;
      auto more = live_evaluator->time_again(trace[positions[k]].index, kConfirmRunsPerRound, &failure[k]);
      runs[k].insert(runs[k].end(), more.begin(), more.end());
    }
  const live::Statistic statistic = spec ? spec->statistic : live::Statistic::mean;
  for (std::size_t k = 0; k < positions.size(); ++k) {
    ConfirmedConfiguration c;
    c.position = positions[k];
    c.failure = failure[k];
    if (c.failure.empty()) c.summary = summarize_runs(runs[k], statistic, true);
    out.confirmed.push_back(std::move(c));
  }
  std::stable_sort(out.confirmed.begin(), out.confirmed.end(),
                   [](const ConfirmedConfiguration& a, const ConfirmedConfiguration& b) {
                     if (a.failure.empty() != b.failure.empty()) return a.failure.empty();
                     return a.failure.empty() && a.summary.value < b.summary.value;
                   });
  if (!out.confirmed.front().failure.empty()) {
    say(JobMessageLevel::warning, "warning: every configuration failed when timed again; the best stays as measured");
    return;
  }
  ConfirmedConfiguration& winner = out.confirmed.front();
  winner.winner = true;
  for (auto& c : out.confirmed) c.tied = c.failure.empty() && tied(c.summary, winner.summary);
  out.best = winner.position;
}

const TuneRequest& TuneJob::request() const { return state_->request; }
const SearchSpace& TuneJob::space() const { return *state_->space; }
const std::vector<Objective>& TuneJob::objectives() const { return state_->objectives; }
const Scalarization& TuneJob::scalarization() const { return state_->scalarization; }
const Evaluator& TuneJob::evaluator() const { return *state_->evaluator; }
Evaluator& TuneJob::measuring_evaluator() {
  if (!state_->request.measure_only) throw std::logic_error("TuneJob::measuring_evaluator: not a measure_only job");
  return *state_->evaluator;
}
bool TuneJob::live() const { return state_->live(); }

const std::vector<std::string>& TuneJob::transfer_sources() const { return state_->transfer_sources; }

std::string TuneJob::description() const {
  const State& s = *state_;
  if (s.live() && s.concurrent)
    return fmt::format("live on {} devices, {} ({}; {} backend)", s.device_labels.size(), s.evaluator->device_name(),
                       fmt::join(s.device_labels, ", "), s.spec->backend);
  if (s.live()) return fmt::format("live on {} ({} backend)", s.evaluator->device_name(), s.spec->backend);
  return fmt::format("simulated from {}{}", s.request.simulate_path,
                     s.results->device_name.empty() ? "" : " (" + s.results->device_name + ")");
}

std::vector<std::pair<std::string, Value>> TuneJob::hyperparameters() const {
  const State& s = *state_;
  if (s.request.strategy_object) return {};
  const auto resolved =
      Hyperparameters::resolve(s.request.strategy, find_strategy(s.request.strategy)->hyperparameters, s.settings);
  return {resolved.values().begin(), resolved.values().end()};
}


void TuneJob::write_t4(const std::string& path, const TuneOutcome& outcome) const {
  const State& s = *state_;
  nlohmann::json metadata{{"tool", "ktune"},
                          {"version", kVersionString},
                          {"strategy", s.request.strategy},
                          {"seed", s.request.seed},
                          {"simulation", !s.live()},
                          {"device_name", s.evaluator->device_name()},
                          {"kernel_name", s.evaluator->kernel_name()}};
  if (s.live()) {
    metadata["backend"] = s.spec->backend;
    metadata["problem_file"] = s.request.problem_path;
  } else {
    metadata["results_file"] = s.request.simulate_path;
  }
  if (s.objectives.size() >= 2) metadata["pareto_front"] = outcome.pareto_front;  // positions in "results"
  if (!outcome.confirmed.empty()) metadata["confirmed"] = confirmed_json(*s.space, outcome);
  io::write_file_atomically(path, [&](std::ostream& out) {
    io::write_t4_results(out, s.space->problem(), outcome.records, s.names, metadata);
  });
}

void TuneJob::write_csv(const std::string& path, const TuneOutcome& outcome) const {
  const State& s = *state_;
  io::write_file_atomically(
      path, [&](std::ostream& out) { io::write_results_csv(out, s.space->problem(), outcome.records, s.names); });
}

void TuneJob::write_wisdom(const std::string& path, const TuneOutcome& outcome) const {
  const State& s = *state_;
  const Objective& objective = s.objectives.front();
  const auto fail = [&](const std::string& why) { throw io::InputError(path, "", "--wisdom: " + why); };
  if (!outcome.best) fail("the run has no successful result to add");
  const EvaluationRecord& winner = outcome.records.at(*outcome.best);
  const std::optional<double> value = winner.objective(objective.name);
  if (!value) fail("the best result has no value of " + objective.name);
  runtime::WisdomEntry entry;
  try {
    entry.problem_size = wisdom_problem_size(s.problem_size);
  } catch (const std::invalid_argument& e) {
    fail(fmt::format("the run's problem size {} is not 1 to 3 positive integers ({})", s.problem_size.dump(),
                     e.what()));
  }
  // The application's runtime selects by the name the backend reports (CL_DEVICE_NAME, the CPU's model name).
  entry.device = s.probed ? s.probed->name : s.evaluator->device_name();
  if (entry.device.empty()) fail("the run names no device (a cache without device_name)");
  entry.objective = objective.name;
  entry.higher_is_better = objective.higher_is_better;
  entry.value = *value;
  const Problem& problem = s.space->problem();
  std::vector<std::string> parameters, defaults;
  for (std::size_t p = 0; p < problem.parameters.size(); ++p) {
    parameters.push_back(problem.parameters[p].name);
    entry.values.push_back(live::LaunchPlanner::c_literal(winner.config.at(p)));
  }
  if (s.spec && s.spec->verification.kind == live::Verification::Kind::configuration) {
    for (const auto& name : parameters) {
      const auto it = s.spec->verification.configuration.find(name);
      if (it == s.spec->verification.configuration.end()) break;
      defaults.push_back(live::LaunchPlanner::c_literal(it->second));
    }
    if (defaults.size() != parameters.size()) defaults.clear();
  }
  auto& provenance = entry.provenance;
  provenance["source"] = s.live() ? "ktune tune (live)" : "ktune tune --simulate " + s.request.simulate_path;
  provenance["ktune_version"] = kVersionString;
  provenance["date"] = wisdom_date();
  provenance["strategy"] = s.request.strategy;
  provenance["seed"] = std::to_string(s.request.seed);
  provenance["evaluations"] = std::to_string(outcome.records.size());
  if (!winner.timestamp.empty()) provenance["measured"] = winner.timestamp;
  if (s.probed) {
    if (!s.probed->platform.empty()) provenance["platform"] = s.probed->platform;
    for (const auto& [key, text] : s.probed->properties) provenance["device_" + key] = text;
  }
  if (s.spec) {
    const nlohmann::json build = live_provenance(*s.spec);  // kept alive: items() only refers to it
    for (const auto& [key, item] : build.items()) {
      if (item.is_array()) {
        std::string joined;
        for (const auto& part : item)
          joined += (joined.empty() ? "" : " ") + (part.is_string() ? part.get<std::string>() : part.dump());
        provenance[key] = joined;
      } else {
        provenance[key] = item.is_string() ? item.get<std::string>() : item.dump();
      }
    }
  }
  const std::string kernel = s.evaluator->kernel_name().empty() ? problem.name : s.evaluator->kernel_name();
  try {
    runtime::Wisdom::update(path, [&](runtime::Wisdom& wisdom) {
      wisdom.declare(kernel, parameters, defaults);
      wisdom.add(kernel, std::move(entry));
    });
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

std::vector<std::string> TuneJob::write_outputs(const TuneOutcome& outcome) const {
  std::vector<std::string> failures;
  const auto attempt = [&](const std::string& path, void (TuneJob::*write)(const std::string&, const TuneOutcome&) const) {
    if (path.empty()) return;
    try {
      (this->*write)(path, outcome);
    } catch (const std::exception& e) {
      failures.push_back(e.what());
    }
  };
  attempt(state_->request.output_path, &TuneJob::write_t4);
  attempt(state_->request.csv_path, &TuneJob::write_csv);
  attempt(state_->request.wisdom_path, &TuneJob::write_wisdom);
  return failures;
}

nlohmann::json tune_report_json(const TuneJob& job, const TuneOutcome& outcome, bool with_trace) {
  const TuneJob::State& s = *job.state_;
  const Trace& trace = outcome.result.trace;
  const Problem& problem = s.space->problem();
  const auto& objectives = s.objectives;
  nlohmann::json out;
  if (outcome.best) {
    const std::size_t best = *outcome.best;
    const TraceEntry& e = trace[best];
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t j = 0; j < objectives.size(); ++j) values[objectives[j].name] = io::number_or_null(trace.values(best)[j]);
    out["best"] = {{"configuration", configuration_json(problem, s.space->values_at(e.index))},
                   {"objective", objectives.front().name},
                   {"value", io::number_or_null(trace.values(best).front())},
                   {"objectives", values},
                   {"evaluation", best + 1},
                   {"clock_seconds", e.clock_ms / 1000.0}};
  } else {
    out["best"] = nullptr;
  }
  if (objectives.size() >= 2) {
    nlohmann::json f = nlohmann::json::array();
    for (std::size_t position : outcome.pareto_front) {
      nlohmann::json values = nlohmann::json::object();
      for (std::size_t j = 0; j < objectives.size(); ++j)
        values[objectives[j].name] = io::number_or_null(trace.values(position)[j]);
      f.push_back({{"configuration", configuration_json(problem, s.space->values_at(trace[position].index))},
                   {"objectives", values},
                   {"evaluation", position + 1}});
    }
    out["pareto_front"] = std::move(f);
    out["scalarization"] =
        s.scalarization.kind == Scalarization::Kind::lexicographic ? "lexicographic" : "weighted_sum";
  }
  if (!outcome.confirmed.empty()) out["confirmed"] = confirmed_json(*s.space, outcome);
  out["evaluations"] = outcome.result.evaluations;
  if (s.request.avoid_failures) out["deferred"] = outcome.result.deferred;
  out["clock_seconds"] = outcome.result.clock_seconds();
  out["stop_reason"] = to_string(outcome.result.stop_reason);
  if (!outcome.result.failure.empty()) out["strategy_failure"] = outcome.result.failure;
  out["failures"] = outcome.failures;
  std::map<std::string, std::size_t> statuses;  // every evaluation by how it ended ("ok", "compile-failed", ...)
  for (const auto& e : trace.entries()) ++statuses[std::string(to_string(e.status))];
  out["statuses"] = statuses;
  out["resumed"] = outcome.resumed;
  if (!outcome.transfer_sources.empty()) out["transfer_sources"] = outcome.transfer_sources;
  out["space_size"] = s.space->size();
  // The limit of the implicit block-size constraint the space was built with (null: none).
  out["max_threads"] = problem.max_threads ? nlohmann::json(*problem.max_threads) : nlohmann::json(nullptr);
  out["strategy"] = s.request.strategy;
  nlohmann::json hyper = nlohmann::json::object();
  for (const auto& [name, value] : job.hyperparameters()) hyper[name] = io::value_to_json(value);
  out["hyperparameters"] = hyper;
  out["seed"] = s.request.seed;
  nlohmann::json objs = nlohmann::json::array();
  for (const auto& obj : objectives) objs.push_back({{"name", obj.name}, {"higher_is_better", obj.higher_is_better}});
  out["objectives"] = objs;
  out["wall_seconds"] = outcome.result.wall_seconds;
  if (s.simulation) {
    out["simulation"] = {{"file", s.request.simulate_path},
                         {"format", io::to_string(s.results->format)},
                         {"device_name", s.results->device_name},
                         {"records", s.results->records.size()},
                         {"configurations_recorded", s.simulation->configurations_recorded()},
                         {"records_outside_space", s.simulation->records_outside_space()},
                         {"truncated", s.results->truncated}};
  }
  if (s.live() && s.spec) {
    const live::KernelSpecification& spec = *s.spec;
    out["live"] = {{"problem_file", s.request.problem_path},
                   {"backend", spec.backend},
                   {"device_name", s.evaluator->device_name()},
                   {"kernel_name", spec.kernel_name},
                   {"iterations", spec.repetition.adaptive ? nlohmann::json("auto") : nlohmann::json(spec.repetition.runs)},
                   {"repetition", spec.repetition.describe()},
                   {"statistic", statistic_name(spec.statistic)},
                   {"timeout_seconds", spec.timeout_s},
                   {"verification", spec.verification.kind != live::Verification::Kind::none},
                   {"isolated", s.request.live.isolate},
                   {"statuses", statuses}};
    if (s.live_evaluator) {  // measured here (on the first device, with several)
      const auto& device = s.live_evaluator->device_info();
      nlohmann::json& live = out["live"];
      live["device_max_threads"] = device.max_threads;
      live["platform"] = device.platform;
      live["workers_started"] = s.live_evaluator->workers_started();
      live["compile_workers"] = s.live_evaluator->compile_workers();
      live["prebuilt_configurations"] = s.live_evaluator->prebuilt_configurations();
      live["observers"] = s.live_evaluator->observers();
      live["observer_notes"] = s.live_evaluator->observer_notes();
    }
    if (s.concurrent) {
      nlohmann::json devices = nlohmann::json::array();
      const auto delivered = s.concurrent->evaluations_per_device();
      const auto lost = s.concurrent->lost_devices();
      for (std::size_t d = 0; d < s.concurrent->device_count(); ++d) {
        nlohmann::json entry = {{"where", s.device_labels.at(d)},
                                {"device_name", s.concurrent->device(d).device_name()},
                                {"evaluations", delivered[d]},
                                {"lost", lost[d]}};
        if (d < s.device_indices.size()) entry["device"] = s.device_indices[d];
        devices.push_back(std::move(entry));
      }
      out["live"]["devices"] = devices;
      out["live"]["unused_evaluations"] = s.concurrent->unused_evaluations();
    }
  }
  if (with_trace) {
    nlohmann::json t = nlohmann::json::array();
    for (std::size_t i = 0; i < trace.size(); ++i) {
      const TraceEntry& e = trace[i];
      nlohmann::json v = nlohmann::json::array();
      for (double x : trace.values(i)) v.push_back(io::number_or_null(x));
      t.push_back({{"index", e.index}, {"status", std::string(to_string(e.status))}, {"values", v},
                   {"clock_seconds", e.clock_ms / 1000.0}, {"resumed", e.resumed}});
    }
    out["trace"] = std::move(t);
  }
  return out;
}

void write_tune_summary(std::ostream& out, const TuneJob& job, const TuneOutcome& outcome) {
  const SearchSpace& space = job.space();
  const auto& objectives = job.objectives();
  const TuningResult& result = outcome.result;
  const Trace& trace = result.trace;
  const bool device = !job.live() && !job.evaluator().device_name().empty();
  out << fmt::format("{} on {} ({} configurations{}), {}\n", job.request().strategy, space.problem().name, space.size(),
                     device ? ", " + job.evaluator().device_name() : "",
                     job.live() ? job.description() : "simulated from " + job.request().simulate_path);
  std::string count = fmt::format("{} evaluation{}", result.evaluations, result.evaluations == 1 ? "" : "s");
  if (outcome.resumed > 0)
    count = fmt::format("{} measured + {} resumed from {} ({} the budget)", count, outcome.resumed,
                        job.request().cache_path.empty() ? job.request().store_path : job.request().cache_path,
                        outcome.budget_counts_resumed ? "counted in" : "not counted in");
  out << fmt::format("{} ({}), tuning clock {:.1f} s, stopped: {}\n", count, ConsoleReporter::failures_text(trace),
                     result.clock_seconds(), to_string(result.stop_reason));
  if (!result.failure.empty()) out << "  " << result.failure << "\n";
  if (outcome.best) {
    const std::size_t best = *outcome.best;
    const EvaluationRecord& record = outcome.records[best];
    const std::string& objective = objectives.front().name;
    const std::string unit = ConsoleReporter::unit_of(record, objective);
    out << fmt::format("best {} = {:.6g}{}{} (evaluation {}, at {:.1f} s)\n  {}\n", objective,
                       trace.values(best).front(), unit.empty() ? "" : " ", unit, best + 1,
                       trace[best].clock_ms / 1000.0, ConsoleReporter::configuration_text(space, trace[best].index));
    // The best configuration's other measurements (metrics, energy, accuracy), as the lines showed them.
    if (record.measurements.size() > (record.find(objective) ? 1u : 0u))
      out << "  " << ConsoleReporter::outcome_text(record, objective) << "\n";
  } else {
    out << "no configuration succeeded\n";
  }
  if (!outcome.confirmed.empty()) {
    const auto& first = outcome.confirmed.front();
    out << fmt::format("confirmed: the best {} timed again ({} runs each, interleaved); tied = 95% intervals overlap\n",
                       outcome.confirmed.size(), first.failure.empty() ? first.summary.runs : 0);
    for (const auto& c : outcome.confirmed) {
      const std::string config = ConsoleReporter::configuration_text(space, trace[c.position].index);
      if (!c.failure.empty()) {
        out << fmt::format("  {:<7} evaluation {}: {}\n    {}\n", "failed", c.position + 1, c.failure, config);
        continue;
      }
      out << fmt::format("  {:<7} {:.6g} ms [{:.6g}, {:.6g}] (measured {:.6g} in evaluation {}{})\n    {}\n",
                         c.winner ? "winner" : c.tied ? "tied" : "slower", c.summary.value, c.summary.low,
                         c.summary.high, trace.values(c.position).front(), c.position + 1,
                         c.summary.outliers ? fmt::format("; {} outlier runs left out", c.summary.outliers) : "",
                         config);
    }
  }
  if (objectives.size() >= 2 && !outcome.pareto_front.empty()) {
    out << fmt::format("Pareto front: {} of {} evaluated configurations\n", outcome.pareto_front.size(),
                       trace.size());
    std::string header = "  eval";
    for (const auto& obj : objectives) header += fmt::format("  {:>12}", obj.name);
    out << header << "  configuration\n";
    for (std::size_t position : outcome.pareto_front) {
      std::string row = fmt::format("  {:>4}", position + 1);
      for (double v : trace.values(position)) row += fmt::format("  {:>12.6g}", v);
      const auto values = space.values_at(trace[position].index);
      std::string config;
      for (std::size_t p = 0; p < values.size(); ++p)
        config += fmt::format("{}{}={}", p ? " " : "", space.param_name(p), values[p].repr());
      out << row << "  " << config << "\n";
    }
  }
}

}  // namespace ktune
