// The lazy form (a product of independent groups, never listed) against the materialised form of the same problem:
// the same count, configurations at every index, validity, bounds, samples, neighbours of every kind (valid, invalid
// and out-of-range queries), the neighbours closest to a point, and box queries, on random problems, the
// construction paper's 8 real-world and 112 synthetic spaces; uniform sampling of a space too large to list, checked
// against exact marginals by chi-square.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>

#include "ktune/io/t1_reader.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "random_problem.hpp"
#include "shared_data.hpp"

namespace ktune {
namespace {

constexpr NeighbourMethod kMethods[] = {NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent,
                                        NeighbourMethod::Hamming, NeighbourMethod::HammingAdjacent,
                                        NeighbourMethod::ClosestParamIndices};

SearchSpace build(const Problem& problem, SpaceForm form) {
  BuildOptions options;
  options.form = form;
  return SearchSpace::build(problem, options);
}

// A query: a valid configuration, a random point of the grid (often invalid), or one with an out-of-range value.
Config random_query(const SearchSpace& space, Rng& rng) {
  const std::size_t d = space.num_params();
  const auto kind = rng.below(6);
  if (kind < 2) return space.config_at(static_cast<std::size_t>(rng.below(space.size())));
  Config c(d);
  for (std::size_t p = 0; p < d; ++p) c[p] = static_cast<std::uint32_t>(rng.below(space.param_values(p).size()));
  if (kind == 5) {
    const std::size_t p = static_cast<std::size_t>(rng.below(d));
    c[p] = rng.below(2) ? static_cast<std::uint32_t>(space.param_values(p).size())
                        : std::numeric_limits<std::uint32_t>::max();
  }
  return c;
}

// Everything both forms answer, compared; `queries` random neighbour and box queries.
void expect_same_space(const SearchSpace& listed, const SearchSpace& lazy, std::size_t queries, std::uint64_t seed,
                       const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_FALSE(listed.is_lazy());
  ASSERT_EQ(listed.size(), lazy.size());
  const std::size_t d = listed.num_params();
  for (std::size_t p = 0; p < d; ++p) {
    ASSERT_EQ(listed.lower_bound(p), lazy.lower_bound(p)) << p;
    ASSERT_EQ(listed.upper_bound(p), lazy.upper_bound(p)) << p;
    ASSERT_EQ(listed.used_values(p), lazy.used_values(p)) << p;
  }
  ASSERT_EQ(listed.tunable_params(), lazy.tunable_params());
  Rng rng(seed);
  // Every index of a small space, a sample of a large one.
  const std::size_t checks = std::min<std::size_t>(listed.size(), 20000);
  for (std::size_t k = 0; k < checks; ++k) {
    const std::size_t i = checks == listed.size() ? k : static_cast<std::size_t>(rng.below(listed.size()));
    const Config c = listed.config_at(i);
    ASSERT_EQ(lazy.config_at(i), c) << i;
    ASSERT_EQ(lazy.index_of(c), i) << i;
    for (std::size_t p = 0; p < d; ++p) ASSERT_EQ(lazy.value_index(i, p), c[p]);
    ASSERT_EQ(lazy.config_of(listed.values_at(i)), c);
  }
  for (std::size_t q = 0; q < queries; ++q) {
    const Config query = random_query(listed, rng);
    ASSERT_EQ(lazy.index_of(query), listed.index_of(query));
    for (auto method : kMethods) {
      ASSERT_EQ(lazy.neighbours(query, method), listed.neighbours_uncached(query, method))
          << to_string(method) << " query " << q;
      ASSERT_EQ(lazy.neighbours_uncached(query, method), listed.neighbours_uncached(query, method));
    }
    // The continuous repair's query: the lazy form filters its neighbours, the listed one searches its boxes.
    std::vector<double> x(d);
    for (std::size_t p = 0; p < d; ++p)
      x[p] = (std::min<double>(query[p], static_cast<double>(listed.param_values(p).size())) + rng.uniform01() * 2 -
              1) * listed.epsilon();
    for (auto method : kMethods)
      ASSERT_EQ(lazy.closest_neighbours(query, method, x), listed.closest_neighbours(query, method, x))
          << to_string(method) << " query " << q;
    // A box around the query, up to 2 indices wide each way.
    Config lo(d), hi(d);
    for (std::size_t p = 0; p < d; ++p) {
      const auto values = static_cast<std::uint32_t>(listed.param_values(p).size());
      const std::uint32_t v = std::min<std::uint32_t>(query[p], values);
      lo[p] = v - std::min<std::uint32_t>(v, static_cast<std::uint32_t>(rng.below(3)));
      hi[p] = v + static_cast<std::uint32_t>(rng.below(3));
    }
    std::vector<std::size_t> a, b;
    listed.for_each_in_box(lo, hi, [&](std::size_t i) { a.push_back(i); });
    lazy.for_each_in_box(lo, hi, [&](std::size_t i) { b.push_back(i); });
    ASSERT_EQ(a, b) << "box query " << q;
  }
  for (std::size_t n : {std::size_t{1}, std::min<std::size_t>(listed.size(), 50), listed.size() / 3}) {
    Rng r1(seed + n), r2(seed + n);
    ASSERT_EQ(listed.random_sample(n, r1), lazy.random_sample(n, r2)) << n;
    Rng l1(seed + 7 * n), l2(seed + 7 * n);
    ASSERT_EQ(listed.lhs_sample(n, l1), lazy.lhs_sample(n, l2)) << n;
  }
}

TEST(LazySpace, RandomProblemsAgreeWithTheirMaterialisedForm) {
  testing::RandomProblemGenerator generator(2026);
  std::size_t lazy_spaces = 0;
  for (int k = 0; k < 400; ++k) {
    const Problem problem = generator.next();
    std::optional<SearchSpace> listed;
    try {
      listed.emplace(build(problem, SpaceForm::materialised));
    } catch (const std::exception&) {
      continue;  // a problem the generator made invalid (the space tests cover those)
    }
    const SearchSpace lazy = build(problem, SpaceForm::lazy);
    if (listed->size() == 0 || !lazy.is_lazy()) {
      EXPECT_EQ(lazy.size(), listed->size());
      continue;
    }
    ++lazy_spaces;
    expect_same_space(*listed, lazy, 60, static_cast<std::uint64_t>(k), "random problem " + std::to_string(k));
    if (HasFatalFailure()) return;
  }
  EXPECT_GE(lazy_spaces, 40u);  // the comparison above was not vacuous
}

TEST(LazySpace, ConstructionPaperSpacesAgreeWithTheirMaterialisedForm) {
  std::vector<std::filesystem::path> files;
  for (const char* folder : {"data/searchspaces/realworld", "data/searchspaces/synthetic"})
    for (const auto& entry : std::filesystem::directory_iterator(testing::shared_path(folder)))
      if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 120u);
  std::size_t lazy_spaces = 0;
  for (std::size_t k = 0; k < files.size(); ++k) {
    const Problem problem = io::read_t1_file(files[k].string());
    const SearchSpace listed = build(problem, SpaceForm::materialised);
    const SearchSpace lazy = build(problem, SpaceForm::lazy);
    ASSERT_EQ(lazy.size(), listed.size()) << files[k];
    if (!lazy.is_lazy()) {
      // One group (nothing to factor) or no valid configuration.
      EXPECT_TRUE(listed.report().independent_groups == 1 || listed.size() == 0) << files[k];
      continue;
    }
    ++lazy_spaces;
    expect_same_space(listed, lazy, 25, k, files[k].filename().string());
    if (HasFatalFailure()) return;
  }
  EXPECT_GE(lazy_spaces, 10u);
  std::printf("%zu of the %zu spaces have independent groups and were compared\n", lazy_spaces, files.size());
}

TEST(LazySpace, AutomaticFormIsLazyOnlyAboveItsThreshold) {
  const Problem small = io::read_t1_file(testing::shared_path("data/searchspaces/realworld/hotspot.json"));
  EXPECT_FALSE(SearchSpace::build(small).is_lazy());
  const Problem big = io::read_t1_file(testing::shared_path("data/searchspaces/big/gpu_like_14x8.json"));
  const SearchSpace space = SearchSpace::build(big);
  ASSERT_TRUE(space.is_lazy());
  EXPECT_GT(space.size(), std::size_t{1} << 32);
  EXPECT_LT(space.memory_bytes(), std::size_t{16} << 20);
  BuildOptions listed;
  listed.form = SpaceForm::materialised;
  EXPECT_THROW(SearchSpace::build(big, listed), ProblemError);
}

// The exact count of gpu_like_14x8 by an independent route: the groups' valid counts by brute force over their own
// parameters, multiplied. And its uniform sample's marginals against the exact marginals (chi-square).
TEST(LazySpace, SpaceTooLargeToListIsCountedAndSampledUniformly) {
  const Problem problem = io::read_t1_file(testing::shared_path("data/searchspaces/big/gpu_like_14x8.json"));
  const SearchSpace space = build(problem, SpaceForm::lazy);
  ASSERT_TRUE(space.is_lazy());
  // Brute force per parameter group of the file's conditions (values 1..128 in powers of two, indices 0..7).
  auto v = [](std::uint64_t i) { return std::uint64_t{1} << i; };
  std::uint64_t block = 0, tile = 0, unroll = 0, split = 0;
  std::map<std::uint64_t, std::uint64_t> warps_per_bx;  // exact marginal of block_size_x
  for (std::uint64_t bx = 0; bx < 8; ++bx)
    for (std::uint64_t by = 0; by < 8; ++by)
      for (std::uint64_t w = 0; w < 8; ++w)
        if (v(bx) * v(by) <= 1024 && v(bx) * v(by) >= 16 && v(w) <= v(bx) * v(by) / 8 + 64) ++block, ++warps_per_bx[bx];
  for (std::uint64_t tx = 0; tx < 8; ++tx)
    for (std::uint64_t ty = 0; ty < 8; ++ty)
      for (std::uint64_t vec = 0; vec < 8; ++vec)
        if (v(tx) * v(ty) <= 64 && v(vec) <= v(tx) * 4) ++tile;
  for (std::uint64_t a = 0; a < 8; ++a)
    for (std::uint64_t b = 0; b < 8; ++b) {
      if (v(a) * v(b) <= 256) ++unroll;
      if (v(a) * v(b) <= 256) ++split;
    }
  const std::uint64_t expected = block * tile * unroll * split * 8 * 8 * 8 * 8;
  EXPECT_EQ(space.size(), expected);
  EXPECT_EQ(space.report().group_sizes.size(), 8u);

  const std::size_t bx = *problem.parameter_index("block_size_x");
  Rng rng(11);
  constexpr std::size_t n = 20000;
  const auto sample = space.random_sample(n, rng);
  std::vector<double> counts(8, 0);
  for (std::size_t i : sample) {
    ASSERT_LT(i, space.size());
    ASSERT_TRUE(space.is_valid(space.config_at(i)));
    ++counts[space.value_index(i, bx)];
  }
  double chi2 = 0;
  for (std::uint64_t x = 0; x < 8; ++x) {
    const double e = static_cast<double>(n) * static_cast<double>(warps_per_bx[x]) / static_cast<double>(block);
    chi2 += (counts[x] - e) * (counts[x] - e) / e;
  }
  EXPECT_LT(chi2, 24.3);  // 7 degrees of freedom, p = 0.001
}

}  // namespace
}  // namespace ktune
