// greedy_mls: multi-start first-improvement hill climbing (Kernel Tuner's greedy_mls, without its defects).
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/local_search.hpp"
#include "strategies/strategy_infos.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

class GreedyMls final : public Strategy {
 public:
  explicit GreedyMls(const Hyperparameters& h)
      : method_(neighbour_method(h)), aware_(h.get_bool("constraint_aware")) {
    options_.first_improvement = h.get_bool("restart");
    options_.randomize = h.get_bool("randomize");
  }
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    LocalMoves moves(space, cost, rng, method_, aware_);
    multi_start_local_search(moves, options_, rng);
  }

 private:
  NeighbourMethod method_;
  bool aware_;
  ClimbOptions options_;
};

}  // namespace

StrategyInfo greedy_mls_info() {
  return {"greedy_mls",
          "multi-start local search: first-improvement hill climbing from random unevaluated starts",
          {neighbour_spec("Hamming"),
           {"restart", HyperparameterType::Bool, Value(true), {}, {}, {},
            "move to the first improving neighbour (false: to the best of the whole neighbourhood)"},
           {"randomize", HyperparameterType::Bool, Value(true), {}, {}, {},
            "scan neighbours in random order (false: parameter by parameter in declared order)"},
           constraint_aware_spec()},
          [](const Hyperparameters& h) { return std::make_unique<GreedyMls>(h); }};
}

}  // namespace ktune::strategies
