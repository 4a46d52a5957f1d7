#pragma once
// What the neighbour-query tests share: every neighbour method, and a scope that caps the prefix trie of the spaces
// built in it, so tests reach the search paths the trie usually spares.
#include <cstddef>
#include <optional>

#include "ktune/search_space.hpp"
#include "space/search_space_index.hpp"

namespace ktune::testing {

inline constexpr NeighbourMethod kAllNeighbourMethods[] = {
    NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent, NeighbourMethod::Hamming,
    NeighbourMethod::HammingAdjacent, NeighbourMethod::ClosestParamIndices};

// Sets the trie budget for spaces built in its scope; restores the normal budget at exit (also on a failed ASSERT).
struct TrieBudget {
  explicit TrieBudget(std::optional<std::size_t> nodes) { set_trie_budget_for_testing(nodes); }
  ~TrieBudget() { set_trie_budget_for_testing(std::nullopt); }
  TrieBudget(const TrieBudget&) = delete;
  TrieBudget& operator=(const TrieBudget&) = delete;
};
// The normal trie, none at all, and a shallow one.
inline constexpr std::optional<std::size_t> kTrieBudgets[] = {std::nullopt, 0, 16};

}  // namespace ktune::testing
