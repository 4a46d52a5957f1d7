// Neighbour queries and box queries against brute-force references of their definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <limits>
#include <optional>
#include <thread>

#include "neighbour_queries.hpp"
#include "space_reference.hpp"

namespace ktune {
namespace {
namespace neighbours_test {

using testing::filter_product;
using testing::random_configs;
using testing::random_order;
using testing::random_problem;
using testing::reference_box;
using testing::reference_neighbours;

using testing::TrieBudget;
constexpr const auto& kMethods = testing::kAllNeighbourMethods;
constexpr const auto& kBudgets = testing::kTrieBudgets;

SearchSpace simple_space() {
  Problem problem;
  problem.name = "simple";
  problem.parameters = {{"x", {1, 1.5, 2, 3}}, {"y", {4, 5.5}}, {"z", {"string_1", "string_2"}}};
  const auto configs = filter_product(problem, [&](const Config& c) {
    return std::fmod(problem.parameters[1].values[c[1]].to_double(),
                     problem.parameters[0].values[c[0]].to_double()) == 1.0;
  });
  return SearchSpace::from_configs(problem, configs);
}

std::vector<std::size_t> indices_of(const SearchSpace& s, const std::vector<std::vector<Value>>& configs) {
  std::vector<std::size_t> out;
  for (const auto& v : configs) out.push_back(*s.index_of(*s.config_of(v)));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::size_t> query(const SearchSpace& s, std::vector<Value> values, NeighbourMethod m) {
  return s.neighbours(*s.config_of(values), m);
}

// Kernel Tuner's test_searchspace.py expectations on the simple space.
TEST(Neighbours, KernelTunerSimpleSpaceExpectations) {
  const SearchSpace s = simple_space();
  using V = std::vector<Value>;
  EXPECT_EQ(query(s, {1, 4, "string_1"}, NeighbourMethod::Hamming),
            indices_of(s, {V{1.5, 4, "string_1"}, V{3, 4, "string_1"}}));
  const auto four = indices_of(s, {V{1.5, 4, "string_1"}, V{1.5, 4, "string_2"}, V{1.5, 5.5, "string_1"},
                                   V{1.5, 5.5, "string_2"}});
  EXPECT_EQ(query(s, {1, 4, "string_1"}, NeighbourMethod::StrictlyAdjacent), four);
  EXPECT_EQ(query(s, {1, 4, "string_1"}, NeighbourMethod::Adjacent), four);
  EXPECT_EQ(query(s, {1.5, 4, "string_1"}, NeighbourMethod::ClosestParamIndices),
            indices_of(s, {V{1.5, 5.5, "string_1"}, V{1.5, 4, "string_2"}}));
  // 'fictitious' query (1.5, 4, 'string_1').
  EXPECT_EQ(query(s, {1.5, 4, "string_1"}, NeighbourMethod::Hamming),
            indices_of(s, {V{1.5, 4, "string_2"}, V{1.5, 5.5, "string_1"}, V{3, 4, "string_1"}}));
  EXPECT_EQ(query(s, {1.5, 4, "string_1"}, NeighbourMethod::StrictlyAdjacent),
            indices_of(s, {V{1.5, 5.5, "string_2"}, V{1.5, 5.5, "string_1"}, V{1.5, 4, "string_2"}}));
  EXPECT_EQ(query(s, {1.5, 4, "string_1"}, NeighbourMethod::Adjacent),
            indices_of(s, {V{1.5, 5.5, "string_2"}, V{1.5, 5.5, "string_1"}, V{1.5, 4, "string_2"},
                           V{3, 4, "string_1"}, V{3, 4, "string_2"}}));
  // get_param_neighbors(1.5, 4, 'string_1') with 'adjacent': x -> [3], y -> [5.5], z -> ['string_2'].
  const auto adj = query(s, {1.5, 4, "string_1"}, NeighbourMethod::Adjacent);
  for (std::size_t p = 0; p < 3; ++p) {
    std::set<std::uint32_t> other;
    for (std::size_t i : adj)
      if (s.value_index(i, p) != s.config_of({1.5, 4, "string_1"})->at(p)) other.insert(s.value_index(i, p));
    EXPECT_EQ(other.size(), 1u) << p;
  }
}

TEST(Neighbours, HammingAdjacentTakesNearestPresentValuePerParameter) {
  // a in 0..5, b in 0..2; valid: a != 1 and a != 2 unless b == 2.
  Problem problem;
  problem.name = "ha";
  problem.parameters = {{"a", {0, 1, 2, 3, 4, 5}}, {"b", {0, 1, 2}}};
  const auto configs =
      filter_product(problem, [](const Config& c) { return !((c[0] == 1 || c[0] == 2) && c[1] != 2); });
  const SearchSpace s = SearchSpace::from_configs(problem, configs);
  // From (0, 0): along a the nearest present is 3 (1 and 2 are invalid with b = 0); along b: 1 only (above).
  const auto got = s.neighbours(Config{0, 0}, NeighbourMethod::HammingAdjacent);
  EXPECT_EQ(got, (std::vector<std::size_t>{*s.index_of(Config{0, 1}), *s.index_of(Config{3, 0})}));
  // From (4, 2): a -> 3 and 5, b -> 1.
  EXPECT_EQ(s.neighbours(Config{4, 2}, NeighbourMethod::HammingAdjacent),
            (std::vector<std::size_t>{*s.index_of(Config{3, 2}), *s.index_of(Config{4, 1}),
                                      *s.index_of(Config{5, 2})}));
  // Hamming has all of them.
  EXPECT_EQ(s.neighbours(Config{0, 0}, NeighbourMethod::Hamming).size(), 2u + 3u);
}

// The property test: every method on many random small spaces (random lexicographic orders) and random queries,
// valid, invalid and out of range, against the brute-force definition.
TEST(Neighbours, MatchBruteForceOnRandomSpaces) {
  Rng rng(2024);
  std::size_t checked = 0, non_empty = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Problem problem = random_problem(rng);
    const auto configs = random_configs(problem, rng, 0.3 + 0.4 * rng.uniform01());
    const std::size_t d = problem.parameters.size();
    const TrieBudget budget(kBudgets[trial % 3]);
    const SearchSpace s = SearchSpace::from_configs(problem, configs, random_order(d, rng));
    std::vector<Config> queries;
    for (std::size_t i = 0; i < s.size() && i < 6; ++i) queries.push_back(s.config_at(rng.below(s.size())));
    for (int k = 0; k < 6; ++k) {  // anywhere in the product (mostly invalid ones)
      Config q(d);
      for (std::size_t p = 0; p < d; ++p) q[p] = static_cast<std::uint32_t>(rng.below(s.param_values(p).size()));
      queries.push_back(q);
    }
    for (int k = 0; k < 4; ++k) {  // one or two indices out of range
      Config q(d);
      for (std::size_t p = 0; p < d; ++p) q[p] = static_cast<std::uint32_t>(rng.below(s.param_values(p).size()));
      for (int j = 0; j <= k % 2; ++j) {
        const std::size_t p = rng.below(d);
        const std::uint32_t m = static_cast<std::uint32_t>(s.param_values(p).size());
        const std::uint32_t choices[] = {m, m + 1, m + 5, std::numeric_limits<std::uint32_t>::max()};
        q[p] = choices[rng.below(4)];
      }
      queries.push_back(q);
    }
    for (const Config& q : queries)
      for (NeighbourMethod m : kMethods) {
        const auto expected = reference_neighbours(s, q, m);
        ASSERT_EQ(s.neighbours_uncached(q, m), expected)
            << "method " << to_string(m) << " trial " << trial << " size " << s.size();
        ASSERT_EQ(s.neighbours(q, m), expected);
        ASSERT_EQ(s.neighbours(q, m), expected);  // now from the cache
        ++checked;
        non_empty += !expected.empty();
      }
    // Wrong lengths have no neighbours.
    for (NeighbourMethod m : kMethods) {
      EXPECT_TRUE(s.neighbours(Config(d + 1, 0), m).empty());
      EXPECT_TRUE(s.neighbours(Config{}, m).empty());
    }
  }
  EXPECT_GT(non_empty, checked / 2);  // the test exercises real neighbourhoods
}

// The neighbours that change one parameter (a mutation's options): the definitions' neighbours, filtered.
TEST(Neighbours, ChangingOneParameterMatchesTheFilteredDefinition) {
  Rng rng(31);
  std::size_t non_empty = 0, checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const Problem problem = random_problem(rng);
    const std::size_t d = problem.parameters.size();
    const TrieBudget budget(kBudgets[trial % 3]);
    const SearchSpace s = SearchSpace::from_configs(problem, random_configs(problem, rng, 0.2 + 0.6 * rng.uniform01()),
                                                    random_order(d, rng));
    if (s.size() == 0) continue;
    for (int k = 0; k < 8; ++k) {
      Config q = s.config_at(rng.below(s.size()));
      if (k >= 4)
        for (std::size_t p = 0; p < d; ++p) q[p] = static_cast<std::uint32_t>(rng.below(s.param_values(p).size()));
      if (k >= 6) q[rng.below(d)] = k == 6 ? static_cast<std::uint32_t>(s.param_values(0).size() + 2) : UINT32_MAX;
      for (NeighbourMethod m : kMethods)
        for (std::size_t p = 0; p < d; ++p) {
          std::vector<std::size_t> expected;
          for (std::size_t n : reference_neighbours(s, q, m))
            if (s.value_index(n, p) != q[p]) expected.push_back(n);
          ASSERT_EQ(s.neighbours_changing(q, p, m), expected)
              << to_string(m) << " parameter " << p << " trial " << trial;
          ++checked;
          non_empty += !expected.empty();
        }
    }
  }
  EXPECT_GT(non_empty, checked / 4);
  const SearchSpace s = simple_space();
  EXPECT_THROW(s.neighbours_changing(s.config_at(0), s.num_params(), NeighbourMethod::Hamming), std::out_of_range);
}

// Larger spaces reach the code paths small random spaces do not: 2-byte matrices, more than 16 parameters (no
// vector scan), and row ranges below the prefix trie that need galloping searches.
TEST(Neighbours, MatchBruteForceOnLargeAndWideSpaces) {
  struct Shape {
    std::vector<std::size_t> values;
    double density;
  };
  const std::vector<Shape> shapes = {
      {{1000, 60}, 0.4},                       // 2-byte value indices, big ranges below the first level
      {{30, 30, 60}, 0.3},                     // 1-byte, three levels
      {std::vector<std::size_t>(17, 2), 0.3},  // 17 parameters: rows too wide for the vector scan
      {{7, 1, 300, 5, 1, 3}, 0.6},             // single-valued parameters in between
      {{70000, 3}, 0.01},                      // 4-byte value indices, a row of exactly one hashed word
      {{70000, 3, 2}, 0.005},                  // 4-byte, a row of a word and an overlapping tail
  };
  Rng rng(77);
  std::size_t round = 0;
  for (const Shape& shape : shapes) {
    // Alternate the normal trie, none at all and a shallow one, so every search path runs.
    const TrieBudget budget(kBudgets[round++ % 3]);
    Problem problem;
    problem.name = "large";
    for (std::size_t i = 0; i < shape.values.size(); ++i) {
      Parameter p{"p" + std::to_string(i), {}};
      for (std::size_t j = 0; j < shape.values[i]; ++j) p.values.emplace_back(static_cast<std::int64_t>(j));
      problem.parameters.push_back(std::move(p));
    }
    const std::size_t d = shape.values.size();
    for (const auto& order : {testing::random_order(d, rng), testing::random_order(d, rng)}) {
      const SearchSpace s = SearchSpace::from_configs(problem, random_configs(problem, rng, shape.density), order);
      ASSERT_GT(s.size(), 1000u);
      for (int k = 0; k < 6; ++k) {
        Config q = s.config_at(rng.below(s.size()));
        if (k % 2 == 1) q[rng.below(d)] = static_cast<std::uint32_t>(rng.below(shape.values[0]));  // maybe invalid
        for (NeighbourMethod m : kMethods)
          ASSERT_EQ(s.neighbours_uncached(q, m), reference_neighbours(s, q, m)) << to_string(m) << " d=" << d;
      }
      for (int k = 0; k < 8; ++k) {
        std::vector<std::uint32_t> lo(d), hi(d);
        for (std::size_t p = 0; p < d; ++p) {
          const auto a = static_cast<std::uint32_t>(rng.below(shape.values[p]));
          const auto w = static_cast<std::uint32_t>(rng.below(shape.values[p] / 4 + 2));
          lo[p] = a;
          hi[p] = a + w;
        }
        std::vector<std::size_t> got;
        s.for_each_in_box(lo, hi, [&](std::size_t r) { got.push_back(r); });
        ASSERT_EQ(got, reference_box(s, lo, hi));
      }
    }
  }
}

TEST(Neighbours, ClosestParamIndicesIsNeverEmptyWithTwoConfigs) {
  Rng rng(99);
  for (int trial = 0; trial < 200; ++trial) {
    Problem problem = random_problem(rng);
    const auto configs = random_configs(problem, rng, 0.1 + 0.3 * rng.uniform01());
    const SearchSpace s = SearchSpace::from_configs(problem, configs, random_order(problem.parameters.size(), rng));
    if (s.size() < 2) continue;
    for (int k = 0; k < 30; ++k) {
      const std::size_t i = rng.below(s.size());
      const auto got = s.neighbours(i, NeighbourMethod::ClosestParamIndices);
      ASSERT_FALSE(got.empty());
      ASSERT_EQ(got, reference_neighbours(s, s.config_at(i), NeighbourMethod::ClosestParamIndices));
    }
  }
}

TEST(Neighbours, IndexOverloadAndErrors) {
  const SearchSpace s = simple_space();
  for (std::size_t i = 0; i < s.size(); ++i)
    for (NeighbourMethod m : kMethods) {
      const auto by_index = s.neighbours(i, m);
      EXPECT_EQ(by_index, s.neighbours_uncached(s.config_at(i), m));
      EXPECT_EQ(std::find(by_index.begin(), by_index.end(), i), by_index.end());  // never the query itself
    }
  EXPECT_THROW(s.neighbours(s.size(), NeighbourMethod::Hamming), std::out_of_range);
  EXPECT_THROW(s.neighbours(Config{0, 0, 0}, static_cast<NeighbourMethod>(17)), std::invalid_argument);
}

TEST(Neighbours, CacheIsConsistentAcrossThreads) {
  Rng rng(7);
  Problem problem = random_problem(rng, 5, 5, 7);
  const SearchSpace s = SearchSpace::from_configs(problem, random_configs(problem, rng, 0.5));
  ASSERT_GT(s.size(), 100u);
  std::vector<std::vector<std::size_t>> expected;
  for (std::size_t i = 0; i < 200; ++i)
    expected.push_back(s.neighbours_uncached(s.config_at(i % s.size()), kMethods[i % 5]));
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (std::size_t i = 0; i < 200; ++i) {
          const std::size_t j = (i * 7 + static_cast<std::size_t>(t) * 13) % 200;
          if (s.neighbours(j % s.size(), kMethods[j % 5]) != expected[j]) ++failures[static_cast<std::size_t>(t)];
        }
    });
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

TEST(Neighbours, BoxQueryMatchesBruteForce) {
  Rng rng(31);
  for (int trial = 0; trial < 300; ++trial) {
    Problem problem = random_problem(rng);
    const std::size_t d = problem.parameters.size();
    const TrieBudget budget(kBudgets[trial % 3]);
    const SearchSpace s =
        SearchSpace::from_configs(problem, random_configs(problem, rng, 0.2 + 0.6 * rng.uniform01()),
                                  random_order(d, rng));
    for (int k = 0; k < 10; ++k) {
      std::vector<std::uint32_t> lo(d), hi(d);
      for (std::size_t p = 0; p < d; ++p) {
        const auto m = static_cast<std::uint32_t>(s.param_values(p).size());
        const auto a = static_cast<std::uint32_t>(rng.below(m + 2));  // may lie beyond the values
        const auto b = static_cast<std::uint32_t>(rng.below(m + 2));
        lo[p] = std::min(a, b);
        hi[p] = k == 0 ? std::numeric_limits<std::uint32_t>::max() : std::max(a, b);
      }
      std::vector<std::size_t> got;
      s.for_each_in_box(lo, hi, [&](std::size_t r) { got.push_back(r); });
      ASSERT_EQ(got, reference_box(s, lo, hi)) << "trial " << trial;  // same set, ascending
    }
    // Empty box (lo > hi somewhere) and wrong lengths report nothing.
    std::vector<std::uint32_t> lo(d, 0), hi(d, 100);
    lo[0] = 5;
    hi[0] = 4;
    std::size_t calls = 0;
    s.for_each_in_box(lo, hi, [&](std::size_t) { ++calls; });
    std::vector<std::uint32_t> short_lo(d - 1, 0), short_hi(d - 1, 100);
    s.for_each_in_box(short_lo, short_hi, [&](std::size_t) { ++calls; });
    EXPECT_EQ(calls, 0u);
  }
}

}  // namespace neighbours_test
}  // namespace
}  // namespace ktune
