// Simulated tuning speed: whole random_sample and brute_force runs replayed from the A100 dedispersion cache
// (11,130 configurations). items/s is simulated evaluations per second (one core: the tuning loop is sequential).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "ktune/io/results_file.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"
#include "ktune/tuning/tune.hpp"

namespace {

struct Simulation {
  std::shared_ptr<const ktune::io::ResultsFile> results;
  ktune::SearchSpace space;
  std::unique_ptr<ktune::SimulationEvaluator> evaluator;
};

const Simulation& dedispersion() {
  static const Simulation sim = [] {
    const std::string dir = std::string(KTUNE_SHARED_DIR) + "/data/benchmark_hub/";
    auto results = std::make_shared<const ktune::io::ResultsFile>(
        ktune::io::read_results_file(dir + "cachefiles/dedispersion_milo/A100.json.gz"));
    auto space = ktune::SearchSpace::build(ktune::io::read_t1_file(dir + "t1/dedispersion_milo.json"));
    Simulation s{results, std::move(space), nullptr};
    s.evaluator = std::make_unique<ktune::SimulationEvaluator>(s.space, results,
                                                               ktune::make_objectives({"time"}));
    return s;
  }();
  return sim;
}

// `max_fevals` 0: the whole space.
void BM_Simulated(benchmark::State& state, const char* strategy_name, std::uint64_t max_fevals) {
  const Simulation& sim = dedispersion();
  auto strategy = ktune::make_strategy(strategy_name);
  ktune::TuningOptions options;
  if (max_fevals > 0) options.budget.max_evaluations = max_fevals;
  std::uint64_t evaluations = 0;
  for (auto _ : state) {
    options.seed = evaluations;  // a different sample every run
    const auto result = ktune::tune(sim.space, *sim.evaluator, *strategy, options);
    evaluations += result.evaluations;
    benchmark::DoNotOptimize(result.trace.best());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(evaluations));
  state.counters["evals_per_run"] =
      benchmark::Counter(static_cast<double>(evaluations) / static_cast<double>(state.iterations()));
}

BENCHMARK_CAPTURE(BM_Simulated, random_sample/whole_space, "random_sample", 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Simulated, random_sample/200_fevals, "random_sample", 200)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Simulated, brute_force/whole_space, "brute_force", 0)->Unit(benchmark::kMillisecond);

}  // namespace
