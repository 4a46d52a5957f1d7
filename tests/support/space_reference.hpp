#pragma once
// Brute-force O(N) references of SearchSpace's neighbour definitions (Kernel Tuner's, see search_space.hpp), written
// straight from the definitions over the public API only, so property tests can compare any SearchSpace - built by
// from_configs or by the solver - against them. Header-only.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <limits>
#include <span>
#include <vector>

#include "ktune/search_space.hpp"

namespace ktune::testing {

// Signed difference q_i - p_i for valid row r.
inline std::int64_t ref_diff(const SearchSpace& s, std::size_t r, std::size_t i, std::span<const std::uint32_t> p) {
  return static_cast<std::int64_t>(s.value_index(r, i)) - static_cast<std::int64_t>(p[i]);
}

inline bool ref_is_query(const SearchSpace& s, std::size_t r, std::span<const std::uint32_t> p) {
  for (std::size_t i = 0; i < s.num_params(); ++i)
    if (s.value_index(r, i) != p[i]) return false;
  return true;
}

// Valid configurations minimising the L1 index distance to p; distance 0 (p itself) only if allow_exact.
inline std::vector<std::size_t> reference_closest(const SearchSpace& s, std::span<const std::uint32_t> p,
                                                  bool allow_exact) {
  std::vector<std::size_t> out;
  if (p.size() != s.num_params()) return out;
  std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t r = 0; r < s.size(); ++r) {
    std::uint64_t dist = 0;
    for (std::size_t i = 0; i < s.num_params(); ++i) {
      const std::int64_t d = ref_diff(s, r, i, p);
      dist += static_cast<std::uint64_t>(d < 0 ? -d : d);
    }
    if (dist == 0 && !allow_exact) continue;
    if (dist < best) {
      best = dist;
      out.clear();
    }
    if (dist == best) out.push_back(r);
  }
  return out;
}

inline std::vector<std::size_t> reference_neighbours(const SearchSpace& s, std::span<const std::uint32_t> p,
                                                     NeighbourMethod method) {
  const std::size_t d = s.num_params();
  const std::size_t n = s.size();
  std::vector<std::size_t> out;
  if (p.size() != d) return out;
  constexpr std::int64_t inf = std::numeric_limits<std::int64_t>::max();
  auto hamming_distance = [&](std::size_t r) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < d; ++i) k += s.value_index(r, i) != p[i];
    return k;
  };
  switch (method) {
    case NeighbourMethod::StrictlyAdjacent:
      for (std::size_t r = 0; r < n; ++r) {
        if (ref_is_query(s, r, p)) continue;
        bool ok = true;
        for (std::size_t i = 0; i < d && ok; ++i) ok = std::abs(ref_diff(s, r, i, p)) <= 1;
        if (ok) out.push_back(r);
      }
      break;
    case NeighbourMethod::Adjacent: {
      // Per parameter: smallest positive and largest negative difference over all valid configurations.
      std::vector<std::int64_t> upper(d, inf), lower(d, -inf);
      for (std::size_t r = 0; r < n; ++r)
        for (std::size_t i = 0; i < d; ++i) {
          const std::int64_t diff = ref_diff(s, r, i, p);
          if (diff > 0) upper[i] = std::min(upper[i], diff);
          if (diff < 0) lower[i] = std::max(lower[i], diff);
        }
      for (std::size_t r = 0; r < n; ++r) {
        if (ref_is_query(s, r, p)) continue;
        bool ok = true;
        for (std::size_t i = 0; i < d && ok; ++i) {
          const std::int64_t diff = ref_diff(s, r, i, p);
          ok = diff >= lower[i] && diff <= upper[i];
        }
        if (ok) out.push_back(r);
      }
      break;
    }
    case NeighbourMethod::Hamming:
      for (std::size_t r = 0; r < n; ++r)
        if (hamming_distance(r) == 1) out.push_back(r);
      break;
    case NeighbourMethod::HammingAdjacent: {
      // Among the Hamming neighbours: per parameter the smallest positive / largest negative difference; keep the
      // neighbours whose every difference lies within those bounds.
      std::vector<std::size_t> hamming;
      for (std::size_t r = 0; r < n; ++r)
        if (hamming_distance(r) == 1) hamming.push_back(r);
      std::vector<std::int64_t> upper(d, inf), lower(d, -inf);
      for (std::size_t r : hamming)
        for (std::size_t i = 0; i < d; ++i) {
          const std::int64_t diff = ref_diff(s, r, i, p);
          if (diff > 0) upper[i] = std::min(upper[i], diff);
          if (diff < 0) lower[i] = std::max(lower[i], diff);
        }
      for (std::size_t r : hamming) {
        bool ok = true;
        for (std::size_t i = 0; i < d && ok; ++i) {
          const std::int64_t diff = ref_diff(s, r, i, p);
          ok = diff >= lower[i] && diff <= upper[i];
        }
        if (ok) out.push_back(r);
      }
      break;
    }
    case NeighbourMethod::ClosestParamIndices:
      return reference_closest(s, p, false);
  }
  return out;
}

// Of p's neighbours by `method`, those whose squared distance to the continuous point x (sum over parameters in order
// of (value index * epsilon - x_i)^2) is least: the scan the constraint-aware repairs made before the space did it.
inline std::vector<std::size_t> reference_closest_to_point(const SearchSpace& s, std::span<const std::uint32_t> p,
                                                           NeighbourMethod method, std::span<const double> x) {
  std::vector<std::size_t> out;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t r : reference_neighbours(s, p, method)) {
    double dist = 0;
    for (std::size_t i = 0; i < s.num_params(); ++i) {
      const double q = static_cast<double>(s.value_index(r, i)) * s.epsilon() - x[i];
      dist += q * q;
    }
    if (dist < best) {
      best = dist;
      out.assign(1, r);
    } else if (dist == best) {
      out.push_back(r);
    }
  }
  return out;
}

// Valid configurations inside the box lo <= c <= hi, ascending.
inline std::vector<std::size_t> reference_box(const SearchSpace& s, std::span<const std::uint32_t> lo,
                                              std::span<const std::uint32_t> hi) {
  std::vector<std::size_t> out;
  if (lo.size() != s.num_params() || hi.size() != s.num_params()) return out;
  for (std::size_t r = 0; r < s.size(); ++r) {
    bool ok = true;
    for (std::size_t i = 0; i < s.num_params() && ok; ++i)
      ok = s.value_index(r, i) >= lo[i] && s.value_index(r, i) <= hi[i];
    if (ok) out.push_back(r);
  }
  return out;
}

// --- small spaces for property tests ----------------------------------------------------------------------------

// Every configuration of the Cartesian product of the problem's value lists for which keep(config) holds.
inline std::vector<Config> filter_product(const Problem& problem, const std::function<bool(const Config&)>& keep) {
  const std::size_t d = problem.parameters.size();
  std::vector<Config> out;
  Config c(d, 0);
  if (d == 0) return out;
  for (;;) {
    if (keep(c)) out.push_back(c);
    std::size_t i = d;
    while (i > 0) {
      --i;
      if (++c[i] < problem.parameters[i].values.size()) break;
      c[i] = 0;
      if (i == 0) return out;
    }
  }
}

// A random problem of 2..6 integer parameters with 1..7 values each.
inline Problem random_problem(Rng& rng, std::size_t min_params = 2, std::size_t max_params = 6,
                              std::size_t max_values = 7) {
  Problem problem;
  problem.name = "random";
  const std::size_t d = min_params + rng.below(max_params - min_params + 1);
  for (std::size_t i = 0; i < d; ++i) {
    Parameter p;
    p.name = "p" + std::to_string(i);
    const std::size_t m = 1 + rng.below(max_values);
    for (std::size_t j = 0; j < m; ++j) p.values.emplace_back(static_cast<std::int64_t>(j * 2 + 1));
    problem.parameters.push_back(std::move(p));
  }
  return problem;
}

// Each configuration of the product kept with probability `density`.
inline std::vector<Config> random_configs(const Problem& problem, Rng& rng, double density) {
  return filter_product(problem, [&](const Config&) { return rng.uniform01() < density; });
}

// A random permutation of 0..d-1 (a lexicographic order).
inline std::vector<std::size_t> random_order(std::size_t d, Rng& rng) {
  std::vector<std::size_t> order(d);
  for (std::size_t i = 0; i < d; ++i) order[i] = i;
  for (std::size_t i = d; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  return order;
}

}  // namespace ktune::testing
