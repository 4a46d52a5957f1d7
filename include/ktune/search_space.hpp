#pragma once
// SearchSpace: the only view strategies get of a problem. Holds every valid configuration as compact value
// indices and answers validity, lookup, sampling and neighbour queries from index structures.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
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

struct BuildOptions {
  unsigned threads = 2;  // construction may split the work over this many threads; the result does not depend on it
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
  std::uint64_t evaluation_errors = 0;       // configurations made invalid by a division by zero or similar
  std::vector<std::string> evaluation_error_messages;  // one example per constraint that raised
};

class SearchSpace {
 public:
  // Validates the problem, compiles its constraints and enumerates every valid configuration.
  // Throws ProblemError or expr::ExpressionError (naming the constraint) on bad input.
  static SearchSpace build(Problem problem, const BuildOptions& options = {});
  // A space from an explicit list of configurations (e.g. the entries of a cache file); duplicates are dropped.
  static SearchSpace from_configs(Problem problem, const std::vector<Config>& configs);

  SearchSpace(SearchSpace&&) noexcept;
  SearchSpace& operator=(SearchSpace&&) noexcept;
  ~SearchSpace();

  const Problem& problem() const { return problem_; }
  const ConstructionReport& report() const { return report_; }
  std::size_t num_params() const { return problem_.parameters.size(); }
  std::size_t size() const { return matrix_.rows(); }
  const std::string& param_name(std::size_t p) const { return problem_.parameters[p].name; }
  const std::vector<Value>& param_values(std::size_t p) const { return problem_.parameters[p].values; }

  // --- configurations, indices, values --------------------------------------------------------------------
  std::uint32_t value_index(std::size_t config, std::size_t param) const { return matrix_.get(config, param); }
  Config config_at(std::size_t index) const;
  std::vector<Value> values_at(std::size_t index) const;
  std::vector<Value> values_of(const Config& config) const;
  // Value indices of a value tuple (Python equality: 1 == 1.0); nullopt if some value is not in its list.
  std::optional<Config> config_of(const std::vector<Value>& values) const;
  // Index of a configuration in O(1); nullopt if it is not a valid configuration (or has the wrong length or
  // an out-of-range value index).
  std::optional<std::size_t> index_of(std::span<const std::uint32_t> config) const;
  bool is_valid(std::span<const std::uint32_t> config) const { return index_of(config).has_value(); }
  bool is_valid(const std::vector<Value>& values) const;
  const IndexMatrix& matrix() const { return matrix_; }
  // Parameter order under which the configurations are sorted lexicographically (order[0] varies slowest).
  const std::vector<std::size_t>& lex_order() const { return report_.order; }

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
  // Latin-hypercube sample of n distinct valid configurations over the true index bounds: each stratum point is
  // snapped to the valid configuration nearest in L1 index distance; duplicates are topped up with random ones.
  std::vector<std::size_t> lhs_sample(std::size_t n, Rng& rng) const;

  // --- neighbours (Kernel Tuner's definitions; the query may be invalid or outside the space) -----------------
  // Indices of the valid neighbours of `config`, ascending, excluding the config itself. Cached lazily.
  std::vector<std::size_t> neighbours(std::span<const std::uint32_t> config, NeighbourMethod method) const;
  std::vector<std::size_t> neighbours(std::size_t index, NeighbourMethod method) const;
  // Calls f(index) for every valid configuration c with lo[p] <= c[p] <= hi[p] for all p (box query on the
  // lexicographic order; prunes empty prefixes, never scans all configurations).
  template <class F> void for_each_in_box(std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi, F&& f) const;

  // --- continuous view (the epsilon mapping of the constraint-aware paper) ----------------------------------
  // The parameter with the most values spans [0,1] in steps epsilon = 1/(max_values-1); a parameter with m
  // values spans [0, (m-1)*epsilon]. Value index j of any parameter sits at j*epsilon.
  double epsilon() const;
  std::vector<double> to_continuous(std::span<const std::uint32_t> config) const;
  // Snaps every coordinate to the nearest value index (clamped); the result may be an invalid configuration.
  Config from_continuous(std::span<const double> x) const;
  // Upper end of parameter p's continuous range: (values-1)*epsilon.
  double continuous_upper(std::size_t p) const;

  // --- export ---------------------------------------------------------------------------------------------
  void write_csv(std::ostream& out) const;           // header of parameter names, one row of values per config
  nlohmann::json to_json() const;                     // {"parameters": [...], "configurations": [[...], ...]}

 private:
  SearchSpace(Problem problem, IndexMatrix matrix, ConstructionReport report);
  void finish_indexes();  // bounds, used values, hash index
  // Row range [begin, end) whose columns lex_order()[0..depth) equal prefix; helper of box queries.
  std::size_t lower_row(std::size_t begin, std::size_t end, std::size_t depth, std::uint32_t value) const;

  Problem problem_;
  IndexMatrix matrix_;
  ConstructionReport report_;
  std::vector<std::uint32_t> lower_, upper_;
  std::vector<std::vector<std::uint32_t>> used_;
  std::vector<std::uint32_t> hash_slots_;  // open addressing: row index + 1, 0 = empty
  std::uint64_t hash_mask_ = 0;

  struct NeighbourCache;
  std::unique_ptr<NeighbourCache> cache_;  // lazily filled, guarded by its own mutex
};

template <class F>
void SearchSpace::for_each_in_box(std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi, F&& f) const {
  const std::size_t d = num_params();
  const auto& ord = report_.order;
  // Iterative DFS over the lexicographic order: stack of (row range, next value to try) per depth.
  struct Frame { std::size_t begin, end; std::uint32_t next; };
  std::vector<Frame> stack;
  stack.reserve(d + 1);
  if (size() == 0) return;
  for (std::size_t p = 0; p < d; ++p)
    if (lo[p] > hi[p]) return;
  if (d == 0) { f(std::size_t{0}); return; }
  stack.push_back({0, size(), lo[ord[0]]});
  while (!stack.empty()) {
    Frame& fr = stack.back();
    const std::size_t depth = stack.size() - 1;
    const std::size_t col = ord[depth];
    if (fr.next > hi[col] || fr.begin >= fr.end) { stack.pop_back(); continue; }
    const std::uint32_t v = fr.next;
    const std::size_t b = lower_row(fr.begin, fr.end, depth, v);
    if (b >= fr.end) { stack.pop_back(); continue; }
    const std::uint32_t found = matrix_.get(b, col);
    if (found > hi[col]) { stack.pop_back(); continue; }
    // Jump straight to the next value present (skips values with no configuration).
    const std::size_t e = lower_row(b, fr.end, depth, found + 1);
    fr.next = found + 1;
    fr.begin = e;
    if (depth + 1 == d) {
      for (std::size_t r = b; r < e; ++r) f(r);
    } else {
      stack.push_back({b, e, lo[ord[depth + 1]]});
    }
  }
}

}  // namespace ktune
