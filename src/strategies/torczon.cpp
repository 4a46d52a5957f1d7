// torczon: Torczon's multidirectional search (pyATF's torczon) on the grid of value indices. A simplex of d+1
// vertices is reflected through its best vertex, expanded when the reflection improves, contracted towards the best
// vertex when it does not; vertices are rounded to the grid (and repaired to the nearest valid configuration when
// constraint-aware). When the simplex has shrunk below one index, it restarts from a fresh configuration.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/local_search.hpp"
#include "strategies/strategy_infos.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

class Torczon final : public Strategy {
 public:
  explicit Torczon(const Hyperparameters& h)
      : initial_step_(h.get_float("initial_step")),
        expansion_(h.get_float("expansion")),
        contraction_(h.get_float("contraction")),
        aware_(h.get_bool("constraint_aware")),
        start_sample_(static_cast<std::size_t>(h.get_int("start_sample"))),
        lhs_(latin_hypercube_opening(h)) {}

  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    LocalMoves moves(space, cost, rng, NeighbourMethod::Hamming, aware_);
    const std::size_t d = space.num_params();
    std::vector<double> lo(d), hi(d);
    for (std::size_t p = 0; p < d; ++p) {
      lo[p] = aware_ ? space.lower_bound(p) : 0.0;
      hi[p] = aware_ ? space.upper_bound(p) : static_cast<double>(space.param_values(p).size() - 1);
    }
    using Vertex = std::vector<double>;
    auto evaluate = [&](const Vertex& v) {
      Config c(d);
      for (std::size_t p = 0; p < d; ++p) c[p] = static_cast<std::uint32_t>(std::lround(v[p]));
      const auto admitted = moves.admit(c);
      return admitted ? moves.evaluate(*admitted) : std::numeric_limits<double>::infinity();
    };
    // The simplex transformed about vertex 0: v0 + factor * (vi - v0), clamped to the grid's box.
    auto transform = [&](const std::vector<Vertex>& simplex, double factor) {
      std::vector<Vertex> out = simplex;
      for (std::size_t i = 1; i < out.size(); ++i)
        for (std::size_t p = 0; p < d; ++p)
          out[i][p] = std::clamp(simplex[0][p] + factor * (simplex[i][p] - simplex[0][p]), lo[p], hi[p]);
      return out;
    };
    // Costs of vertices 1..d (vertex 0 is known); returns the position of the cheapest.
    auto evaluate_all = [&](const std::vector<Vertex>& simplex, std::vector<double>& costs) {
      std::size_t best = 1;
      for (std::size_t i = 1; i < simplex.size(); ++i) {
        costs[i] = evaluate(simplex[i]);
        if (costs[i] < costs[best]) best = i;
      }
      return best;
    };
    auto best_first = [](std::vector<Vertex>& simplex, std::vector<double>& costs) {
      const auto best = static_cast<std::size_t>(std::min_element(costs.begin(), costs.end()) - costs.begin());
      std::swap(simplex[0], simplex[best]);
      std::swap(costs[0], costs[best]);
    };
    const std::size_t n = population_size(start_sample_, space.size(), 1);
    while (auto start = best_of_fresh_starts(moves, n, lhs_)) {
      std::vector<Vertex> simplex(d + 1, Vertex(start->config.begin(), start->config.end()));
      std::vector<double> costs(d + 1);
      costs[0] = start->cost;
      if (d == 0) continue;
      // Initial simplex: one step along each parameter, towards the inside of the box.
      for (std::size_t p = 0; p < d; ++p) {
        const double step = std::max(1.0, initial_step_ * (hi[p] - lo[p]));
        auto& v = simplex[p + 1][p];
        v = v + step <= hi[p] ? v + step : std::max(lo[p], v - step);
      }
      evaluate_all(simplex, costs);
      best_first(simplex, costs);
      for (;;) {
        auto reflected = transform(simplex, -1.0);
        std::vector<double> reflected_costs(costs);
        const std::size_t r = evaluate_all(reflected, reflected_costs);
        if (reflected_costs[r] < costs[0]) {
          auto expanded = transform(simplex, -expansion_);
          std::vector<double> expanded_costs(costs);
          const std::size_t e = evaluate_all(expanded, expanded_costs);
          if (expanded_costs[e] < reflected_costs[r]) {
            simplex = std::move(expanded);
            costs = std::move(expanded_costs);
          } else {
            simplex = std::move(reflected);
            costs = std::move(reflected_costs);
          }
          best_first(simplex, costs);
          continue;
        }
        simplex = transform(simplex, contraction_);
        evaluate_all(simplex, costs);
        best_first(simplex, costs);
        double extent = 0;  // how far the simplex reaches from its best vertex, in indices
        for (std::size_t i = 1; i <= d; ++i)
          for (std::size_t p = 0; p < d; ++p) extent = std::max(extent, std::abs(simplex[i][p] - simplex[0][p]));
        if (extent < 0.5) break;  // every vertex rounds to the best one: converged, restart
      }
    }
  }

 private:
  double initial_step_, expansion_, contraction_;
  bool aware_;
  std::size_t start_sample_;
  bool lhs_;
};

}  // namespace

StrategyInfo torczon_info() {
  return {"torczon",
          "pyATF's Torczon multidirectional simplex search on the index grid, restarted when the simplex collapses",
          {{"initial_step", HyperparameterType::Float, Value(0.1), 0.0, 1.0, {},
            "initial simplex edge as a fraction of each parameter's index range (at least one index)", true},
           {"expansion", HyperparameterType::Float, Value(2.0), 1.0, {}, {},
            "expansion factor applied after a successful reflection", true},
           {"contraction", HyperparameterType::Float, Value(0.5), 0.0, 1.0, {},
            "contraction factor towards the best vertex after a failed reflection", true},
           constraint_aware_spec(), start_sample_spec(), opening_sampling_spec("lhs")},
          [](const Hyperparameters& h) { return std::make_unique<Torczon>(h); }};
}

}  // namespace ktune::strategies
