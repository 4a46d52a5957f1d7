#include "ktune/methodology/comparison.hpp"

#include <algorithm>
#include <tuple>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ktune/io/json_file.hpp"
#include "ktune/methodology/baseline.hpp"
#include "ktune/methodology/strategy_curve.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/sandbox/sandbox.hpp"
#include "ktune/tuning/isolated_strategy.hpp"
#include "ktune/tuning/repetition_replay.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/tuning/transfer_sources.hpp"
#include "ktune/tuning/tune.hpp"
#include "ktune/tuning/console_reporter.hpp"
#include "methodology/parallel_runs.hpp"

namespace ktune::methodology {

struct Comparison::PreparedSpace {
  SpaceResult result;  // statistics, range, time points and baseline; no strategies yet
  std::string objective;
  std::unique_ptr<SearchSpace> space;
  std::unique_ptr<SimulationEvaluator> evaluator;
  std::shared_ptr<const TransferPrior> prior;  // null: no transfer sources
  long min_evaluations = 2;  // a run with fewer results inside the time range is redone (§1.5)
};

namespace {

using PreparedSpace = Comparison::PreparedSpace;

std::string objective_of(const ComparisonSpace& s, const ComparisonOptions& o) {
  if (!o.objective.empty()) return o.objective;
  if (!s.results->objectives.empty()) return s.results->objectives.front();
  return "time";
}

PreparedSpace prepare(const ComparisonSpace& s, const ComparisonOptions& o, bool simulate) {
  PreparedSpace p;
  p.objective = objective_of(s, o);
  bool minimization;
  if (o.minimization) {
    minimization = *o.minimization;
  } else if (const auto higher = infer_higher_is_better(p.objective)) {
    minimization = !*higher;
  } else {
    throw std::invalid_argument(fmt::format("{}: cannot tell whether objective '{}' is minimised or maximised",
                                            s.name, p.objective));
  }
  p.result.name = s.name;
  try {  // "not recorded" says more than the statistics' "fewer than two valid configurations"
    check_objective_recorded(*s.results, p.objective);
  } catch (const SimulationError& e) {
    throw std::invalid_argument(fmt::format("{}: {}", s.name, e.what()));
  }
  p.result.stats = SpaceStatistics::from_results(s.name, *s.results, p.objective, minimization);
  p.result.objective = p.objective;
  for (const EvaluationRecord& r : s.results->records) {  // the unit the file gives, else the time fields' ms
    p.result.unit = ConsoleReporter::unit_of(r, p.objective);
    if (r.find(p.objective)) break;
  }
  p.result.range = p.result.stats.cutoff_range(o.cutoff_start, o.cutoff_end);
  p.result.budget_seconds = p.result.range.time_end * (1 + o.cutoff_margin);
  p.result.time_points = linspace(p.result.range.time_start, p.result.range.time_end, o.resolution);
  p.result.baseline = RandomSearchBaseline(p.result.stats, o.baseline).over_time(p.result.time_points);
  if (simulate) {
    try {  // before any run (--stats still shows such a space): the scoring would end in this error
      check_baseline_below_optimum(p.result.baseline, p.result.stats.optimum());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: {}", s.name, e.what()));
    }
    p.space = std::make_unique<SearchSpace>(space_from_results(*s.results));
    p.evaluator = std::make_unique<SimulationEvaluator>(*p.space, s.results,
                                                        std::vector<Objective>{{p.objective, !minimization}});
    // The reference's defaults: at least 25% of the expected evaluations (at most 25, at least 2) inside the range.
    const auto& st = p.result.stats;
    const double expected = std::max(round_half_even(p.result.budget_seconds / st.mean_time_per_feval()), 2.0);
    const double fraction =
        std::max(round_half_even(0.25 * std::min(expected, static_cast<double>(st.size_all()))), 2.0);
    p.min_evaluations = static_cast<long>(std::max(std::min(fraction, 25.0), 2.0));
  }
  return p;
}

// A trace as the methodology sees a run: cumulative time on the tuning clock and the objective value; with
// `recorded` (a replay of adaptive repetition), the configurations' recorded values instead of the estimates the
// strategy was given, so that the score is that of what was found.
Run run_of(const Trace& trace, SimulationEvaluator* recorded = nullptr) {
  Run run;
  run.reserve(trace.size());
  for (std::size_t i = 0; i < trace.size(); ++i) {
    double v = trace[i].status == Status::ok ? trace.values(i)[0] : std::nan("");
    if (recorded && trace[i].status == Status::ok) v = recorded->evaluate(trace[i].index).objectives[0];
    run.push_back({trace[i].clock_ms / 1000.0, v});
  }
  return run;
}

bool enough_inside(const Run& run, const SpaceResult& s, long min_evaluations) {
  const double lo = s.range.time_start, hi = s.budget_seconds;
  long inside = 0, valid = 0;
  for (const auto& p : run) {
    if (p.time_s < lo || p.time_s > hi) continue;
    ++inside;
    valid += !std::isnan(p.value);
  }
  return inside >= min_evaluations && valid >= 2;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

}  // namespace

StrategySpec parse_strategy_spec(const std::string& text) {
  StrategySpec spec;
  spec.label = text;
  const auto colon = text.find(':');
  spec.name = text.substr(0, colon);
  std::vector<std::string> settings;
  if (colon != std::string::npos) {
    std::string rest = text.substr(colon + 1);
    for (std::size_t start = 0; start <= rest.size();) {
      const auto comma = rest.find(',', start);
      const std::string item = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!item.empty()) settings.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  spec.hyperparameters = parse_strategy_settings(spec.name, settings);
  make_strategy(spec.name, spec.hyperparameters);  // checks ranges and the combination
  return spec;
}

namespace {

// Numbers by value (1, 1.0 and 1e0 are one setting), everything else by its representation.
std::string setting_text(const Value& v) {
  return v.is_int() || v.is_float() ? fmt::format("{}", v.to_double()) : v.repr();
}

}  // namespace

bool is_default_setting(const StrategyInfo& info, const std::string& name, const Value& value) {
  const auto declared = std::find_if(info.hyperparameters.begin(), info.hyperparameters.end(),
                                     [&](const HyperparameterSpec& h) { return h.name == name; });
  return declared != info.hyperparameters.end() && setting_text(declared->default_value) == setting_text(value);
}

std::string canonical_strategy_text(const StrategySpec& spec) {
  const StrategyInfo* info = find_strategy(spec.name);
  if (!info) (void)make_strategy(spec.name);  // throws, listing the known strategies
  const Hyperparameters resolved = Hyperparameters::resolve(spec.name, info->hyperparameters, spec.hyperparameters);
  std::string text = spec.name;
  char separator = ':';
  for (const auto& [name, value] : resolved.values()) {
    if (is_default_setting(*info, name, value)) continue;
    text += fmt::format("{}{}={}", separator, name, setting_text(value));
    separator = ',';
  }
  return text;
}

std::string space_name_from_path(const std::string& path) {
  std::string stem = io::file_stem(path);
  if (stem.size() > 3 && stem.compare(stem.size() - 3, 3, "_T4") == 0) stem.resize(stem.size() - 3);
  const std::string dir = std::filesystem::path(path).parent_path().filename().string();
  return dir.empty() || dir == "." ? stem : stem + "_" + dir;
}

std::vector<ComparisonSpace> load_spaces(const std::vector<std::string>& paths, unsigned threads) {
  std::vector<ComparisonSpace> spaces(paths.size());
  parallel_for(paths.size(), threads, [&](std::size_t i) {
    spaces[i] = {space_name_from_path(paths[i]), std::make_shared<const io::ResultsFile>(io::read_results_file(paths[i]))};
  });
  // Scored twice, one device's measurements would weigh twice in the aggregate.
  std::vector<ComparisonSpace> distinct;
  std::vector<std::size_t> first;  // per distinct space, the index in `paths` of its first file
  for (std::size_t i = 0; i < spaces.size(); ++i) {
    const auto same = std::find_if(distinct.begin(), distinct.end(),
                                   [&](const ComparisonSpace& s) { return s.name == spaces[i].name; });
    if (same == distinct.end()) {
      distinct.push_back(std::move(spaces[i]));
      first.push_back(i);
      continue;
    }
    const std::size_t j = first[static_cast<std::size_t>(same - distinct.begin())];
    const auto merged = merge_same_device({{paths[j], same->results}, {paths[i], spaces[i].results}});
    if (merged.size() != 1)
      throw std::invalid_argument(fmt::format("two spaces are named {}: {} and {} (of different devices or problem "
                                              "sizes; rename one)",
                                              spaces[i].name, paths[j], paths[i]));
    same->results = merged.front().results;
  }
  return distinct;
}

std::vector<SpaceResult> space_statistics(const std::vector<ComparisonSpace>& spaces, const ComparisonOptions& options) {
  std::vector<SpaceResult> results;
  for (const auto& s : spaces) results.push_back(prepare(s, options, false).result);
  return results;
}

Comparison::Comparison(const std::vector<ComparisonSpace>& spaces, const ComparisonOptions& options)
    : options_(options) {
  if (spaces.empty()) throw std::invalid_argument("no search space to compare on");
  if (options.repeats < 1) throw std::invalid_argument("repeats must be at least 1");
  if (options.repetition && options.repetition->adaptive && !options.objective.empty() && options.objective != "time")
    throw std::invalid_argument(fmt::format("--iterations {}: adaptive repetition is replayed for the objective time, "
                                            "not '{}'", options.repetition->describe(), options.objective));
  prepared_.resize(spaces.size());
  parallel_for(spaces.size(), options.threads, [&](std::size_t i) {
    prepared_[i] = std::make_unique<PreparedSpace>(prepare(spaces[i], options, true));
    if (i < options.transfer_sources.size() && !options.transfer_sources[i].empty()) {
      PreparedSpace& p = *prepared_[i];
      try {
        p.prior = std::make_shared<const TransferPrior>(*p.space, options.transfer_sources[i], p.objective,
                                                        !p.evaluator->objectives()[0].higher_is_better);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(fmt::format("{}: {}", spaces[i].name, e.what()));
      }
      for (const auto& source : options.transfer_sources[i]) p.result.transfer_sources.push_back(source.name);
    }
  });
}

Comparison::~Comparison() = default;
Comparison::Comparison(Comparison&&) noexcept = default;
Comparison& Comparison::operator=(Comparison&&) noexcept = default;

std::vector<std::string> Comparison::space_names() const {
  std::vector<std::string> names;
  for (const auto& p : prepared_) names.push_back(p->result.name);
  return names;
}

ComparisonReport compare(const std::vector<ComparisonSpace>& spaces, const std::vector<StrategySpec>& strategies,
                         const ComparisonOptions& options, const ExternalRuns& external) {
  if (strategies.empty() && external.empty()) throw std::invalid_argument("no strategy to compare");
  return Comparison(spaces, options).run(strategies, external);
}

ComparisonReport Comparison::run(const std::vector<StrategySpec>& strategies, const ExternalRuns& external) const {
  if (strategies.empty() && external.empty()) throw std::invalid_argument("no strategy to compare");
  const ComparisonOptions& options = options_;
  const auto start = std::chrono::steady_clock::now();

  ComparisonReport report;
  report.strategy_time_charged = options.charge_strategy_time;
  for (const auto& s : strategies) report.strategies.push_back(s.label);
  for (const auto& [label, by_space] : external) {
    if (std::find(report.strategies.begin(), report.strategies.end(), label) != report.strategies.end())
      throw std::invalid_argument(fmt::format("'{}' names both a strategy to run and recorded runs", label));
    for (const auto& p : prepared_)
      if (!by_space.count(p->result.name) || by_space.at(p->result.name).empty())
        throw std::invalid_argument(fmt::format("recorded runs '{}' have none for space {}", label, p->result.name));
    report.strategies.push_back(label);
  }

  // Each call scores into its own copies of the prepared results.
  std::vector<SpaceResult> results;
  results.reserve(prepared_.size());
  for (const auto& p : prepared_) results.push_back(p->result);

  // Every (space, strategy, repeat) run, each in its own slot: the thread count cannot change the results.
  const std::size_t n_spaces = prepared_.size();
  const std::size_t n_strategies = strategies.size(), repeats = static_cast<std::size_t>(options.repeats);
  std::vector<Run> runs(n_spaces * n_strategies * repeats);
  // Interrupted (Ctrl-C): runs not started are skipped and a run cut short is dropped; only the (space, strategy)
  // pairs whose runs all finished are scored.
  std::vector<char> finished(runs.size(), 0);
  std::vector<StrategyFailure> failures;
  std::atomic<std::size_t> runs_done{0};
  std::mutex progress_mutex;
  // Common random numbers: repeat r on a space has the same seed for every strategy (and so under every label). A
  // strategy's uniform opening is then random_sample's first draws (ktune/uniform_sample_stream.hpp), and the
  // difference between two strategies is theirs, not that of independent samples: on a space whose budget is a
  // handful of evaluations, two independent 100-repeat random searches differ by up to 0.17.
  // Isolated runs start sandboxed workers from these threads.
  const unsigned threads = options.isolate ? sandbox::spawning_threads(options.threads) : options.threads;
  parallel_for(runs.size(), threads, [&](std::size_t job) {
    if (stop_requested()) return;
    if (options.partition && !options.partition->owns(job)) return;  // another process's
    const std::size_t s = job / (n_strategies * repeats), k = job / repeats % n_strategies, r = job % repeats;
    const PreparedSpace& p = *prepared_[s];
    TuningOptions tuning;
    tuning.budget.time_limit_seconds = p.result.budget_seconds;
    tuning.avoid_failures = options.avoid_failures;
    // A transfer run's failure model believes the sources' failures once they repeat here (FailureModel).
    if (strategies[k].transfer) tuning.failure_sources = p.prior;
    tuning.charge_strategy_time = options.charge_strategy_time;
    constexpr int kAttempts = 20;  // as the reference
    for (int attempt = 0;; ++attempt) {
      // Isolated: made in its sandboxed worker, where a plug-in is loaded.
      const auto make = [&](const std::string& name, const std::vector<std::pair<std::string, Value>>& settings)
          -> std::unique_ptr<Strategy> {
        if (options.isolate)
          return std::make_unique<IsolatedStrategy>(StrategyRecipe{name, settings},
                                                    IsolationOptions{options.isolation_seconds});
        return make_strategy(name, settings);
      };
      std::unique_ptr<Strategy> strategy;
      if (strategies[k].transfer && p.prior && !options.isolate) {
        strategy = make_transfer_search(p.prior, options.transfer, strategies[k].name, strategies[k].hyperparameters);
      } else if (strategies[k].transfer && p.prior) {  // isolated: the prior stays in this process
        const TransferHandover h =
            transfer_handover(strategies[k].name, strategies[k].hyperparameters, options.transfer);
        strategy = make_transfer_search(
            p.prior, options.transfer, [&make, h](auto) { return make(h.agreed_name, h.agreed_hyperparameters); },
            make(h.cold_name, h.cold_hyperparameters));
      } else {
        strategy = make(strategies[k].name, strategies[k].hyperparameters);
      }
      tuning.seed = seed_of(options.seed, key_of(p.result.name), r, static_cast<std::uint64_t>(attempt));
      std::optional<RepetitionReplay> replay;
      if (options.repetition && options.repetition->adaptive) replay.emplace(*p.evaluator, *options.repetition);
      TuningResult result =
          replay ? tune(*p.space, *replay, *strategy, tuning) : tune(*p.space, *p.evaluator, *strategy, tuning);
      if (result.stop_reason == StopReason::interrupted) return;
      if (result.stop_reason == StopReason::strategy_failed) {  // the run is lost, not retried (a hang is slow)
        std::lock_guard lock(progress_mutex);
        failures.push_back({strategies[k].label, p.result.name, r, result.failure});
        return;
      }
      Run run = run_of(result.trace, replay ? p.evaluator.get() : nullptr);
      if (enough_inside(run, p.result, p.min_evaluations)) {
        runs[job] = std::move(run);
        finished[job] = 1;
        const std::size_t done = ++runs_done;
        if (options.progress) {
          std::lock_guard lock(progress_mutex);
          options.progress(done, runs.size());
        }
        return;
      }
      if (attempt + 1 == kAttempts)
        throw std::runtime_error(fmt::format("{} on {}: {} runs in a row had fewer than {} results inside the time range",
                                             strategies[k].label, p.result.name, kAttempts, p.min_evaluations));
    }
  });
  if (options.partition) {
    options.partition->gather(runs, finished);
    runs_done = static_cast<std::size_t>(std::count(finished.begin(), finished.end(), char{1}));
  }
  report.run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.runs_total = runs.size();
  report.runs_finished = runs_done;
  std::sort(failures.begin(), failures.end(), [](const StrategyFailure& a, const StrategyFailure& b) {
    return std::tie(a.space, a.strategy, a.run) < std::tie(b.space, b.strategy, b.run);
  });
  report.failures = std::move(failures);
  report.interrupted = report.runs_finished + report.failures.size() < report.runs_total;
  if (options.partition && !options.partition->scores_here()) return report;  // another process reports
  const auto pair_finished = [&](std::size_t s, std::size_t k) {
    if (k >= n_strategies) return true;  // external runs
    for (std::size_t r = 0; r < repeats; ++r)
      if (!finished[(s * n_strategies + k) * repeats + r]) return false;
    return true;
  };

  // Curves and scores, per (space, strategy).
  const std::size_t n_all = report.strategies.size();
  for (auto& r : results) r.strategies.resize(n_all);
  parallel_for(n_spaces * n_all, options.threads, [&](std::size_t job) {
    const std::size_t s = job / n_all, k = job % n_all;
    SpaceResult& space = results[s];
    StrategyOnSpace& out = space.strategies[k];
    out.strategy = report.strategies[k];
    if (!pair_finished(s, k)) {
      out.score = std::nan("");
      return;
    }
    if (k < n_strategies) {
      for (std::size_t r = 0; r < repeats; ++r) out.runs.push_back(std::move(runs[(s * n_strategies + k) * repeats + r]));
    } else {
      out.runs = external.at(out.strategy).at(space.name);
    }
    CurveOptions curve_options;
    curve_options.seed = seed_of(options.seed, key_of(space.name), 0xc0ffee, 0xc0ffee);  // one bootstrap for all
    try {
      out.curve = strategy_curve_over_time(out.runs, space.stats, space.time_points, curve_options);
      out.performance = standardised_performance(out.curve.values, space.baseline, space.stats.optimum());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}: {}", space.name, e.what()));
    }
    out.score = mean(out.performance);
  });

  report.spaces = std::move(results);
  for (std::size_t k = 0; k < n_all; ++k) {
    AggregateResult a;
    a.strategy = report.strategies[k];
    a.performance.assign(options.resolution, 0.0);
    std::vector<double> stopping;
    bool complete = true;
    for (std::size_t s = 0; s < n_spaces; ++s) complete = complete && pair_finished(s, k);
    if (!complete) {  // interrupted before every space had all its runs: no aggregate
      a.performance.clear();
      a.score = a.error = std::nan("");
      report.aggregate.push_back(std::move(a));
      continue;
    }
    for (const auto& space : report.spaces) {
      for (std::size_t j = 0; j < options.resolution; ++j) a.performance[j] += space.strategies[k].performance[j];
      stopping.push_back(space.strategies[k].curve.real_stopping_fraction);
    }
    for (double& v : a.performance) v /= static_cast<double>(report.spaces.size());
    a.score = mean(a.performance);
    double var = 0;
    for (double v : a.performance) var += (v - a.score) * (v - a.score);
    a.error = std::sqrt(var / static_cast<double>(a.performance.size()));
    std::sort(stopping.begin(), stopping.end());
    a.real_stopping_fraction = median_of_sorted(stopping);
    report.aggregate.push_back(std::move(a));
  }
  report.scoring_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - report.run_seconds;
  return report;
}

}  // namespace ktune::methodology
