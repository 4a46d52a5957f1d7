// The lazy form on the big synthetic spaces: building (and counting) gpu_like_14x8 (4.4e12 combinations) and
// gpu_like_10x8 (8.2e7 valid), 1,000 uniform samples, and neighbour queries of each kind around them; and the 10x8
// space materialised (its rows packed). The counter `bytes` is what the space holds.
#include <benchmark/benchmark.h>

#include <string>

#include "ktune/io/t1_reader.hpp"
#include "ktune/search_space.hpp"

namespace {

ktune::Problem big_problem(const std::string& name) {
  return ktune::io::read_t1_file(std::string(KTUNE_SHARED_DIR) + "/data/searchspaces/big/" + name + ".json");
}

void BM_BuildBigSpace(benchmark::State& state, const std::string& name) {
  const auto problem = big_problem(name);
  for (auto _ : state) {
    const auto space = ktune::SearchSpace::build(problem);
    benchmark::DoNotOptimize(space.size());
    state.counters["valid"] = static_cast<double>(space.size());
    state.counters["bytes"] = static_cast<double>(space.memory_bytes());
    state.counters["lazy"] = space.is_lazy();
  }
}
BENCHMARK_CAPTURE(BM_BuildBigSpace, gpu_like_10x8, std::string("gpu_like_10x8"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildBigSpace, gpu_like_14x8, std::string("gpu_like_14x8"))->Unit(benchmark::kMillisecond);

// Build, count, 1,000 uniform samples and the Hamming neighbours of each: the "≤ 1 s" task as one unit.
void BM_Lazy14x8CountSampleNeighbours(benchmark::State& state) {
  const auto problem = big_problem("gpu_like_14x8");
  std::size_t neighbours = 0;
  for (auto _ : state) {
    const auto space = ktune::SearchSpace::build(problem);
    ktune::Rng rng(1);
    const auto sample = space.random_sample(1000, rng);
    neighbours = 0;
    for (std::size_t i : sample) neighbours += space.neighbours(i, ktune::NeighbourMethod::Hamming).size();
    benchmark::DoNotOptimize(neighbours);
  }
  state.counters["hamming_per_query"] = static_cast<double>(neighbours) / 1000.0;
}
BENCHMARK(BM_Lazy14x8CountSampleNeighbours)->Unit(benchmark::kMillisecond);

// One uncached neighbour query of each kind on a random valid configuration of the 14x8 space.
void BM_Lazy14x8Neighbours(benchmark::State& state, ktune::NeighbourMethod method) {
  const auto space = ktune::SearchSpace::build(big_problem("gpu_like_14x8"));
  ktune::Rng rng(2);
  const auto queries = space.random_sample(4096, rng);
  std::size_t k = 0, found = 0;
  for (auto _ : state) {
    const auto config = space.config_at(queries[k++ % queries.size()]);
    const auto n = space.neighbours_uncached(config, method);
    found += n.size();
    benchmark::DoNotOptimize(n.data());
  }
  state.counters["neighbours_per_query"] = static_cast<double>(found) / static_cast<double>(state.iterations());
}
BENCHMARK_CAPTURE(BM_Lazy14x8Neighbours, Hamming, ktune::NeighbourMethod::Hamming)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Lazy14x8Neighbours, HammingAdjacent, ktune::NeighbourMethod::HammingAdjacent)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Lazy14x8Neighbours, ClosestParamIndices, ktune::NeighbourMethod::ClosestParamIndices)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Lazy14x8Neighbours, StrictlyAdjacent, ktune::NeighbourMethod::StrictlyAdjacent)
    ->Unit(benchmark::kMillisecond);

// index_of and value_index: the strategies' hot path.
void BM_Lazy14x8IndexOf(benchmark::State& state) {
  const auto space = ktune::SearchSpace::build(big_problem("gpu_like_14x8"));
  ktune::Rng rng(3);
  std::vector<ktune::Config> configs;
  for (std::size_t i : space.random_sample(4096, rng)) configs.push_back(space.config_at(i));
  std::size_t k = 0;
  for (auto _ : state) benchmark::DoNotOptimize(space.index_of(configs[k++ % configs.size()]));
}
BENCHMARK(BM_Lazy14x8IndexOf)->Unit(benchmark::kNanosecond);

// gpu_like_10x8 listed (--form materialised): 8.2e7 rows packed into 4-byte words, found by binary search.
void BM_Materialised10x8Build(benchmark::State& state) {
  const auto problem = big_problem("gpu_like_10x8");
  for (auto _ : state) {
    const auto space = ktune::SearchSpace::build(problem, {.form = ktune::SpaceForm::materialised});
    benchmark::DoNotOptimize(space.size());
    state.counters["valid"] = static_cast<double>(space.size());
    state.counters["bytes_per_config"] = static_cast<double>(space.memory_bytes()) / static_cast<double>(space.size());
    state.counters["packed"] = space.listed() != nullptr && space.listed()->is_packed();
  }
}
BENCHMARK(BM_Materialised10x8Build)->Unit(benchmark::kMillisecond)->Iterations(3);

// The strategies' queries on the listed 10x8 space: index_of of a valid configuration, an uncached neighbour query.
void BM_Materialised10x8Queries(benchmark::State& state, int what) {
  const auto space = ktune::SearchSpace::build(big_problem("gpu_like_10x8"), {.form = ktune::SpaceForm::materialised});
  ktune::Rng rng(3);
  std::vector<ktune::Config> configs;
  for (std::size_t i : space.random_sample(4096, rng)) configs.push_back(space.config_at(i));
  std::size_t k = 0;
  for (auto _ : state) {
    const auto& config = configs[k++ % configs.size()];
    if (what == 0) benchmark::DoNotOptimize(space.index_of(config));
    else benchmark::DoNotOptimize(space.neighbours_uncached(config, ktune::NeighbourMethod::Hamming).size());
  }
}
BENCHMARK_CAPTURE(BM_Materialised10x8Queries, index_of, 0)->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_Materialised10x8Queries, hamming, 1)->Unit(benchmark::kMicrosecond);

}  // namespace
