// SearchSpace basics: construction from configurations, lookups, values, bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "space_reference.hpp"
#include "neighbour_queries.hpp"
#include "packed_rows_from_environment.hpp"

namespace ktune {
namespace {
namespace space_basics_test {

using testing::filter_product;
using testing::random_configs;
using testing::random_order;
using testing::random_problem;

Problem make_problem(std::vector<Parameter> params) {
  Problem p;
  p.name = "test";
  p.parameters = std::move(params);
  return p;
}

// Kernel Tuner's 'simple space': x=[1,1.5,2,3], y=[4,5.5], z=['string_1','string_2'], restriction y % x == 1.
SearchSpace simple_space() {
  Problem problem = make_problem({{"x", {1, 1.5, 2, 3}}, {"y", {4, 5.5}}, {"z", {"string_1", "string_2"}}});
  const auto configs = filter_product(problem, [&](const Config& c) {
    const double x = problem.parameters[0].values[c[0]].to_double();
    const double y = problem.parameters[1].values[c[1]].to_double();
    return std::fmod(y, x) == 1.0;  // both positive: Python's % equals fmod here
  });
  return SearchSpace::from_configs(problem, configs);
}

std::vector<Value> vals(std::initializer_list<Value> v) { return std::vector<Value>(v); }

TEST(SpaceBasics, KernelTunerSimpleSpaceSizeAndSortedOrder) {
  const SearchSpace s = simple_space();
  ASSERT_EQ(s.size(), 6u);
  // Kernel Tuner's sorted_list(): value-index tuples ascending, first parameter slowest.
  const std::vector<std::vector<Value>> expected = {
      vals({1.5, 4, "string_1"}), vals({1.5, 4, "string_2"}), vals({1.5, 5.5, "string_1"}),
      vals({1.5, 5.5, "string_2"}), vals({3, 4, "string_1"}), vals({3, 4, "string_2"})};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto got = s.values_at(i);
    ASSERT_EQ(got.size(), 3u);
    for (std::size_t p = 0; p < 3; ++p) EXPECT_TRUE(same_value(got[p], expected[i][p])) << i << "," << p;
    EXPECT_EQ(s.index_of(*s.config_of(expected[i])), i);
    EXPECT_TRUE(s.is_valid(expected[i]));
  }
  EXPECT_FALSE(s.is_valid(vals({1, 4, "string_1"})));
  EXPECT_EQ(s.config_of(vals({1, 4, "string_1"})), (Config{0, 0, 0}));
  EXPECT_EQ(s.config_of(vals({3, 5.5, "string_2"})), (Config{3, 1, 1}));
  EXPECT_EQ(s.lex_order(), (std::vector<std::size_t>{0, 1, 2}));
}

TEST(SpaceBasics, ConfigOfUsesPythonEquality) {
  const SearchSpace s = simple_space();
  // 3 == 3.0, 4.0 == 4, True == 1.
  EXPECT_EQ(s.config_of(vals({3.0, 4.0, "string_1"})), (Config{3, 0, 0}));
  EXPECT_EQ(s.config_of(vals({true, 5.5, "string_2"})), (Config{0, 1, 1}));
  EXPECT_TRUE(s.is_valid(vals({std::int64_t{3}, 4.0, "string_2"})));
  // Not in the lists / wrong type / wrong length.
  EXPECT_FALSE(s.config_of(vals({2.5, 4, "string_1"})).has_value());
  EXPECT_FALSE(s.config_of(vals({"1", 4, "string_1"})).has_value());
  EXPECT_FALSE(s.config_of(vals({1, 4, "string_3"})).has_value());
  EXPECT_FALSE(s.config_of(vals({1, 4})).has_value());
  EXPECT_FALSE(s.config_of(vals({1, 4, "string_1", 1})).has_value());
  EXPECT_FALSE(s.config_of(vals({Value(), 4, "string_1"})).has_value());
  EXPECT_FALSE(s.is_valid(vals({1, 4})));
}

TEST(SpaceBasics, ConfigOfAcrossNumericTypes) {
  // Value lists hold no Python-equal duplicates (Problem::validate), so a query finds its one equal entry.
  Problem problem = make_problem({{"a", {true, 1.5, 2, 0.0}}, {"b", {"x", "y"}}});
  const SearchSpace s = SearchSpace::from_configs(problem, {{0, 0}, {2, 0}});
  EXPECT_EQ(s.config_of(vals({1, "x"})), (Config{0, 0}));
  EXPECT_EQ(s.config_of(vals({1.0, "x"})), (Config{0, 0}));
  EXPECT_EQ(s.config_of(vals({2.0, "x"})), (Config{2, 0}));
  EXPECT_EQ(s.config_of(vals({false, "x"})), (Config{3, 0}));
  EXPECT_EQ(s.config_of(vals({0, "y"})), (Config{3, 1}));
  EXPECT_FALSE(s.config_of(vals({std::nan(""), "x"})).has_value());
  EXPECT_FALSE(s.config_of(vals({Value(), "x"})).has_value());
  EXPECT_EQ(s.config_of(vals({1.5, "x"})), (Config{1, 0}));
  EXPECT_FALSE(s.config_of(vals({3, "x"})).has_value());
  EXPECT_TRUE(s.is_valid(vals({2.0, "x"})));
  EXPECT_FALSE(s.is_valid(vals({1.5, "x"})));
}

TEST(SpaceBasics, IndexRoundTripAndInvalidQueriesOnRandomSpaces) {
  Rng rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    Problem problem = random_problem(rng);
    const auto configs = random_configs(problem, rng, 0.3 + 0.4 * rng.uniform01());
    const auto order = random_order(problem.parameters.size(), rng);
    const SearchSpace s = SearchSpace::from_configs(problem, configs, order);
    ASSERT_EQ(s.size(), configs.size());
    std::set<Config> valid(configs.begin(), configs.end());
    // Sorted lexicographically under the order, each config found at its index.
    for (std::size_t i = 0; i < s.size(); ++i) {
      const Config c = s.config_at(i);
      ASSERT_TRUE(valid.count(c));
      ASSERT_EQ(s.index_of(c), i);
      if (i > 0) {
        const Config prev = s.config_at(i - 1);
        bool less = false;
        for (std::size_t p : order)
          if (prev[p] != c[p]) { less = prev[p] < c[p]; break; }
        ASSERT_TRUE(less) << "rows not strictly ascending under the order";
      }
    }
    // Every product config: found iff valid.
    for (const Config& c : filter_product(problem, [](const Config&) { return true; }))
      ASSERT_EQ(s.index_of(c).has_value(), valid.count(c) == 1);
    // Wrong length, out-of-range indices.
    const std::size_t d = problem.parameters.size();
    EXPECT_FALSE(s.index_of(Config(d + 1, 0)).has_value());
    EXPECT_FALSE(s.index_of(Config(d - 1, 0)).has_value());
    EXPECT_FALSE(s.index_of(Config{}).has_value());
    for (std::size_t p = 0; p < d; ++p) {
      Config c = s.size() ? s.config_at(0) : Config(d, 0);
      c[p] = static_cast<std::uint32_t>(problem.parameters[p].values.size());
      EXPECT_FALSE(s.index_of(c).has_value());
      c[p] = std::numeric_limits<std::uint32_t>::max();
      EXPECT_FALSE(s.index_of(c).has_value());
      EXPECT_FALSE(s.is_valid(c));
    }
  }
}

TEST(SpaceBasics, BoundsUsedValuesAndTunableParams) {
  Rng rng(5);
  for (int trial = 0; trial < 100; ++trial) {
    Problem problem = random_problem(rng);
    const auto configs = random_configs(problem, rng, 0.2 + 0.5 * rng.uniform01());
    if (configs.empty()) continue;
    const SearchSpace s = SearchSpace::from_configs(problem, configs, random_order(problem.parameters.size(), rng));
    std::vector<std::size_t> tunable;
    for (std::size_t p = 0; p < s.num_params(); ++p) {
      std::set<std::uint32_t> used;
      for (const Config& c : configs) used.insert(c[p]);
      EXPECT_EQ(s.used_values(p), std::vector<std::uint32_t>(used.begin(), used.end()));
      EXPECT_EQ(s.lower_bound(p), *used.begin());
      EXPECT_EQ(s.upper_bound(p), *used.rbegin());
      if (used.size() > 1) tunable.push_back(p);
    }
    EXPECT_EQ(s.tunable_params(), tunable);
  }
}

TEST(SpaceBasics, KernelTunerTrueTunableParams) {
  // int_param in [1,2,3], float_param in [3.0,4.0,5.0], restriction int_param >= 3: only float_param is tunable.
  Problem problem = make_problem({{"int_param", {1, 2, 3}}, {"float_param", {3.0, 4.0, 5.0}}});
  const auto configs = filter_product(problem, [&](const Config& c) { return c[0] == 2; });
  const SearchSpace s = SearchSpace::from_configs(problem, configs);
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s.tunable_params(), (std::vector<std::size_t>{1}));
}

TEST(SpaceBasics, KernelTunerMixedParamTypes) {
  // int + float > 3 and bool_param == False: 18 configurations, true index bounds (0,0,0,1)-(2,2,2,1).
  Problem problem = make_problem({{"int_param", {1, 2, 3}},
                                  {"float_param", {1.0, 2.0, 3.0}},
                                  {"str_param", {"Alpha", "Bravo", "Charlie"}},
                                  {"bool_param", {true, false}}});
  const auto configs = filter_product(problem, [&](const Config& c) {
    return problem.parameters[0].values[c[0]].to_double() + problem.parameters[1].values[c[1]].to_double() > 3 &&
           !problem.parameters[3].values[c[3]].as_bool();
  });
  const SearchSpace s = SearchSpace::from_configs(problem, configs);
  EXPECT_EQ(s.size(), 18u);
  EXPECT_EQ(s.config_of(vals({1, 1.0, "Alpha", true})), (Config{0, 0, 0, 0}));
  EXPECT_EQ(s.config_of(vals({2, 2.0, "Bravo", false})), (Config{1, 1, 1, 1}));
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s.config_of(s.values_at(i)), s.config_at(i));
  for (std::size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(s.lower_bound(p), 0u);
    EXPECT_EQ(s.upper_bound(p), 2u);
  }
  EXPECT_EQ(s.lower_bound(3), 1u);
  EXPECT_EQ(s.upper_bound(3), 1u);
}

TEST(SpaceBasics, FromConfigsDedupesSortsAndRejectsBadEntries) {
  Problem problem = make_problem({{"a", {1, 2, 3}}, {"b", {10, 20}}});
  const SearchSpace s = SearchSpace::from_configs(problem, {{2, 1}, {0, 1}, {2, 1}, {0, 0}, {0, 1}});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.config_at(0), (Config{0, 0}));
  EXPECT_EQ(s.config_at(1), (Config{0, 1}));
  EXPECT_EQ(s.config_at(2), (Config{2, 1}));
  // Order (1, 0): parameter b slowest.
  const SearchSpace t = SearchSpace::from_configs(problem, {{2, 1}, {0, 1}, {0, 0}}, {1, 0});
  EXPECT_EQ(t.config_at(0), (Config{0, 0}));
  EXPECT_EQ(t.config_at(1), (Config{0, 1}));
  EXPECT_EQ(t.config_at(2), (Config{2, 1}));
  EXPECT_EQ(t.lex_order(), (std::vector<std::size_t>{1, 0}));
  EXPECT_THROW(SearchSpace::from_configs(problem, {{0, 0, 0}}), std::invalid_argument);
  EXPECT_THROW(SearchSpace::from_configs(problem, {{3, 0}}), std::invalid_argument);
  EXPECT_THROW(SearchSpace::from_configs(problem, {{0, 0}}, {0, 0}), std::invalid_argument);
  EXPECT_THROW(SearchSpace::from_configs(problem, {{0, 0}}, {0}), std::invalid_argument);
  try {
    SearchSpace::from_configs(problem, {{0, 0}, {1, 7}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'b'"), std::string::npos) << e.what();
  }
  // An empty space answers everything without crashing.
  const SearchSpace empty = SearchSpace::from_configs(problem, {});
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_FALSE(empty.index_of(Config{0, 0}).has_value());
  EXPECT_TRUE(empty.neighbours(Config{0, 0}, NeighbourMethod::Adjacent).empty());
  EXPECT_TRUE(empty.neighbours(Config{0, 0}, NeighbourMethod::ClosestParamIndices).empty());
  EXPECT_TRUE(empty.tunable_params().empty());
  Rng rng(1);
  EXPECT_TRUE(empty.random_sample(0, rng).empty());
  EXPECT_THROW(empty.random_sample(1, rng), std::invalid_argument);
}

TEST(SpaceBasics, ValuesAccessorsRejectBadInput) {
  const SearchSpace s = simple_space();
  EXPECT_THROW(s.config_at(6), std::out_of_range);
  EXPECT_THROW(s.values_at(100), std::out_of_range);
  EXPECT_THROW(s.values_of(Config{0, 0}), std::invalid_argument);
  EXPECT_THROW(s.values_of(Config{4, 0, 0}), std::out_of_range);
  const auto v = s.values_of(Config{3, 1, 0});
  EXPECT_TRUE(same_value(v[0], Value(3)));
  EXPECT_TRUE(same_value(v[1], Value(5.5)));
  EXPECT_TRUE(same_value(v[2], Value("string_1")));
}

TEST(SpaceBasics, MoveKeepsEverything) {
  SearchSpace s = simple_space();
  const auto n1 = s.neighbours(Config{0, 0, 0}, NeighbourMethod::Hamming);
  SearchSpace moved(std::move(s));
  EXPECT_EQ(moved.size(), 6u);
  EXPECT_EQ(moved.index_of(Config{1, 0, 0}), 0u);
  EXPECT_EQ(moved.neighbours(Config{0, 0, 0}, NeighbourMethod::Hamming), n1);
  SearchSpace other = SearchSpace::from_configs(make_problem({{"a", {1}}}), {{0}});
  other = std::move(moved);
  EXPECT_EQ(other.size(), 6u);
  EXPECT_EQ(other.neighbours(Config{0, 0, 0}, NeighbourMethod::Hamming), n1);
}

TEST(SpaceBasics, NeighbourMethodNames) {
  for (auto m : {NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent, NeighbourMethod::Hamming,
                 NeighbourMethod::HammingAdjacent, NeighbourMethod::ClosestParamIndices})
    EXPECT_EQ(parse_neighbour_method(to_string(m)), m);
  EXPECT_STREQ(to_string(NeighbourMethod::Hamming), "Hamming");
  EXPECT_STREQ(to_string(NeighbourMethod::HammingAdjacent), "Hamming-adjacent");
  EXPECT_EQ(parse_neighbour_method("strictly-adjacent"), NeighbourMethod::StrictlyAdjacent);
  EXPECT_EQ(parse_neighbour_method("closest-param-indices"), NeighbourMethod::ClosestParamIndices);
  EXPECT_FALSE(parse_neighbour_method("").has_value());
  EXPECT_FALSE(parse_neighbour_method("adjacentx").has_value());
  EXPECT_FALSE(parse_neighbour_method("random").has_value());
}

TEST(SpaceBasics, MemoryPerConfigurationIsCompact) {
  Rng rng(3);
  Problem problem = random_problem(rng, 6, 6, 7);
  for (auto& p : problem.parameters)
    while (p.values.size() < 7) p.values.emplace_back(static_cast<std::int64_t>(100 + p.values.size()));
  const auto configs = random_configs(problem, rng, 0.5);  // ~58k of 7^6
  const SearchSpace s = SearchSpace::from_configs(problem, configs);
  ASSERT_GT(s.size(), 50000u);
  const double per_config = static_cast<double>(s.memory_bytes()) / static_cast<double>(s.size());
  if (s.listed()->is_packed()) {  // (the Packed. run) a 4-byte word per row (6 x 3 bits), a directory, a small trie
    EXPECT_LE(per_config, 6.0);
    EXPECT_GE(per_config, 4.0);
  } else {
    EXPECT_LE(per_config, 32.0);
    EXPECT_GE(per_config, 6.0 + 8.0);  // at least the matrix (1 byte x 6) and 2 slots of 4 bytes
  }
}

// The "Packed." run of this binary (CMakeLists.txt) packs every space, small ones too: else it would check nothing new.
TEST(SpaceBasics, ThePackedRunPacksEverySpace) {
  if (!testing::kPackedRowsFromEnvironment) GTEST_SKIP() << "KTUNE_TEST_PACKED_ROWS_FROM is not set";
  EXPECT_TRUE(simple_space().listed()->is_packed());
}

// A materialised space from the packing threshold on holds its rows packed (the solver writes a product of groups
// packed straight away) and answers every query as the plain layout does.
TEST(SpaceBasics, PackedRowsAnswerAsPlainRows) {
  Problem problem;
  problem.name = "two groups";
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) {
    Parameter p{name, {}};
    for (std::int64_t v = 1; v <= 12; ++v) p.values.emplace_back(v);
    problem.parameters.push_back(std::move(p));
  }
  problem.constraints = {"a * b * c <= 300", "d + e * f <= 70"};
  BuildOptions options;
  options.form = SpaceForm::materialised;
  const SearchSpace plain = [&] {
    const testing::PackedRowsFrom never(std::numeric_limits<std::size_t>::max());
    return SearchSpace::build(problem, options);
  }();
  const testing::PackedRowsFrom from(std::size_t{1} << 16);
  const SearchSpace packed = SearchSpace::build(problem, options);
  ASSERT_GT(packed.size(), std::size_t{1} << 16);
  ASSERT_EQ(packed.size(), plain.size());
  ASSERT_TRUE(packed.listed()->is_packed());
  ASSERT_FALSE(plain.listed()->is_packed());
  EXPECT_EQ(packed.listed()->width(), 4u);  // 6 x 4 bits
  EXPECT_LT(packed.memory_bytes(), plain.memory_bytes() / 2);
  Rng rng(11);
  for (int i = 0; i < 2000; ++i) {
    const std::size_t index = rng.below(plain.size());
    ASSERT_EQ(packed.config_at(index), plain.config_at(index));
    Config any(6);
    for (auto& v : any) v = static_cast<std::uint32_t>(rng.below(12));
    ASSERT_EQ(packed.index_of(any), plain.index_of(any));
  }
  for (std::size_t p = 0; p < 6; ++p) EXPECT_EQ(packed.used_values(p), plain.used_values(p));
  for (int i = 0; i < 40; ++i) {
    const Config c = plain.config_at(rng.below(plain.size()));
    for (NeighbourMethod m : testing::kAllNeighbourMethods) ASSERT_EQ(packed.neighbours(c, m), plain.neighbours(c, m));
    const std::vector<double> x = plain.to_continuous(plain.config_at(rng.below(plain.size())));
    ASSERT_EQ(packed.closest_neighbours(c, NeighbourMethod::Adjacent, x),
              plain.closest_neighbours(c, NeighbourMethod::Adjacent, x));
  }
  Rng a(5), b(5);
  EXPECT_EQ(packed.random_sample(500, a), plain.random_sample(500, b));
  EXPECT_EQ(packed.lhs_sample(300, a), plain.lhs_sample(300, b));
}

}  // namespace space_basics_test
}  // namespace
}  // namespace ktune
