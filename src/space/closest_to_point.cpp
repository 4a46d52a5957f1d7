// The neighbours of a configuration closest to a point of the continuous view: how the constraint-aware strategies
// repair an invalid snap (Alg. 2 of the constraint-aware paper). A box of (strictly-)adjacent neighbours holds up to
// thousands of configurations and a swarm repairs on almost every move, so the box is searched by branch and bound
// instead of being listed and scanned.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/search_space.hpp"

#include "space/search_space_index.hpp"

namespace ktune {
namespace {

// One term of the squared distance, in the arithmetic every caller shares (strategy_toolkit's closest_candidates).
inline double term(std::uint32_t value, double epsilon, double x) {
  const double q = static_cast<double>(value) * epsilon - x;
  return q * q;
}

// The squared distance of configuration `index`, terms added in parameter order.
double distance_of(const SearchSpace& space, std::size_t index, std::span<const double> x) {
  const double eps = space.epsilon();
  double sum = 0;
  for (std::size_t p = 0; p < x.size(); ++p) sum += term(space.value_index(index, p), eps, x[p]);
  return sum;
}

// The candidates at the least distance, ascending (candidates ascending).
std::vector<std::size_t> least_of(const SearchSpace& space, std::span<const std::size_t> candidates,
                                  std::span<const double> x) {
  std::vector<std::size_t> ties;
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t index : candidates) {
    const double dist = distance_of(space, index, x);
    if (dist < best) {
      best = dist;
      ties.assign(1, index);
    } else if (dist == best) {
      ties.push_back(index);  // +inf ties as a scan in this arithmetic would; NaN never qualifies
    }
  }
  return ties;
}

// Sums of non-negative terms added in another order differ by a few ulps of the sum (about d * 2^-53 relative): the
// search keeps every candidate within this margin of the best, and the exact sums decide among them.
inline double within(double best) { return best + 1e-9 * best; }

// Whether x lies within half a step of config in every coordinate, with a margin: then a box row whose changes
// include another's is farther from x by at least 1e-6 eps^2 per extra change, far beyond the rounding of the sums,
// so the closest rows are among minimal_changes() (minimal_changes.cpp), and least_of over those finds exactly the
// ties the branch and bound would.
bool near_centre(const SearchSpace& space, std::span<const std::uint32_t> config, std::span<const double> x) {
  if (space.num_params() > 64) return false;
  const double eps = space.epsilon();
  const double reach = 0.5 * eps * (1 - 1e-6);
  for (std::size_t p = 0; p < x.size(); ++p)
    if (!(std::abs(x[p] - static_cast<double>(config[p]) * eps) < reach)) return false;
  return true;
}

// Row ranges at most this long are scanned rather than descended into (the gemm benchmark: 8 beat 4, 16 and 32).
constexpr std::size_t kScanRows = 8;

}  // namespace

std::vector<std::size_t> SearchSpace::closest_neighbours(std::span<const std::uint32_t> config, NeighbourMethod method,
                                                         std::span<const double> x) const {
  if (x.size() != num_params())
    throw std::invalid_argument(
        fmt::format("closest_neighbours: a point of {} coordinates for {} parameters", x.size(), num_params()));
  const bool box = method == NeighbourMethod::StrictlyAdjacent || method == NeighbourMethod::Adjacent;
  const bool finite = std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); });
  if (!box || !finite || product_ || !index_ || config.size() != num_params() || size() == 0)
    return least_of(*this, neighbours(config, method), x);
  std::vector<std::uint32_t> lo(num_params()), hi(num_params());
  if (!Index::neighbour_box(*this, config, method == NeighbourMethod::StrictlyAdjacent, lo, hi)) return {};
  if (method == NeighbourMethod::StrictlyAdjacent && near_centre(*this, config, x))
    if (const auto rows = index_->cached_minimal_changes(*this, lo, hi, config)) return least_of(*this, *rows, x);
  return index_->closest_to_point(*this, x, lo, hi, config);
}

// Best-first branch and bound over the lexicographic prefix tree, as closest() for the L1 index distance. A node's
// children (the values of the next column inside the box) are visited outward from the point's coordinate, where
// the term grows on both sides, so the first child whose partial sum plus the least remaining terms passes the
// margin of the best ends the node. Small row ranges are scanned.
std::vector<std::size_t> SearchSpace::Index::closest_to_point(const SearchSpace& space, std::span<const double> x,
                                                              std::span<const std::uint32_t> lo_by_param,
                                                              std::span<const std::uint32_t> hi_by_param,
                                                              std::span<const std::uint32_t> config) const {
  const std::size_t d = space.num_params();
  if (d == 0) return {};
  const auto& ord = space.lex_order();
  const IndexMatrix& matrix = space.matrix_;
  const std::size_t levels = trie_levels();
  const double eps = space.epsilon();
  constexpr double inf = std::numeric_limits<double>::infinity();
  // By lex depth k (column ord[k]): the box, the first value whose point is at or above the coordinate (clamped to
  // the box; the values below it lie left of the point), and the least term any used value in the box can have.
  const std::optional<std::size_t> self = space.index_of(config);
  std::vector<std::uint32_t> lo(d), hi(d);
  std::vector<std::uint64_t> split(d);
  std::vector<double> suffix(d + 1, 0.0);  // suffix[k]: the least terms of columns ord[k..d) summed
  for (std::size_t k = d; k-- > 0;) {
    const std::size_t p = ord[k];
    lo[k] = lo_by_param[p];
    hi[k] = hi_by_param[p];
    const double at = x[p] / eps;
    std::uint64_t s = at <= 0 ? 0 : at >= 4294967296.0 ? std::uint64_t{1} << 32 : static_cast<std::uint64_t>(at);
    while (s > 0 && static_cast<double>(s - 1) * eps >= x[p]) --s;
    while (s < (std::uint64_t{1} << 32) && static_cast<double>(s) * eps < x[p]) ++s;
    split[k] = std::clamp<std::uint64_t>(s, lo[k], std::uint64_t{hi[k]} + 1);
    const auto& used = space.used_[p];
    const auto it = std::lower_bound(used.begin(), used.end(), split[k]);
    const bool above = it != used.end() && *it <= hi[k], below = it != used.begin() && *(it - 1) >= lo[k];
    if (!above && !below) return {};  // no configuration has a value of this parameter inside the box
    // (+inf where a huge coordinate overflows the square: then every candidate ties at +inf, as in a scan.)
    const double least = std::min(above ? term(*it, eps, x[p]) : inf, below ? term(*(it - 1), eps, x[p]) : inf);
    suffix[k] = suffix[k + 1] + least;
  }
  std::vector<double> xs(d);  // x by lex depth
  for (std::size_t k = 0; k < d; ++k) xs[k] = x[ord[k]];
  double best = inf;
  struct Found {
    std::size_t row;
    double dist;
  };
  std::vector<Found> found;
  auto offer = [&](std::size_t row, double dist) {
    if (dist > within(best) || (self && row == *self)) return;  // neighbours() leaves the query out
    found.push_back({row, dist});
    best = std::min(best, dist);
  };
  // One walk per layout of the matrix (its row reader `at` in the loops below).
  auto search = [&](auto at) {
    auto visit = [&](auto& recurse, std::size_t begin, std::size_t end, std::size_t depth, double partial,
                     std::size_t cb, std::size_t ce) -> void {
      if (end - begin <= kScanRows) {
        // Raw pointers in locals: through the lambda's captured references the loop reloaded them every step.
        const std::size_t* order = ord.data();
        const std::uint32_t *low = lo.data(), *high = hi.data();
        const double* coords = xs.data();
        double limit = within(best);
        for (std::size_t r = begin; r < end; ++r) {
          double dist = partial;
          std::size_t k = depth;
          for (; k < d; ++k) {
            const std::uint32_t v = at(r, order[k]);
            if (v < low[k] || v > high[k]) break;
            dist += term(v, eps, coords[k]);
            if (dist > limit) break;
          }
          if (k == d) {
            offer(r, dist);
            limit = within(best);
          }
        }
        return;
      }
      const std::size_t col = ord[depth];
      const double rest = suffix[depth + 1];
      const bool trie = depth < levels;
      // Left cursor: the box's values below split, walked downward; right cursor: those from split up to hi.
      std::size_t left_begin, right, right_end;
      if (trie) {
        const auto first = trie_value[depth].begin();
        const auto b = first + static_cast<std::ptrdiff_t>(cb), e = first + static_cast<std::ptrdiff_t>(ce);
        left_begin = static_cast<std::size_t>(std::lower_bound(b, e, lo[depth]) - first);
        right = static_cast<std::size_t>(std::lower_bound(b, e, split[depth]) - first);
        right_end = static_cast<std::size_t>(std::upper_bound(b, e, hi[depth]) - first);
      } else {
        left_begin = lower_row(space, begin, end, depth, lo[depth]);
        right = lower_row(space, left_begin, end, depth, static_cast<std::uint32_t>(split[depth]));
        right_end = hi[depth] == UINT32_MAX ? end : lower_row(space, right, end, depth, hi[depth] + 1);
      }
      std::size_t left_end = right;
      auto value_at = [&](std::size_t i) { return trie ? trie_value[depth][i] : at(i, col); };
      while (right < right_end || left_end > left_begin) {
        const double cost_right = right < right_end ? term(value_at(right), eps, xs[depth]) : inf;
        const double cost_left = left_end > left_begin ? term(value_at(left_end - 1), eps, xs[depth]) : inf;
        const bool go_right = cost_right <= cost_left;
        const double cost = partial + (go_right ? cost_right : cost_left);
        if (cost + rest > within(best)) return;  // every remaining child is at least this far
        std::size_t b, e, child_b = 0, child_e = 0;
        if (trie) {
          const TrieNode n = trie_node(depth, go_right ? right++ : --left_end);
          b = n.begin, e = n.end, child_b = n.child_begin, child_e = n.child_end;
        } else if (go_right) {
          b = right;
          e = lower_row(space, right, right_end, depth, at(right, col) + 1);  // indices stay below UINT32_MAX
          right = e;
        } else {
          b = lower_row(space, left_begin, left_end, depth, at(left_end - 1, col));
          e = left_end;
          left_end = b;
        }
        if (depth + 1 == d) offer(b, cost);  // a leaf range holds one row
        else recurse(recurse, b, e, depth + 1, cost, child_b, child_e);
      }
    };
    visit(visit, 0, space.size(), 0, 0.0, 0, levels > 0 ? trie_value[0].size() : 0);
  };
  matrix.visit_rows(search);
  // The exact sums, in parameter order, of the candidates within the margin decide.
  std::vector<std::size_t> candidates;
  for (const Found& f : found)
    if (f.dist <= within(best)) candidates.push_back(f.row);
  std::sort(candidates.begin(), candidates.end());
  return least_of(space, candidates, x);
}

}  // namespace ktune
