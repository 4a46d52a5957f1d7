#pragma once
// The one random generator of ktune: xoshiro256** seeded by splitmix64. Fully specified here (unlike the
// standard distributions), so the same seed gives the same stream on every compiler, platform and thread count.
#include <cstdint>

namespace ktune {

class Rng {
 public:
  using result_type = std::uint64_t;
  explicit Rng(std::uint64_t seed = 0x6b74756e65ULL);
  std::uint64_t next();
  result_type operator()() { return next(); }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  // Uniform integer in [0, n), n > 0 (Lemire's unbiased multiply-shift).
  std::uint64_t below(std::uint64_t n);
  // Uniform double in [0, 1) with 53 random bits.
  double uniform01();
  // An independent generator derived from this one (for per-thread or per-run streams).
  Rng split();

 private:
  std::uint64_t s_[4];
};

}  // namespace ktune
