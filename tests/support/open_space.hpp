#pragma once
// A search space for strategy tests: 5 parameters of 10 values and no constraints (100,000 configurations), so
// neighbourhoods, Latin hypercube strata and value steps show directly.
#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"

namespace ktune::testing {

inline const SearchSpace& open_space() {
  static const SearchSpace space = [] {
    ProblemBuilder b("open");
    for (const char* name : {"a", "b", "c", "d", "e"}) b.parameter(name, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    return SearchSpace::build(b.build());
  }();
  return space;
}

}  // namespace ktune::testing
