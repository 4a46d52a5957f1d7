// `ktune hypertune` speed: scoring genetic_algorithm settings of benchmark_hub's 108-setting grid, 25 repeats on the
// six training spaces each, through the hyperparameter evaluator (the tuning-the-tuner paper's Python pipeline
// needed ~49 minutes per setting). Every 9th setting of the grid (12 settings: all four crossovers, every popsize
// and maxiter) is scored per iteration; `grid_108_s` extrapolates to the whole grid.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "ktune/methodology/comparison.hpp"
#include "training_spaces.hpp"
#include "ktune/methodology/hyperparameter_evaluator.hpp"
#include "ktune/methodology/hyperparameter_space.hpp"
#include "ktune/search_space.hpp"

namespace {

void BM_HypertuneGeneticAlgorithmGrid(benchmark::State& state) {
  using namespace ktune::methodology;
  const auto hyper = read_hyperparameter_space(
      std::string(KTUNE_SHARED_DIR) + "/data/benchmark_hub/hyperparametertuning/algorithms/metatuning_genetic_algorithm.json",
      *ktune::find_strategy("genetic_algorithm"));
  const ktune::SearchSpace space = ktune::SearchSpace::build(hyper.problem);
  const Comparison training(load_spaces(training_spaces()), {});
  std::size_t scored = 0;
  for (auto _ : state) {
    HyperparameterEvaluator evaluator(space, "genetic_algorithm", training);
    for (std::size_t i = 0; i < space.size(); i += 9, ++scored) benchmark::DoNotOptimize(evaluator.evaluate(i));
  }
  state.counters["settings"] = benchmark::Counter(static_cast<double>(scored), benchmark::Counter::kIsRate);
  state.counters["grid_108_s"] =
      benchmark::Counter(static_cast<double>(scored) / static_cast<double>(space.size()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_HypertuneGeneticAlgorithmGrid)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
