#include "ktune/methodology/multiobjective_comparison.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <numeric>
#include <tuple>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/multiobjective/front_normalisation.hpp"
#include "ktune/multiobjective/indicators.hpp"
#include "ktune/multiobjective/pareto.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/sandbox/sandbox.hpp"
#include "ktune/tuning/isolated_strategy.hpp"
#include "support/quantile.hpp"
#include "ktune/tuning/tune.hpp"
#include "methodology/parallel_runs.hpp"

namespace ktune::methodology {
namespace {

struct PreparedMoSpace {
  std::unique_ptr<SearchSpace> space;
  std::unique_ptr<SimulationEvaluator> evaluator;
  std::optional<FrontNormalisation> normalise;  // by the true front's ideal and nadir
  std::vector<double> front;                    // normalised true front, row-major
  MoSpaceResult result;
};

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2 == 1) return v[mid];
  const double hi = v[mid];
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  if (std::isinf(lo) || std::isinf(hi)) return lo == hi ? lo : std::numeric_limits<double>::infinity();
  return (lo + hi) / 2;
}

PreparedMoSpace prepare(const ComparisonSpace& cs, const MoComparisonOptions& o) {
  PreparedMoSpace p;
  p.result.name = cs.name;
  p.space = std::make_unique<SearchSpace>(space_from_results(*cs.results));
  p.evaluator = std::make_unique<SimulationEvaluator>(*p.space, cs.results, o.objectives);
  const std::size_t m = o.objectives.size();
  // Every successful configuration's costs; the true front is their non-dominated set.
  std::vector<double> costs;
  for (std::size_t i = 0; i < p.space->size(); ++i) {
    const auto outcome = p.evaluator->evaluate(i);
    if (outcome.status != Status::ok) continue;
    bool finite = true;
    for (std::size_t j = 0; j < m; ++j) finite = finite && std::isfinite(outcome.objectives[j]);
    if (!finite) continue;
    for (std::size_t j = 0; j < m; ++j) costs.push_back(objective_cost(o.objectives[j], outcome.objectives[j]));
    ++p.result.configurations;
  }
  if (p.result.configurations == 0)
    throw std::invalid_argument(fmt::format("{}: no configuration has every objective", cs.name));
  auto front = pareto_front(costs, m);
  std::sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(costs.begin() + static_cast<std::ptrdiff_t>(a * m),
                                        costs.begin() + static_cast<std::ptrdiff_t>((a + 1) * m),
                                        costs.begin() + static_cast<std::ptrdiff_t>(b * m),
                                        costs.begin() + static_cast<std::ptrdiff_t>((b + 1) * m));
  });
  std::vector<double> front_costs;
  for (std::size_t i : front) front_costs.insert(front_costs.end(), costs.begin() + i * m, costs.begin() + (i + 1) * m);
  p.normalise.emplace(front_costs, m);
  p.result.ideal = p.normalise->ideal();
  p.result.nadir = p.normalise->nadir();
  for (std::size_t k = 0; k < front.size(); ++k) {
    std::vector<double> values(m);
    for (std::size_t j = 0; j < m; ++j) {
      const double c = front_costs[k * m + j];
      values[j] = o.objectives[j].higher_is_better ? -c : c;
    }
    p.result.true_front.push_back(std::move(values));
    const auto n = (*p.normalise)(std::span<const double>(front_costs.data() + k * m, m));
    p.front.insert(p.front.end(), n.begin(), n.end());
  }
  const std::vector<double> ref(m, kHypervolumeReference);
  p.result.true_front_hypervolume = hypervolume(p.front, m, ref);
  return p;
}

// The tuning clock after each of the first `budget` evaluations (a run that ended early keeps its last value).
std::vector<double> clock_curve(const Trace& trace, std::size_t budget) {
  std::vector<double> curve;
  curve.reserve(budget);
  double clock = 0;
  for (std::size_t pos = 0; pos < trace.size() && curve.size() < budget; ++pos) {
    if (trace[pos].resumed) continue;
    clock = trace[pos].clock_ms;
    curve.push_back(clock);
  }
  while (curve.size() < budget) curve.push_back(clock);
  return curve;
}

// IGD+ after each evaluation, updated incrementally: the distance of every front point to the nearest evaluated
// point only shrinks, so each new point costs one pass over the front.
std::vector<double> igd_curve(const Trace& trace, const PreparedMoSpace& p, std::size_t budget,
                              std::vector<double>& evaluated_normalised) {
  const std::size_t m = trace.objectives().size();
  const std::size_t nz = p.front.size() / m;
  std::vector<double> nearest(nz, std::numeric_limits<double>::infinity());
  std::vector<double> curve;
  curve.reserve(budget);
  double igd = std::numeric_limits<double>::infinity();
  for (std::size_t pos = 0; pos < trace.size() && curve.size() < budget; ++pos) {
    if (trace[pos].resumed) continue;
    const auto costs = objective_costs(trace, pos);
    const bool ok = std::all_of(costs.begin(), costs.end(), [](double c) { return std::isfinite(c); });
    if (ok) {
      const auto a = (*p.normalise)(costs);
      evaluated_normalised.insert(evaluated_normalised.end(), a.begin(), a.end());
      double sum = 0;
      for (std::size_t z = 0; z < nz; ++z) {
        double d2 = 0;
        for (std::size_t j = 0; j < m; ++j) {
          const double d = std::max(a[j] - p.front[z * m + j], 0.0);
          d2 += d * d;
        }
        nearest[z] = std::min(nearest[z], std::sqrt(d2));
        sum += nearest[z];
      }
      igd = sum / static_cast<double>(nz);
    }
    curve.push_back(igd);
  }
  // A run that ended early (the space is exhausted) keeps its last value.
  while (curve.size() < budget) curve.push_back(igd);
  return curve;
}

}  // namespace

std::vector<std::size_t> default_checkpoints(std::size_t budget) {
  std::vector<std::size_t> checkpoints;
  for (std::size_t c : {50, 100, 150, 200})
    if (c <= budget) checkpoints.push_back(c);
  if (checkpoints.empty()) checkpoints.push_back(budget);
  return checkpoints;
}

MoComparisonReport compare_multiobjective(const std::vector<ComparisonSpace>& spaces,
                                          const std::vector<StrategySpec>& strategies,
                                          const MoComparisonOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (options.objectives.size() < 2)
    throw std::invalid_argument("a multi-objective comparison needs at least two objectives");
  if (options.budget == 0) throw std::invalid_argument("the evaluation budget must be positive");
  if (options.repeats < 1) throw std::invalid_argument("repeats must be at least 1");
  const std::size_t m = options.objectives.size();

  MoComparisonReport report;
  std::vector<StrategySpec> all = strategies;
  report.baseline = options.baseline;
  if (std::none_of(all.begin(), all.end(), [&](const StrategySpec& s) { return s.label == options.baseline; }))
    all.push_back(parse_strategy_spec(options.baseline));
  for (const auto& s : all) report.strategies.push_back(s.label);
  report.checkpoints = options.checkpoints.empty() ? default_checkpoints(options.budget) : options.checkpoints;
  for (std::size_t c : report.checkpoints)
    if (c == 0 || c > options.budget)
      throw std::invalid_argument(fmt::format("checkpoint {} is outside 1..{} evaluations", c, options.budget));

  std::vector<PreparedMoSpace> prepared(spaces.size());
  parallel_for(spaces.size(), options.threads, [&](std::size_t i) { prepared[i] = prepare(spaces[i], options); });

  const std::size_t n_strategies = all.size(), repeats = static_cast<std::size_t>(options.repeats);
  std::vector<std::vector<double>> curves(spaces.size() * n_strategies * repeats);
  std::vector<std::vector<double>> finals(curves.size());
  std::vector<std::vector<double>> clocks(curves.size());  // the tuning clock after each evaluation
  std::vector<StrategyFailure> failures;
  std::mutex failures_mutex;
  // Isolated runs start sandboxed workers from these threads.
  const unsigned threads = options.isolate ? sandbox::spawning_threads(options.threads) : options.threads;
  parallel_for(curves.size(), threads, [&](std::size_t job) {
    if (stop_requested()) return;
    const std::size_t s = job / (n_strategies * repeats), k = job / repeats % n_strategies, r = job % repeats;
    const PreparedMoSpace& p = prepared[s];
    TuningOptions tuning;
    tuning.budget.max_evaluations = options.budget;
    tuning.seed = seed_of(options.seed, key_of(p.result.name), key_of(canonical_strategy_text(all[k])), r);
    // Isolated: made in its sandboxed worker, where a plug-in is loaded.
    std::unique_ptr<Strategy> strategy =
        options.isolate ? std::make_unique<IsolatedStrategy>(StrategyRecipe{all[k].name, all[k].hyperparameters},
                                                             IsolationOptions{options.isolation_seconds})
                        : make_strategy(all[k].name, all[k].hyperparameters);
    const auto result = tune(*p.space, *p.evaluator, *strategy, tuning);
    if (result.stop_reason == StopReason::strategy_failed) {
      std::lock_guard lock(failures_mutex);
      failures.push_back({all[k].label, p.result.name, r, result.failure});
    }
    curves[job] = igd_curve(result.trace, p, options.budget, finals[job]);
    clocks[job] = clock_curve(result.trace, options.budget);
  });
  // Interrupted: IGD+ curves need every run; nothing is scored.
  if (stop_requested()) throw Interrupted();

  const std::vector<double> ref(m, kHypervolumeReference);
  for (std::size_t s = 0; s < spaces.size(); ++s) {
    MoSpaceResult result = std::move(prepared[s].result);
    for (std::size_t k = 0; k < n_strategies; ++k) {
      MoStrategyOnSpace on;
      on.strategy = all[k].label;
      const std::size_t first = (s * n_strategies + k) * repeats;
      std::vector<double> hv(repeats);
      for (std::size_t r = 0; r < repeats; ++r) {
        on.runs_igd.push_back(curves[first + r]);
        hv[r] = hypervolume(finals[first + r], m, ref);
      }
      on.median_hypervolume = median(hv);
      on.median_clock_ms.resize(options.budget);
      on.median_igd.resize(options.budget);
      on.lower_quartile_igd.resize(options.budget);
      on.upper_quartile_igd.resize(options.budget);
      std::vector<double> at(repeats);
      for (std::size_t e = 0; e < options.budget; ++e) {
        for (std::size_t r = 0; r < repeats; ++r) at[r] = curves[first + r][e];
        std::sort(at.begin(), at.end());
        on.median_igd[e] = median(at);
        on.lower_quartile_igd[e] = support::quantile_of_sorted(at, 0.25);
        on.upper_quartile_igd[e] = support::quantile_of_sorted(at, 0.75);
        for (std::size_t r = 0; r < repeats; ++r) at[r] = clocks[first + r][e];
        std::sort(at.begin(), at.end());
        on.median_clock_ms[e] = median(at);
      }
      // The run whose final IGD+ is the median one shows a typical front.
      std::vector<std::size_t> order(repeats);
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return curves[first + a].back() < curves[first + b].back();
      });
      const auto& typical = finals[first + order[repeats / 2]];
      for (std::size_t i : pareto_front(typical, m)) {
        std::vector<double> values(m);
        for (std::size_t j = 0; j < m; ++j) {
          const double range = result.nadir[j] - result.ideal[j];
          const double c = typical[i * m + j] * (range > 0 ? range : 1.0) + result.ideal[j];
          values[j] = options.objectives[j].higher_is_better ? -c : c;
        }
        on.final_front.push_back(std::move(values));
      }
      std::sort(on.final_front.begin(), on.final_front.end());
      result.strategies.push_back(std::move(on));
    }
    // Against the baseline.
    const auto& base = *std::find_if(result.strategies.begin(), result.strategies.end(),
                                     [&](const MoStrategyOnSpace& x) { return x.strategy == report.baseline; });
    const std::vector<double> base_igd = base.median_igd;
    for (auto& on : result.strategies) {
      for (std::size_t c : report.checkpoints) {
        const double b = base_igd[c - 1], v = on.median_igd[c - 1];
        on.improvement.push_back(b > 0 && std::isfinite(b) ? 1.0 - v / b : (v <= b ? 0.0 : -1.0));
      }
      const double target = base_igd.back();
      const double base_clock = base.median_clock_ms.back();
      const auto relative_time = [&](double clock) {
        return base_clock > 0 ? clock / base_clock : std::numeric_limits<double>::quiet_NaN();
      };
      on.evaluations_to_match = 1.0;
      on.time_to_match = std::numeric_limits<double>::infinity();
      for (std::size_t e = 0; e < options.budget; ++e)
        if (on.median_igd[e] <= target) {
          on.evaluations_to_match = static_cast<double>(e + 1) / static_cast<double>(options.budget);
          on.time_to_match = relative_time(on.median_clock_ms[e]);
          break;
        }
      on.time_ratio = relative_time(on.median_clock_ms.back());
    }
    report.spaces.push_back(std::move(result));
  }
  for (std::size_t k = 0; k < n_strategies; ++k) {
    MoAggregate agg;
    agg.strategy = all[k].label;
    for (std::size_t c = 0; c < report.checkpoints.size(); ++c) {
      std::vector<double> v;
      for (const auto& s : report.spaces) v.push_back(s.strategies[k].improvement[c]);
      agg.improvement.push_back(median(v));
    }
    std::vector<double> v, to_match, ratio;
    for (const auto& s : report.spaces) {
      v.push_back(s.strategies[k].evaluations_to_match);
      // Spaces without recorded times (NaN) say nothing about time.
      if (!std::isnan(s.strategies[k].time_to_match)) to_match.push_back(s.strategies[k].time_to_match);
      if (!std::isnan(s.strategies[k].time_ratio)) ratio.push_back(s.strategies[k].time_ratio);
    }
    agg.evaluations_to_match = median(v);
    agg.time_to_match = median(to_match);
    agg.time_ratio = median(ratio);
    report.aggregate.push_back(std::move(agg));
  }
  std::sort(failures.begin(), failures.end(), [](const StrategyFailure& a, const StrategyFailure& b) {
    return std::tie(a.space, a.strategy, a.run) < std::tie(b.space, b.strategy, b.run);
  });
  report.failures = std::move(failures);
  report.run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace ktune::methodology
