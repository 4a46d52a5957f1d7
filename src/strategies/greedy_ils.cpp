// greedy_ils: iterated local search (Kernel Tuner's greedy_ils). Climb to a local optimum, kick the best optimum
// found by a random walk of Hamming moves and climb again; after `no_improvement` kicks without a better optimum,
// restart from a fresh unevaluated configuration.
#include <algorithm>

#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/local_search.hpp"
#include "strategies/strategy_infos.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

class GreedyIls final : public Strategy {
 public:
  explicit GreedyIls(const Hyperparameters& h)
      : method_(neighbour_method(h)),
        aware_(h.get_bool("constraint_aware")),
        no_improvement_(h.get_int("no_improvement")),
        random_walk_(h.get_float("random_walk")),
        start_sample_(static_cast<std::size_t>(h.get_int("start_sample"))) {
    options_.first_improvement = h.get_bool("restart");
    options_.randomize = h.get_bool("randomize");
  }
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    LocalMoves moves(space, cost, rng, method_, aware_);
    const auto walk = std::max<std::size_t>(
        1, static_cast<std::size_t>(random_walk_ * static_cast<double>(space.num_params())));
    const std::size_t n = population_size(start_sample_, space.size(), 1);
    while (auto start = best_of_fresh_starts(moves, n)) {
      Point best = hill_climb(moves, std::move(*start), options_, rng);
      for (std::int64_t stale = 0; stale < no_improvement_;) {
        Config kicked = best.config;
        for (std::size_t step = 0; step < walk; ++step)
          if (auto next = moves.random_hamming_move(kicked)) kicked = std::move(*next);
        Point optimum = hill_climb(moves, moves.point(std::move(kicked)), options_, rng);
        if (optimum.cost < best.cost) {
          best = std::move(optimum);
          stale = 0;
        } else {
          ++stale;
        }
      }
    }
  }

 private:
  NeighbourMethod method_;
  bool aware_;
  std::int64_t no_improvement_;
  double random_walk_;
  std::size_t start_sample_;
  ClimbOptions options_;
};

}  // namespace

StrategyInfo greedy_ils_info() {
  return {"greedy_ils",
          "iterated local search: hill climbing, random-walk kicks of the best optimum, restarts when stuck",
          {neighbour_spec("Hamming"),
           {"restart", HyperparameterType::Bool, Value(true), {}, {}, {},
            "move to the first improving neighbour (false: to the best of the whole neighbourhood)"},
           {"randomize", HyperparameterType::Bool, Value(true), {}, {}, {},
            "scan neighbours in random order (false: parameter by parameter in declared order)"},
           {"no_improvement", HyperparameterType::Int, Value(std::int64_t{50}), 1.0, {}, {},
            "kicks without a better optimum before restarting from a fresh configuration"},
           {"random_walk", HyperparameterType::Float, Value(0.3), 0.0, 1.0, {},
            "kick size: random Hamming moves as a fraction of the number of parameters (at least one)"},
           constraint_aware_spec(), start_sample_spec()},
          [](const Hyperparameters& h) { return std::make_unique<GreedyIls>(h); }};
}

}  // namespace ktune::strategies
