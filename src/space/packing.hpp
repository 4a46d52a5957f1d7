#pragma once
// When a materialised space holds its rows packed (IndexMatrix::packed): from a size on, where the plain rows and the
// hash index cost tens of bytes per configuration, a packed word and a binary search cost four to eight.
#include <cstddef>
#include <optional>
#include <span>

#include "ktune/index_matrix.hpp"
#include "ktune/problem.hpp"

namespace ktune {

// The packed layout for `rows` rows of the problem's parameters sorted under `order` (order[0] slowest), or nullopt
// where the space keeps plain rows: fewer rows than the threshold, or more than 64 bits a row.
std::optional<IndexMatrix> packed_layout(const Problem& problem, std::span<const std::size_t> order, std::size_t rows);

// Packs spaces of at least this many rows instead of the default (nullopt: back to the default) and returns the
// threshold it replaces; process-wide, for tests only, so the test suite reaches the packed paths on small spaces.
std::size_t set_packed_rows_from_for_testing(std::optional<std::size_t> rows);

}  // namespace ktune
