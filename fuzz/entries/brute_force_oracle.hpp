#pragma once
// The oracle of the solver and t1 targets: the tree evaluator on the configurations of the Cartesian product, as
// verify_brute_force (src/solver/brute_force.cpp) does, but within a time budget.
#include "ktune/search_space.hpp"

namespace ktune::fuzz {

// Checks that `space` holds exactly the configurations of its problem's Cartesian product for which every constraint
// (problem.all_constraints(), the implicit one included) is true by the tree evaluator, an EvalError counting as
// false. All configurations when that takes less than `budget_seconds`, else as many as the budget allows, in an
// order spread over the product: a constraint the solver folds once (a constant list of thousands of elements) costs
// the tree evaluator that much for every configuration, and the 10 s per input limit is for ktune, not the oracle.
// Throws FuzzInvariantError naming the first configuration where they disagree.
void check_against_brute_force(const SearchSpace& space, double budget_seconds = 2.0);

}  // namespace ktune::fuzz
