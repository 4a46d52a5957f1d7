// minimize: a local minimiser (scipy.optimize.minimize in Kernel Tuner) on the continuous epsilon view, restarted
// from a fresh, preferably unevaluated, random configuration whenever it converges or reaches maxiter. NLopt's
// derivative-free methods stand in for scipy's; initial steps of one grid step make probes reach neighbouring values.
#include "strategies/continuous_view.hpp"
#include "strategies/strategy_infos.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

class Minimize final : public Strategy {
 public:
  Minimize(LocalMethod method, int maxiter, double step, bool aware, std::size_t start_sample, bool lhs)
      : method_(method), maxiter_(maxiter), step_(step), aware_(aware), start_sample_(start_sample), lhs_(lhs) {}

  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    ContinuousView view(space, aware_);
    if (view.dims() == 0) {
      if (space.size() > 0) cost(std::size_t{0});
      return;
    }
    const std::size_t n = population_size(start_sample_, space.size(), 1);
    for (;;)
      local_minimize(view, cost, rng, method_, view.best_random_point(cost, rng, n, lhs_), maxiter_,
                     step_ * view.epsilon());
  }

 private:
  LocalMethod method_;
  int maxiter_;
  double step_;
  bool aware_;
  std::size_t start_sample_;
  bool lhs_;  // sampling=lhs: each start sample is a Latin hypercube
};

}  // namespace

StrategyInfo minimize_info() {
  return {"minimize",
          "restarted local minimiser (NLopt derivative-free methods) on the continuous view, snapping to valid configurations",
          {local_method_spec("COBYLA"),
           {"maxiter", HyperparameterType::Int, Value(100), 2.0, {}, {},
            "objective calls of one local search before it restarts"},
           {"step", HyperparameterType::Float, Value(1.0), 0.0, {}, {}, "initial step, in grid steps (epsilon)",
            /*min_exclusive=*/true},
           constraint_aware_spec(), start_sample_spec(), opening_sampling_spec("random")},
          [](const Hyperparameters& h) {
            return std::make_unique<Minimize>(parse_local_method(h.get_string("method")),
                                              static_cast<int>(h.get_int("maxiter")), h.get_float("step"),
                                              h.get_bool("constraint_aware"),
                                              static_cast<std::size_t>(h.get_int("start_sample")),
                                              latin_hypercube_opening(h));
          }};
}

}  // namespace ktune::strategies
