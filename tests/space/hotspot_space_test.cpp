// A real-world space: Kernel Tuner's 'full searchspace' test (Hotspot, 11 parameters, 349853 of 22.2M valid),
// built with C++ predicates. Checks size, memory per configuration, neighbours against brute force on a few
// queries, and the speed of uncached neighbour queries (loosely asserted only in optimised, unsanitised builds).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "space_reference.hpp"

namespace ktune {
namespace {

std::vector<Value> ints(std::initializer_list<std::int64_t> v) { return std::vector<Value>(v.begin(), v.end()); }
std::vector<Value> range(std::int64_t from, std::int64_t to) {
  std::vector<Value> out;
  for (std::int64_t i = from; i <= to; ++i) out.emplace_back(i);
  return out;
}

const SearchSpace& hotspot() {
  static const SearchSpace space = [] {
    Problem problem;
    problem.name = "hotspot";
    std::vector<Value> bx = ints({1, 2, 4, 8, 16});
    for (std::int64_t i = 1; i <= 32; ++i) bx.emplace_back(32 * i);
    problem.parameters = {{"grid_width", ints({4096})},      {"grid_height", ints({4096})},
                          {"block_size_x", bx},              {"block_size_y", ints({1, 2, 4, 8, 16, 32})},
                          {"tile_size_x", range(1, 10)},     {"tile_size_y", range(1, 10)},
                          {"temporal_tiling_factor", range(1, 10)}, {"max_tfactor", ints({10})},
                          {"loop_unroll_factor_t", range(1, 10)},   {"sh_power", ints({0, 1})},
                          {"blocks_per_sm", range(0, 4)}};
    auto val = [&](std::size_t p, std::uint32_t j) { return problem.parameters[p].values[j].as_int(); };
    std::vector<Config> configs;
    Config c(11, 0);
    // Nested loops with the restrictions checked as soon as their parameters are fixed.
    for (c[2] = 0; c[2] < 37; ++c[2])
      for (c[3] = 0; c[3] < 6; ++c[3]) {
        const std::int64_t bxy = val(2, c[2]) * val(3, c[3]);
        if (bxy < 32 || bxy > 1024) continue;
        for (c[4] = 0; c[4] < 10; ++c[4])
          for (c[5] = 0; c[5] < 10; ++c[5])
            for (c[6] = 0; c[6] < 10; ++c[6])
              for (c[8] = 0; c[8] < 10; ++c[8]) {
                const std::int64_t ttf = val(6, c[6]);
                if (ttf % val(8, c[8]) != 0) continue;
                for (c[9] = 0; c[9] < 2; ++c[9]) {
                  const std::int64_t smem = (val(2, c[2]) * val(4, c[4]) + ttf * 2) *
                                            (val(3, c[3]) * val(5, c[5]) + ttf * 2) * (2 + val(9, c[9])) * 4;
                  if (smem > 49152) continue;
                  for (c[10] = 0; c[10] < 5; ++c[10]) {
                    const std::int64_t bps = val(10, c[10]);
                    if (bps == 0 || smem * bps <= 102400) configs.push_back(c);
                  }
                }
              }
      }
    return SearchSpace::from_configs(problem, configs);
  }();
  return space;
}

TEST(HotspotSpace, SizeMemoryAndLookups) {
  const SearchSpace& s = hotspot();
  ASSERT_EQ(s.size(), 349853u);
  const double per_config = static_cast<double>(s.memory_bytes()) / static_cast<double>(s.size());
  std::printf("[ info ] hotspot: %.1f bytes per configuration\n", per_config);
  EXPECT_LE(per_config, 32.0);
  Rng rng(1);
  for (int k = 0; k < 2000; ++k) {
    const std::size_t i = rng.below(s.size());
    ASSERT_EQ(s.index_of(s.config_at(i)), i);
  }
  EXPECT_EQ(s.tunable_params(), (std::vector<std::size_t>{2, 3, 4, 5, 6, 8, 9, 10}));
}

TEST(HotspotSpace, NeighboursMatchBruteForceOnSomeQueries) {
  const SearchSpace& s = hotspot();
  Rng rng(2);
  for (int k = 0; k < 3; ++k) {
    Config q = s.config_at(rng.below(s.size()));
    if (k == 2) {  // likely invalid
      q[4] = 9;
      q[2] = 36;
    }
    for (auto m : {NeighbourMethod::StrictlyAdjacent, NeighbourMethod::Adjacent, NeighbourMethod::Hamming,
                   NeighbourMethod::HammingAdjacent, NeighbourMethod::ClosestParamIndices})
      EXPECT_EQ(s.neighbours_uncached(q, m), testing::reference_neighbours(s, q, m)) << to_string(m);
  }
}

double median_micros(const SearchSpace& s, NeighbourMethod m, std::size_t& total) {
  Rng rng(3);
  std::vector<double> times;
  for (int k = 0; k < 2001; ++k) {
    const Config q = s.config_at(rng.below(s.size()));
    const auto start = std::chrono::steady_clock::now();
    const auto result = s.neighbours_uncached(q, m);
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    total += result.size();
  }
  std::nth_element(times.begin(), times.begin() + 1000, times.end());
  return times[1000];
}

TEST(HotspotSpace, UncachedQueriesAreFast) {
  // Typical medians (Release, idle machine): Hamming ~3-5 us (28 neighbours), adjacent ~8-15 us (741 neighbours).
  // Timing in a shared CI machine is noisy, so the assertion only catches a fall back to scanning all 350k
  // configurations (>= ~1 ms); see the printed medians for the real numbers.
  const SearchSpace& s = hotspot();
  for (auto m : {NeighbourMethod::Hamming, NeighbourMethod::Adjacent, NeighbourMethod::StrictlyAdjacent,
                 NeighbourMethod::HammingAdjacent, NeighbourMethod::ClosestParamIndices}) {
    std::size_t total = 0;
    const double median = median_micros(s, m, total);
    std::printf("[ info ] %-22s median %7.2f us, mean %.1f neighbours\n", to_string(m), median, total / 2001.0);
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
    EXPECT_LT(median, 250.0) << to_string(m);
#endif
  }
}

}  // namespace
}  // namespace ktune
