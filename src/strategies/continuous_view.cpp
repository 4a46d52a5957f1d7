#include "strategies/continuous_view.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <numbers>
#include <numeric>
#include <stdexcept>

#include <nlopt.h>

#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {

ContinuousView::ContinuousView(const SearchSpace& space, bool aware)
    : space_(space), aware_(aware), epsilon_(space.epsilon()), full_(space.num_params(), 0.0) {
  for (std::size_t p = 0; p < space.num_params(); ++p) {
    // Aware: the true bounds, so no coordinate wanders where no valid configuration lives.
    const double lo = aware ? space.lower_bound(p) * epsilon_ : 0.0;
    const double hi = aware ? space.upper_bound(p) * epsilon_ : space.continuous_upper(p);
    if (hi > lo) {
      params_.push_back(p);
      lower_.push_back(lo);
      upper_.push_back(hi);
    } else {
      full_[p] = lo;
    }
  }
}

void ContinuousView::clip(std::span<double> x) const {
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = std::clamp(x[k], lower_[k], upper_[k]);
}

double ContinuousView::cost(std::span<const double> x, CostFunction& cost, Rng& rng,
                            std::optional<std::size_t>* evaluated) {
  const Resolved r = resolve(x, rng);
  if (evaluated) *evaluated = r.index;
  return cost_of(r, cost);
}

ContinuousView::Resolved ContinuousView::resolve(std::span<const double> x, Rng& rng) {
  for (std::size_t k = 0; k < params_.size(); ++k) full_[params_[k]] = x[k];
  Resolved r{std::nullopt, space_.from_continuous(full_)};
  r.index = space_.index_of(r.config);
  if (!r.index && aware_) {
    // Alg. 2: the neighbour closest to the point itself, which stays where it is.
    if (auto groupwise = repair_groupwise(r.config, rng)) r.index = *groupwise;
    else r.index = repair_by_neighbours(space_, r.config, full_, rng);
    if (!r.index) r.index = repair_by_index_distance(space_, r.config, rng);
  }
  return r;
}

double ContinuousView::cost_of(const Resolved& r, CostFunction& cost) {
  if (r.index) return cost(*r.index);
  return cost(std::span<const std::uint32_t>(r.config));
}

std::optional<std::optional<std::size_t>> ContinuousView::repair_groupwise(std::span<const std::uint32_t> config,
                                                                           Rng& rng) {
  const std::size_t groups = space_.group_count();
  if (groups == 0) return std::nullopt;
  std::vector<Config> parts(groups);
  for (std::size_t c = 0; c < groups; ++c)
    for (std::size_t p : space_.group_params(c)) parts[c].push_back(config[p]);
  for (auto method : {NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent}) {
    std::vector<std::vector<std::size_t>> rows(groups);
    std::size_t count = 1;
    bool empty = false;
    for (std::size_t c = 0; c < groups && !empty; ++c) {
      const SearchSpace& group = space_.group(c);
      rows[c] = group.neighbours(parts[c], method);
      if (const auto self = group.index_of(parts[c]))
        rows[c].insert(std::lower_bound(rows[c].begin(), rows[c].end(), *self), *self);
      empty = rows[c].empty();
      count = count > kGroupwiseAbove ? count : count * rows[c].size();
    }
    if (empty) continue;                             // the next method, as repair_by_neighbours() does
    if (count <= kGroupwiseAbove) return std::nullopt;  // small enough to list: repair_by_neighbours() exactly
    // Per group, the rows closest to the group's part of the point; the whole: one of their combinations, uniformly
    // (as repair_by_neighbours() draws one of its ties: the k-th combination in ascending index order).
    std::vector<std::vector<std::size_t>> ties(groups);
    std::uint64_t combinations = 1;
    for (std::size_t c = 0; c < groups; ++c) {
      const SearchSpace& group = space_.group(c);
      const auto& params = space_.group_params(c);
      double best = std::numeric_limits<double>::infinity();
      for (std::size_t row : rows[c]) {
        double dist = 0;
        for (std::size_t j = 0; j < params.size(); ++j) {
          const double q = group.value_index(row, j) * epsilon_ - full_[params[j]];
          dist += q * q;
        }
        if (dist < best) {
          best = dist;
          ties[c].assign(1, row);
        } else if (dist == best) {
          ties[c].push_back(row);
        }
      }
      combinations *= ties[c].size();
    }
    std::uint64_t k = combinations == 1 ? 0 : rng.below(combinations);
    std::size_t index = 0;
    for (std::size_t c = groups; c-- > 0;) {
      index += ties[c][k % ties[c].size()] * space_.group_stride(c);
      k /= ties[c].size();
    }
    return std::optional<std::size_t>(index);
  }
  return std::nullopt;
}

std::vector<double> ContinuousView::point_of(std::span<const std::uint32_t> config) const {
  std::vector<double> x(params_.size());
  for (std::size_t k = 0; k < params_.size(); ++k) x[k] = config[params_[k]] * epsilon_;
  return x;
}

std::vector<double> ContinuousView::best_random_point(CostFunction& cost_function, Rng& rng, std::size_t n,
                                                      bool lhs) {
  const std::size_t count = std::max<std::size_t>(n, 1);
  const std::vector<std::size_t> plan =
      lhs && aware_ ? latin_hypercube_plan(space_, count, rng) : std::vector<std::size_t>{};
  std::vector<double> best;
  double best_cost = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<double> x = i < plan.size() && !cost_function.known(plan[i]) ? point_of(space_.config_at(plan[i]))
                                                                             : random_point(cost_function, rng);
    const double c = cost(x, cost_function, rng);
    if (best.empty() || c < best_cost) {
      best = std::move(x);
      best_cost = c;
    }
  }
  return best;
}

std::vector<double> ContinuousView::random_point(const CostFunction& cost, Rng& rng) {
  constexpr int kTries = 32;
  if (aware_) {
    if (const auto index = starts_.next(space_, cost, rng)) return point_of(space_.config_at(*index));
    return point_of(space_.config_at(fresh_valid_index(space_, cost, rng, kTries)));
  }
  return point_of(fresh_cartesian_config(space_, cost, rng, kTries));
}

std::vector<double> ContinuousView::uniform_point(Rng& rng) const {
  std::vector<double> x(params_.size());
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = uniform(rng, lower_[k], upper_[k]);
  return x;
}

double standard_normal(Rng& rng) {
  const double u1 = 1.0 - rng.uniform01();  // (0, 1]
  const double u2 = rng.uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// fmod's result x - q m (q = trunc(x / m)) is exactly representable, so the fused multiply-add, rounded once, gives
// it exactly whenever the quotient is right. Rounding is monotonic and integers below 2^52 are representable, so the
// rounded x / m can only reach the next integer away from zero: q one too large in magnitude, r = R - m (x >= 0)
// with R the true remainder, then near m, so R - m is exact (Sterbenz) and adding m back gives R. Beyond 2^52
// quotients (and for inf, NaN), fmod itself. Zero results keep fmod's sign (that of x).
double exact_fmod(double x, double m) {
  const double q = std::trunc(x / m);
  if (!(std::fabs(q) < 4503599627370496.0)) return std::fmod(x, m);
  double r = std::fma(-q, m, x);
  if (x >= 0) {
    if (r < 0) r += m;
    else if (r >= m) r -= m;
  } else {
    if (r > 0) r -= m;
    else if (r <= -m) r += m;
  }
  return r == 0 ? std::copysign(0.0, x) : r;
}

HyperparameterSpec local_method_spec(const std::string& default_method) {
  return {"method", HyperparameterType::String, Value(default_method), {}, {},
          {"COBYLA", "Nelder-Mead", "Powell", "BOBYQA", "Subplex", "L-BFGS-B", "SLSQP", "BFGS", "CG", "trust-constr"},
          "local minimiser (NLopt: Powell = PRAXIS, CG = truncated Newton, trust-constr = CCSAQ; the gradient "
          "methods by one-grid-step finite differences)"};
}

LocalMethod parse_local_method(const std::string& name) {
  if (name == "COBYLA") return LocalMethod::Cobyla;
  if (name == "Nelder-Mead") return LocalMethod::NelderMead;
  if (name == "Powell") return LocalMethod::Powell;
  if (name == "BOBYQA") return LocalMethod::Bobyqa;
  if (name == "Subplex") return LocalMethod::Subplex;
  if (name == "L-BFGS-B") return LocalMethod::Lbfgsb;
  if (name == "SLSQP") return LocalMethod::Slsqp;
  if (name == "BFGS") return LocalMethod::Bfgs;
  if (name == "CG") return LocalMethod::Cg;
  if (name == "trust-constr") return LocalMethod::TrustConstr;
  throw std::invalid_argument("unknown local method '" + name + "'");
}

namespace {

// What NLopt sees: failed and invalid configurations as a large finite value (their +inf / DBL_MAX would turn the
// models of COBYLA and BOBYQA into NaNs).
constexpr double kNloptPenalty = 1e30;

struct NloptObjective {
  ContinuousView& view;
  CostFunction& cost;
  Rng& rng;
  nlopt_opt opt;
  double step;
  int calls_left;
  int idle_limit;           // stop after this many calls in a row that evaluated nothing new
  int idle = 0;
  std::uint64_t evaluations = 0;
  std::vector<double> best_x;
  double best_cost;
  std::exception_ptr error;
  std::vector<double> probe;

  double value(const double* x) {
    const std::span<const double> point(x, view.dims());
    const double c = view.cost(point, cost, rng);
    if (c < best_cost) {
      best_cost = c;
      best_x.assign(point.begin(), point.end());
    }
    --calls_left;
    idle = cost.evaluations() == evaluations ? idle + 1 : 0;
    evaluations = cost.evaluations();
    return std::isfinite(c) && c < CostFunction::kInvalidCost ? c : kNloptPenalty;
  }

  double operator()(const double* x, double* grad) {
    const double f = value(x);
    if (grad) {
      // Forward differences of one step (backward at the upper bound): the probe lands on the neighbouring value.
      probe.assign(x, x + view.dims());
      for (std::size_t k = 0; k < probe.size(); ++k) {
        const double h = probe[k] + step <= view.upper()[k] ? step : -step;
        probe[k] += h;
        grad[k] = (value(probe.data()) - f) / h;
        probe[k] = x[k];
      }
    }
    return f;
  }
};

double objective_trampoline(unsigned, const double* x, double* grad, void* data) {
  auto& objective = *static_cast<NloptObjective*>(data);
  if (objective.error) return kNloptPenalty;
  try {
    const double f = objective(x, grad);
    // Converged on the grid: its probes only revisit known configurations (free, but they find nothing new).
    if (objective.calls_left <= 0 || objective.idle >= objective.idle_limit) nlopt_force_stop(objective.opt);
    return f;
  } catch (...) {
    // Never unwind through NLopt's C frames: stop it and rethrow after nlopt_optimize returns.
    objective.error = std::current_exception();
    nlopt_force_stop(objective.opt);
    return kNloptPenalty;
  }
}

nlopt_algorithm algorithm_of(LocalMethod method) {
  switch (method) {
    case LocalMethod::NelderMead: return NLOPT_LN_NELDERMEAD;
    case LocalMethod::Powell: return NLOPT_LN_PRAXIS;
    case LocalMethod::Cobyla: return NLOPT_LN_COBYLA;
    case LocalMethod::Bobyqa: return NLOPT_LN_BOBYQA;
    case LocalMethod::Subplex: return NLOPT_LN_SBPLX;
    case LocalMethod::Lbfgsb: return NLOPT_LD_LBFGS;
    case LocalMethod::Slsqp: return NLOPT_LD_SLSQP;
    case LocalMethod::Bfgs: return NLOPT_LD_LBFGS;
    case LocalMethod::Cg: return NLOPT_LD_TNEWTON_PRECOND_RESTART;
    case LocalMethod::TrustConstr: return NLOPT_LD_CCSAQ;
  }
  return NLOPT_LN_COBYLA;
}

// Methods NLopt gives a gradient, each costing one objective call per dimension more.
bool uses_gradient(LocalMethod method) {
  return method == LocalMethod::Lbfgsb || method == LocalMethod::Slsqp || method == LocalMethod::Bfgs ||
         method == LocalMethod::Cg || method == LocalMethod::TrustConstr;
}

}  // namespace

LocalResult local_minimize(ContinuousView& view, CostFunction& cost, Rng& rng, LocalMethod method,
                           std::vector<double> x0, int max_calls, double step, int idle_calls) {
  const std::size_t n = view.dims();
  view.clip(x0);
  // The start is always costed here, so every local search makes at least one request (the stall guard then sees
  // a search that NLopt refuses to run).
  LocalResult result{x0, view.cost(x0, cost, rng)};
  if (n == 0 || max_calls <= 1) return result;

  std::unique_ptr<nlopt_opt_s, void (*)(nlopt_opt)> opt(nlopt_create(algorithm_of(method), static_cast<unsigned>(n)),
                                                        nlopt_destroy);
  if (!opt) throw std::runtime_error("NLopt could not create the local optimiser");
  const int idle_limit = method == LocalMethod::Powell ? max_calls
                         : idle_calls > 0             ? idle_calls
                                                      : static_cast<int>(n) + 4;
  NloptObjective objective{view, cost, rng, opt.get(), step, max_calls - 1, idle_limit, 0,
                      cost.evaluations(), result.x, result.cost, nullptr, {}};
  nlopt_set_lower_bounds(opt.get(), view.lower().data());
  nlopt_set_upper_bounds(opt.get(), view.upper().data());
  nlopt_set_min_objective(opt.get(), objective_trampoline, &objective);
  nlopt_set_maxeval(opt.get(), std::max(1, uses_gradient(method) ? (max_calls - 1) / static_cast<int>(n + 1)
                                                                 : max_calls - 1));
  // Steps below a fraction of a grid step only revisit the same configuration.
  nlopt_set_xtol_abs1(opt.get(), 0.05 * view.epsilon());
  std::vector<double> initial_step(n);
  for (std::size_t k = 0; k < n; ++k) initial_step[k] = std::min(step, view.upper()[k] - view.lower()[k]);
  nlopt_set_initial_step(opt.get(), initial_step.data());
  // PRAXIS draws from NLopt's own generator: seed it from ours so a seed still reproduces the run.
  if (method == LocalMethod::Powell) nlopt_srand(static_cast<unsigned long>(rng.next()));
  if (method == LocalMethod::Lbfgsb) nlopt_set_vector_storage(opt.get(), 5);
  if (method == LocalMethod::Bfgs) nlopt_set_vector_storage(opt.get(), static_cast<unsigned>(n));

  double f = 0;
  nlopt_optimize(opt.get(), x0.data(), &f);  // failure codes (round-off, ...) just end this local search
  if (objective.error) std::rethrow_exception(objective.error);
  return {std::move(objective.best_x), objective.best_cost};
}

}  // namespace ktune::strategies
