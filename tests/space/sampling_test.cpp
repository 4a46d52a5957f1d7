// Random and Latin-hypercube sampling.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "space_reference.hpp"

namespace ktune {
namespace {

using testing::filter_product;
using testing::random_configs;
using testing::random_order;
using testing::random_problem;

Problem grid_problem(std::size_t d, std::size_t m) {
  Problem problem;
  problem.name = "grid";
  for (std::size_t i = 0; i < d; ++i) {
    Parameter p{"p" + std::to_string(i), {}};
    for (std::size_t j = 0; j < m; ++j) p.values.emplace_back(static_cast<std::int64_t>(j));
    problem.parameters.push_back(std::move(p));
  }
  return problem;
}

SearchSpace half_grid() {  // 20 x 20 x 20 with a + b + c even: 4000 configurations
  Problem problem = grid_problem(3, 20);
  const auto even = [](const Config& c) { return (c[0] + c[1] + c[2]) % 2 == 0; };
  return SearchSpace::from_configs(problem, filter_product(problem, even));
}

TEST(Sampling, RandomSampleIsUniqueValidAndSeeded) {
  const SearchSpace s = half_grid();
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{10}, std::size_t{100}, std::size_t{600},
                        std::size_t{3999}, std::size_t{4000}}) {
    Rng rng(n + 1);
    const auto sample = s.random_sample(n, rng);
    ASSERT_EQ(sample.size(), n);
    const std::set<std::size_t> unique(sample.begin(), sample.end());
    EXPECT_EQ(unique.size(), n);
    for (std::size_t i : sample) EXPECT_LT(i, s.size());
    Rng again(n + 1);
    EXPECT_EQ(s.random_sample(n, again), sample);
  }
  Rng a(1), b(2);
  EXPECT_NE(s.random_sample(50, a), s.random_sample(50, b));
  Rng rng(3);
  try {
    s.random_sample(4001, rng);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("number of samples requested (4001)"), std::string::npos) << what;
    EXPECT_NE(what.find("greater than the search space size (4000)"), std::string::npos) << what;
  }
}

TEST(Sampling, RandomSampleIsUniform) {
  // Both code paths (sparse for n << size, dense otherwise): every index about equally often.
  const SearchSpace s = half_grid();
  for (std::size_t n : {std::size_t{4}, std::size_t{1000}}) {
    Rng rng(77);
    std::vector<std::size_t> count(s.size(), 0);
    const std::size_t rounds = 200000 / n;
    for (std::size_t r = 0; r < rounds; ++r)
      for (std::size_t i : s.random_sample(n, rng)) ++count[i];
    const double expected = static_cast<double>(rounds * n) / static_cast<double>(s.size());  // 50 per index
    double chi2 = 0;
    for (std::size_t c : count) {
      const double diff = static_cast<double>(c) - expected;
      chi2 += diff * diff / expected;
    }
    // 3999 degrees of freedom, scaled by the finite-population factor of sampling without replacement.
    const double mean = 3999.0 * (1.0 - static_cast<double>(n) / static_cast<double>(s.size()));
    EXPECT_LT(chi2, mean + 6 * 90.0) << "n = " << n;
    EXPECT_GT(chi2, mean - 6 * 90.0) << "n = " << n;
  }
}

TEST(Sampling, RandomSampleFirstElementIsUniform) {
  // The order of a sample is random too (strategies take prefixes of samples).
  const SearchSpace s = half_grid();
  Rng rng(5);
  std::vector<int> first(s.size(), 0);
  for (int r = 0; r < 40000; ++r) ++first[s.random_sample(3, rng)[0]];
  double chi2 = 0;
  for (int c : first) chi2 += (c - 10.0) * (c - 10.0) / 10.0;  // mean 10 per index
  EXPECT_LT(chi2, 3999 + 6 * 90.0);
  EXPECT_GT(chi2, 3999 - 6 * 90.0);
}

TEST(Sampling, LhsIsUniqueValidSeededAndExact) {
  Rng gen(8);
  for (int trial = 0; trial < 100; ++trial) {
    Problem problem = random_problem(gen);
    const SearchSpace s = SearchSpace::from_configs(problem, random_configs(problem, gen, 0.3 + 0.4 * gen.uniform01()),
                                                    random_order(problem.parameters.size(), gen));
    if (s.size() == 0) continue;
    for (std::size_t n : {std::size_t{1}, s.size() / 2, s.size()}) {
      Rng rng(trial);
      const auto sample = s.lhs_sample(n, rng);
      ASSERT_EQ(sample.size(), n);
      EXPECT_EQ(std::set<std::size_t>(sample.begin(), sample.end()).size(), n);
      for (std::size_t i : sample) EXPECT_LT(i, s.size());
      Rng again(trial);
      EXPECT_EQ(s.lhs_sample(n, again), sample);
    }
    Rng rng(1);
    EXPECT_THROW(s.lhs_sample(s.size() + 1, rng), std::invalid_argument);
  }
}

TEST(Sampling, LhsCoversEveryStratumOfAFullGrid) {
  // On a full grid with n = values per parameter every point is valid, so each parameter takes each value once.
  Problem problem = grid_problem(4, 12);
  const SearchSpace s = SearchSpace::from_configs(problem, filter_product(problem, [](const Config&) { return true; }));
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    Rng rng(seed);
    const auto sample = s.lhs_sample(12, rng);
    ASSERT_EQ(sample.size(), 12u);
    for (std::size_t p = 0; p < 4; ++p) {
      std::set<std::uint32_t> values;
      for (std::size_t i : sample) values.insert(s.value_index(i, p));
      EXPECT_EQ(values.size(), 12u) << "parameter " << p << " seed " << seed;
    }
  }
}

TEST(Sampling, LhsSpreadsOverTheTrueBounds) {
  // Valid only for a, b in [5, 14] of 0..19 (true bounds 5..14): with n = 10 each stratum of the bounds is hit.
  Problem problem = grid_problem(2, 20);
  const SearchSpace s = SearchSpace::from_configs(problem, filter_product(problem, [](const Config& c) {
    return c[0] >= 5 && c[0] <= 14 && c[1] >= 5 && c[1] <= 14;
  }));
  Rng rng(4);
  const auto sample = s.lhs_sample(10, rng);
  for (std::size_t p = 0; p < 2; ++p) {
    std::set<std::uint32_t> values;
    for (std::size_t i : sample) values.insert(s.value_index(i, p));
    EXPECT_EQ(values, (std::set<std::uint32_t>{5, 6, 7, 8, 9, 10, 11, 12, 13, 14}));
  }
}

TEST(Sampling, KernelTunerLhsTenOfTwentyFour) {
  // Kernel Tuner: int + float > 2 and bool_param == False gives 24 configurations; an LHS sample of 10 is unique.
  Problem problem;
  problem.name = "mixed";
  problem.parameters = {{"int_param", {1, 2, 3}},
                        {"float_param", {1.0, 2.0, 3.0}},
                        {"str_param", {"Alpha", "Bravo", "Charlie"}},
                        {"bool_param", {true, false}}};
  const SearchSpace s = SearchSpace::from_configs(problem, filter_product(problem, [&](const Config& c) {
    return problem.parameters[0].values[c[0]].to_double() + problem.parameters[1].values[c[1]].to_double() > 2 &&
           c[3] == 1;
  }));
  ASSERT_EQ(s.size(), 24u);
  Rng rng(42);
  const auto sample = s.lhs_sample(10, rng);
  EXPECT_EQ(std::set<std::size_t>(sample.begin(), sample.end()).size(), 10u);
  Rng rng2(42);
  EXPECT_EQ(s.lhs_sample(24, rng2).size(), 24u);  // n == size works (Kernel Tuner crashes there)
}

TEST(Sampling, LhsReplacesInvalidPointsByUniformValidOnes) {
  // A single valid configuration far from most LHS points: the sample still has n distinct valid configurations.
  Problem problem = grid_problem(3, 9);
  const SearchSpace s = SearchSpace::from_configs(problem, {{8, 8, 8}, {0, 0, 0}, {4, 4, 4}});
  Rng rng(0);
  const auto sample = s.lhs_sample(3, rng);
  EXPECT_EQ(std::set<std::size_t>(sample.begin(), sample.end()), (std::set<std::size_t>{0, 1, 2}));
}

TEST(Sampling, LhsDoesNotPileOntoTheBoundaryOfAHole) {
  // 10 x 10 grid with an invalid 6 x 6 hole: 64 valid configurations, 24 of them next to the hole (37.5 %). Snapping
  // the ~36 % of stratum points that fall into the hole to their nearest valid configuration put ~60 % of the sample
  // next to the hole; uniform replacements keep the valid space's share.
  Problem problem = grid_problem(2, 10);
  auto in_hole = [](std::uint32_t a, std::uint32_t b) { return a >= 2 && a <= 7 && b >= 2 && b <= 7; };
  const SearchSpace s = SearchSpace::from_configs(
      problem, filter_product(problem, [&](const Config& c) { return !in_hole(c[0], c[1]); }));
  ASSERT_EQ(s.size(), 64u);
  std::size_t next_to_hole = 0, total = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    Rng rng(seed);
    for (std::size_t i : s.lhs_sample(10, rng)) {
      const auto a = s.value_index(i, 0), b = s.value_index(i, 1);
      const bool near = (a > 0 && in_hole(a - 1, b)) || in_hole(a + 1, b) || (b > 0 && in_hole(a, b - 1)) ||
                        in_hole(a, b + 1);
      next_to_hole += near ? 1 : 0;
      ++total;
    }
  }
  const double share = static_cast<double>(next_to_hole) / static_cast<double>(total);
  EXPECT_GT(share, 0.30);
  EXPECT_LT(share, 0.45);
}

}  // namespace
}  // namespace ktune
