#include "ktune/strategy_toolkit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ktune::strategies {
namespace {

std::size_t pick(const std::vector<std::size_t>& candidates, Rng& rng) {
  return candidates[candidates.size() == 1 ? 0 : static_cast<std::size_t>(rng.below(candidates.size()))];
}

// The adjacent box reaches the nearest used value on each side; where that is the next index (or there is none),
// it holds the same configurations as the strictly-adjacent box (every value used: the gemm spaces).
bool adjacent_is_strict(const SearchSpace& space, std::span<const std::uint32_t> config) {
  for (std::size_t p = 0; p < config.size(); ++p) {
    const auto& used = space.used_values(p);
    const std::uint32_t v = config[p];
    const auto above = std::upper_bound(used.begin(), used.end(), v);
    if (above != used.end() && *above != v + 1) return false;
    const auto below = std::lower_bound(used.begin(), used.end(), v);
    if (below != used.begin() && *(below - 1) + 1 != v) return false;
  }
  return true;
}

}  // namespace

std::size_t population_size(std::size_t requested, std::size_t space_size, std::size_t minimum) {
  const std::size_t cap = std::max(space_size / kSpacePerMember, minimum);
  return std::min({requested, cap, space_size});
}

std::vector<std::size_t> best_evaluated(const CostFunction& cost, std::size_t n) {
  const Trace& trace = cost.trace();
  std::vector<std::size_t> positions;
  for (std::size_t p = 0; p < trace.size(); ++p)
    if (std::isfinite(trace.cost(p))) positions.push_back(p);
  const std::size_t k = std::min(n, positions.size());
  std::partial_sort(positions.begin(), positions.begin() + static_cast<std::ptrdiff_t>(k), positions.end(),
                    [&](std::size_t a, std::size_t b) {
                      return trace.cost(a) < trace.cost(b) || (trace.cost(a) == trace.cost(b) && a < b);
                    });
  std::vector<std::size_t> best(k);
  for (std::size_t i = 0; i < k; ++i) best[i] = trace[positions[i]].index;
  return best;
}

HyperparameterSpec constraint_aware_spec() {
  return {"constraint_aware", HyperparameterType::Bool, Value(true), {}, {}, {},
          "only valid configurations: sample valid ones and repair invalid candidates (false: classic algorithm with "
          "a penalty for invalid ones)"};
}

HyperparameterSpec variant_spec(const std::string& paper) {
  return {"variant", HyperparameterType::String, Value(std::string("ktune")), {}, {}, {"ktune", "paper"},
          "paper: the constraint-aware paper's algorithm as published (" + paper + ")"};
}

HyperparameterSpec start_sample_spec(std::int64_t default_size) {
  return {"start_sample", HyperparameterType::Int, Value(default_size), 1.0, {}, {},
          "random configurations evaluated first; the search starts from the best (at most one per 32 "
          "configurations of the space)"};
}

HyperparameterSpec opening_sampling_spec(const std::string& default_method) {
  return {"sampling", HyperparameterType::String, Value(default_method), {}, {}, {"random", "lhs"},
          "how the start sample is drawn: uniform random unevaluated configurations, or a Latin hypercube of the "
          "valid space"};
}

bool latin_hypercube_opening(const Hyperparameters& h) { return h.get_string("sampling") == "lhs"; }

std::optional<std::size_t> repair_by_index_distance(const SearchSpace& space, std::span<const std::uint32_t> config,
                                                    Rng& rng) {
  if (const auto index = space.index_of(config)) return *index;
  if (space.size() == 0) return std::nullopt;
  const auto nearest = space.neighbours(config, NeighbourMethod::ClosestParamIndices);
  if (nearest.empty()) return std::nullopt;
  return pick(nearest, rng);
}

std::optional<std::size_t> repair_by_neighbours(const SearchSpace& space, std::span<const std::uint32_t> config,
                                                std::span<const double> target, Rng& rng) {
  if (const auto index = space.index_of(config)) return *index;
  std::vector<double> own;
  if (target.empty()) {
    own = space.to_continuous(config);
    target = own;
  }
  for (auto method : {NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent, NeighbourMethod::Hamming}) {
    if (method == NeighbourMethod::Adjacent && adjacent_is_strict(space, config)) continue;  // the same box: empty again
    const auto ties = space.closest_neighbours(config, method, target);
    if (!ties.empty()) return pick(ties, rng);
  }
  return std::nullopt;
}

void closest_candidates(const SearchSpace& space, std::span<const std::size_t> candidates,
                        std::span<const double> target, std::vector<std::size_t>& ties) {
  ties.clear();
  double best = std::numeric_limits<double>::infinity();
  const double eps = space.epsilon();
  for (std::size_t j = 0; j < candidates.size(); ++j) {
    // The distance in the continuous view, without building the point; terms are non-negative, so a candidate is
    // dropped once its partial sum exceeds the best.
    double d = 0;
    std::size_t p = 0;
    for (; p < target.size() && d <= best; ++p) {
      const double x = static_cast<double>(space.value_index(candidates[j], p)) * eps;
      d += (x - target[p]) * (x - target[p]);
    }
    if (p < target.size()) continue;
    if (d < best) {
      best = d;
      ties.assign(1, j);
    } else if (d == best) {
      ties.push_back(j);
    }
  }
}

std::pair<Config, Config> single_point_crossover(const Config& a, const Config& b, Rng& rng) {
  Config x = a, y = b;
  const std::size_t d = a.size();
  if (d >= 2)
    for (std::size_t p = 1 + static_cast<std::size_t>(rng.below(d - 1)); p < d; ++p) std::swap(x[p], y[p]);
  return {std::move(x), std::move(y)};
}

std::pair<Config, Config> two_point_crossover(const Config& a, const Config& b, Rng& rng) {
  Config x = a, y = b;
  const std::size_t d = a.size();
  std::size_t from = 1, to = d;
  if (d >= 3) {
    from = 1 + static_cast<std::size_t>(rng.below(d - 1));
    to = 1 + static_cast<std::size_t>(rng.below(d - 2));
    if (to >= from) ++to;
    if (from > to) std::swap(from, to);
  } else if (d < 2) {
    return {std::move(x), std::move(y)};
  }
  for (std::size_t p = from; p < to; ++p) std::swap(x[p], y[p]);
  return {std::move(x), std::move(y)};
}

std::pair<Config, Config> uniform_crossover(const Config& a, const Config& b, Rng& rng) {
  Config x = a, y = b;
  for (std::size_t p = 0; p < x.size(); ++p)
    if (rng.below(2) == 1) std::swap(x[p], y[p]);
  return {std::move(x), std::move(y)};
}

std::vector<std::uint32_t> random_cartesian_config(const SearchSpace& space, Rng& rng) {
  std::vector<std::uint32_t> config(space.num_params());
  for (std::size_t p = 0; p < config.size(); ++p)
    config[p] = static_cast<std::uint32_t>(rng.below(space.param_values(p).size()));
  return config;
}

std::vector<std::uint32_t> random_valid_config(const SearchSpace& space, Rng& rng) {
  return space.config_at(static_cast<std::size_t>(rng.below(space.size())));
}

std::size_t fresh_valid_index(const SearchSpace& space, const CostFunction& cost, Rng& rng, int tries) {
  const std::size_t n = space.size();
  for (int attempt = 0; attempt < tries; ++attempt) {
    const auto i = static_cast<std::size_t>(rng.below(n));
    if (!cost.known(i)) return i;
  }
  // Nearly everything is known: walk from a random place to the next unknown one.
  const auto start = static_cast<std::size_t>(rng.below(n));
  for (std::size_t k = 0; k < n; ++k)
    if (!cost.known((start + k) % n)) return (start + k) % n;
  return start;
}

std::vector<std::uint32_t> fresh_cartesian_config(const SearchSpace& space, const CostFunction& cost, Rng& rng,
                                                  int tries) {
  std::vector<std::uint32_t> config = random_cartesian_config(space, rng);
  for (int attempt = 0; attempt < tries; ++attempt) {
    const auto index = space.index_of(config);
    if (!index || !cost.known(*index)) break;
    config = random_cartesian_config(space, rng);
  }
  return config;
}

}  // namespace ktune::strategies
