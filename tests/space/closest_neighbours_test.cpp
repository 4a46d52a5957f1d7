// SearchSpace::closest_neighbours (the continuous repair's query) against a scan of the neighbours in the same
// arithmetic: exactly the same ties, whatever the lexicographic order the branch and bound walks in, the trie's depth,
// the matrix's element width, and points that put many candidates at the same distance.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "neighbour_queries.hpp"
#include "space_reference.hpp"

namespace ktune {
namespace {
namespace closest_neighbours_test {

using testing::random_configs;
using testing::random_order;
using testing::random_problem;
using testing::reference_closest_to_point;

using testing::TrieBudget;
constexpr const auto& kMethods = testing::kAllNeighbourMethods;
constexpr const auto& kBudgets = testing::kTrieBudgets;

// A point for query q: near q (within two grid steps), on the half-grid (where candidates tie in exact arithmetic
// and rounding decides), or partly far outside the box.
std::vector<double> random_point(const SearchSpace& s, const Config& q, Rng& rng) {
  const std::size_t d = s.num_params();
  const double eps = s.epsilon();
  std::vector<double> x(d);
  const auto kind = rng.below(3);
  for (std::size_t p = 0; p < d; ++p) {
    const double own = std::min<double>(q[p], static_cast<double>(s.param_values(p).size())) * eps;
    if (kind == 0) x[p] = own + (rng.uniform01() * 4 - 2) * eps;
    else if (kind == 1) x[p] = (static_cast<double>(rng.below(2 * s.param_values(p).size() + 2)) - 1) * 0.5 * eps;
    else x[p] = rng.below(4) == 0 ? (rng.below(2) ? -3.0 : 4.0) : own + 0.3 * eps;
  }
  return x;
}

struct Tally {
  std::size_t checked = 0, non_empty = 0, ties = 0;
};

void expect_reference(const SearchSpace& s, const Config& q, const std::vector<double>& x, Tally& tally,
                      const std::string& what) {
  for (NeighbourMethod m : kMethods) {
    const auto expected = reference_closest_to_point(s, q, m, x);
    ASSERT_EQ(s.closest_neighbours(q, m, x), expected) << what << " method " << to_string(m);
    ++tally.checked;
    tally.non_empty += !expected.empty();
    tally.ties += expected.size() > 1;
  }
}

// A random space: a random problem, 20-70% of its combinations, a random lexicographic order, and the trial's trie
// budget (0, small, the normal one), so that the searches below the trie are reached too.
SearchSpace random_space(Rng& rng, int trial) {
  const Problem problem = random_problem(rng);
  const std::size_t d = problem.parameters.size();
  const TrieBudget budget(kBudgets[trial % 3]);
  return SearchSpace::from_configs(problem, random_configs(problem, rng, 0.2 + 0.5 * rng.uniform01()),
                                   random_order(d, rng));
}

TEST(ClosestNeighbours, MatchAScanOfTheNeighboursOnRandomSpaces) {
  Rng rng(4711);
  Tally tally;
  for (int trial = 0; trial < 300; ++trial) {
    const SearchSpace s = random_space(rng, trial);
    const std::size_t d = s.num_params();
    if (s.size() == 0) continue;
    for (int k = 0; k < 10; ++k) {
      Config q(d);
      if (k < 3) q = s.config_at(rng.below(s.size()));  // valid: itself is not a neighbour
      else
        for (std::size_t p = 0; p < d; ++p) q[p] = static_cast<std::uint32_t>(rng.below(s.param_values(p).size()));
      if (k == 9) q[rng.below(d)] = static_cast<std::uint32_t>(s.param_values(0).size() + 3);  // out of range
      for (int j = 0; j < 3; ++j)
        expect_reference(s, q, random_point(s, q, rng), tally, "trial " + std::to_string(trial));
      if (HasFatalFailure()) return;
    }
  }
  // Not vacuous: most queries have neighbours, and many points tie several of them.
  EXPECT_GT(tally.non_empty, tally.checked / 2);
  EXPECT_GT(tally.ties, tally.checked / 20);
}

// Below the trie (galloping searches), 2-byte matrices, rows too wide for one vector load, single-valued parameters.
TEST(ClosestNeighbours, MatchAScanOnLargeAndWideSpaces) {
  const std::vector<std::vector<std::size_t>> shapes = {
      {1000, 60}, {30, 30, 60}, std::vector<std::size_t>(17, 2), {7, 1, 300, 5, 1, 3}};
  Rng rng(99);
  Tally tally;
  std::size_t round = 0;
  for (const auto& values : shapes) {
    const TrieBudget budget(kBudgets[round++ % 3]);
    Problem problem;
    problem.name = "large";
    for (std::size_t i = 0; i < values.size(); ++i) {
      Parameter p{"p" + std::to_string(i), {}};
      for (std::size_t j = 0; j < values[i]; ++j) p.values.emplace_back(static_cast<std::int64_t>(j));
      problem.parameters.push_back(std::move(p));
    }
    const std::size_t d = values.size();
    const SearchSpace s =
        SearchSpace::from_configs(problem, random_configs(problem, rng, 0.35), random_order(d, rng));
    ASSERT_GT(s.size(), 1000u);
    for (int k = 0; k < 12; ++k) {
      Config q = s.config_at(rng.below(s.size()));
      if (k % 2 == 1) q[rng.below(d)] = static_cast<std::uint32_t>(rng.below(values[0]));  // maybe invalid
      expect_reference(s, q, random_point(s, q, rng), tally, "d=" + std::to_string(d));
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GT(tally.non_empty, tally.checked / 2);
}

// A swarm repairs the same invalid snap again and again from points within half a step of it: from the fourth query
// on, the space answers from the snap's few minimal rows (minimal_changes.cpp). Exactly the scan's ties still:
// points at the snap itself (every one-step change costs the same), on a random fraction of its coordinates, just
// inside half a step, and at exactly half a step (the branch and bound answers those).
TEST(ClosestNeighbours, ASnapAskedAgainAndAgainGetsTheSameAnswers) {
  Rng rng(2026);
  Tally tally;
  for (int trial = 0; trial < 120; ++trial) {
    const SearchSpace s = random_space(rng, trial);
    const std::size_t d = s.num_params();
    if (s.size() == 0) continue;
    const double eps = s.epsilon();
    for (int k = 0; k < 6; ++k) {
      Config q(d);
      if (k == 0) q = s.config_at(rng.below(s.size()));  // valid: itself is left out
      else
        for (std::size_t p = 0; p < d; ++p) q[p] = static_cast<std::uint32_t>(rng.below(s.param_values(p).size()));
      for (int j = 0; j < 16; ++j) {
        std::vector<double> x(d);
        for (std::size_t p = 0; p < d; ++p) {
          const double own = q[p] * eps;
          const auto kind = rng.below(5);
          x[p] = kind == 0   ? own
                 : kind == 1 ? own + (rng.below(2) ? 1 : -1) * 0.4999999 * eps
                 : kind == 2 && j % 4 == 3 ? own + (rng.below(2) ? 0.5 : -0.5) * eps
                             : own + (rng.uniform01() - 0.5) * 0.9 * eps;
        }
        const auto expected = reference_closest_to_point(s, q, NeighbourMethod::StrictlyAdjacent, x);
        ASSERT_EQ(s.closest_neighbours(q, NeighbourMethod::StrictlyAdjacent, x), expected)
            << "trial " << trial << " query " << k << " point " << j;
        ++tally.checked;
        tally.non_empty += !expected.empty();
        tally.ties += expected.size() > 1;
      }
    }
  }
  EXPECT_GT(tally.non_empty, tally.checked / 2);
  EXPECT_GT(tally.ties, tally.checked / 20);
}

TEST(ClosestNeighbours, NonFinitePointsAndWrongLengths) {
  Rng rng(5);
  const Problem problem = random_problem(rng, 3, 3, 5);
  const SearchSpace s = SearchSpace::from_configs(problem, random_configs(problem, rng, 0.5), random_order(3, rng));
  ASSERT_GT(s.size(), 3u);
  const Config q = s.config_at(0);
  std::vector<double> x = s.to_continuous(q);
  x[1] = std::numeric_limits<double>::infinity();  // every neighbour at +inf: all tie, as a scan finds
  for (NeighbourMethod m : kMethods) EXPECT_EQ(s.closest_neighbours(q, m, x), s.neighbours(q, m));
  x[1] = 1e200;  // finite, but its square overflows: all tie at +inf too, in the branch and bound as in a scan
  for (NeighbourMethod m : kMethods) EXPECT_EQ(s.closest_neighbours(q, m, x), s.neighbours(q, m));
  x[1] = std::numeric_limits<double>::quiet_NaN();  // no distance compares: none
  for (NeighbourMethod m : kMethods) EXPECT_TRUE(s.closest_neighbours(q, m, x).empty());
  EXPECT_THROW(s.closest_neighbours(q, NeighbourMethod::Adjacent, std::vector<double>(2, 0.0)),
               std::invalid_argument);
  EXPECT_TRUE(s.closest_neighbours(Config(2, 0), NeighbourMethod::Adjacent, std::vector<double>(3, 0.0)).empty());
}

}  // namespace closest_neighbours_test
}  // namespace
}  // namespace ktune
