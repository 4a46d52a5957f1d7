// The repair of a continuous point (pso, firefly, basinhopping, dual_annealing, minimize; the GA's children): of an
// invalid snap's strictly-adjacent neighbours, the ones closest to the point. On the RTX 3090 gemm space (17,956
// configurations, 15 parameters; a box holds up to ~1,300 of them): SearchSpace::closest_neighbours' branch and bound
// against listing the box and scanning it (what the strategies did before, with a neighbour cache).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ktune/io/results_file.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/strategy_toolkit.hpp"
#include "ktune/tuning/simulation_evaluator.hpp"

namespace {

struct Queries {
  ktune::SearchSpace space;
  std::vector<ktune::Config> snaps;  // invalid
  std::vector<std::vector<double>> points;
};

// Points within two grid steps of valid configurations, as a swarm's moves land, whose snaps are invalid.
const Queries& gemm_queries() {
  static const Queries q = [] {
    const auto results = ktune::io::read_results_file(std::string(KTUNE_SHARED_DIR) +
                                                      "/data/benchmark_hub/cachefiles/gemm_clblast/RTX_3090.json.gz");
    Queries out{ktune::space_from_results(results), {}, {}};
    ktune::Rng rng(7);
    while (out.snaps.size() < 2000) {
      std::vector<double> x = out.space.to_continuous(out.space.config_at(rng.below(out.space.size())));
      for (double& c : x) c += (rng.uniform01() * 4 - 2) * out.space.epsilon();
      ktune::Config snap = out.space.from_continuous(x);
      if (out.space.index_of(snap)) continue;
      for (std::size_t p = 0; p < x.size(); ++p) x[p] = std::clamp(x[p], 0.0, out.space.continuous_upper(p));
      out.snaps.push_back(std::move(snap));
      out.points.push_back(std::move(x));
    }
    return out;
  }();
  return q;
}

void BM_ClosestNeighboursBranchAndBound(benchmark::State& state) {
  const Queries& q = gemm_queries();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        q.space.closest_neighbours(q.snaps[i], ktune::NeighbourMethod::StrictlyAdjacent, q.points[i]));
    i = (i + 1) % q.snaps.size();
  }
}
BENCHMARK(BM_ClosestNeighboursBranchAndBound)->Unit(benchmark::kMicrosecond);

void BM_ClosestNeighboursListAndScan(benchmark::State& state) {
  const Queries& q = gemm_queries();
  std::size_t i = 0;
  std::vector<std::size_t> ties;
  for (auto _ : state) {
    const auto listed = q.space.neighbours_uncached(q.snaps[i], ktune::NeighbourMethod::StrictlyAdjacent);
    ktune::strategies::closest_candidates(q.space, listed, q.points[i], ties);
    benchmark::DoNotOptimize(ties);
    i = (i + 1) % q.snaps.size();
  }
}
BENCHMARK(BM_ClosestNeighboursListAndScan)->Unit(benchmark::kMicrosecond);

}  // namespace
