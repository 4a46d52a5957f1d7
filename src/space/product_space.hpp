#pragma once
// The lazy form of a SearchSpace (its Product): a space whose parameters split into independent groups is the
// Cartesian product of the groups' valid configurations, so it is held as one small materialised space per group and
// never listed. Index i has the digits d_c = (i / stride_c) mod size_c (first group slowest), which is the order the
// solver's merge would list them in: both forms give the same index to every configuration. Each query is answered
// from the groups' own answers (their hash indexes, neighbour queries and box queries); a neighbour set of the whole
// is built from the groups' sets by the definitions in search_space.hpp (see product_space.cpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ktune/index_matrix.hpp"
#include "ktune/search_space.hpp"

namespace ktune {

struct SearchSpace::Product {
  // groups[c]'s rows hold the values of problem parameters params[c] (column j = parameter params[c][j]), sorted
  // lexicographically. A group of one row holds the fixed parameters (those with a single valid value).
  Product(const Problem& problem, std::vector<IndexMatrix> groups, std::vector<std::vector<std::size_t>> params);

  std::vector<SearchSpace> factors;              // one materialised space per group, over its parameters only
  std::vector<std::vector<std::size_t>> params;  // factors[c]'s parameter j is the problem's parameter params[c][j]
  std::vector<std::uint64_t> stride;             // index = sum_c digit_c * stride_c
  std::vector<std::size_t> factor_of, local_of;  // per problem parameter: its group and its column there
  std::uint64_t size = 1;

  std::size_t digit(std::size_t index, std::size_t c) const {
    return static_cast<std::size_t>((index / stride[c]) % factors[c].size());
  }
  std::uint32_t value_index(std::size_t index, std::size_t p) const {
    return factors[factor_of[p]].value_index(digit(index, factor_of[p]), local_of[p]);
  }
  void config_at(std::size_t index, std::uint32_t* out) const;
  // The query's values of group c's parameters (any values, in range or not).
  Config part(std::span<const std::uint32_t> config, std::size_t c) const;
  // config must have one value per parameter.
  std::optional<std::size_t> index_of(std::span<const std::uint32_t> config) const;
  // cached: through the groups' neighbour caches.
  std::vector<std::size_t> neighbours(std::span<const std::uint32_t> config, NeighbourMethod method, bool cached) const;
  // Every valid configuration inside the box, ascending.
  void for_each_in_box(std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi,
                       void (*visit)(void* function, std::size_t index), void* function) const;
  std::size_t memory_bytes() const;
};

}  // namespace ktune
