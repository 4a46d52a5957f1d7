// dual_annealing: generalised simulated annealing (Tsallis-Stariolo visiting distribution, generalised Metropolis
// acceptance, as scipy.optimize.dual_annealing used by Kernel Tuner) plus a local search, on the continuous epsilon
// view. Unlike Kernel Tuner, the local minimiser gets its options (maxiter, a one-grid-step initial step; defect
// 8.6). Restarts (re-annealing from a fresh random configuration) when the temperature falls below the restart
// temperature or after maxiter annealing iterations.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "strategies/continuous_view.hpp"
#include "strategies/strategy_infos.hpp"
#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {
namespace {

// An annealing that only revisits known configurations (late, cold) re-anneals after this many idle iterations.
constexpr int kIdleIterations = 20;

struct AnnealingSettings {
  LocalMethod method;
  int maxiter, local_maxiter;
  double initial_temp, restart_temp_ratio, visit, accept;
  bool aware;
  std::size_t start_sample;
  bool lhs;  // sampling=lhs: each start sample is a Latin hypercube
};

constexpr double kFailedEnergy = 1e30;  // failed and invalid configurations, finite so energy differences stay numbers
double energy_of(double c) { return std::isfinite(c) && c < CostFunction::kInvalidCost ? c : kFailedEnergy; }

// The Tsallis visiting distribution of parameter qv (a heavy-tailed step whose scale falls with the temperature).
class Visiting {
 public:
  explicit Visiting(double qv) : qv_(qv) {
    const double f2 = std::exp((4.0 - qv) * std::log(qv - 1.0));
    const double f3 = std::exp((2.0 - qv) * std::log(2.0) / (qv - 1.0));
    f4p_ = std::sqrt(std::numbers::pi) * f2 / (f3 * (3.0 - qv));
    const double f5 = 1.0 / (qv - 1.0) - 0.5;
    f6_ = std::numbers::pi * (1.0 - f5) / std::sin(std::numbers::pi * (1.0 - f5)) / std::exp(std::lgamma(2.0 - f5));
  }
  // The step's scale at a temperature: one per annealing iteration, not per step (2d steps share it).
  double sigma(double temperature) const {
    const double factor4 = f4p_ * std::exp(std::log(temperature) / (qv_ - 1.0));
    return std::exp(-(qv_ - 1.0) * std::log(f6_ / factor4) / (3.0 - qv_));
  }
  double draw(double sigma, Rng& rng) const {
    const double x = standard_normal(rng) * sigma, y = standard_normal(rng);
    const double v = x / std::exp((qv_ - 1.0) * std::log(std::fabs(y)) / (3.0 - qv_));
    constexpr double kTail = 1e8;
    if (v > kTail) return kTail * rng.uniform01();
    if (v < -kTail) return -kTail * rng.uniform01();
    return std::isfinite(v) ? v : 0.0;
  }

 private:
  double qv_, f4p_, f6_;
};

// scipy's periodic boundary: fmod(fmod(a, range) + range, range).
double periodic(double a, double range) { return exact_fmod(exact_fmod(a, range) + range, range); }

class DualAnnealing final : public Strategy {
 public:
  explicit DualAnnealing(AnnealingSettings s) : s_(s) {}

  void run(const SearchSpace& space, CostFunction& cost, Rng& rng) override {
    ContinuousView view(space, s_.aware);
    const std::size_t d = view.dims();
    if (d == 0) {
      if (space.size() > 0) cost(std::size_t{0});
      return;
    }
    const Visiting visiting(s_.visit);
    const double qa = s_.accept;
    const double t1 = std::exp((s_.visit - 1.0) * std::log(2.0)) - 1.0;
    const double restart_temp = s_.initial_temp * s_.restart_temp_ratio;
    auto evaluate = [&](const std::vector<double>& x) { return energy_of(view.cost(x, cost, rng)); };
    // Wraps a coordinate back into its range (scipy's periodic boundary).
    auto wrap = [&](std::size_t k, double value) {
      const double lo = view.lower()[k], range = view.upper()[k] - lo;
      double w = periodic(value - lo, range) + lo;
      if (std::fabs(w - lo) < 1e-10) w += 1e-10;
      return w;
    };
    auto local = [&](const std::vector<double>& x) {
      auto r = local_minimize(view, cost, rng, s_.method, x, s_.local_maxiter, view.epsilon());
      r.cost = energy_of(r.cost);
      return r;
    };

    for (;;) {  // one annealing per pass
      std::vector<double> current =
          view.best_random_point(cost, rng, population_size(s_.start_sample, space.size(), 1), s_.lhs);
      double e_current = evaluate(current);
      // The start sample did the first chain's job (a global look at the space), so descend from its best at once;
      // scipy anneals a chain first, whose 2d visits at the starting temperature are near-uniform points snapped
      // to the grid, and only then searches locally: on a budget of a few dozen evaluations that left little for
      // the search (MI250X convolution: 0.07 below random_sample, 8 seeds).
      if (const auto r = local(current); r.cost < e_current) {
        current = r.x;
        e_current = r.cost;
      }
      std::vector<double> best = current, xmin = current;
      double e_best = e_current, e_min = e_current;
      int not_improved = 0, not_improved_max = 1000;
      int idle = 0;  // iterations in a row without a new evaluation
      for (int i = 0; i < s_.maxiter && idle < kIdleIterations; ++i) {
        const std::uint64_t evaluations = cost.evaluations();
        const double t2 = std::exp((s_.visit - 1.0) * std::log(i + 2.0)) - 1.0;
        const double temperature = s_.initial_temp * t1 / t2;
        if (temperature < restart_temp) break;  // re-anneal
        const double temperature_step = temperature / (i + 1.0);
        const double sigma = visiting.sigma(temperature);
        ++not_improved;
        bool improved = false;  // scipy: true in the first iteration, which our opening's descent replaces
        // The strategy chain: d moves of every coordinate, then d moves of one coordinate each.
        for (std::size_t j = 0; j < 2 * d; ++j) {
          std::vector<double> visit = current;
          if (j < d) {
            for (std::size_t k = 0; k < d; ++k) visit[k] = wrap(k, current[k] + visiting.draw(sigma, rng));
          } else {
            const std::size_t k = j - d;
            visit[k] = wrap(k, current[k] + visiting.draw(sigma, rng));
          }
          const double e = evaluate(visit);
          if (e < e_current) {
            current = visit;
            e_current = e;
            if (e < e_best) {
              best = visit;
              e_best = e;
              improved = true;
              not_improved = 0;
            }
          } else {
            // Generalised Metropolis acceptance of parameter qa.
            const double r = rng.uniform01();
            const double base = 1.0 - (1.0 - qa) * (e - e_current) / temperature_step;
            const double p = base <= 0 ? 0.0 : std::exp(std::log(base) / (1.0 - qa));
            if (r <= p) {
              current = visit;
              e_current = e;
              xmin = current;
            }
            if (not_improved >= not_improved_max && (j == 0 || e_current < e_min)) {
              e_min = e_current;
              xmin = current;
            }
          }
        }
        // Local search from the best point when the chain improved it, and from the chain's minimum when nothing
        // improved for a long time.
        if (improved) {
          const auto r = local(best);
          if (r.cost < e_best) {
            not_improved = 0;
            best = current = r.x;
            e_best = e_current = r.cost;
          }
        }
        if (not_improved >= not_improved_max) {
          const auto r = local(xmin);
          xmin = r.x;
          e_min = r.cost;
          not_improved = 0;
          not_improved_max = static_cast<int>(d);
          if (e_min < e_best) {
            best = current = xmin;
            e_best = e_current = e_min;
          }
        }
        idle = cost.evaluations() == evaluations ? idle + 1 : 0;
      }
    }
  }

 private:
  AnnealingSettings s_;
};

}  // namespace

StrategyInfo dual_annealing_info() {
  return {"dual_annealing",
          "generalised simulated annealing with local search (scipy's dual annealing) on the continuous view",
          // method and initial_temp from `ktune hypertune` (docs/hyperparameters.md; Kernel Tuner: COBYLA, 5230).
          {local_method_spec("Nelder-Mead"),
           {"maxiter", HyperparameterType::Int, Value(1000), 1.0, {}, {}, "annealing iterations before re-annealing"},
           {"local_maxiter", HyperparameterType::Int, Value(100), 2.0, {}, {},
            "objective calls of one local search"},
           {"initial_temp", HyperparameterType::Float, Value(1000.0), 0.01, 5.0e4, {}, "initial temperature"},
           {"restart_temp_ratio", HyperparameterType::Float, Value(2e-5), 0.0, 1.0, {},
            "re-anneal when the temperature falls below initial_temp times this", /*min_exclusive=*/true},
           {"visit", HyperparameterType::Float, Value(2.62), 1.0, 2.99, {},
            "visiting parameter qv: heavier tails of the visiting distribution when larger", /*min_exclusive=*/true},
           {"accept", HyperparameterType::Float, Value(-5.0), -1.0e4, -1e-3, {},
            "acceptance parameter qa: more negative accepts fewer uphill moves"},
           constraint_aware_spec(), start_sample_spec(), opening_sampling_spec("random")},
          [](const Hyperparameters& h) {
            return std::make_unique<DualAnnealing>(AnnealingSettings{
                parse_local_method(h.get_string("method")), static_cast<int>(h.get_int("maxiter")),
                static_cast<int>(h.get_int("local_maxiter")), h.get_float("initial_temp"),
                h.get_float("restart_temp_ratio"), h.get_float("visit"), h.get_float("accept"),
                h.get_bool("constraint_aware"), static_cast<std::size_t>(h.get_int("start_sample")),
                latin_hypercube_opening(h)});
          }};
}

}  // namespace ktune::strategies
