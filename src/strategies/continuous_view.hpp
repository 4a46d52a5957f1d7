#pragma once
// The continuous view shared by the swarm (pso, firefly_algorithm) and scipy-style strategies (minimize,
// basinhopping, dual_annealing): a point of the epsilon space is snapped to value indices, repaired to the
// Euclidean-closest valid neighbour when constraint aware (Alg. 2), and costed. Also the NLopt-based local search.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "strategies/unevaluated_sampler.hpp"

namespace ktune::strategies {

class ContinuousView {
 public:
  // Aware: the box of the true bounds of the valid space, invalid snaps repaired. Unaware: the whole Cartesian box,
  // invalid snaps cost CostFunction::kInvalidCost (no evaluation, no budget). Only parameters that can vary are
  // coordinates (dims()); the others stay at their single value.
  ContinuousView(const SearchSpace& space, bool aware);

  const SearchSpace& space() const { return space_; }
  bool aware() const { return aware_; }
  std::size_t dims() const { return params_.size(); }
  double epsilon() const { return epsilon_; }
  std::span<const double> lower() const { return lower_; }
  std::span<const double> upper() const { return upper_; }
  void clip(std::span<double> x) const;

  // The cost of point x (dims() coordinates); `evaluated` receives the configuration costed (nullopt: invalid,
  // unaware). Lets BudgetExhausted pass.
  double cost(std::span<const double> x, CostFunction& cost, Rng& rng, std::optional<std::size_t>* evaluated = nullptr);
  // What cost() would evaluate for x, split in two: resolve() snaps (and, aware, repairs) the point, drawing from
  // rng exactly as cost() does; cost_of() then costs it. Resolving a swarm first lets it be announced
  // (CostFunction::announce) and evaluated one by one with the same results.
  struct Resolved {
    std::optional<std::size_t> index;  // nullopt: invalid (unaware)
    Config config;
  };
  Resolved resolve(std::span<const double> x, Rng& rng);
  static double cost_of(const Resolved& r, CostFunction& cost);
  // The point of a configuration (value indices).
  std::vector<double> point_of(std::span<const std::uint32_t> config) const;
  // A restart point: aware, an unevaluated configuration from the UnevaluatedSampler (a strategy whose first draw is
  // its start sample opens with random_sample's draws), a random valid one once every configuration is evaluated;
  // unaware, a random point of the Cartesian product, not yet evaluated if one is found cheaply.
  std::vector<double> random_point(const CostFunction& cost, Rng& rng);
  // The best of `n` restart points, each evaluated (the strategies' robust opening: start_sample_spec). Lets
  // BudgetExhausted pass.
  std::vector<double> best_random_point(CostFunction& cost, Rng& rng, std::size_t n, bool lhs = false);
  // (With `lhs`, aware: the n points are a Latin hypercube of the valid space, known ones replaced by restart points.)
  // A uniformly random point of the box.
  std::vector<double> uniform_point(Rng& rng) const;

 private:
  const SearchSpace& space_;
  bool aware_;
  double epsilon_;
  std::vector<std::size_t> params_;  // coordinate k is parameter params_[k]
  std::vector<double> lower_, upper_;
  UnevaluatedSampler starts_;  // aware restart points
  // On a lazy space whose (strictly-)adjacent box around config holds more than kGroupwiseAbove configurations (up to
  // millions in 14 dimensions), the same repair group by group: the box is the product of the groups' boxes and the
  // squared distance a sum over groups, so the closest candidates are the product of each group's closest. Equal to
  // repair_by_neighbours() up to the rounding of that sum; nullopt when it does not apply (then that runs).
  static constexpr std::size_t kGroupwiseAbove = std::size_t{1} << 14;
  std::optional<std::optional<std::size_t>> repair_groupwise(std::span<const std::uint32_t> config, Rng& rng);

  std::vector<double> full_;  // scratch: the full continuous point
};

// A standard normal deviate (Box-Muller from the ktune generator, so it is reproducible).
double standard_normal(Rng& rng);

// std::fmod(x, m) for m > 0, the same bits, without glibc's fmod, whose cost grows with the exponent gap between x and
// m (dual_annealing wraps heavy-tailed steps of up to 1e8 ranges: two fmods per coordinate were 6% of its time).
double exact_fmod(double x, double m);

// The local optimisers of NLopt offered for scipy's `method` (the gradient ones by forward differences of one grid
// step, like scipy's `eps`).
enum class LocalMethod { NelderMead, Powell, Cobyla, Bobyqa, Subplex, Lbfgsb, Slsqp, Bfgs, Cg, TrustConstr };
// `method` with the given default: "COBYLA", "Nelder-Mead", "Powell" (NLopt PRAXIS, Brent's principal-axis variant
// of Powell's method), "BOBYQA", "Subplex", "L-BFGS-B" (NLopt LBFGS), "SLSQP" (NLopt's, which is Kraft's code as
// scipy's), "BFGS" (NLopt LBFGS keeping as many updates as there are dimensions), and the nearest NLopt has to two
// scipy methods it lacks: "CG" (truncated Newton, whose inner solver is conjugate gradients) and "trust-constr"
// (CCSA with quadratic approximations, a conservative trust-region method). Every name of benchmark_hub's
// dual-annealing grid is accepted.
HyperparameterSpec local_method_spec(const std::string& default_method);
LocalMethod parse_local_method(const std::string& name);

struct LocalResult {
  std::vector<double> x;  // the best point met
  double cost;            // its cost (kInvalidCost/inf if nothing better was met)
};

// One local minimisation from x0 by `method` with at most `max_calls` objective calls (memoised revisits included)
// and initial steps of `step` (a multiple of epsilon, so probes reach neighbouring values). It ends as converged on
// the grid after `idle_calls` calls in a row that evaluate nothing new (0: dims() + 4; PRAXIS, which probes with tiny
// steps for long before it moves, only at max_calls). BudgetExhausted thrown in the objective is carried across
// NLopt's C code and rethrown here.
LocalResult local_minimize(ContinuousView& view, CostFunction& cost, Rng& rng, LocalMethod method,
                           std::vector<double> x0, int max_calls, double step, int idle_calls = 0);

}  // namespace ktune::strategies
