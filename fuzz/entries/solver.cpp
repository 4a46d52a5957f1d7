// Fuzz target "solver": constraints as users hand them to the solver. The input, split at ';', gives up to 8
// constraints of a small problem (mixed parameter types, constants, the implicit block-size constraint);
// SearchSpace::build may reject it only with ProblemError or ExpressionError, and a space it builds must equal the
// brute-force enumeration with the tree evaluator (which shares no splitting, folding, tables or numeric programs
// with the solver; brute_force_oracle.hpp: all 2160 configurations, or as many as 2 s allow). The smallest
// constraints the solver reports must parse. Its lazy form and its packed rows (the layout of large spaces, forced
// here) must agree with it.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ktune/expr/parser.hpp"
#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"
#include "brute_force_oracle.hpp"
#include "fuzz_entries.hpp"
#include "space/packing.hpp"

namespace {

using namespace ktune;
using ktune::fuzz::check;
using ktune::fuzz::check_against_brute_force;

Problem base_problem() {
  Problem p;
  p.name = "fuzz";
  p.parameters = {
      {"block_size_x", {Value(1), Value(2), Value(4), Value(16), Value(32)}},
      {"block_size_y", {Value(1), Value(2), Value(8)}},
      {"tile", {Value(1), Value(2), Value(3)}},
      {"f", {Value(0.5), Value(2.5)}},
      {"use_shared", {Value(false), Value(true)}},
      {"alg", {Value("naive"), Value("tiled")}},
      {"m", {Value(1), Value(2.5), Value("x")}},
  };
  p.constants = {{"N", Value(1024)}, {"eps", Value(0.5)}};
  p.max_threads = 128;  // block_size_x * block_size_y <= 128 rules out a few
  return p;
}

// Packs every space built in its scope.
struct PackEverySpace {
  std::size_t previous = set_packed_rows_from_for_testing(0);
  ~PackEverySpace() { set_packed_rows_from_for_testing(previous); }
};

}  // namespace

int ktune_fuzz_solver(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Problem problem = base_problem();
  for (std::size_t begin = 0; begin <= input.size() && problem.constraints.size() < 8;) {
    std::size_t end = input.find(';', begin);
    if (end == std::string_view::npos) end = input.size();
    problem.constraints.emplace_back(input.substr(begin, end - begin));
    begin = end + 1;
  }

  BuildOptions options;
  options.threads = 1;
  std::optional<SearchSpace> space;
  try {
    space.emplace(SearchSpace::build(problem, options));
  } catch (const ProblemError&) {
    return 0;
  } catch (const expr::ExpressionError&) {
    return 0;
  }
  for (const std::string& constraint : space->report().constraints) {
    try {
      (void)expr::parse_expression(constraint);
    } catch (const expr::ExpressionError& e) {
      check(false, "the solver reports a constraint that does not parse: " + std::string(e.what()));
    }
  }
  check_against_brute_force(*space);

  // The lazy form (the product of the independent groups) indexes the same configurations in the same order and
  // answers neighbour queries alike.
  options.form = SpaceForm::lazy;
  const SearchSpace lazy = SearchSpace::build(problem, options);
  options.form = SpaceForm::materialised;
  const SearchSpace packed = [&] {
    const PackEverySpace scope;
    return SearchSpace::build(problem, options);
  }();
  check(packed.listed() != nullptr && packed.listed()->is_packed(), "the packed build did not pack its rows");
  const std::pair<const char*, const SearchSpace*> forms[] = {{"the lazy form", &lazy}, {"the packed form", &packed}};
  for (const auto& [form, other] : forms) {
    const std::string name = form;
    check(other->size() == space->size(), name + " counts the valid configurations differently");
    for (std::size_t i = 0; i < space->size(); ++i) {
      const Config config = space->config_at(i);
      check(other->config_at(i) == config, name + " has another configuration at index " + std::to_string(i));
      check(other->index_of(config) == i, name + " gives configuration " + std::to_string(i) + " another index");
      if (i % 17 != 0) continue;
      Config shifted = config;
      shifted[i % shifted.size()] += 1;  // often invalid, sometimes out of range
      for (auto method : {NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent, NeighbourMethod::Hamming,
                          NeighbourMethod::HammingAdjacent, NeighbourMethod::ClosestParamIndices})
        for (const Config& query : {config, shifted})
          check(other->neighbours(query, method) == space->neighbours_uncached(query, method),
                name + "'s " + to_string(method) + " neighbours differ");
    }
  }
  return 0;
}
