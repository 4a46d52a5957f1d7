#pragma once
// The valid configurations of a space in uniformly random order, without replacement, drawn one at a time (a lazy
// Fisher-Yates shuffle). random_sample is this stream, and every strategy's uniform opening (its start sample, its
// fresh restarts) draws from one. The stream takes its own generator from the strategy's at construction, so a
// strategy that builds it before drawing anything else evaluates, with the same seed, random_sample's first
// configurations: `ktune compare` gives every strategy the same seed per repeat (common random numbers), and the
// difference between an opening and random search is then the search's, not two independent samples'.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/tuning/cost_function.hpp"

namespace ktune {

class UniformSampleStream {
 public:
  // Takes one draw of `rng` (its split): whatever else the strategy draws later leaves this stream unchanged.
  UniformSampleStream(std::size_t space_size, Rng& rng);

  // The next index of the shuffle; std::nullopt once all space_size have been drawn.
  std::optional<std::size_t> next();
  // The next index the cost function does not know yet (drawn ones it knows are skipped for good).
  std::optional<std::size_t> next_unevaluated(const CostFunction& cost);
  std::size_t drawn() const { return drawn_; }
  bool done() const { return drawn_ == size_; }

 private:
  std::size_t at(std::size_t position) const;
  // Both layouts give the same sequence; the sparse one costs memory per draw, not per configuration, so a
  // strategy that draws a start sample of 20 from a space of millions does not allocate the whole permutation.
  static constexpr std::size_t kDenseLimit = std::size_t{1} << 20;
  Rng rng_;
  std::size_t size_, drawn_ = 0;
  std::vector<std::uint32_t> dense_;                     // the shuffled positions, up to kDenseLimit
  std::unordered_map<std::size_t, std::size_t> sparse_;  // displaced positions only, above it
};

}  // namespace ktune
