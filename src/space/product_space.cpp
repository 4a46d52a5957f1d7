// The lazy form's queries, each answered from the groups' own answers. With the query split into its groups' parts
// p_c, a configuration q is valid iff every part q_c is valid in its group, and:
//   (strictly-)adjacent  the conditions hold parameter by parameter (the used values of a parameter are its group's),
//                        so the neighbours are the product of each group's box (its neighbours plus p_c when valid);
//   Hamming(-adjacent)   q differs from p in one parameter, so in one group: with every part valid, the union over
//                        groups of that group's neighbours, the others kept; with one part invalid, that group's
//                        neighbours only; with two or more invalid, none;
//   closest              the distance is a sum over groups: a valid p moves the one group (or the tied groups) whose
//                        nearest other configuration is closest; an invalid p takes, per group, p_c if valid or the
//                        group's nearest configurations, and the product of those.
#include "space/product_space.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <utility>

namespace ktune {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// Calls f(index) for every combination of one entry per list (group digits, each list ascending), in ascending index
// order: the last group varies fastest, as its stride is the smallest.
template <class F>
void for_each_combination(const std::vector<std::uint64_t>& stride, const std::vector<std::vector<std::size_t>>& lists,
                          F&& f) {
  const std::size_t groups = lists.size();
  for (const auto& list : lists)
    if (list.empty()) return;
  std::vector<std::size_t> at(groups, 0);
  std::uint64_t index = 0;
  for (std::size_t c = 0; c < groups; ++c) index += lists[c][0] * stride[c];
  for (;;) {
    f(static_cast<std::size_t>(index));
    std::size_t c = groups;
    for (;;) {
      if (c == 0) return;
      --c;
      index -= lists[c][at[c]] * stride[c];
      if (++at[c] < lists[c].size()) {
        index += lists[c][at[c]] * stride[c];
        break;
      }
      at[c] = 0;
      index += lists[c][0] * stride[c];
    }
  }
}

// L1 distance between a query part (any values) and a configuration.
std::uint64_t distance(const Config& query, const Config& config) {
  std::uint64_t sum = 0;
  for (std::size_t j = 0; j < query.size(); ++j)
    sum += query[j] > config[j] ? std::uint64_t{query[j]} - config[j] : std::uint64_t{config[j]} - query[j];
  return sum;
}

}  // namespace

SearchSpace::Product::Product(const Problem& problem, std::vector<IndexMatrix> groups,
                              std::vector<std::vector<std::size_t>> group_params)
    : params(std::move(group_params)) {
  const std::size_t d = problem.parameters.size();
  factor_of.assign(d, kNone);
  local_of.assign(d, 0);
  factors.reserve(groups.size());
  for (std::size_t c = 0; c < groups.size(); ++c) {
    Problem sub;
    sub.name = problem.name;
    sub.max_threads = std::nullopt;  // the group's rows are already valid: nothing is solved again
    for (std::size_t j = 0; j < params[c].size(); ++j) {
      const std::size_t p = params[c][j];
      sub.parameters.push_back(problem.parameters[p]);
      factor_of[p] = c;
      local_of[p] = j;
    }
    ConstructionReport report;
    report.cartesian_size = sub.cartesian_size();
    report.independent_groups = 1;
    factors.push_back(SearchSpace(std::move(sub), std::move(groups[c]), std::move(report)));
  }
  stride.assign(factors.size(), 1);
  for (std::size_t c = factors.size(); c-- > 1;) stride[c - 1] = stride[c] * factors[c].size();
  size = factors.empty() ? 1 : stride[0] * factors[0].size();
}

void SearchSpace::Product::config_at(std::size_t index, std::uint32_t* out) const {
  for (std::size_t c = 0; c < factors.size(); ++c) {
    const std::size_t row = digit(index, c);
    for (std::size_t j = 0; j < params[c].size(); ++j) out[params[c][j]] = factors[c].value_index(row, j);
  }
}

Config SearchSpace::Product::part(std::span<const std::uint32_t> config, std::size_t c) const {
  Config out(params[c].size());
  for (std::size_t j = 0; j < out.size(); ++j) out[j] = config[params[c][j]];
  return out;
}

std::optional<std::size_t> SearchSpace::Product::index_of(std::span<const std::uint32_t> config) const {
  // On the stack for the usual group sizes: this is on every strategy's hot path.
  std::uint32_t small[64];
  std::vector<std::uint32_t> large;
  std::uint64_t index = 0;
  for (std::size_t c = 0; c < factors.size(); ++c) {
    const std::size_t k = params[c].size();
    std::uint32_t* buffer = small;
    if (k > std::size(small)) {
      large.resize(k);
      buffer = large.data();
    }
    for (std::size_t j = 0; j < k; ++j) buffer[j] = config[params[c][j]];
    const auto row = factors[c].index_of(std::span<const std::uint32_t>(buffer, k));
    if (!row) return std::nullopt;
    index += *row * stride[c];
  }
  return static_cast<std::size_t>(index);
}

std::vector<std::size_t> SearchSpace::Product::neighbours(std::span<const std::uint32_t> config, NeighbourMethod method,
                                                          bool cached) const {
  auto group_neighbours = [&](std::size_t c, const Config& query) {
    return cached ? factors[c].neighbours(query, method) : factors[c].neighbours_uncached(query, method);
  };
  const std::size_t groups = factors.size();
  std::vector<Config> parts(groups);
  std::vector<std::optional<std::size_t>> valid(groups);
  std::size_t invalid = 0, invalid_group = kNone;
  std::uint64_t self = 0;  // the query's index when every part is valid
  for (std::size_t c = 0; c < groups; ++c) {
    parts[c] = part(config, c);
    valid[c] = factors[c].index_of(parts[c]);
    if (valid[c]) self += *valid[c] * stride[c];
    else ++invalid, invalid_group = c;
  }
  // Index of the query with group c's digit set to `row` (every other part valid).
  auto with_row = [&](std::size_t c, std::size_t row) {
    return static_cast<std::size_t>(self - (valid[c] ? *valid[c] * stride[c] : 0) + row * stride[c]);
  };
  std::vector<std::size_t> out;
  switch (method) {
    case NeighbourMethod::StrictlyAdjacent:
    case NeighbourMethod::Adjacent: {
      std::vector<std::vector<std::size_t>> lists(groups);
      for (std::size_t c = 0; c < groups; ++c) {
        lists[c] = group_neighbours(c, parts[c]);
        if (valid[c]) lists[c].insert(std::lower_bound(lists[c].begin(), lists[c].end(), *valid[c]), *valid[c]);
      }
      for_each_combination(stride, lists, [&](std::size_t index) {
        if (invalid > 0 || index != self) out.push_back(index);
      });
      return out;
    }
    case NeighbourMethod::Hamming:
    case NeighbourMethod::HammingAdjacent: {
      if (invalid >= 2) return out;
      for (std::size_t c = 0; c < groups; ++c) {
        if (invalid == 1 && c != invalid_group) continue;
        for (std::size_t row : group_neighbours(c, parts[c])) out.push_back(with_row(c, row));
      }
      std::sort(out.begin(), out.end());
      return out;
    }
    case NeighbourMethod::ClosestParamIndices: {
      if (invalid == 0) {
        std::vector<std::vector<std::size_t>> nearest(groups);
        std::vector<std::uint64_t> reach(groups, std::numeric_limits<std::uint64_t>::max());
        std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
        for (std::size_t c = 0; c < groups; ++c) {
          nearest[c] = group_neighbours(c, parts[c]);
          if (nearest[c].empty()) continue;
          reach[c] = distance(parts[c], factors[c].config_at(nearest[c][0]));
          best = std::min(best, reach[c]);
        }
        for (std::size_t c = 0; c < groups; ++c)
          if (reach[c] == best)
            for (std::size_t row : nearest[c]) out.push_back(with_row(c, row));
        std::sort(out.begin(), out.end());
        return out;
      }
      std::vector<std::vector<std::size_t>> lists(groups);
      for (std::size_t c = 0; c < groups; ++c)
        lists[c] = valid[c] ? std::vector<std::size_t>{*valid[c]} : group_neighbours(c, parts[c]);
      for_each_combination(stride, lists, [&](std::size_t index) { out.push_back(index); });
      return out;
    }
  }
  return out;
}

void SearchSpace::Product::for_each_in_box(std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi,
                                           void (*visit)(void* function, std::size_t index), void* function) const {
  std::vector<std::vector<std::size_t>> lists(factors.size());
  for (std::size_t c = 0; c < factors.size(); ++c) {
    const Config group_lo = part(lo, c), group_hi = part(hi, c);
    factors[c].for_each_in_box(group_lo, group_hi, [&](std::size_t row) { lists[c].push_back(row); });
    if (lists[c].empty()) return;
  }
  for_each_combination(stride, lists, [&](std::size_t index) { visit(function, index); });
}

std::size_t SearchSpace::Product::memory_bytes() const {
  std::size_t bytes = (stride.capacity() + factor_of.capacity() + local_of.capacity()) * sizeof(std::uint64_t);
  for (std::size_t c = 0; c < factors.size(); ++c)
    bytes += factors[c].memory_bytes() + sizeof(SearchSpace) + params[c].capacity() * sizeof(std::size_t);
  return bytes;
}

}  // namespace ktune
