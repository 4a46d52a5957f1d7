#include "strategies/pyatf_technique.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace ktune::strategies {

std::vector<double> clamp_coordinates_capped(std::vector<double> x) {
  for (double& c : x) c = std::max(std::numeric_limits<double>::denorm_min(), std::min(1.0, c));
  return x;
}

namespace {

std::vector<std::size_t> identity(std::size_t n) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), std::size_t{0});
  return v;
}

}  // namespace

CoordinateMap::CoordinateMap(const SearchSpace& space) : CoordinateMap(space, identity(space.num_params())) {}

CoordinateMap::CoordinateMap(const SearchSpace& space, std::vector<std::size_t> layers)
    : space_(space), layers_(std::move(layers)) {
  if (space.is_lazy()) {
    // One map per group, its layers its parameters in the order of this map's layers.
    std::vector<std::size_t> rank(space.num_params());
    for (std::size_t k = 0; k < layers_.size(); ++k) rank[layers_[k]] = k;
    for (std::size_t c = 0; c < space.group_count(); ++c) {
      const auto& params = space.group_params(c);
      std::vector<std::size_t> group_layers = identity(params.size());
      std::sort(group_layers.begin(), group_layers.end(),
                [&](std::size_t a, std::size_t b) { return rank[params[a]] < rank[params[b]]; });
      groups_.push_back(std::make_unique<CoordinateMap>(space.group(c), std::move(group_layers)));
    }
    return;
  }
  if (space.lex_order() == layers_) return;
  // The space is sorted under another parameter order: sort its positions under the layers' order once.
  order_.resize(space.size());
  std::iota(order_.begin(), order_.end(), std::uint32_t{0});
  std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
    for (std::size_t p : layers_) {
      const std::uint32_t va = space.value_index(a, p), vb = space.value_index(b, p);
      if (va != vb) return va < vb;
    }
    return false;
  });
}

std::uint32_t CoordinateMap::value(std::size_t position, std::size_t layer) const {
  return space_.value_index(order_.empty() ? position : order_[position], layers_[layer]);
}

std::size_t CoordinateMap::index(std::span<const double> coordinates) const {
  if (coordinates.size() != space_.num_params() || space_.size() == 0)
    throw std::logic_error("CoordinateMap::index: one coordinate per parameter of a non-empty space");
  if (!groups_.empty()) {
    std::size_t index = 0;
    std::vector<double> by_param(coordinates.size());
    for (std::size_t k = 0; k < layers_.size(); ++k) by_param[layers_[k]] = coordinates[k];
    for (std::size_t c = 0; c < groups_.size(); ++c) {
      const CoordinateMap& group = *groups_[c];
      std::vector<double> part;
      for (std::size_t j : group.layers_) part.push_back(by_param[space_.group_params(c)[j]]);
      index += group.index(part) * space_.group_stride(c);
    }
    return index;
  }
  // [lo, hi): the configurations below the current node (they share the values of the layers before k).
  std::size_t lo = 0, hi = space_.size();
  for (std::size_t k = 0; k < coordinates.size(); ++k) {
    const std::size_t n = hi - lo;
    // pyATF takes the child with left < coordinate x n <= left + its count: the one holding position ceil(t) - 1.
    const double t = coordinates[k] * static_cast<double>(n);
    const double position = std::ceil(t) - 1;
    const std::size_t j = position <= 0 ? 0 : std::min(n - 1, static_cast<std::size_t>(position));
    const std::uint32_t v = value(lo + j, k);
    // The child's run of value v around lo + j (layer k's values ascend within [lo, hi)).
    std::size_t a = lo, b = lo + j;  // first position with value v lies in [a, b]
    while (a < b) {
      const std::size_t m = a + (b - a) / 2;
      if (value(m, k) < v) a = m + 1; else b = m;
    }
    std::size_t c = lo + j + 1, e = hi;  // first position with a larger value lies in [c, e]
    while (c < e) {
      const std::size_t m = c + (e - c) / 2;
      if (value(m, k) <= v) c = m + 1; else e = m;
    }
    lo = a;
    hi = c;
  }
  return order_.empty() ? lo : order_[lo];
}

void run_pyatf_technique(const SearchSpace& space, CostFunction& cost, PyatfTechnique& technique) {
  if (space.size() == 0) return;
  const CoordinateMap map(space);
  technique.initialize(space.num_params());
  for (;;) {
    const std::vector<double> coordinates = technique.next();
    technique.report(coordinates, cost(map.index(coordinates)));  // BudgetExhausted ends the run
  }
}

}  // namespace ktune::strategies
