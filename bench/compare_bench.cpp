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

// One strategy's runs in `ktune compare` (10 repeats, one thread) on the twelve GPU spaces' largest, RTX 3090 gemm
// (17,956 configurations, up to 1,282 evaluations a run): the strategies whose own work dominated compare's time
// (issue 39: bayes_opt's model, the continuous view's repairs among ~1,300 box neighbours).
void BM_CompareOneStrategyOnGemm(benchmark::State& state, std::string strategy) {
  static const auto spaces = ktune::methodology::load_spaces(
      {std::string(KTUNE_SHARED_DIR) + "/data/benchmark_hub/cachefiles/gemm_clblast/RTX_3090.json.gz"});
  const std::vector<ktune::methodology::StrategySpec> strategies{ktune::methodology::parse_strategy_spec(strategy)};
  ktune::methodology::ComparisonOptions options;
  options.repeats = 10;
  options.threads = 1;
  for (auto _ : state) {
    const auto report = ktune::methodology::compare(spaces, strategies, options);
    benchmark::DoNotOptimize(report.aggregate.front().score);
  }
}

const bool registered_gemm = [] {
  // random_sample: the part of each that is not the strategy's own work (the space and evaluator built from the
  // results, the statistics, the runs' bookkeeping and the scoring).
  for (const char* strategy : {"bayes_opt", "firefly_algorithm", "pso", "basinhopping", "dual_annealing", "random_sample"})
    benchmark::RegisterBenchmark((std::string("CompareOneStrategyOnGemm/") + strategy).c_str(),
                                 BM_CompareOneStrategyOnGemm, std::string(strategy))
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  return true;
}();

}  // namespace
