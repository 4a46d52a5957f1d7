#pragma once
// The result of a multi-objective run: the Pareto front of what it evaluated.
#include <cstddef>
#include <vector>

#include "ktune/tuning/trace.hpp"

namespace ktune {

// Trace positions of the successful entries no other successful entry dominates (by objective costs, so maximised
// objectives count the right way), ascending in the first objective's cost, then position. Entries with equal
// objective vectors are all kept.
std::vector<std::size_t> pareto_front_positions(const Trace& trace);

}  // namespace ktune
