#pragma once
// What the local-search family shares: one view of "where can I go from here" that works constraint-aware (only
// valid configurations, evaluated by index) and constraint-unaware (the Cartesian product, invalid points costing
// the static penalty), fresh restart points that avoid evaluated configurations, and the hill climber.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/hyperparameters.hpp"
#include "strategies/unevaluated_sampler.hpp"

namespace ktune::strategies {

// The `neighbor` hyperparameter: strictly-adjacent, adjacent, Hamming, Hamming-adjacent.
HyperparameterSpec neighbour_spec(const char* default_name);
NeighbourMethod neighbour_method(const Hyperparameters& h);

struct Point {
  Config config;
  double cost = 0;
};

class LocalMoves {
 public:
  LocalMoves(const SearchSpace& space, CostFunction& cost, Rng& rng, NeighbourMethod method, bool aware);

  const SearchSpace& space() const { return space_; }
  bool aware() const { return aware_; }
  NeighbourMethod method() const { return method_; }
  CostFunction& cost() { return cost_; }
  // Cost of a configuration: by index when aware (it must be valid), through the penalty when unaware.
  double evaluate(const Config& config);
  Point point(Config config) {
    const double c = evaluate(config);
    return {std::move(config), c};
  }
  // Whether evaluating `config` would be free (known, or invalid in unaware mode).
  bool known(const Config& config) const;

  // A restart point: aware, an unevaluated configuration from the UnevaluatedSampler (nullopt when every one is
  // evaluated), so that a start sample is random_sample's first draws; unaware, a random Cartesian point, preferring
  // one that is invalid or not evaluated.
  std::optional<Config> fresh_start();
  // A Latin hypercube of n valid configurations (aware only; empty when unaware), and a start from it: `planned`
  // while it has no result, else fresh_start().
  std::vector<std::size_t> latin_hypercube(std::size_t n);
  std::optional<Config> planned_start(std::size_t planned);
  // The neighbours of `config` under the method: valid ones when aware, Cartesian ones (capped at kMaxCartesian
  // random box points for the adjacent methods in many dimensions) when unaware.
  std::vector<Config> neighbours(const Config& config);
  // One random neighbour (nullopt if there is none).
  std::optional<Config> random_neighbour(const Config& config);
  // A random Hamming move (one parameter to another value), valid when aware; nullopt if none exists.
  std::optional<Config> random_hamming_move(const Config& config);
  // A valid configuration for an arbitrary grid point when aware (nearest by index distance), the point itself when
  // unaware. nullopt only for an empty space.
  std::optional<Config> admit(const Config& grid_point);

  static constexpr std::size_t kMaxCartesian = 2048;

 private:
  const SearchSpace& space_;
  CostFunction& cost_;
  Rng& rng_;
  NeighbourMethod method_;
  bool aware_;
  UnevaluatedSampler starts_;    // aware restart points
  std::size_t scan_cursor_ = 0;  // unaware: known-ness only grows, so the scan for unevaluated indices never rewinds
  std::size_t scanned_ = 0;
  bool scan_started_ = false;
  std::uint64_t evaluations_at_last_start_ = ~std::uint64_t{0};
};

// Hill climbing to a local optimum. First improvement (move to the first better neighbour and rescan from there) or
// best improvement (evaluate the whole neighbourhood, move to the best). Neighbours are scanned in random order, or
// grouped by the changed parameter in a fixed parameter order.
struct ClimbOptions {
  bool first_improvement = true;
  bool randomize = true;
  std::vector<std::size_t> order;  // parameter priority when !randomize; empty: declared order
};
Point hill_climb(LocalMoves& moves, Point start, const ClimbOptions& options, Rng& rng);

// Multi-start local search: climb from fresh starts until the budget ends (or every configuration is evaluated).
// The best of `n` fresh starts (fewer when the space runs out; nullopt when none is left).
// With `lhs` (aware only), the n starts are a Latin hypercube of the valid space, its known points replaced by fresh
// starts.
std::optional<Point> best_of_fresh_starts(LocalMoves& moves, std::size_t n, bool lhs = false);
// Climbs until the budget ends, each from the best of a uniform sample of `start_sample` fresh starts (capped for
// small spaces as populations are: population_size).
void multi_start_local_search(LocalMoves& moves, const ClimbOptions& options, Rng& rng, std::size_t start_sample,
                              bool lhs = false);

// Parses a comma-separated list of parameter names or positions into a permutation prefix (unlisted parameters
// follow in declared order). Throws HyperparameterError naming the bad entry.
std::vector<std::size_t> parse_parameter_order(const SearchSpace& space, const std::string& text,
                                               const char* strategy);

// Fisher-Yates with ktune's generator.
template <class T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.below(i));
    std::swap(v[i - 1], v[j]);
  }
}

}  // namespace ktune::strategies
