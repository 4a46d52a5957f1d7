// ordered_greedy_mls: multi-start first-improvement hill climbing that sweeps the parameters in a fixed order
// (Kernel Tuner's ordered_greedy_mls: greedy_mls with randomize=false and an optional order).
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/local_search.hpp"
#include "strategies/strategy_infos.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

class OrderedGreedyMls final : public Strategy {
 public:
  explicit OrderedGreedyMls(const Hyperparameters& h)
      : method_(neighbour_method(h)), aware_(h.get_bool("constraint_aware")), order_(h.get_string("order")) {
    options_.first_improvement = h.get_bool("restart");
    options_.randomize = false;
  }
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    ClimbOptions options = options_;
    options.order = parse_parameter_order(space, order_, "ordered_greedy_mls");
    LocalMoves moves(space, cost, rng, method_, aware_);
    multi_start_local_search(moves, options, rng);
  }

 private:
  NeighbourMethod method_;
  bool aware_;
  std::string order_;
  ClimbOptions options_;
};

}  // namespace

StrategyInfo ordered_greedy_mls_info() {
  return {"ordered_greedy_mls",
          "multi-start local search: first-improvement hill climbing sweeping the parameters in a fixed order",
          {neighbour_spec("Hamming"),
           {"restart", HyperparameterType::Bool, Value(true), {}, {}, {},
            "move to the first improving neighbour (false: to the best of the whole neighbourhood)"},
           {"order", HyperparameterType::String, Value(std::string()), {}, {}, {},
            "comma-separated parameter names or positions to sweep first (empty: declared order)"},
           constraint_aware_spec()},
          [](const Hyperparameters& h) { return std::make_unique<OrderedGreedyMls>(h); }};
}

}  // namespace ktune::strategies
