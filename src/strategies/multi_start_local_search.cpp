// Multi-start hill climbing, as Kernel Tuner's three variants of it, one implementation with three registered
// defaults. Difference from Kernel Tuner: each climb starts from the best of a small uniform sample of unevaluated
// configurations (`start_sample`; 1 is Kernel Tuner's random start), so that on a small budget the search is never
// worse than random search (with one random start, mls scored -1.7 on MI250X convolution and -0.09 overall on the
// twelve brute-forced spaces; with 20: 0.22 and 0.54):
//   greedy_mls          first improvement (restart=true), neighbours in random order
//   mls                 best improvement (restart=false): greedy_mls with restart=false
//   ordered_greedy_mls  first improvement sweeping the parameters in a fixed order (randomize=false, `order`)
#include <optional>
#include <string>

#include "ktune/search_space.hpp"
#include "ktune/strategy_toolkit.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "strategies/local_search.hpp"
#include "strategies/strategy_infos.hpp"

namespace ktune::strategies {
namespace {

class MultiStartLocalSearch final : public Strategy {
 public:
  // `order`: a parameter order to sweep (ordered_greedy_mls), else the hyperparameter `randomize` decides.
  MultiStartLocalSearch(const Hyperparameters& h, std::optional<std::string> order)
      : method_(neighbour_method(h)),
        aware_(h.get_bool("constraint_aware")),
        order_(std::move(order)),
        start_sample_(static_cast<std::size_t>(h.get_int("start_sample"))),
        lhs_(latin_hypercube_opening(h)) {
    options_.first_improvement = h.get_bool("restart");
    options_.randomize = order_ ? false : h.get_bool("randomize");
  }
  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    ClimbOptions options = options_;
    if (order_) options.order = parse_parameter_order(space, *order_, "ordered_greedy_mls");
    LocalMoves moves(space, cost, rng, method_, aware_);
    multi_start_local_search(moves, options, rng, start_sample_, lhs_);
  }

 private:
  NeighbourMethod method_;
  bool aware_;
  std::optional<std::string> order_;
  std::size_t start_sample_;
  bool lhs_;
  ClimbOptions options_;
};

HyperparameterSpec restart_spec(bool first_improvement) {
  return {"restart", HyperparameterType::Bool, Value(first_improvement), {}, {}, {},
          "move to the first improving neighbour (false: to the best of the whole neighbourhood)"};
}

HyperparameterSpec randomize_spec() {
  return {"randomize", HyperparameterType::Bool, Value(true), {}, {}, {},
          "scan neighbours in random order (false: parameter by parameter in declared order)"};
}

}  // namespace

StrategyInfo greedy_mls_info() {
  return {"greedy_mls",
          "multi-start local search: first-improvement hill climbing, each climb from the best of a uniform sample",
          {neighbour_spec("Hamming"), restart_spec(true), randomize_spec(), constraint_aware_spec(),
           start_sample_spec(), opening_sampling_spec("lhs")},
          [](const Hyperparameters& h) { return std::make_unique<MultiStartLocalSearch>(h, std::nullopt); }};
}

StrategyInfo mls_info() {
  return {"mls",
          "multi-start local search: best-improvement hill climbing, each climb from the best of a uniform sample",
          {neighbour_spec("Hamming"), restart_spec(false), randomize_spec(), constraint_aware_spec(),
           start_sample_spec(), opening_sampling_spec("lhs")},
          [](const Hyperparameters& h) { return std::make_unique<MultiStartLocalSearch>(h, std::nullopt); }};
}

StrategyInfo ordered_greedy_mls_info() {
  // Hamming-adjacent (Kernel Tuner: Hamming): a sweep in declared order with Hamming tries every value of the first
  // parameter from the start of its list (often an extreme one, such as the smallest block size) before any other,
  // so a small budget went on far, mostly poor values of one parameter. On the twelve brute-forced spaces, seeds
  // 0-2: mean 0.428 -> 0.512, MI250X convolution 0.13 below random_sample -> 0.05 above.
  return {"ordered_greedy_mls",
          "multi-start local search: first-improvement hill climbing sweeping the parameters in a fixed order",
          {neighbour_spec("Hamming-adjacent"), restart_spec(true),
           {"order", HyperparameterType::String, Value(std::string()), {}, {}, {},
            "comma-separated parameter names or positions to sweep first (empty: declared order)"},
           constraint_aware_spec(), start_sample_spec(), opening_sampling_spec("lhs")},
          [](const Hyperparameters& h) {
            return std::make_unique<MultiStartLocalSearch>(h, h.get_string("order"));
          }};
}

}  // namespace ktune::strategies
