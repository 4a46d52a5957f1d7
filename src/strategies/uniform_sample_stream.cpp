// A lazy Fisher-Yates shuffle: one draw per configuration asked for, so sampling stops as soon as the budget does.
#include "ktune/uniform_sample_stream.hpp"

namespace ktune {

UniformSampleStream::UniformSampleStream(std::size_t space_size, Rng& rng) : rng_(rng.split()), size_(space_size) {
  if (size_ <= kDenseLimit) {
    dense_.resize(size_);
    for (std::size_t i = 0; i < size_; ++i) dense_[i] = static_cast<std::uint32_t>(i);
  }
}

std::size_t UniformSampleStream::at(std::size_t position) const {
  const auto it = sparse_.find(position);
  return it == sparse_.end() ? position : it->second;
}

std::optional<std::size_t> UniformSampleStream::next() {
  if (drawn_ == size_) return std::nullopt;
  const std::size_t j = drawn_ + static_cast<std::size_t>(rng_.below(size_ - drawn_));
  std::size_t picked;
  if (!dense_.empty()) {
    picked = dense_[j];
    dense_[j] = dense_[drawn_];
  } else {
    picked = at(j);
    sparse_[j] = at(drawn_);
    sparse_.erase(drawn_);  // never read again: the map holds the displaced positions ahead only
  }
  ++drawn_;
  return picked;
}

std::optional<std::size_t> UniformSampleStream::next_unevaluated(const CostFunction& cost) {
  while (auto index = next())
    if (!cost.known(*index)) return index;
  return std::nullopt;
}

}  // namespace ktune
