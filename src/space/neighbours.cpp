// Neighbour queries (Kernel Tuner's five definitions) answered from the index structures, never by scanning all
// configurations: box queries over the lexicographic order for (strictly-)adjacent, hash lookups for the Hamming
// family and branch and bound over the lexicographic prefix tree for closest-param-indices.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "ktune/search_space.hpp"

#include "space/product_space.hpp"
#include "space/search_space_index.hpp"

namespace ktune {

namespace {

std::size_t method_slot(NeighbourMethod method) {
  const auto m = static_cast<std::size_t>(method);
  if (m > static_cast<std::size_t>(NeighbourMethod::ClosestParamIndices))
    throw std::invalid_argument(fmt::format("unknown neighbour method {}", m));
  return m;
}

}  // namespace

std::vector<std::size_t> SearchSpace::neighbours(std::span<const std::uint32_t> config, NeighbourMethod method) const {
  const std::size_t slot = method_slot(method);
  if (product_)
    return config.size() == num_params() ? product_->neighbours(config, method, true) : std::vector<std::size_t>{};
  if (!index_) return {};  // a moved-from space
  const std::uint64_t key = Index::NeighbourCache::key(config);
  Index::NeighbourCache::Shard& shard = index_->cache.shard(key);
  {
    std::lock_guard<std::mutex> lock(shard.mutex);
    if (const auto* rows = Index::NeighbourCache::find(shard, slot, key, config)) return *rows;
  }
  // Computed outside the lock: concurrent queries proceed in parallel; a duplicate computation is harmless.
  std::vector<std::size_t> result = index_->compute_neighbours(*this, config, method);
  {
    std::lock_guard<std::mutex> lock(shard.mutex);
    index_->cache.store(shard, slot, key, config, result);
  }
  return result;
}

std::vector<std::size_t> SearchSpace::neighbours(std::size_t index, NeighbourMethod method) const {
  if (index >= size())
    throw std::out_of_range(fmt::format("configuration index {} >= size {}", index, size()));
  const Config config = config_at(index);
  return neighbours(config, method);
}

std::vector<std::size_t> SearchSpace::neighbours_changing(std::span<const std::uint32_t> config, std::size_t param,
                                                          NeighbourMethod method) const {
  if (param >= num_params())
    throw std::out_of_range(fmt::format("parameter {} of {} parameters", param, num_params()));
  const bool hamming = method == NeighbourMethod::Hamming || method == NeighbourMethod::HammingAdjacent;
  if (!hamming || product_ || !index_ || config.size() != num_params()) {
    std::vector<std::size_t> out = neighbours(config, method);
    std::erase_if(out, [&](std::size_t n) { return value_index(n, param) == config[param]; });
    return out;
  }
  // A Hamming neighbour changing `param` keeps every other value, so none exists if another one is out of range.
  for (std::size_t p = 0; p < num_params(); ++p)
    if (p != param && config[p] >= param_values(p).size()) return {};
  const auto& used = used_[param];
  std::vector<std::size_t> out;
  if (method == NeighbourMethod::HammingAdjacent) {
    // Outward from the query's value, the first valid one on each side: usually one lookup per side.
    // The probe on the stack for the usual parameter counts (this runs for every mutated gene of a GA's child).
    constexpr std::size_t kLocal = 64;
    std::uint32_t local[kLocal];
    std::vector<std::uint32_t> large;
    std::uint32_t* probe = local;
    if (config.size() > kLocal) {
      large.resize(config.size());
      probe = large.data();
    }
    std::copy(config.begin(), config.end(), probe);
    const auto first_above = std::upper_bound(used.begin(), used.end(), config[param]);
    for (auto it = std::lower_bound(used.begin(), used.end(), config[param]); it != used.begin();) {
      probe[param] = *--it;
      if (const auto row = index_->find_row(*this, probe)) {
        out.push_back(*row);
        break;
      }
    }
    for (auto it = first_above; it != used.end(); ++it) {
      probe[param] = *it;
      if (const auto row = index_->find_row(*this, probe)) {
        out.push_back(*row);
        break;
      }
    }
    return out;  // below first: only `param` differs, so ascending values are ascending indices
  }
  std::vector<Index::Edit> edits;
  for (std::uint32_t v : used)
    if (v != config[param]) edits.push_back({static_cast<std::uint32_t>(param), v});
  std::vector<std::size_t> rows(edits.size());
  index_->find_variants(*this, config.data(), edits, rows.data());
  for (std::size_t r : rows)
    if (r != std::numeric_limits<std::size_t>::max()) out.push_back(r);
  return out;
}

std::vector<std::size_t> SearchSpace::neighbours_uncached(std::span<const std::uint32_t> config,
                                                          NeighbourMethod method) const {
  method_slot(method);
  if (product_)
    return config.size() == num_params() ? product_->neighbours(config, method, false) : std::vector<std::size_t>{};
  if (!index_) return {};
  return index_->compute_neighbours(*this, config, method);
}

void SearchSpace::visit_box(std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi,
                            void (*visit)(void* function, std::size_t index), void* function) const {
  if (product_) {
    if (lo.size() == num_params() && hi.size() == num_params()) product_->for_each_in_box(lo, hi, visit, function);
  } else if (index_) {
    index_->for_each_in_box(*this, lo, hi, [&](std::size_t index) { visit(function, index); });
  }
}

std::vector<std::size_t> SearchSpace::Index::compute_neighbours(const SearchSpace& space,
                                                                std::span<const std::uint32_t> config,
                                                                NeighbourMethod method) const {
  if (config.size() != space.num_params() || space.size() == 0) return {};
  switch (method) {
    case NeighbourMethod::StrictlyAdjacent: return box_neighbours(space, config, true);
    case NeighbourMethod::Adjacent: return box_neighbours(space, config, false);
    case NeighbourMethod::Hamming: return hamming_neighbours(space, config, false);
    case NeighbourMethod::HammingAdjacent: return hamming_neighbours(space, config, true);
    case NeighbourMethod::ClosestParamIndices: return closest(space, config, false);
  }
  return {};
}

bool SearchSpace::Index::neighbour_box(const SearchSpace& space, std::span<const std::uint32_t> config, bool strictly,
                                       std::span<std::uint32_t> lo, std::span<std::uint32_t> hi) {
  for (std::size_t p = 0; p < space.num_params(); ++p) {
    const std::uint64_t v = config[p];
    const std::uint64_t top = space.param_values(p).size() - 1;
    std::uint64_t l, h;
    if (strictly) {
      l = v == 0 ? 0 : v - 1;
      h = v + 1;
    } else {
      // The nearest used index below and above; without one the box is open on that side (nothing lies there).
      const auto& used = space.used_[p];
      const auto above = std::upper_bound(used.begin(), used.end(), config[p]);
      const auto below = std::lower_bound(used.begin(), used.end(), config[p]);
      l = below == used.begin() ? v : *(below - 1);
      h = above == used.end() ? v : *above;
    }
    h = std::min(h, top);
    if (l > h) return false;
    lo[p] = static_cast<std::uint32_t>(l);
    hi[p] = static_cast<std::uint32_t>(h);
  }
  return true;
}

// (Strictly-)adjacent neighbours are exactly the valid configurations in a box around the query.
std::vector<std::size_t> SearchSpace::Index::box_neighbours(const SearchSpace& space,
                                                            std::span<const std::uint32_t> config, bool strictly) const {
  const std::size_t d = space.num_params();
  std::vector<std::uint32_t> lo(d), hi(d);
  if (!neighbour_box(space, config, strictly, lo, hi)) return {};
  const auto self = space.index_of(config);
  std::vector<std::size_t> out;
  for_each_in_box(space, lo, hi, [&](std::size_t r) {
    if (!self || r != *self) out.push_back(r);
  });
  return out;
}

// Hamming neighbours change one parameter: look up every used value of every parameter in the hash index (batched,
// so the cache misses overlap). A query with one out-of-range index can only move in that parameter; with two or
// more it has no Hamming neighbours. Hamming-adjacent keeps, per parameter, the found neighbours nearest below and
// above the query's index.
std::vector<std::size_t> SearchSpace::Index::hamming_neighbours(const SearchSpace& space,
                                                                std::span<const std::uint32_t> config,
                                                                bool adjacent_only) const {
  const std::size_t d = space.num_params();
  std::size_t out_of_range = d;  // the single out-of-range parameter, or d if none
  for (std::size_t p = 0; p < d; ++p) {
    if (config[p] < space.param_values(p).size()) continue;
    if (out_of_range != d) return {};
    out_of_range = p;
  }
  std::vector<Edit> edits;
  for (std::size_t i = 0; i < d; ++i) {
    if (out_of_range != d && out_of_range != i) continue;
    for (std::uint32_t v : space.used_[i])
      if (v != config[i]) edits.push_back({static_cast<std::uint32_t>(i), v});
  }
  std::vector<std::size_t> rows(edits.size());
  find_variants(space, config.data(), edits, rows.data());
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> out;
  if (!adjacent_only) {
    for (std::size_t r : rows)
      if (r != none) out.push_back(r);
  } else {
    // Edits are grouped by parameter with ascending values: the last found below and the first found above.
    for (std::size_t e = 0; e < edits.size();) {
      std::size_t end = e;
      while (end < edits.size() && edits[end].param == edits[e].param) ++end;
      const std::uint32_t own = config[edits[e].param];
      std::size_t below = none, above = none;
      for (std::size_t k = e; k < end; ++k) {
        if (rows[k] == none) continue;
        if (edits[k].value < own) below = rows[k];
        else if (above == none) above = rows[k];
      }
      if (below != none) out.push_back(below);
      if (above != none) out.push_back(above);
      e = end;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Best-first branch and bound over the lexicographic prefix tree. A node is a row range sharing a prefix; its
// children are the present values of the next column, visited outward from the query's value, so the first child
// whose partial distance plus the lower bound of the remaining columns exceeds the best found ends the node. Near the
// root the children come from the trie, deeper from galloping searches; small ranges are scanned row by row.
std::vector<std::size_t> SearchSpace::Index::closest(const SearchSpace& space, std::span<const std::uint32_t> config,
                                                     bool allow_exact) const {
  const std::size_t d = space.num_params();
  if (config.size() != d || space.size() == 0) return {};
  if (d == 0) return allow_exact ? std::vector<std::size_t>{0} : std::vector<std::size_t>{};
  const auto& ord = space.lex_order();
  const IndexMatrix& matrix = space.matrix_;
  const std::size_t levels = trie_levels();
  constexpr std::uint64_t unbounded = std::numeric_limits<std::uint64_t>::max();
  // suffix[k]: lower bound of the distance over columns ord[k..d): each column's distance to its nearest used value.
  std::vector<std::uint64_t> suffix(d + 1, 0);
  for (std::size_t k = d; k-- > 0;) {
    const std::size_t p = ord[k];
    const auto& used = space.used_[p];
    const std::uint32_t v = config[p];
    std::uint64_t nearest = unbounded / 2;
    const auto it = std::lower_bound(used.begin(), used.end(), v);
    if (it != used.end()) nearest = *it - std::uint64_t{v};
    if (it != used.begin()) nearest = std::min<std::uint64_t>(nearest, std::uint64_t{v} - *(it - 1));
    suffix[k] = suffix[k + 1] + nearest;
  }
  std::uint64_t best = unbounded;
  std::vector<std::size_t> found;
  auto offer = [&](std::size_t row, std::uint64_t dist) {
    if (dist == 0 && !allow_exact) return;
    if (dist > best) return;
    if (dist < best) {
      best = dist;
      found.clear();
    }
    found.push_back(row);
  };
  auto distance = [](std::uint32_t a, std::uint32_t b) -> std::uint64_t { return a > b ? a - b : b - a; };
  auto visit = [&](auto& self, std::size_t begin, std::size_t end, std::size_t depth, std::uint64_t partial,
                   std::size_t cb, std::size_t ce) -> void {
    if (end - begin <= scan_rows) {
      for (std::size_t r = begin; r < end; ++r) {
        std::uint64_t dist = partial;
        for (std::size_t k = depth; k < d && dist <= best; ++k)
          dist += distance(matrix.get(r, ord[k]), config[ord[k]]);
        offer(r, dist);
      }
      return;
    }
    const std::size_t col = ord[depth];
    const std::uint32_t pv = config[col];
    const std::uint64_t rest = suffix[depth + 1];
    const bool trie = depth < levels;
    // Right cursor: first child with value >= pv; left cursor: the children before it, walked downward.
    std::size_t right, left_end, left_begin, right_end;
    if (trie) {
      const auto& values = trie_value[depth];
      right = static_cast<std::size_t>(std::lower_bound(values.begin() + static_cast<std::ptrdiff_t>(cb),
                                                        values.begin() + static_cast<std::ptrdiff_t>(ce), pv) -
                                       values.begin());
      left_begin = cb;
      right_end = ce;
    } else {
      right = lower_row(space, begin, end, depth, pv);
      left_begin = begin;
      right_end = end;
    }
    left_end = right;
    auto value_at = [&](std::size_t i) { return trie ? trie_value[depth][i] : matrix.get(i, col); };
    while (right < right_end || left_end > left_begin) {
      const std::uint64_t dist_right = right < right_end ? value_at(right) - std::uint64_t{pv} : unbounded;
      const std::uint64_t dist_left = left_end > left_begin ? std::uint64_t{pv} - value_at(left_end - 1) : unbounded;
      const bool go_right = dist_right <= dist_left;
      const std::uint64_t cost = partial + (go_right ? dist_right : dist_left);
      if (cost + rest > best) return;  // every remaining child is at least this far
      std::size_t b, e, child_b = 0, child_e = 0;
      if (trie) {
        const TrieNode n = trie_node(depth, go_right ? right++ : --left_end);
        b = n.begin, e = n.end, child_b = n.child_begin, child_e = n.child_end;
      } else if (go_right) {
        const std::uint32_t v = matrix.get(right, col);
        b = right;
        e = lower_row(space, right, end, depth, v + 1);
        right = e;
      } else {
        const std::uint32_t v = matrix.get(left_end - 1, col);
        b = lower_row(space, begin, left_end, depth, v);
        e = left_end;
        left_end = b;
      }
      if (depth + 1 == d) offer(b, cost);  // a leaf range holds one row
      else self(self, b, e, depth + 1, cost, child_b, child_e);
    }
  };
  visit(visit, 0, space.size(), 0, 0, 0, levels > 0 ? trie_value[0].size() : 0);
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace ktune
