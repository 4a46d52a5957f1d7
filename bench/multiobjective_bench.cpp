// Multi-objective building blocks: non-dominated sorting of a whole cache (2 objectives) and of a merged
// population (5 objectives), exact hypervolume of population-sized sets in 3-5 objectives, IGD+, and a
// 200-evaluation NSGA-II / NSGA-III run on a 5-objective synthetic space (the strategy's own overhead).
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "ktune/multiobjective/indicators.hpp"
#include "ktune/multiobjective/pareto.hpp"
#include "ktune/multiobjective/reference_directions.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"

namespace {

// Points on a concave front (x / |x| of random positive vectors) pushed back by random amounts: many fronts.
std::vector<double> random_points(std::size_t n, std::size_t m, std::uint64_t seed) {
  ktune::Rng rng(seed);
  std::vector<double> p(n * m);
  for (std::size_t i = 0; i < n; ++i) {
    double norm = 0;
    for (std::size_t j = 0; j < m; ++j) norm += (p[i * m + j] = rng.uniform01() + 1e-3) * p[i * m + j];
    const double shift = 1 + 0.2 * rng.uniform01();
    for (std::size_t j = 0; j < m; ++j) p[i * m + j] = p[i * m + j] / std::sqrt(norm) * shift;
  }
  return p;
}

void BM_NonDominatedSort(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0)), m = static_cast<std::size_t>(state.range(1));
  const auto p = random_points(n, m, 1);
  for (auto _ : state) benchmark::DoNotOptimize(ktune::non_dominated_sort(p, m, n / 2));
}
BENCHMARK(BM_NonDominatedSort)->Args({40, 2})->Args({40, 5})->Args({2000, 5})->Unit(benchmark::kMicrosecond);

void BM_ParetoFront(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0)), m = static_cast<std::size_t>(state.range(1));
  const auto p = random_points(n, m, 2);
  for (auto _ : state) benchmark::DoNotOptimize(ktune::pareto_front(p, m));
}
BENCHMARK(BM_ParetoFront)->Args({100000, 2})->Args({20000, 5})->Unit(benchmark::kMillisecond);

void BM_Hypervolume(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0)), m = static_cast<std::size_t>(state.range(1));
  auto p = random_points(n, m, 3);
  std::vector<double> front;
  for (std::size_t i : ktune::pareto_front(p, m)) front.insert(front.end(), p.begin() + i * m, p.begin() + i * m + m);
  const std::vector<double> ref(m, 1.3);
  state.counters["front"] = static_cast<double>(front.size() / m);
  for (auto _ : state) benchmark::DoNotOptimize(ktune::hypervolume(front, m, ref));
}
BENCHMARK(BM_Hypervolume)->Args({400, 3})->Args({400, 4})->Args({200, 5})->Unit(benchmark::kMillisecond);

void BM_IgdPlus(benchmark::State& state) {
  const auto a = random_points(200, 5, 4), z = random_points(500, 5, 5);
  for (auto _ : state) benchmark::DoNotOptimize(ktune::igd_plus(a, z, 5));
}
BENCHMARK(BM_IgdPlus)->Unit(benchmark::kMicrosecond);

void BM_RieszDirections(benchmark::State& state) {
  const auto m = static_cast<std::size_t>(state.range(0));
  std::uint64_t seed = 100;
  for (auto _ : state) benchmark::DoNotOptimize(ktune::riesz_energy_directions(m, 20, ++seed));  // uncached
}
BENCHMARK(BM_RieszDirections)->Arg(3)->Arg(5)->Unit(benchmark::kMillisecond);

class FiveObjectives final : public ktune::Evaluator {
 public:
  explicit FiveObjectives(const ktune::SearchSpace& space) : space_(space) {}
  const std::vector<ktune::Objective>& objectives() const override { return objectives_; }
  bool simulated() const override { return true; }
  ktune::EvaluationOutcome evaluate(std::size_t index) override {
    const auto c = space_.config_at(index);
    for (std::size_t j = 0; j < 5; ++j)
      values_[j] = std::abs(static_cast<double>(c[j % c.size()]) - 2.0 * static_cast<double>(j)) +
                   0.1 * static_cast<double>(c[(j + 1) % c.size()]);
    return {ktune::Status::ok, values_, 1.0};
  }
  ktune::EvaluationRecord record(std::size_t) const override { return {}; }

 private:
  const ktune::SearchSpace& space_;
  std::vector<ktune::Objective> objectives_{
      {"a", false}, {"b", false}, {"c", false}, {"d", false}, {"e", false}};
  double values_[5] = {};
};

void BM_NsgaRun(benchmark::State& state, const char* name) {
  ktune::ProblemBuilder b("bench");
  std::vector<ktune::Value> values;
  for (int i = 0; i < 10; ++i) values.push_back(ktune::Value(std::int64_t{i}));
  for (const char* p : {"a", "b", "c", "d", "e"}) b.parameter(p, values);
  b.constraint("a + b + c <= 20");
  const ktune::SearchSpace space = ktune::SearchSpace::build(b.build());
  FiveObjectives evaluator(space);
  std::uint64_t seed = 0;
  for (auto _ : state) {
    auto strategy = ktune::make_strategy(name);
    ktune::TuningOptions options;
    options.budget.max_evaluations = 200;
    options.seed = ++seed;
    benchmark::DoNotOptimize(ktune::tune(space, evaluator, *strategy, options).evaluations);
  }
}
BENCHMARK_CAPTURE(BM_NsgaRun, nsga2, "nsga2")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NsgaRun, nsga3, "nsga3")->Unit(benchmark::kMillisecond);

}  // namespace
