#pragma once
// Uniformly random valid configurations that have no result yet, for openings and restarts that should explore: the
// unevaluated draws of a uniform sample stream, taken from rng at the first call (an opening drawn first is
// random_sample's first draws), then, should the stream run dry while some drawn configurations were never
// evaluated, an explicit list of what is left (built once).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/uniform_sample_stream.hpp"
#include "strategies/spread_order.hpp"

namespace ktune::strategies {

class UnevaluatedSampler {
 public:
  // std::nullopt when every configuration has been evaluated.
  std::optional<std::size_t> next(const SearchSpace& space, const CostFunction& cost, Rng& rng);
  // `planned` (a point of latin_hypercube_plan) while it has no result, else next().
  std::optional<std::size_t> next_unless_known(std::size_t planned, const SearchSpace& space, const CostFunction& cost,
                                               Rng& rng) {
    if (!cost.known(planned)) return planned;
    return next(space, cost, rng);
  }

 private:
  std::optional<UniformSampleStream> stream_;
  bool listed_ = false;
  std::vector<std::uint32_t> remaining_;
};

// The points of an opening drawn as a Latin hypercube (sampling=lhs): n distinct valid configurations, every one of
// a smaller space, none of an empty one, spread first (spread_order.hpp). Each is taken while it has no result
// (next_unless_known).
inline std::vector<std::size_t> latin_hypercube_plan(const SearchSpace& space, std::size_t n, Rng& rng) {
  if (space.size() == 0) return {};
  return spread_first(space, space.lhs_sample(std::min(n, space.size()), rng));
}

}  // namespace ktune::strategies
