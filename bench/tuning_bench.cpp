// Simulated tuning speed: whole random_sample and brute_force runs replayed from the A100 dedispersion cache
// (11,130 configurations). items/s is simulated evaluations per second (one core: the tuning loop is sequential).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "ktune/tuning/tune.hpp"

#include "dedispersion_simulation.hpp"

namespace {

using ktune::bench::dedispersion;
using ktune::bench::Simulation;

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
