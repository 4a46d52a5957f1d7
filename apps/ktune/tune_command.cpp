// `ktune tune [PROBLEM] --simulate RESULTS` and `ktune tune T1FILE`: runs a strategy on a search space and reports the
// best configuration. Simulation replays a brute-forced Kernel Tuner cache or T4 file; without --simulate the T1 file's
// kernel is compiled and run on a live backend (in a worker process, so crashes and hangs cost one configuration).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cache_appender.hpp"
#include "commands.hpp"
#include "number_options.hpp"
#include "ktune/expr/errors.hpp"
#include "ktune/io/derived_measurements.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/json_value.hpp"
#include "ktune/io/problem_file.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/multiobjective/trace_front.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/console_reporter.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/tuning/tune.hpp"

#ifndef KTUNE_VERSION_STRING
#define KTUNE_VERSION_STRING "0.1.0"
#endif

namespace ktune::cli {
namespace {

struct TuneOptions {
  std::string problem_path;
  std::string simulate_path;
  std::string strategy = "brute_force";
  std::vector<std::string> settings;  // key=value
  std::optional<std::uint64_t> max_fevals;
  std::optional<double> time_limit, fraction, target;
  std::uint64_t seed = 0;
  std::vector<std::string> objectives;
  bool maximize = false, minimize = false;
  bool charge_strategy_time = false;
  std::string output_path, cache_path, csv_path;
  bool json = false, quiet = false, trace = false;
  // Live tuning: overrides of the T1 KernelSpecification.
  std::optional<std::string> backend, statistic, compiler;
  std::optional<int> iterations, platform, device;
  std::optional<double> timeout;
  bool no_verify = false, in_process = false;
  std::vector<std::string> observers;
  std::string scalarize;
  std::vector<std::string> derived;
  std::optional<std::int64_t> max_threads;
  bool no_implicit_block_constraint = false;
  bool verbose = false;
};

nlohmann::json configuration_json(const Problem& problem, const std::vector<Value>& values) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t p = 0; p < problem.parameters.size(); ++p) j[problem.parameters[p].name] = io::value_to_json(values[p]);
  return j;
}

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

int run_tune(const TuneOptions& o) {
  const auto fail = [](const std::string& message, int code) {
    std::cerr << "ktune tune: error: " << message << "\n";
    return code;
  };
  if (o.maximize && o.minimize) return fail("--maximize and --minimize exclude each other", kExitUsage);
  const bool live_run = o.simulate_path.empty();
  if (live_run && o.problem_path.empty())
    return fail("give a T1 file to tune live, or --simulate RESULTS (a Kernel Tuner cache or T4 file)", kExitUsage);

  std::vector<std::pair<std::string, Value>> settings;
  std::unique_ptr<Strategy> strategy;
  Budget budget;
  std::vector<Objective> objectives;
  try {
    settings = parse_strategy_settings(o.strategy, o.settings);
    strategy = make_strategy(o.strategy, settings);
    budget.max_evaluations = o.max_fevals;
    budget.max_fraction = o.fraction;
    budget.time_limit_seconds = o.time_limit;
    budget.target = o.target;
    budget.validate();
  } catch (const std::exception& e) {
    return fail(e.what(), kExitUsage);
  }

  std::optional<Problem> problem;
  std::shared_ptr<io::ResultsFile> results;
  std::optional<live::KernelSpecification> spec;
  try {
    if (live_run) {
      // Only a T1 file with a KernelSpecification says what to run.
      const nlohmann::json document = io::load_json_file(o.problem_path);
      if (!document.is_object() || !document.contains("KernelSpecification"))
        return fail(fmt::format("{} has no KernelSpecification, so there is no kernel to tune live; give a T1 file "
                                "with one, or replay results with --simulate RESULTS",
                                o.problem_path),
                    kExitUsage);
      problem = io::read_t1_file(o.problem_path);
      try {
        spec = live::read_t1_kernel_specification(o.problem_path, *problem);
      } catch (const io::InputError& e) {
        return fail(fmt::format("{}\n  (the kernel cannot be tuned live as described; to replay a brute-forced results "
                                "file instead, add --simulate RESULTS)",
                                e.what()),
                    kExitInputError);
      }
    } else {
      if (!o.problem_path.empty()) problem = io::read_problem_file(o.problem_path).problem;
      results = std::make_shared<io::ResultsFile>(io::read_results_file(o.simulate_path));
    }
  } catch (const io::InputError& e) {
    return fail(e.what(), kExitInputError);
  } catch (const ProblemError& e) {
    return fail(fmt::format("{}: {}", o.problem_path, e.what()), kExitInputError);
  }
  if (results && results->truncated && !o.quiet)
    std::cerr << "ktune tune: warning: " << o.simulate_path << " was cut short (an interrupted run?); read "
              << results->records.size() << " complete records\n";

  if (spec) {
    // Command-line overrides of the T1 KernelSpecification.
    if (o.backend) spec->backend = *o.backend;
    if (o.iterations) spec->iterations = *o.iterations;
    if (o.timeout) spec->timeout_s = *o.timeout;
    if (o.platform) spec->backend_options.platform = *o.platform;
    if (o.device) spec->backend_options.device = *o.device;
    if (o.compiler) spec->backend_options.compiler = *o.compiler;
    if (o.statistic) {
      if (*o.statistic == "mean") spec->statistic = live::Statistic::mean;
      else if (*o.statistic == "median") spec->statistic = live::Statistic::median;
      else if (*o.statistic == "min") spec->statistic = live::Statistic::min;
      else return fail(fmt::format("--statistic: '{}' is not mean, median or min", *o.statistic), kExitUsage);
    }
    if (o.no_verify) {
      spec->verification = {};
      spec->accuracy.clear();
    }
  }

  // Objectives: as given (NAME[:min|:max], comma-separated or repeated), else the file's, else time.
  std::vector<std::string> names;
  Scalarization scalarization;
  try {
    if (!o.objectives.empty() && !o.maximize && !o.minimize) {
      objectives = parse_objectives(o.objectives);
    } else if (o.objectives.empty() && spec && !spec->objectives.empty()) {
      objectives = parse_objectives(spec->objectives);
    } else {
      for (const auto& text : o.objectives) {
        std::size_t pos = 0;
        while (pos <= text.size()) {
          const std::size_t end = std::min(text.find(',', pos), text.size());
          names.push_back(text.substr(pos, end - pos));
          pos = end + 1;
        }
      }
      if (names.empty() && results) names = results->objectives;
      if (names.empty()) names = {"time"};
      std::vector<bool> direction;
      if (o.maximize) direction = {true};
      if (o.minimize) direction = {false};
      objectives = make_objectives(names, direction);
    }
    names.clear();
    for (const auto& obj : objectives) names.push_back(obj.name);
    scalarization = parse_scalarization(o.scalarize, objectives.size());
  } catch (const std::exception& e) {
    return fail(e.what(), kExitUsage);
  }
  if (!o.derived.empty()) {
    if (!results) return fail("--derive is for simulated runs (live runs have Metrics in the T1 file)", kExitUsage);
    try {
      std::vector<io::DerivedMeasurement> derived;
      for (const auto& text : o.derived) derived.push_back(io::parse_derived_measurement(text));
      io::add_derived_measurements(*results, derived);
    } catch (const std::invalid_argument& e) {
      return fail(fmt::format("{}: {}", o.simulate_path, e.what()), kExitInputError);
    }
  }

  std::optional<SearchSpace> space;
  std::unique_ptr<Evaluator> evaluator;
  SimulationEvaluator* simulation = nullptr;
  live::LiveEvaluator* live_evaluator = nullptr;
  nlohmann::json problem_size = nullptr;
  const std::string input_path = o.problem_path.empty() ? o.simulate_path : o.problem_path;
  try {
    if (live_run) {
      // The implicit block-size limit: as given, else the device's (as Kernel Tuner does), else Kernel Tuner's 1024.
      if (o.no_implicit_block_constraint) {
        problem->max_threads = std::nullopt;
      } else if (o.max_threads) {
        problem->max_threads = *o.max_threads;
      } else if (const auto device = live::probe_device(*spec, !o.in_process); device.max_threads > 0) {
        problem->max_threads = static_cast<std::int64_t>(device.max_threads);
      }
      space.emplace(SearchSpace::build(*problem));
      problem_size = spec->problem_size;
      // The worker process is forked here, before anything else runs threads.
      live::LiveEvaluatorOptions options;
      options.objectives = objectives;
      options.isolate = !o.in_process;
      options.observers = o.observers;
      auto e = std::make_unique<live::LiveEvaluator>(space->problem(), *space, *spec, std::move(options));
      live_evaluator = e.get();
      if (!o.quiet)
        for (const auto& note : e->observer_notes()) std::cerr << "ktune tune: note: not observing " << note << "\n";
      evaluator = std::move(e);
    } else {
      if (problem && o.no_implicit_block_constraint) problem->max_threads = std::nullopt;
      if (problem && o.max_threads) problem->max_threads = *o.max_threads;
      space.emplace(problem ? SearchSpace::build(*problem) : space_from_results(*results));
      auto e = std::make_unique<SimulationEvaluator>(*space, results, objectives);
      simulation = e.get();
      evaluator = std::move(e);
      problem_size = results->problem_size;
    }
  } catch (const SimulationError& e) {
    return fail(fmt::format("{}: {}", o.simulate_path, e.what()), kExitInputError);
  } catch (const ProblemError& e) {
    return fail(fmt::format("{}: {}", input_path, e.what()), kExitInputError);
  } catch (const expr::ExpressionError& e) {
    return fail(fmt::format("{}: {}", o.problem_path, e.what()), kExitInputError);
  } catch (const io::InputError& e) {
    return fail(e.what(), kExitInputError);
  } catch (const Interrupted&) {
    std::cerr << "ktune tune: interrupted before any configuration was measured\n";
    return interrupted_exit_status(stop_signal());
  } catch (const live::BackendUnavailable& e) {
    return fail(fmt::format("the {} backend is not available here: {}\n  (to replay a brute-forced results file "
                            "instead, add --simulate RESULTS)",
                            spec->backend, e.what()),
                kExitInputError);
  } catch (const std::exception& e) {  // a bad kernel specification, a failing reference configuration
    return fail(fmt::format("{}: {}", input_path, e.what()), kExitInputError);
  }

  TuningOptions options;
  options.budget = budget;
  options.seed = o.seed;
  options.charge_strategy_time = o.charge_strategy_time;
  options.scalarization = scalarization;

  // A cache file: resumed if it exists, appended to as results arrive.
  std::unique_ptr<io::KernelTunerCacheWriter> cache;
  std::unique_ptr<CacheAppender> appender;
  std::unordered_map<std::size_t, EvaluationRecord> resumed_records;
  if (!o.cache_path.empty()) {
    try {
      io::CacheHeader header{evaluator->device_name(), evaluator->kernel_name(), problem_size, space->problem(), names};
      if (header.kernel_name.empty()) header.kernel_name = space->problem().name;
      cache = std::make_unique<io::KernelTunerCacheWriter>(o.cache_path, header);
    } catch (const io::InputError& e) {
      return fail(e.what(), kExitInputError);
    }
    resume_from(*cache, *space, objectives, options.resumed, resumed_records);
    appender = std::make_unique<CacheAppender>(*cache, "ktune tune");
    options.listeners.push_back(appender.get());
  }
  // The console (stderr): header, a line per configuration (live runs, or --verbose), progress; not with --quiet.
  ConsoleReporterOptions console_options;
  console_options.configuration_lines = o.verbose || (live_run && !o.quiet);
  console_options.progress = !o.quiet;
  ConsoleReporter console(console_options);
  if (!o.quiet || o.verbose) {
    std::string strategy_text = o.strategy;
    for (const auto& s : o.settings) strategy_text += " " + s;
    const std::string where =
        live_run ? fmt::format("live on {} ({} backend)", evaluator->device_name(), spec->backend)
                 : fmt::format("simulated from {}{}", o.simulate_path,
                               results->device_name.empty() ? "" : " (" + results->device_name + ")");
    console.header({space->problem().name, where, strategy_text, budget, o.seed}, *space);
    options.listeners.push_back(&console);
  }

  TuningResult result = tune(*space, *evaluator, *strategy, options);
  console.finish();
  if (cache) cache->close();

  const Trace& trace = result.trace;
  auto record_at = [&](std::size_t position) {
    const TraceEntry& e = trace[position];
    EvaluationRecord r = e.resumed ? resumed_records.at(e.index) : evaluator->record(e.index);
    if (!e.resumed) {
      r.clock_ms = e.clock_ms;
      r.strategy_ms = e.strategy_ms;
    }
    return r;
  };
  nlohmann::json metadata{{"tool", "ktune"},
                          {"version", KTUNE_VERSION_STRING},
                          {"strategy", o.strategy},
                          {"seed", o.seed},
                          {"simulation", !live_run},
                          {"device_name", evaluator->device_name()},
                          {"kernel_name", evaluator->kernel_name()}};
  if (live_run) {
    metadata["backend"] = spec->backend;
    metadata["problem_file"] = o.problem_path;
  } else {
    metadata["results_file"] = o.simulate_path;
  }
  // Several objectives: the result is the Pareto front of what was evaluated (trace positions, ascending in the
  // first objective).
  std::vector<std::size_t> front;
  if (objectives.size() >= 2) {
    front = pareto_front_positions(trace);
    metadata["pareto_front"] = front;  // positions in "results"
  }
  if (!o.output_path.empty() || !o.csv_path.empty()) {
    std::vector<EvaluationRecord> records;
    records.reserve(trace.size());
    for (std::size_t i = 0; i < trace.size(); ++i) records.push_back(record_at(i));
    const auto write = [&](const std::string& path, auto&& writer) {
      std::ofstream out(path, std::ios::binary);
      if (!out) throw io::InputError(path, "", "cannot open for writing");
      writer(out);
      out.flush();
      if (!out) throw io::InputError(path, "", "write failed");
    };
    try {
      if (!o.output_path.empty())
        write(o.output_path, [&](std::ostream& out) {
          io::write_t4_results(out, space->problem(), records, names, metadata);
        });
      if (!o.csv_path.empty())
        write(o.csv_path, [&](std::ostream& out) { io::write_results_csv(out, space->problem(), records, names); });
    } catch (const io::InputError& e) {
      return fail(e.what(), kExitInputError);
    }
  }

  std::size_t failures = 0;
  for (const auto& e : trace.entries()) failures += e.status != Status::ok;
  const auto best = trace.best();
  nlohmann::json out;
  if (best) {
    const TraceEntry& e = trace[*best];
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t j = 0; j < objectives.size(); ++j) values[objectives[j].name] = number_or_null(trace.values(*best)[j]);
    out["best"] = {{"configuration", configuration_json(space->problem(), space->values_at(e.index))},
                   {"objective", objectives.front().name},
                   {"value", number_or_null(trace.values(*best).front())},
                   {"objectives", values},
                   {"evaluation", *best + 1},
                   {"clock_seconds", e.clock_ms / 1000.0}};
  } else {
    out["best"] = nullptr;
  }
  if (objectives.size() >= 2) {
    nlohmann::json f = nlohmann::json::array();
    for (std::size_t position : front) {
      nlohmann::json values = nlohmann::json::object();
      for (std::size_t j = 0; j < objectives.size(); ++j)
        values[objectives[j].name] = number_or_null(trace.values(position)[j]);
      f.push_back({{"configuration", configuration_json(space->problem(), space->values_at(trace[position].index))},
                   {"objectives", values},
                   {"evaluation", position + 1}});
    }
    out["pareto_front"] = std::move(f);
    out["scalarization"] = scalarization.kind == Scalarization::Kind::lexicographic ? "lexicographic" : "weighted_sum";
  }
  out["evaluations"] = result.evaluations;
  out["clock_seconds"] = result.clock_seconds();
  out["stop_reason"] = to_string(result.stop_reason);
  out["failures"] = failures;
  std::map<std::string, std::size_t> statuses;  // every evaluation by how it ended ("ok", "compile-failed", ...)
  for (const auto& e : trace.entries()) ++statuses[std::string(to_string(e.status))];
  out["statuses"] = statuses;
  out["resumed"] = options.resumed.size();
  out["space_size"] = space->size();
  // The limit of the implicit block-size constraint the space was built with (null: none).
  out["max_threads"] = space->problem().max_threads ? nlohmann::json(*space->problem().max_threads)
                                                      : nlohmann::json(nullptr);
  out["strategy"] = o.strategy;
  nlohmann::json hyper = nlohmann::json::object();
  const auto resolved = Hyperparameters::resolve(o.strategy, find_strategy(o.strategy)->hyperparameters, settings);
  for (const auto& [name, value] : resolved.values()) hyper[name] = io::value_to_json(value);
  out["hyperparameters"] = hyper;
  out["seed"] = o.seed;
  nlohmann::json objs = nlohmann::json::array();
  for (const auto& obj : objectives) objs.push_back({{"name", obj.name}, {"higher_is_better", obj.higher_is_better}});
  out["objectives"] = objs;
  out["wall_seconds"] = result.wall_seconds;
  if (simulation) {
    out["simulation"] = {{"file", o.simulate_path},
                         {"format", io::to_string(results->format)},
                         {"device_name", results->device_name},
                         {"records", results->records.size()},
                         {"configurations_recorded", simulation->configurations_recorded()},
                         {"records_outside_space", simulation->records_outside_space()},
                         {"truncated", results->truncated}};
  }
  if (live_evaluator) {
    const live::KernelSpecification& s = live_evaluator->specification();
    std::map<std::string, std::size_t> statuses;
    for (const auto& e : trace.entries()) ++statuses[std::string(to_string(e.status))];
    out["live"] = {{"problem_file", o.problem_path},
                   {"backend", s.backend},
                   {"device_name", live_evaluator->device_info().name},
                   {"device_max_threads", live_evaluator->device_info().max_threads},
                   {"platform", live_evaluator->device_info().platform},
                   {"kernel_name", s.kernel_name},
                   {"iterations", s.iterations},
                   {"statistic", s.statistic == live::Statistic::mean     ? "mean"
                                 : s.statistic == live::Statistic::median ? "median"
                                                                          : "min"},
                   {"timeout_seconds", s.timeout_s},
                   {"verification", s.verification.kind != live::Verification::Kind::none},
                   {"isolated", !o.in_process},
                   {"workers_started", live_evaluator->workers_started()},
                   {"observers", live_evaluator->observers()},
                   {"observer_notes", live_evaluator->observer_notes()},
                   {"statuses", statuses}};
  }
  if (o.trace) {
    nlohmann::json t = nlohmann::json::array();
    for (std::size_t i = 0; i < trace.size(); ++i) {
      const TraceEntry& e = trace[i];
      nlohmann::json v = nlohmann::json::array();
      for (double x : trace.values(i)) v.push_back(number_or_null(x));
      t.push_back({{"index", e.index}, {"status", std::string(to_string(e.status))}, {"values", v},
                   {"clock_seconds", e.clock_ms / 1000.0}, {"resumed", e.resumed}});
    }
    out["trace"] = std::move(t);
  }

  // Interrupted: everything above was written with what was measured; the exit status tells the shell why.
  const int exit_status =
      result.stop_reason == StopReason::interrupted ? interrupted_exit_status(stop_signal()) : kExitOk;
  if (exit_status != kExitOk && !o.quiet)
    std::cerr << fmt::format("ktune tune: interrupted after {} evaluations; results written{}\n", result.evaluations,
                             o.cache_path.empty() ? "" : fmt::format(" ({} resumes the run)", o.cache_path));
  if (o.json) {
    std::cout << out.dump(2) << "\n";
    return exit_status;
  }
  if (simulation)
    std::cout << fmt::format("{} on {} ({} configurations{}), simulated from {}\n", o.strategy,
                             space->problem().name, space->size(),
                             results->device_name.empty() ? "" : ", " + results->device_name, o.simulate_path);
  else
    std::cout << fmt::format("{} on {} ({} configurations), live on {} ({} backend)\n", o.strategy,
                             space->problem().name, space->size(), evaluator->device_name(), spec->backend);
  std::cout << fmt::format("{} evaluations ({}), tuning clock {:.1f} s, stopped: {}\n", result.evaluations,
                           ConsoleReporter::failures_text(trace), result.clock_seconds(),
                           to_string(result.stop_reason));
  if (best) {
    const TraceEntry& e = trace[*best];
    const EvaluationRecord record = record_at(*best);
    const std::string unit = ConsoleReporter::unit_of(record, objectives.front().name);
    std::cout << fmt::format("best {} = {:.6g}{}{} (evaluation {}, at {:.1f} s)\n  {}\n", objectives.front().name,
                             trace.values(*best).front(), unit.empty() ? "" : " ", unit, *best + 1,
                             e.clock_ms / 1000.0, ConsoleReporter::configuration_text(*space, e.index));
    // The best configuration's other measurements (metrics, energy, accuracy), as the lines showed them.
    if (record.measurements.size() > (record.find(objectives.front().name) ? 1u : 0u))
      std::cout << "  " << ConsoleReporter::outcome_text(record, objectives.front().name) << "\n";
  } else {
    std::cout << "no configuration succeeded\n";
  }
  if (objectives.size() >= 2 && !front.empty()) {
    std::cout << fmt::format("Pareto front: {} of {} evaluated configurations\n", front.size(), trace.size());
    std::string header = "  eval";
    for (const auto& obj : objectives) header += fmt::format("  {:>12}", obj.name);
    std::cout << header << "  configuration\n";
    for (std::size_t position : front) {
      std::string row = fmt::format("  {:>4}", position + 1);
      for (double v : trace.values(position)) row += fmt::format("  {:>12.6g}", v);
      const auto values = space->values_at(trace[position].index);
      std::string config;
      for (std::size_t p = 0; p < values.size(); ++p)
        config += fmt::format("{}{}={}", p ? " " : "", space->param_name(p), values[p].repr());
      std::cout << row << "  " << config << "\n";
    }
  }
  return exit_status;
}

}  // namespace

Command add_tune_command(CLI::App& app) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* sub = app.add_subcommand("tune", "Tune a problem live (a T1 file with a KernelSpecification) or simulated from a brute-forced results file");
  sub->add_option("problem", o->problem_path,
                  "Problem file (T1, ktune JSON or Kernel Tuner cache); when simulating it may be left out and the "
                  "space is the recorded configurations");
  sub->add_option("--simulate", o->simulate_path, "Replay this Kernel Tuner cache or T4 file (.json or .json.gz)");
  sub->add_option("--strategy", o->strategy, "Search strategy (see ktune strategies)")->capture_default_str();
  sub->add_option("--set", o->settings, "Strategy hyperparameter name=value (repeatable)");
  sub->add_option("--max-fevals", o->max_fevals, "Stop after this many unique evaluations")->check(whole_number(1));
  sub->add_option("--time-limit", o->time_limit, "Stop after this many seconds on the tuning clock")
      ->check(real_number(0, 1e12, true));
  sub->add_option("--fraction", o->fraction, "Stop after this fraction of the search space")
      ->check(real_number(0, 1, true));
  sub->add_option("--target", o->target, "Stop once the objective reaches this value")
      ->check(real_number(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), false));
  sub->add_option("--seed", o->seed, "Seed of every random choice")->capture_default_str()->check(seed_number());
  sub->add_option("--objective,--objectives", o->objectives,
                  "Objective measurement(s), NAME[:min|:max], comma-separated or repeated (default: the file's, else "
                  "time); with several, the result is their Pareto front");
  sub->add_option("--scalarize", o->scalarize,
                  "Several objectives, single-objective strategy: lexicographic (default) or weighted_sum:W1,W2,...");
  sub->add_option("--derive", o->derived,
                  "Simulation: NAME=EXPRESSION, a measurement computed from each record's parameters and "
                  "measurements, usable as an objective (repeatable)");
  sub->add_flag("--maximize", o->maximize, "Maximise the objective (default: inferred from its name)");
  sub->add_flag("--minimize", o->minimize, "Minimise the objective");
  sub->add_flag("--charge-strategy-time", o->charge_strategy_time,
                "Charge the strategy's own time to the simulated clock (as Kernel Tuner does)");
  sub->add_option("--output", o->output_path, "Write the results as a T4 file");
  sub->add_option("--cache", o->cache_path, "Kernel Tuner cache file: resumed if present, appended per result");
  sub->add_option("--csv", o->csv_path, "Write the results as CSV");
  auto* max_threads = sub->add_option("--max-threads", o->max_threads,
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
  sub->add_option("--backend", o->backend, "Live: the backend (cpp, opencl, cuda) instead of the file's language");
  sub->add_option("--iterations", o->iterations, "Live: timed launches per configuration (after one warm-up)")
      ->check(whole_number(1, 1'000'000));
  sub->add_option("--statistic", o->statistic, "Live: the time objective over the launches: mean, median or min");
  sub->add_option("--timeout", o->timeout, "Live: seconds per configuration (compile + verify + benchmark)")
      ->check(real_number(0, 1e9, true));
  sub->add_option("--platform", o->platform, "Live: OpenCL platform index")->check(whole_number(0, 1'000'000));
  sub->add_option("--device", o->device, "Live: device index (OpenCL device within the platform, CUDA ordinal)")
      ->check(whole_number(0, 1'000'000));
  sub->add_option("--compiler", o->compiler, "Live, cpp backend: the compiler command (default $CXX or c++)");
  sub->add_flag("--no-verify", o->no_verify, "Live: skip verification against the reference");
  sub->add_option("--observer", o->observers,
                  "Live: also observe energy and power: powercap (Linux RAPL, CPU) or nvml (NVIDIA GPU); repeatable. "
                  "Skipped with a note where the machine does not expose them")
      ->check(CLI::IsMember(live::observer_names()));
  sub->add_flag("--in-process", o->in_process,
                "Live: run kernels in this process (debugging; a crash ends the run and timeouts are not enforced)");
  return {sub, [o] {
            try {
              return run_tune(*o);
            } catch (const HyperparameterError& e) {
              std::cerr << "ktune tune: error: " << e.what() << "\n";
              return kExitUsage;
            }
          }};
}

}  // namespace ktune::cli
