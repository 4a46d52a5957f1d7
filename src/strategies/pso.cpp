// pso: particle swarm optimisation in the continuous epsilon view (Kernel Tuner's pso). A particle is costed at its
// snapped configuration; constraint aware, an invalid snap is repaired to the closest valid neighbour without moving
// the particle. The swarm restarts from fresh, preferably unevaluated, positions when maxiter is reached.
// variant=paper is the constraint-aware paper's PSO: the whole swarm from the start, from a uniform random sample of
// valid configurations (aware), and the bests remember the particle's own position.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "strategies/continuous_view.hpp"
#include "strategies/strategy_infos.hpp"
#include "strategies/spread_order.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

// A converged swarm only revisits (free, but slow and pointless): restart it after this many idle iterations.
constexpr int kIdleIterations = 10;

// Constraint aware, every particle costs an evaluation each iteration, while the classic swarm skips its invalid
// particles for free: a full swarm of 50 spends its first 50 evaluations on random draws. So the aware swarm grows
// instead (incremental particle swarm, Montes de Oca et al. 2011): 5, 10, 20, 40 particles, then all, each joining
// particle pulled towards the swarm's best. Measured on the six training spaces, 16 seeds: 0.51 against 0.40 for the
// full swarm from the start.
constexpr std::size_t kFirstParticles = 5;

// Where a cost was measured: the configuration evaluated (repaired, when the particle's snap was invalid).
std::vector<double> measured_point(const ContinuousView& view, const std::vector<double>& x,
                                   const std::optional<std::size_t>& evaluated) {
  if (!view.aware() || !evaluated) return x;
  return view.point_of(view.space().config_at(*evaluated));
}

struct PsoSettings {
  int popsize, maxiter;
  double w, c1, c2;
  bool aware, paper;
};

class Pso final : public Strategy {
 public:
  explicit Pso(PsoSettings s) : s_(s) {}

  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    ContinuousView view(space, s_.aware);
    const std::size_t d = view.dims();
    if (d == 0) {  // a single configuration
      if (space.size() > 0) cost(std::size_t{0});
      return;
    }
    // Kernel Tuner: never more particles than half the space; ours: see population_size.
    const std::size_t n = std::max<std::size_t>(
        1, std::min(population_size(static_cast<std::size_t>(s_.popsize), space.size(), 3), (space.size() + 1) / 2));
    constexpr double kInf = std::numeric_limits<double>::infinity();
    std::vector<std::vector<double>> x(n), v(n), best_x(n);
    std::vector<double> best_cost(n);
    bool first_pass = true;
    for (;;) {  // one swarm per pass
      // Constraint aware, the first swarm starts from a Latin-hypercube sample of valid configurations: it covers
      // the space evenly instead of clumping where random draws happen to fall.
      // Taking over a run (auto's second stage), it starts from the best configurations evaluated so far, free.
      std::vector<std::size_t> start;
      if (s_.aware && first_pass) {
        if (taking_over(cost)) start = best_evaluated(cost, n);
        if (start.size() < n) {
          const std::size_t more = std::min(n - start.size(), space.size());
          const auto sample =
              s_.paper ? space.random_sample(more, rng) : spread_first(space, space.lhs_sample(more, rng));
          start.insert(start.end(), sample.begin(), sample.end());
        }
      }
      first_pass = false;
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = i < start.size() ? view.point_of(space.config_at(start[i])) : view.random_point(cost, rng);
        v[i].resize(d);
        for (auto& vk : v[i]) vk = uniform(rng, -1.0, 1.0);
        best_x[i] = x[i];
        best_cost[i] = kInf;
      }
      std::vector<double> global_x = x[0];
      double global_cost = kInf;
      std::uint64_t evaluations = cost.evaluations();
      int idle = 0;  // iterations in a row without a new evaluation: the swarm has converged
      for (int iteration = 0; iteration < s_.maxiter && idle < kIdleIterations; ++iteration) {
        const std::size_t active = active_particles(n, iteration);
        if (iteration > 0 && global_cost < kInf) {
          // A joining particle starts between its random spot and the swarm's best (incremental PSO).
          for (std::size_t i = active_particles(n, iteration - 1); i < active; ++i) {
            const double u = rng.uniform01();
            for (std::size_t k = 0; k < d; ++k) x[i][k] += u * (global_x[k] - x[i][k]);
            best_x[i] = x[i];
          }
        }
        // The swarm's configurations are resolved first (the repairs draw from rng in particle order, as one at a
        // time would) and announced, so that a live evaluator compiles them while it measures.
        std::vector<ContinuousView::Resolved> resolved;
        std::vector<std::size_t> announced;
        for (std::size_t i = 0; i < active; ++i) {
          resolved.push_back(view.resolve(x[i], rng));
          if (resolved.back().index) announced.push_back(*resolved.back().index);
        }
        cost.announce(announced);
        for (std::size_t i = 0; i < active; ++i) {
          const std::optional<std::size_t> evaluated = resolved[i].index;
          const double c = ContinuousView::cost_of(resolved[i], cost);
          // The bests remember where the cost was measured: the repaired configuration, not the invalid spot the
          // particle stays at (attraction to an invalid spot only brings the swarm back to invalid ground).
          if (c < best_cost[i]) {
            best_cost[i] = c;
            best_x[i] = s_.paper ? x[i] : measured_point(view, x[i], evaluated);
          }
          if (c <= global_cost) {
            global_cost = c;
            global_x = s_.paper ? x[i] : measured_point(view, x[i], evaluated);
          }
        }
        for (std::size_t i = 0; i < active; ++i) {
          // Scalar r1, r2 per particle, as Kernel Tuner.
          const double r1 = rng.uniform01(), r2 = rng.uniform01();
          for (std::size_t k = 0; k < d; ++k) {
            v[i][k] = s_.w * v[i][k] + s_.c1 * r1 * (best_x[i][k] - x[i][k]) + s_.c2 * r2 * (global_x[k] - x[i][k]);
            x[i][k] += v[i][k];
          }
          view.clip(x[i]);
        }
        idle = cost.evaluations() == evaluations ? idle + 1 : 0;
        evaluations = cost.evaluations();
      }
    }
  }

 private:
  // Particles taking part in this iteration of a swarm.
  std::size_t active_particles(std::size_t n, int iteration) const {
    if (!s_.aware || s_.paper) return n;
    return std::min(n, kFirstParticles << std::min(iteration, 20));
  }

  PsoSettings s_;
};

}  // namespace

StrategyInfo pso_info() {
  return {"pso",
          "particle swarm optimisation in the continuous view, invalid snaps repaired to the closest valid neighbour",
          // From `ktune hypertune` (docs/hyperparameters.md; Kernel Tuner: 50, 190, 0.5, 3.5, 1.0).
          {{"popsize", HyperparameterType::Int, Value(25), 1.0, {}, {},
            "number of particles (at most one per 32 configurations of a small space, at least 3)"},
           {"maxiter", HyperparameterType::Int, Value(380), 1.0, {}, {}, "iterations before the swarm restarts"},
           {"w", HyperparameterType::Float, Value(0.75), 0.0, {}, {}, "inertia weight of the velocity"},
           {"c1", HyperparameterType::Float, Value(2.5), 0.0, {}, {}, "attraction to the particle's own best"},
           {"c2", HyperparameterType::Float, Value(1.5), 0.0, {}, {}, "attraction to the swarm's best"},
           constraint_aware_spec(),
           variant_spec("the whole swarm from the start, from a uniform sample of valid configurations; the bests "
                        "remember the particle's position")},
          [](const Hyperparameters& h) {
            return std::make_unique<Pso>(PsoSettings{static_cast<int>(h.get_int("popsize")),
                                                     static_cast<int>(h.get_int("maxiter")), h.get_float("w"),
                                                     h.get_float("c1"), h.get_float("c2"),
                                                     h.get_bool("constraint_aware"),
                                                     h.get_string("variant") == "paper"});
          }};
}

}  // namespace ktune::strategies
