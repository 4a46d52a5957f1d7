// Building a space whose parameter has a very long value list: linear in the list's length (issue 33 item 12: it was
// quadratic, 2M values > 30 s; the goal for 2^21 values: < 1 s). Google Benchmark fits the complexity over the lengths.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "ktune/search_space.hpp"

namespace {

ktune::Problem long_list_problem(std::int64_t n) {
  std::vector<ktune::Value> xs;
  xs.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) xs.emplace_back(i);
  return ktune::ProblemBuilder("long_list").parameter("x", std::move(xs)).parameter("y", {1, 2}).constraint("x % 3 != 1").build();
}

void BM_LongValueList(benchmark::State& state) {
  const ktune::Problem problem = long_list_problem(state.range(0));
  std::size_t size = 0;
  for (auto _ : state) {
    auto space = ktune::SearchSpace::build(problem, {.threads = 2});
    size = space.size();
    benchmark::DoNotOptimize(size);
  }
  state.counters["valid_configs"] = static_cast<double>(size);
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_LongValueList)->RangeMultiplier(4)->Range(1 << 16, 1 << 21)->Unit(benchmark::kMillisecond)->Complexity();

}  // namespace
