// nsga2: NSGA-II (Deb et al. 2002) as pymoo runs it for Kernel Tuner (multiobjective.md §3.2): binary tournament by
// Pareto dominance then crowding distance; survival by non-dominated rank, the splitting front cut by crowding
// distance with random tie-breaking.
#include <algorithm>
#include <numeric>

#include "ktune/multiobjective/pareto.hpp"
#include "strategies/nsga.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {
namespace {

class Nsga2 final : public NsgaBase {
 public:
  using NsgaBase::NsgaBase;

 private:
  void prepare(std::size_t, std::size_t) override {}

  std::vector<std::size_t> select_parents(const std::vector<MoIndividual>& pop, std::size_t n,
                                          Rng& rng) const override {
    const auto pairs = tournament_pairs(pop.size(), n, rng);
    std::vector<std::size_t> winners(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t a = pairs[2 * k], b = pairs[2 * k + 1];
      if (dominates(pop[a].f, pop[b].f)) {
        winners[k] = a;
      } else if (dominates(pop[b].f, pop[a].f)) {
        winners[k] = b;
      } else if (pop[a].crowding != pop[b].crowding) {
        winners[k] = pop[a].crowding > pop[b].crowding ? a : b;
      } else {
        winners[k] = rng.below(2) == 0 ? a : b;
      }
    }
    return winners;
  }

  std::vector<MoIndividual> survive(std::vector<MoIndividual> merged, std::size_t n_survive, Rng& rng) override {
    const std::size_t m = merged.front().f.size();
    const auto f = objective_matrix(merged);
    const auto fronts = non_dominated_sort(f, m, n_survive);
    std::vector<MoIndividual> survivors;
    survivors.reserve(n_survive);
    for (std::size_t k = 0; k < fronts.size() && survivors.size() < n_survive; ++k) {
      const auto& front = fronts[k];
      std::vector<double> front_f;
      front_f.reserve(front.size() * m);
      for (std::size_t i : front) front_f.insert(front_f.end(), merged[i].f.begin(), merged[i].f.end());
      const auto cd = crowding_distance(front_f, m);
      std::vector<std::size_t> keep(front.size());
      std::iota(keep.begin(), keep.end(), std::size_t{0});
      if (survivors.size() + front.size() > n_survive) {
        // randomized_argsort, descending: a random permutation first, so equal distances are cut at random.
        for (std::size_t i = keep.size(); i > 1; --i) std::swap(keep[i - 1], keep[rng.below(i)]);
        std::stable_sort(keep.begin(), keep.end(), [&](std::size_t x, std::size_t y) { return cd[x] > cd[y]; });
        keep.resize(n_survive - survivors.size());
      }
      for (std::size_t j : keep) {
        MoIndividual ind = std::move(merged[front[j]]);
        ind.rank = k;
        ind.crowding = cd[j];
        survivors.push_back(std::move(ind));
      }
    }
    return survivors;
  }
};

}  // namespace

StrategyInfo nsga2_info() {
  return {"nsga2",
          "multi-objective NSGA-II: dominance/crowding tournaments, rank and crowding survival, neighbour repair",
          nsga_common_hyperparameters(),
          [](const Hyperparameters& h) { return std::make_unique<Nsga2>(nsga_settings(h)); }};
}

}  // namespace ktune::strategies
