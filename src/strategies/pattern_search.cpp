// pattern_search: pyATF's pattern search (Hooke-Jeeves) on the grid of value indices. Exploratory moves of +-step
// per parameter, pattern moves along the last successful direction, the step halved when exploration fails; when a
// step of one index fails, the point is a local optimum and the search restarts from a fresh configuration.
// Constraint-aware trial points are repaired to the nearest valid configuration in index distance.
#include <algorithm>
#include <cmath>

#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/local_search.hpp"
#include "strategies/strategy_infos.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

class PatternSearch final : public Strategy {
 public:
  explicit PatternSearch(const Hyperparameters& h)
      : initial_step_(h.get_float("initial_step")),
        aware_(h.get_bool("constraint_aware")),
        start_sample_(static_cast<std::size_t>(h.get_int("start_sample"))),
        lhs_(latin_hypercube_opening(h)) {}

  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    LocalMoves moves(space, cost, rng, NeighbourMethod::Hamming, aware_);
    const std::size_t d = space.num_params();
    // The grid: true bounds when aware (nothing valid lies outside), the full value lists when not.
    std::vector<std::int64_t> lo(d), hi(d);
    for (std::size_t p = 0; p < d; ++p) {
      lo[p] = aware_ ? space.lower_bound(p) : 0;
      hi[p] = aware_ ? space.upper_bound(p) : static_cast<std::int64_t>(space.param_values(p).size()) - 1;
    }
    // A trial grid point (clamped), admitted (repaired when aware) and evaluated.
    auto trial = [&](const std::vector<std::int64_t>& x) -> std::optional<Point> {
      Config c(d);
      for (std::size_t p = 0; p < d; ++p) c[p] = static_cast<std::uint32_t>(std::clamp(x[p], lo[p], hi[p]));
      auto admitted = moves.admit(c);
      if (!admitted) return std::nullopt;
      return moves.point(std::move(*admitted));
    };
    auto grid = [&](const Config& c) { return std::vector<std::int64_t>(c.begin(), c.end()); };
    std::vector<std::int64_t> step(d);
    // Exploratory moves around x: per parameter, +step, else -step, keeping whatever improves.
    auto explore = [&](Point x) {
      for (std::size_t p = 0; p < d; ++p) {
        if (hi[p] == lo[p]) continue;
        for (std::int64_t sign : {1, -1}) {
          auto g = grid(x.config);
          g[p] += sign * step[p];
          auto t = trial(g);
          if (t && t->cost < x.cost) {
            x = std::move(*t);
            break;
          }
        }
      }
      return x;
    };
    const std::size_t n = population_size(start_sample_, space.size(), 1);
    while (auto start = best_of_fresh_starts(moves, n, lhs_)) {
      Point base = std::move(*start);
      double scale = initial_step_;
      for (;;) {
        bool unit = true;  // every step is one index: the finest the grid allows
        for (std::size_t p = 0; p < d; ++p) {
          step[p] = std::max<std::int64_t>(1, std::llround(scale * static_cast<double>(hi[p] - lo[p])));
          unit = unit && step[p] == 1;
        }
        Point x = explore(base);
        if (!(x.cost < base.cost)) {
          if (unit) break;  // local optimum at the finest step: restart
          scale *= 0.5;
          continue;
        }
        // Pattern moves: jump along base -> x and explore there, as long as that keeps improving.
        for (;;) {
          auto g = grid(x.config);
          const auto b = grid(base.config);
          for (std::size_t p = 0; p < d; ++p) g[p] += g[p] - b[p];
          base = std::move(x);
          auto jumped = trial(g);
          if (!jumped) break;
          Point y = explore(std::move(*jumped));
          if (!(y.cost < base.cost)) break;
          x = std::move(y);
        }
      }
    }
  }

 private:
  double initial_step_;
  bool aware_;
  std::size_t start_sample_;
  bool lhs_;
};

}  // namespace

StrategyInfo pattern_search_info() {
  return {"pattern_search",
          "pyATF's pattern search (Hooke-Jeeves) on the index grid, restarted when the step shrinks to one index",
          {{"initial_step", HyperparameterType::Float, Value(0.1), 0.0, 1.0, {},
            "first exploratory step as a fraction of each parameter's index range (halved on failure)", true},
           constraint_aware_spec(), start_sample_spec(), opening_sampling_spec("lhs")},
          [](const Hyperparameters& h) { return std::make_unique<PatternSearch>(h); }};
}

}  // namespace ktune::strategies
