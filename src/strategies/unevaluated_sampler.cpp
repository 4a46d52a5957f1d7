#include "strategies/unevaluated_sampler.hpp"

namespace ktune::strategies {

std::optional<std::size_t> UnevaluatedSampler::next(const SearchSpace& space, const CostFunction& cost, Rng& rng) {
  const std::size_t n = space.size();
  if (n == 0) return std::nullopt;
  if (!listed_) {
    if (!stream_) stream_.emplace(n, rng);
    if (const auto i = stream_->next_unevaluated(cost)) return i;
    // Every configuration has been drawn (some perhaps not evaluated after all): list what is left once.
    listed_ = true;
    for (std::size_t i = 0; i < n; ++i)
      if (!cost.known(i)) remaining_.push_back(static_cast<std::uint32_t>(i));
  }
  while (!remaining_.empty()) {
    const auto j = static_cast<std::size_t>(rng.below(remaining_.size()));
    const std::size_t i = remaining_[j];
    if (!cost.known(i)) return i;
    remaining_[j] = remaining_.back();
    remaining_.pop_back();
  }
  return std::nullopt;
}

}  // namespace ktune::strategies
