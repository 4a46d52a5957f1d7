// Spread-first openings: the sample's first point as drawn, then each time the point farthest from those taken (ties
// to the earlier drawn); the same points, a prefix that covers the space better than the order drawn, and the order
// drawn kept beyond kSpreadPrefix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "strategies/spread_order.hpp"

namespace ktune {
namespace {

SearchSpace line(int n) {
  std::vector<Value> values;
  for (int i = 0; i < n; ++i) values.emplace_back(i);
  return SearchSpace::build(ProblemBuilder("line").parameter("a", values).build());
}

TEST(SpreadOrder, TakesTheFarthestPointEachTimeTiesToTheEarlierDrawn) {
  const SearchSpace space = line(9);  // index i is value i
  const std::vector<std::size_t> drawn{4, 3, 5, 0, 8, 2, 6, 1, 7};
  // After 4: 0 and 8 are both 4 away (0 drawn first), then 8; then 2 and 6 (2 away), then 3, 5, 1, 7 (1 away).
  EXPECT_EQ(strategies::spread_first(space, drawn), (std::vector<std::size_t>{4, 0, 8, 2, 6, 3, 5, 1, 7}));
  EXPECT_EQ(strategies::spread_first(space, {5, 1}), (std::vector<std::size_t>{5, 1}));  // too few to reorder
}

// The least distance between the first k points (value indices, L1).
int least_gap(const SearchSpace& space, const std::vector<std::size_t>& points, std::size_t k) {
  int least = std::numeric_limits<int>::max();
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = i + 1; j < k; ++j) {
      int d = 0;
      for (std::size_t p = 0; p < space.num_params(); ++p) {
        const auto a = static_cast<int>(space.value_index(points[i], p));
        d += std::abs(a - static_cast<int>(space.value_index(points[j], p)));
      }
      least = std::min(least, d);
    }
  return least;
}

TEST(SpreadOrder, APrefixOfALatinHypercubeClumpsLess) {
  std::vector<Value> values;
  for (int i = 0; i < 20; ++i) values.emplace_back(i);
  const SearchSpace space =
      SearchSpace::build(ProblemBuilder("grid").parameter("x", values).parameter("y", values).build());
  int wider = 0, narrower = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Rng rng(seed);
    const std::vector<std::size_t> drawn = space.lhs_sample(40, rng);
    std::vector<std::size_t> spread = strategies::spread_first(space, drawn);
    const int before = least_gap(space, drawn, 8), after = least_gap(space, spread, 8);
    wider += after > before;
    narrower += after < before;
    std::sort(spread.begin(), spread.end());
    std::vector<std::size_t> same = drawn;
    std::sort(same.begin(), same.end());
    EXPECT_EQ(spread, same);  // the same points
    EXPECT_EQ(strategies::spread_first(space, drawn).front(), drawn.front());
  }
  EXPECT_GE(wider, 17) << narrower;
  EXPECT_EQ(narrower, 0);
}

TEST(SpreadOrder, BeyondThePrefixTheOrderDrawnIsKept) {
  const SearchSpace space = line(400);
  std::vector<std::size_t> drawn;
  for (std::size_t i = 0; i < 300; ++i) drawn.push_back((i * 7919) % 400);
  const std::vector<std::size_t> spread = strategies::spread_first(space, drawn);
  ASSERT_EQ(spread.size(), drawn.size());
  // The points left after the first kSpreadPrefix appear in the order drawn.
  std::vector<std::size_t> rest(spread.begin() + strategies::kSpreadPrefix, spread.end());
  std::vector<std::size_t> expected;
  for (std::size_t index : drawn)
    if (std::find(spread.begin(), spread.begin() + strategies::kSpreadPrefix, index) ==
        spread.begin() + strategies::kSpreadPrefix)
      expected.push_back(index);
  EXPECT_EQ(rest, expected);
}

}  // namespace
}  // namespace ktune
