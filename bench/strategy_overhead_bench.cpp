// Per-evaluation overhead of every registered strategy: a 10,000-evaluation simulated run on the A100 dedispersion
// cache (11,130 configurations; bayes_opt: 500 evaluations). The simulated evaluations themselves cost ~0.1 µs, so the
// time per run is the strategy's own work. Issue 5's target: < 1 s per run (bayes_opt < 30 s).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "ktune/io/results_file.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"

namespace {

struct Simulation {
  ktune::SearchSpace space;
  std::unique_ptr<ktune::SimulationEvaluator> evaluator;
};

const Simulation& dedispersion_a100() {
  static const Simulation sim = [] {
    const std::string dir = std::string(KTUNE_SHARED_DIR) + "/data/benchmark_hub/";
    auto results = std::make_shared<const ktune::io::ResultsFile>(
        ktune::io::read_results_file(dir + "cachefiles/dedispersion_milo/A100.json.gz"));
    Simulation s{ktune::SearchSpace::build(ktune::io::read_t1_file(dir + "t1/dedispersion_milo.json")), nullptr};
    s.evaluator = std::make_unique<ktune::SimulationEvaluator>(s.space, results, ktune::make_objectives({"time"}));
    return s;
  }();
  return sim;
}

void BM_StrategyRun(benchmark::State& state, std::string name, std::uint64_t evaluations) {
  const Simulation& sim = dedispersion_a100();
  auto strategy = ktune::make_strategy(name);
  ktune::TuningOptions options;
  options.budget.max_evaluations = evaluations;
  std::uint64_t seed = 0, done = 0;
  for (auto _ : state) {
    options.seed = seed++;
    const auto result = ktune::tune(sim.space, *sim.evaluator, *strategy, options);
    done += result.evaluations;
    benchmark::DoNotOptimize(result.trace.best());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(done));
  state.counters["evals_per_run"] =
      benchmark::Counter(static_cast<double>(done) / static_cast<double>(state.iterations()));
}

// One benchmark per registered strategy (brute_force and random_sample are covered by tuning_bench).
const bool registered = [] {
  for (const auto& info : ktune::strategy_registry()) {
    if (info.name == "brute_force" || info.name == "random_sample") continue;
    const std::uint64_t evaluations = info.name == "bayes_opt" ? 500 : 10000;
    benchmark::RegisterBenchmark(("StrategyRun/" + info.name + "/" + std::to_string(evaluations)).c_str(),
                                 BM_StrategyRun, info.name, evaluations)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(2);
  }
  return true;
}();

}  // namespace
