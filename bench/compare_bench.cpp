// `ktune compare` speed: random_sample and brute_force, 25 runs each, on the six training spaces (methodology.md
// §2: Kernel Tuner plus the reference package take about 8 minutes for 2 strategies). Loading the six T4 files is
// timed separately; the comparison itself includes the runs, the curves and the scores.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "ktune/methodology/comparison.hpp"
#include "training_spaces.hpp"

namespace {

void BM_LoadTrainingSpaces(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ktune::methodology::load_spaces(training_spaces()));
}
BENCHMARK(BM_LoadTrainingSpaces)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_Compare2Strategies6Spaces25Repeats(benchmark::State& state) {
  const auto spaces = ktune::methodology::load_spaces(training_spaces());
  const std::vector<ktune::methodology::StrategySpec> strategies{
      ktune::methodology::parse_strategy_spec("random_sample"), ktune::methodology::parse_strategy_spec("brute_force")};
  for (auto _ : state) {
    const auto report = ktune::methodology::compare(spaces, strategies, {});
    benchmark::DoNotOptimize(report.aggregate.front().score);
  }
}
BENCHMARK(BM_Compare2Strategies6Spaces25Repeats)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
