#pragma once
// What many strategies share, ktune's and plug-ins' (ktune/plugin.hpp) alike: the constraint_aware switch, repairing
// invalid candidates (the constraint-aware paper's Algorithms 1-3), fresh (unevaluated) configurations, candidates
// from the Cartesian product for constraint-unaware runs, and population sizes. Neighbours and sampling are
// SearchSpace's own (search_space.hpp).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/hyperparameters.hpp"

namespace ktune::strategies {

// The `constraint_aware` hyperparameter every population- and neighbour-based strategy declares (default true).
HyperparameterSpec constraint_aware_spec();
// The `variant` hyperparameter of the strategies the constraint-aware paper describes: "ktune" (default) or "paper",
// the algorithm as the paper publishes it; `paper` says what that changes for this strategy.
HyperparameterSpec variant_spec(const std::string& paper);
// The `start_sample` hyperparameter (default `default_size`): uniform random configurations evaluated before a
// search starts from the best of them. A robust opening: whatever the budget, the first evaluations are as good as
// random search's, and a climb or walk starts from a good region rather than an arbitrary one.
HyperparameterSpec start_sample_spec(std::int64_t default_size = 20);
// "sampling": how that start sample is drawn, "random" (uniform, unevaluated) or "lhs" (a Latin hypercube of the
// valid space, as the GA's and bayes_opt's first populations).
HyperparameterSpec opening_sampling_spec(const std::string& default_method);
// Whether that setting asks for the Latin hypercube.
bool latin_hypercube_opening(const Hyperparameters& h);

// Algorithm 1 (DE): the valid configuration nearest to `config` in index distance (sum of |value index
// differences|); ties broken at random. `config` itself if it is valid. std::nullopt only for an empty space.
std::optional<std::size_t> repair_by_index_distance(const SearchSpace& space, std::span<const std::uint32_t> config,
                                                    Rng& rng);

// Algorithms 2-3 (PSO, Firefly, GA): the neighbours of an invalid `config` by the first non-empty method of
// strictly-adjacent, adjacent, Hamming; of those, the one closest in Euclidean distance to `target` in the
// continuous view (`target` empty: to `config` itself); ties at random. `config` itself if valid; std::nullopt if
// no method finds a neighbour.
std::optional<std::size_t> repair_by_neighbours(const SearchSpace& space, std::span<const std::uint32_t> config,
                                                std::span<const double> target, Rng& rng);
// The candidates closest to `target` (one coordinate per parameter) in the continuous view, where configuration i's
// coordinate of parameter p is value_index(i, p) times epsilon: their positions in `candidates`, in order, into
// `ties` (cleared first).
void closest_candidates(const SearchSpace& space, std::span<const std::size_t> candidates,
                        std::span<const double> target, std::vector<std::size_t>& ties);

// A uniformly random point of the Cartesian product (value indices; valid or not): the classic, constraint-unaware
// initialisation.
std::vector<std::uint32_t> random_cartesian_config(const SearchSpace& space, Rng& rng);

// A uniformly random valid configuration's value indices.
std::vector<std::uint32_t> random_valid_config(const SearchSpace& space, Rng& rng);

// A valid configuration not evaluated yet: `tries` uniform draws, then a walk from a random place to the next
// unevaluated one (when nearly all are known); that random place if every configuration is known. Restarts and
// fresh population members use it, so that they explore.
std::size_t fresh_valid_index(const SearchSpace& space, const CostFunction& cost, Rng& rng, int tries = 32);

// The constraint-unaware counterpart: a uniformly random point of the Cartesian product, redrawn up to `tries` times
// while it is a valid configuration evaluated already (an invalid one is kept: the strategy's penalty handles it).
std::vector<std::uint32_t> fresh_cartesian_config(const SearchSpace& space, const CostFunction& cost, Rng& rng,
                                                  int tries);

// The population (or initial sample) a strategy uses on a space of `space_size` valid configurations: `requested`, but
// no more than one member per kSpacePerMember configurations (and never fewer than `minimum` for that reason).
// On a small space a population sized for GPU spaces is mostly a random sample that eats the budget: as
// meta-strategies on Kernel Tuner's hyperparameter spaces (81-243 settings), populations of 8-30 scored -0.07..0.02,
// capped 0.06..0.29.
// Chosen on our own hyperparameter-score caches (docs/hyperparameters, 72-648 settings), confirmed on Kernel Tuner's
// (docs/hyperparameters.md); spaces of more than ~1000 configurations keep the requested size.
inline constexpr std::size_t kSpacePerMember = 32;
std::size_t population_size(std::size_t requested, std::size_t space_size, std::size_t minimum);

// Whether the run already has evaluations of its own (resumed results are not): the strategy starting on it takes
// over from another (auto's second stage).
inline bool taking_over(const CostFunction& cost) { return cost.evaluations() > 0; }

// The `n` best configurations this run has evaluated (finite cost, ascending cost; ties in evaluation order), as
// indices. A strategy that takes over a run starts from them instead of a fresh sample: they are known, so they cost
// nothing, and they are the best the budget has found.
std::vector<std::size_t> best_evaluated(const CostFunction& cost, std::size_t n);

// Recombinations of two parents of equal length into two children (Kernel Tuner's GA and pymoo's operators):
//   single point  one cut in 1..d-1, the tails swapped;
//   two point     two distinct cuts in 1..d-1, the genes between them swapped (with two genes, the second);
//   uniform       every gene swapped with probability 1/2 (the children are complements).
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> single_point_crossover(
    const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, Rng& rng);
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> two_point_crossover(
    const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, Rng& rng);
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> uniform_crossover(
    const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b, Rng& rng);

// Uniform double in [lo, hi).
inline double uniform(Rng& rng, double lo, double hi) { return lo + (hi - lo) * rng.uniform01(); }

}  // namespace ktune::strategies
