#pragma once
// SearchSpace: the only view strategies get of a problem. In its materialised form it holds every valid configuration
// as compact value indices and answers validity, lookup, sampling and neighbour queries from index structures (a hash
// index, a prefix trie, value lookups and a neighbour cache, kept behind a pointer: src/space/search_space_index.hpp).
// In its lazy form (a space whose parameters split into independent groups) it holds only each group's valid
// configurations and answers every query from the groups (src/space/product_space.hpp): the space is their product,
// indexed in the same order as the materialised form, so both forms give the same indices, samples and neighbours.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ktune/index_matrix.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"

namespace ktune {

// A configuration as one value index per parameter, in problem order.
using Config = std::vector<std::uint32_t>;

enum class NeighbourMethod { StrictlyAdjacent, Adjacent, Hamming, HammingAdjacent, ClosestParamIndices };
// Kernel Tuner's names: "strictly-adjacent", "adjacent", "Hamming", "Hamming-adjacent", "closest-param-indices".
std::optional<NeighbourMethod> parse_neighbour_method(std::string_view name);
const char* to_string(NeighbourMethod method);

// How the valid configurations are held. materialised: listed (at most 2^32-2 of them). lazy: kept as independent
// groups whose product is never listed (any size below 2^63; a space of one group is materialised all the same).
// automatic: lazy above kLazyAbove valid configurations.
enum class SpaceForm { automatic, materialised, lazy };
std::optional<SpaceForm> parse_space_form(std::string_view name);  // "auto", "materialised" / "materialized", "lazy"
const char* to_string(SpaceForm form);

struct BuildOptions {
  unsigned threads = 2;  // construction may split the work over this many threads (0: all cores); the result does not depend on it
  SpaceForm form = SpaceForm::automatic;
  // Above this many valid configurations the automatic form is lazy: listing them costs tens of bytes each and
  // seconds to build, while the lazy form's queries cost a division per group.
  static constexpr std::uint64_t kLazyAbove = std::uint64_t{1} << 24;
};

// What construction did, for reporting (`ktune space`).
struct ConstructionReport {
  double seconds = 0;
  std::uint64_t cartesian_size = 0;
  std::string implicit_constraint;           // empty if none was added
  std::vector<std::string> constraints;      // the smallest constraints after splitting, as solved
  std::vector<std::string> constraint_kinds; // per entry of `constraints`: "unary", "max-product", "table", ...
  std::vector<std::size_t> order;            // the solver's parameter order = the lexicographic order of configs
  std::size_t independent_groups = 0;
  bool lazy = false;                      // held as the product of its groups (SpaceForm)
  std::vector<std::size_t> group_sizes;   // lazy: valid configurations per group, in index order (slowest first)
  // Constraint evaluations that raised (division by zero, ...) and so made configurations invalid. Counted per
  // evaluation of a constraint on an assignment of its own parameters, not per full configuration: one raising
  // assignment of (a, b) invalidates every configuration that contains it.
  std::uint64_t evaluation_errors = 0;
  std::vector<std::string> evaluation_error_messages;  // one example per constraint that raised
  // Checks of one constraint on one (partial) assignment during construction, full evaluations and bounds checks
  // (the construction paper's measure; brute force makes up to cartesian_size x constraints). The same for the same
  // problem and thread count.
  std::uint64_t constraint_evaluations = 0;
};

class SearchSpace {
 public:
  // Validates the problem, compiles its constraints and enumerates every valid configuration.
  // Throws ProblemError or expr::ExpressionError (naming the constraint) on bad input.
  static SearchSpace build(Problem problem, const BuildOptions& options = {});
  // A space from an explicit list of configurations (e.g. the entries of a cache file); duplicates are dropped.
  // Validates the problem (ProblemError) and throws std::invalid_argument naming the entry for a configuration of the
  // wrong length or with an out-of-range value index. The lexicographic order is the identity (parameter 0 slowest).
  static SearchSpace from_configs(Problem problem, const std::vector<Config>& configs);
  // Same, sorted under the given parameter order (a permutation of 0..d-1, order[0] varies slowest).
  static SearchSpace from_configs(Problem problem, const std::vector<Config>& configs, std::vector<std::size_t> order);

  SearchSpace(SearchSpace&&) noexcept;  // a moved-from space is empty-but-valid only for destruction/assignment
  SearchSpace& operator=(SearchSpace&&) noexcept;
  ~SearchSpace();

  const Problem& problem() const { return problem_; }
  const ConstructionReport& report() const { return report_; }
  std::size_t num_params() const { return problem_.parameters.size(); }
  std::size_t size() const { return size_; }
  // Held as the product of its independent groups, not listed (SpaceForm::lazy).
  bool is_lazy() const { return product_ != nullptr; }
  const std::string& param_name(std::size_t p) const { return problem_.parameters[p].name; }
  const std::vector<Value>& param_values(std::size_t p) const { return problem_.parameters[p].values; }

  // --- configurations, indices, values --------------------------------------------------------------------
  std::uint32_t value_index(std::size_t config, std::size_t param) const {
    return product_ ? lazy_value_index(config, param) : matrix_.get(config, param);
  }
  Config config_at(std::size_t index) const;
  // The listed configurations' value indices, row i for configuration i (nullptr when lazy): for loops over many
  // configurations that would otherwise call value_index per parameter.
  const IndexMatrix* listed() const { return product_ ? nullptr : &matrix_; }
  std::vector<Value> values_at(std::size_t index) const;
  std::vector<Value> values_of(const Config& config) const;
  // Value indices of a value tuple (Python equality: 1 == 1.0); nullopt if some value is not in its list.
  std::optional<Config> config_of(const std::vector<Value>& values) const;
  // Index of a configuration in O(1); nullopt if it is not a valid configuration (or has the wrong length or
  // an out-of-range value index). Never throws.
  std::optional<std::size_t> index_of(std::span<const std::uint32_t> config) const;
  bool is_valid(std::span<const std::uint32_t> config) const { return index_of(config).has_value(); }
  bool is_valid(const std::vector<Value>& values) const;
  // Parameter order under which the configurations are sorted lexicographically (order[0] varies slowest).
  const std::vector<std::size_t>& lex_order() const { return report_.order; }

  // --- the lazy form's independent groups (none when materialised) -----------------------------------------
  // Group c is a materialised space over this space's parameters group_params(c) (its parameter j is parameter
  // group_params(c)[j] here); configuration i is the combination of group c's rows (i / group_stride(c)) mod
  // group(c).size(). Lets a caller work group by group where a neighbourhood is a product too large to list.
  std::size_t group_count() const;
  const SearchSpace& group(std::size_t c) const;
  const std::vector<std::size_t>& group_params(std::size_t c) const;
  std::size_t group_stride(std::size_t c) const;

  // --- bounds ---------------------------------------------------------------------------------------------
  // Smallest / largest value index of parameter p over the valid configurations ("true bounds").
  std::uint32_t lower_bound(std::size_t p) const { return lower_[p]; }
  std::uint32_t upper_bound(std::size_t p) const { return upper_[p]; }
  // Ascending value indices of parameter p that occur in at least one valid configuration.
  const std::vector<std::uint32_t>& used_values(std::size_t p) const { return used_[p]; }
  // Parameters with more than one used value.
  std::vector<std::size_t> tunable_params() const;

  // --- sampling (all draw from the given generator; same seed, same sample) --------------------------------
  // n distinct valid configuration indices, uniformly; throws std::invalid_argument if n > size().
  std::vector<std::size_t> random_sample(std::size_t n, Rng& rng) const;
  // Latin-hypercube sample of n distinct valid configurations over the true index bounds: the stratum points that are
  // valid configurations are kept, and the invalid ones and duplicates are replaced by uniform random valid ones (not
  // snapped to the nearest valid configuration, which piles samples onto the boundary of the valid region).
  std::vector<std::size_t> lhs_sample(std::size_t n, Rng& rng) const;

  // --- neighbours (Kernel Tuner's definitions; the query may be invalid or outside the space) -----------------
  // Indices of the valid neighbours of `config`, ascending, excluding the config itself. Cached lazily (thread-safe).
  // With p = query value indices, q = a valid configuration:
  //   StrictlyAdjacent     max_i |q_i - p_i| <= 1.
  //   Adjacent             per parameter i, below_i / above_i = the nearest value index < p_i / > p_i used by any valid
  //                        configuration (unbounded if none); q qualifies if below_i <= q_i <= above_i for every i.
  //   Hamming              q differs from p in exactly one parameter.
  //   HammingAdjacent      Hamming neighbours q that differ in parameter i, where q_i is the nearest index above or
  //                        below p_i among the Hamming neighbours differing in i (at most two per parameter).
  //   ClosestParamIndices  every q != p minimising sum_i |q_i - p_i|; non-empty whenever some valid q != p exists.
  // A query may hold value indices >= the parameter's value count (even UINT32_MAX): the definitions above are applied
  // as written (such a p_i simply matches no q_i). A query of the wrong length has no neighbours (empty result).
  std::vector<std::size_t> neighbours(std::span<const std::uint32_t> config, NeighbourMethod method) const;
  // Same for a valid configuration given by index; throws std::out_of_range if index >= size().
  std::vector<std::size_t> neighbours(std::size_t index, NeighbourMethod method) const;
  // Of those, the ones that change parameter `param` (ascending): the options of a mutation of one gene. The Hamming
  // methods look up only that parameter's values (no cache, no other parameter); the others filter neighbours().
  // Throws std::out_of_range if param >= num_params().
  std::vector<std::size_t> neighbours_changing(std::span<const std::uint32_t> config, std::size_t param,
                                               NeighbourMethod method) const;
  // The same computation without looking at or filling the cache.
  std::vector<std::size_t> neighbours_uncached(std::span<const std::uint32_t> config, NeighbourMethod method) const;
  // Of config's neighbours by `method` (those neighbours() lists), the ones closest to the point x of the continuous
  // view (num_params() coordinates), ascending: the least sum over p of (value_index(c, p) * epsilon() - x[p])^2,
  // the terms computed and added one by one in parameter order, so exactly the ties a scan of neighbours() in that
  // arithmetic finds. Empty if there are no neighbours (or x holds a NaN). The two box methods are answered by
  // branch and bound over the prefix tree without listing the box (repairs of a continuous point touch a few of its
  // thousands of configurations); the others, and the lazy form, filter neighbours(). Throws std::invalid_argument
  // if x.size() != num_params().
  std::vector<std::size_t> closest_neighbours(std::span<const std::uint32_t> config, NeighbourMethod method,
                                              std::span<const double> x) const;
  // Calls f(index) for every valid configuration c with lo[p] <= c[p] <= hi[p] for all p (box query on the
  // lexicographic order; prunes empty prefixes, never scans all configurations). Indices arrive in ascending order.
  // lo and hi must have num_params() entries (otherwise nothing is reported).
  template <class F>
  void for_each_in_box(std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi, F&& f) const {
    using Function = std::remove_reference_t<F>;
    visit_box(lo, hi, [](void* function, std::size_t index) { (*static_cast<Function*>(function))(index); },
              const_cast<void*>(static_cast<const void*>(&f)));
  }

  // --- continuous view (the epsilon mapping of the constraint-aware paper) ----------------------------------
  // The parameter with the most values spans [0,1] in steps epsilon = 1/(max_values-1); a parameter with m
  // values spans [0, (m-1)*epsilon]. Value index j of any parameter sits at j*epsilon. If every parameter has a
  // single value, epsilon is 1 (and every coordinate is 0).
  double epsilon() const;
  // Throws std::invalid_argument if config.size() != num_params() (out-of-range indices are mapped as they are).
  std::vector<double> to_continuous(std::span<const std::uint32_t> config) const;
  // Snaps every coordinate to the nearest value index (ties round up, clamped to [0, values-1], NaN -> 0); the
  // result may be an invalid configuration. Throws std::invalid_argument if x.size() != num_params().
  Config from_continuous(std::span<const double> x) const;
  // Upper end of parameter p's continuous range: (values-1)*epsilon.
  double continuous_upper(std::size_t p) const;

  // --- export ---------------------------------------------------------------------------------------------
  void write_csv(std::ostream& out) const;           // header of parameter names, one row of values per config
  nlohmann::json to_json() const;                     // {"parameters": [...], "configurations": [[...], ...]}

  // Bytes held by the eagerly built structures (matrix, hash index, bounds, prefix trie, value lookups; in the lazy
  // form, those of its groups); not the neighbour caches.
  std::size_t memory_bytes() const;

 private:
  struct Index;    // the hash index, prefix trie, value lookups and neighbour cache (src/space/search_space_index.hpp)
  struct Product;  // the lazy form's groups (src/space/product_space.hpp)

  // Takes a matrix whose rows are sorted lexicographically under report.order (order[0] slowest; an empty order
  // means identity) without duplicate rows, one column per parameter, and builds the indexes. Throws
  // std::invalid_argument if the shape or the order does not fit the problem.
  SearchSpace(Problem problem, IndexMatrix matrix, ConstructionReport report);
  // The lazy form: the product of the groups' spaces.
  SearchSpace(Problem problem, std::unique_ptr<Product> product, ConstructionReport report);
  std::uint32_t lazy_value_index(std::size_t config, std::size_t param) const;
  // Bounds and used values from the groups (lazy form).
  void set_bounds_from_groups();
  // for_each_in_box without a template in the header: `visit(function, index)` for every index.
  void visit_box(std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi,
                 void (*visit)(void* function, std::size_t index), void* function) const;

  Problem problem_;
  IndexMatrix matrix_;
  ConstructionReport report_;
  std::vector<std::uint32_t> lower_, upper_;
  std::vector<std::vector<std::uint32_t>> used_;
  std::unique_ptr<Index> index_;
  std::unique_ptr<Product> product_;
  std::size_t size_ = 0;
};

}  // namespace ktune
