#include "ktune/multiobjective/trace_front.hpp"

#include <algorithm>
#include <cmath>

#include "ktune/multiobjective/pareto.hpp"

namespace ktune {

std::vector<std::size_t> pareto_front_positions(const Trace& trace) {
  const std::size_t m = trace.objectives().size();
  std::vector<double> costs;
  std::vector<std::size_t> positions;
  for (std::size_t p = 0; p < trace.size(); ++p) {
    const auto c = objective_costs(trace, p);
    if (!std::all_of(c.begin(), c.end(), [](double v) { return std::isfinite(v); })) continue;
    costs.insert(costs.end(), c.begin(), c.end());
    positions.push_back(p);
  }
  std::vector<std::size_t> front;
  for (std::size_t i : pareto_front(costs, m)) front.push_back(i);
  std::sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
    return costs[a * m] != costs[b * m] ? costs[a * m] < costs[b * m] : a < b;
  });
  for (std::size_t& i : front) i = positions[i];
  return front;
}

}  // namespace ktune
