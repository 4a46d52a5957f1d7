#include "strategies/local_search.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>

#include "ktune/strategy_toolkit.hpp"

namespace ktune::strategies {

HyperparameterSpec neighbour_spec(const char* default_name) {
  return {"neighbor", HyperparameterType::String, Value(std::string(default_name)), {}, {},
          {"strictly-adjacent", "adjacent", "Hamming", "Hamming-adjacent"},
          "neighbourhood of a configuration (Kernel Tuner's neighbour methods)"};
}

NeighbourMethod neighbour_method(const Hyperparameters& h) {
  // The spec's choices are all parseable names.
  return parse_neighbour_method(h.get_string("neighbor")).value_or(NeighbourMethod::Hamming);
}

LocalMoves::LocalMoves(const SearchSpace& space, CostFunction& cost, Rng& rng, NeighbourMethod method, bool aware)
    : space_(space), cost_(cost), rng_(rng), method_(method), aware_(aware) {}

double LocalMoves::evaluate(const Config& config) {
  if (aware_) {
    const auto index = space_.index_of(config);
    if (index) return cost_(*index);
    // Aware moves only produce valid configurations; should one slip through, it gets the penalty, unevaluated.
  }
  return cost_(std::span<const std::uint32_t>(config));
}

bool LocalMoves::known(const Config& config) const {
  const auto index = space_.index_of(config);
  return !index || cost_.known(*index);
}

std::optional<Config> LocalMoves::fresh_start() {
  const std::size_t n = space_.size();
  if (n == 0) return std::nullopt;
  if (aware_) {
    const auto index = starts_.next(space_, cost_, rng_);
    if (!index) return std::nullopt;  // every valid configuration has been evaluated
    return space_.config_at(*index);
  }
  // The first unevaluated index from a random offset on: known-ness only grows, so the cursor never rewinds and the
  // scan costs O(size) over the whole run (in practice it stops at once until nearly everything is evaluated).
  if (scanned_ == 0 && !scan_started_) {
    scan_cursor_ = static_cast<std::size_t>(rng_.below(n));
    scan_started_ = true;
  }
  while (scanned_ < n && cost_.known((scan_cursor_ + scanned_) % n)) ++scanned_;
  if (scanned_ == n) return std::nullopt;  // every valid configuration has been evaluated
  const std::size_t unevaluated = (scan_cursor_ + scanned_) % n;
  // Unaware restarts may start anywhere in the Cartesian product, but one of them must evaluate something new
  // before the next may start at a penalised point again (or the run could loop on free requests).
  const bool progressed = cost_.evaluations() != evaluations_at_last_start_;
  evaluations_at_last_start_ = cost_.evaluations();
  for (int attempt = 0; attempt < 64; ++attempt) {
    auto c = random_cartesian_config(space_, rng_);
    const auto index = space_.index_of(c);
    if (index ? !cost_.known(*index) : progressed) return c;
  }
  return space_.config_at(unevaluated);
}

namespace {

// The Cartesian box neighbours (every parameter moved by -1, 0 or +1 within range, not all 0).
void box_neighbours(const SearchSpace& space, const Config& c, Rng& rng, std::vector<Config>& out) {
  const std::size_t d = c.size();
  std::vector<std::uint32_t> lo(d), hi(d);
  double total = 1;
  for (std::size_t p = 0; p < d; ++p) {
    const auto m = static_cast<std::uint32_t>(space.param_values(p).size());
    lo[p] = c[p] > 0 ? c[p] - 1 : c[p];
    hi[p] = std::min<std::uint32_t>(c[p] + 1, m - 1);
    total *= static_cast<double>(hi[p] - lo[p] + 1);
  }
  if (total - 1 <= static_cast<double>(LocalMoves::kMaxCartesian)) {
    Config x = lo;
    for (;;) {
      if (x != c) out.push_back(x);
      std::size_t p = d;
      while (p > 0) {
        --p;
        if (x[p] < hi[p]) {
          ++x[p];
          break;
        }
        x[p] = lo[p];
        if (p == 0) return;
      }
      if (d == 0) return;
    }
  }
  // Too many to list: a random sample of them (duplicates are free revisits).
  while (out.size() < LocalMoves::kMaxCartesian) {
    Config x = c;
    for (std::size_t p = 0; p < d; ++p) x[p] = lo[p] + static_cast<std::uint32_t>(rng.below(hi[p] - lo[p] + 1));
    if (x != c) out.push_back(std::move(x));
  }
}

void cartesian_hamming(const SearchSpace& space, const Config& c, bool adjacent_only, std::vector<Config>& out) {
  for (std::size_t p = 0; p < c.size(); ++p) {
    const auto m = static_cast<std::uint32_t>(space.param_values(p).size());
    for (std::uint32_t v = 0; v < m; ++v) {
      if (v == c[p]) continue;
      if (adjacent_only && v + 1 != c[p] && v != c[p] + 1) continue;
      Config x = c;
      x[p] = v;
      out.push_back(std::move(x));
    }
  }
}

}  // namespace

std::vector<Config> LocalMoves::neighbours(const Config& config) {
  std::vector<Config> out;
  if (aware_) {
    const auto found = space_.neighbours(std::span<const std::uint32_t>(config), method_);
    out.reserve(found.size());
    for (std::size_t i : found) out.push_back(space_.config_at(i));
    return out;
  }
  switch (method_) {
    case NeighbourMethod::Hamming: cartesian_hamming(space_, config, false, out); break;
    case NeighbourMethod::HammingAdjacent: cartesian_hamming(space_, config, true, out); break;
    default: box_neighbours(space_, config, rng_, out); break;
  }
  return out;
}

std::optional<Config> LocalMoves::random_neighbour(const Config& config) {
  if (aware_) {
    const auto found = space_.neighbours(std::span<const std::uint32_t>(config), method_);
    if (found.empty()) return std::nullopt;
    return space_.config_at(found[static_cast<std::size_t>(rng_.below(found.size()))]);
  }
  if (method_ == NeighbourMethod::Hamming) return random_hamming_move(config);
  // Small Cartesian neighbourhoods: list them (cheap, at most kMaxCartesian).
  auto all = neighbours(config);
  if (all.empty()) return std::nullopt;
  return std::move(all[static_cast<std::size_t>(rng_.below(all.size()))]);
}

std::optional<Config> LocalMoves::random_hamming_move(const Config& config) {
  if (aware_) {
    const auto found = space_.neighbours(std::span<const std::uint32_t>(config), NeighbourMethod::Hamming);
    if (found.empty()) return std::nullopt;
    return space_.config_at(found[static_cast<std::size_t>(rng_.below(found.size()))]);
  }
  std::vector<std::size_t> movable;
  for (std::size_t p = 0; p < config.size(); ++p)
    if (space_.param_values(p).size() > 1) movable.push_back(p);
  if (movable.empty()) return std::nullopt;
  const std::size_t p = movable[static_cast<std::size_t>(rng_.below(movable.size()))];
  const auto m = static_cast<std::uint32_t>(space_.param_values(p).size());
  Config x = config;
  const auto v = static_cast<std::uint32_t>(rng_.below(m - 1));
  x[p] = v >= config[p] ? v + 1 : v;  // any value but the current one
  return x;
}

std::optional<Config> LocalMoves::admit(const Config& grid_point) {
  if (!aware_) return grid_point;
  const auto index = repair_by_index_distance(space_, grid_point, rng_);
  if (!index) return std::nullopt;
  return space_.config_at(*index);
}

namespace {

// The scan order of a neighbourhood: random, or grouped by the highest-priority parameter each candidate changes
// (so the scan sweeps the parameters in order). `changed(k, p)` says whether candidate k changes parameter p.
template <class Changed>
std::vector<std::size_t> scan_order(std::size_t count, std::size_t d, const std::vector<std::size_t>& rank,
                                    bool randomize, Changed changed, Rng& rng) {
  std::vector<std::size_t> order(count);
  for (std::size_t k = 0; k < count; ++k) order[k] = k;
  if (randomize) {
    shuffle(order, rng);
    return order;
  }
  std::vector<std::size_t> key(count, d);
  for (std::size_t k = 0; k < count; ++k)
    for (std::size_t p = 0; p < d; ++p)
      if (changed(k, p)) key[k] = std::min(key[k], rank[p]);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
  return order;
}

}  // namespace

Point hill_climb(LocalMoves& moves, Point start, const ClimbOptions& options, Rng& rng) {
  const SearchSpace& space = moves.space();
  const std::size_t d = space.num_params();
  std::vector<std::size_t> rank(d);
  for (std::size_t p = 0; p < d; ++p) rank[p] = p;
  if (!options.order.empty())
    for (std::size_t k = 0; k < options.order.size(); ++k) rank[options.order[k]] = k;
  Point current = std::move(start);
  if (moves.aware()) {
    // Hot path: valid neighbours by index, no configuration copies until a move.
    auto at = space.index_of(current.config);
    if (!at) return current;
    std::size_t here = *at;
    for (;;) {
      const auto candidates = space.neighbours(here, moves.method());
      const auto order = scan_order(
          candidates.size(), d, rank, options.randomize,
          [&](std::size_t k, std::size_t p) { return space.value_index(candidates[k], p) != current.config[p]; }, rng);
      std::optional<std::size_t> next;
      double next_cost = current.cost;
      for (std::size_t k : order) {
        const double c = moves.cost()(candidates[k]);
        if (c < next_cost) {
          next = candidates[k];
          next_cost = c;
          if (options.first_improvement) break;
        }
      }
      if (!next) return current;  // a local optimum
      here = *next;
      current = {space.config_at(here), next_cost};
    }
  }
  for (;;) {
    auto candidates = moves.neighbours(current.config);
    const auto order = scan_order(
        candidates.size(), d, rank, options.randomize,
        [&](std::size_t k, std::size_t p) { return candidates[k][p] != current.config[p]; }, rng);
    std::optional<Point> next;
    for (std::size_t k : order) {
      const double c = moves.evaluate(candidates[k]);
      if (c < (next ? next->cost : current.cost)) {
        next = Point{std::move(candidates[k]), c};
        if (options.first_improvement) break;
      }
    }
    if (!next) return current;  // a local optimum
    current = std::move(*next);
  }
}

std::vector<std::size_t> LocalMoves::latin_hypercube(std::size_t n) {
  if (!aware_) return {};
  return latin_hypercube_plan(space_, n, rng_);
}

std::optional<Config> LocalMoves::planned_start(std::size_t planned) {
  const auto index = starts_.next_unless_known(planned, space_, cost_, rng_);  // (a plan exists only when aware)
  if (!index) return std::nullopt;
  return space_.config_at(*index);
}

std::optional<Point> best_of_fresh_starts(LocalMoves& moves, std::size_t n, bool lhs) {
  const std::vector<std::size_t> plan = lhs ? moves.latin_hypercube(n) : std::vector<std::size_t>{};
  std::optional<Point> best;
  for (std::size_t i = 0; i < n; ++i) {
    auto config = i < plan.size() ? moves.planned_start(plan[i]) : moves.fresh_start();
    if (!config) break;
    Point p = moves.point(std::move(*config));
    if (!best || p.cost < best->cost) best = std::move(p);
  }
  return best;
}

void multi_start_local_search(LocalMoves& moves, const ClimbOptions& options, Rng& rng, std::size_t start_sample,
                              bool lhs) {
  // Kernel Tuner discards each climb's result and stops it after one improvement; here every climb runs to its
  // local optimum, and the cost function keeps the best.
  const std::size_t n = population_size(start_sample, moves.space().size(), 1);
  while (auto start = best_of_fresh_starts(moves, n, lhs)) hill_climb(moves, std::move(*start), options, rng);
}

std::vector<std::size_t> parse_parameter_order(const SearchSpace& space, const std::string& text,
                                               const char* strategy) {
  const std::size_t d = space.num_params();
  std::vector<std::size_t> order;
  std::vector<bool> used(d, false);
  std::size_t begin = 0;
  while (begin <= text.size() && !text.empty()) {
    std::size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(begin, end - begin);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    std::optional<std::size_t> p;
    for (std::size_t q = 0; q < d && !p; ++q)
      if (space.param_name(q) == item) p = q;
    if (!p) {
      std::size_t number = 0;
      const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), number);
      if (ec == std::errc() && ptr == item.data() + item.size() && number < d) p = number;
    }
    if (!p || used[*p])
      throw HyperparameterError(fmt::format("strategy '{}': order entry '{}' is not a{} parameter name or position",
                                            strategy, item, p ? " new" : ""));
    used[*p] = true;
    order.push_back(*p);
    begin = end + 1;
  }
  for (std::size_t p = 0; p < d; ++p)
    if (!used[p]) order.push_back(p);
  return order;
}

}  // namespace ktune::strategies
