#pragma once
// SearchSpace: the only view strategies get of a problem. Holds every valid configuration as compact value
// indices and answers validity, lookup, sampling and neighbour queries from index structures.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
  unsigned threads = 2;  // construction may split the work over this many threads (0: all cores); the result does not depend on it
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
  // Constraint evaluations that raised (division by zero, ...) and so made configurations invalid. Counted per
  // evaluation of a constraint on an assignment of its own parameters, not per full configuration: one raising
  // assignment of (a, b) invalidates every configuration that contains it.
  std::uint64_t evaluation_errors = 0;
  std::vector<std::string> evaluation_error_messages;  // one example per constraint that raised
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
  // an out-of-range value index). Never throws.
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
  // The same computation without looking at or filling the cache.
  std::vector<std::size_t> neighbours_uncached(std::span<const std::uint32_t> config, NeighbourMethod method) const;
  // Calls f(index) for every valid configuration c with lo[p] <= c[p] <= hi[p] for all p (box query on the
  // lexicographic order; prunes empty prefixes, never scans all configurations). Indices arrive in ascending order.
  // lo and hi must have num_params() entries (otherwise nothing is reported).
  template <class F>
  void for_each_in_box(std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi, F&& f) const;

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

  // Bytes held by the eagerly built structures (matrix, hash index, bounds, prefix trie, value lookups); not the
  // lazy neighbour cache.
  std::size_t memory_bytes() const;

  // Testing hook: caps the node count of the prefix trie of spaces built afterwards (0 = no trie; nullopt = the
  // normal memory-based budget), so tests reach the search paths the trie usually spares. Process-wide.
  static void set_trie_budget_for_testing(std::optional<std::size_t> nodes);

 private:
  // Takes a matrix whose rows are sorted lexicographically under report.order (order[0] slowest; an empty order
  // means identity) without duplicate rows, one column per parameter. Calls finish_indexes() itself: build() only
  // has to call this constructor. Throws std::invalid_argument if the shape or the order does not fit the problem.
  SearchSpace(Problem problem, IndexMatrix matrix, ConstructionReport report);
  void finish_indexes();  // bounds, used values, hash index, prefix trie, value lookups (O(N d))
  template <class T> void index_rows(const T* data);  // the passes of finish_indexes over the raw matrix
  // Rows [begin, end) share their columns lex_order()[0..depth); returns the first row r in [begin, end) with
  // column lex_order()[depth] >= value (end if none). Helper of box queries.
  std::size_t lower_row(std::size_t begin, std::size_t end, std::size_t depth, std::uint32_t value) const;
  // Row of a configuration whose length and value indices are already known to be in range; nullopt if absent.
  std::optional<std::size_t> find_row(const std::uint32_t* config) const;
  // Batched lookups of the variants of config with one parameter changed: for each edit (param, value), rows[k] is
  // the row of config with config[param] = value, or SIZE_MAX. Every index except possibly edits' own parameter must
  // be in range. Prefetches the hash slots and rows of all variants first so their cache misses overlap.
  struct Edit {
    std::uint32_t param, value;
  };
  void find_variants(const std::uint32_t* config, std::span<const Edit> edits, std::size_t* rows) const;
  std::vector<std::size_t> compute_neighbours(std::span<const std::uint32_t> config, NeighbourMethod method) const;
  std::vector<std::size_t> box_neighbours(std::span<const std::uint32_t> config, bool strictly) const;
  std::vector<std::size_t> hamming_neighbours(std::span<const std::uint32_t> config, bool adjacent_only) const;
  // Valid configurations minimising the L1 index distance to config (distance 0 allowed only if allow_exact);
  // ascending. Branch and bound over the lexicographic prefix tree.
  std::vector<std::size_t> closest(std::span<const std::uint32_t> config, bool allow_exact) const;

  Problem problem_;
  IndexMatrix matrix_;
  ConstructionReport report_;
  std::vector<std::uint32_t> lower_, upper_;
  std::vector<std::vector<std::uint32_t>> used_;
  std::vector<std::uint32_t> hash_slots_;  // open addressing: row index + 1, 0 = empty
  std::uint64_t hash_mask_ = 0;  // the number of slots (not a power of two: see home_slot)

  // The top levels of the lexicographic prefix tree, level by level, as many levels as keep the eager structures
  // within ~30 bytes per configuration (at least size()/4 nodes). Level k holds the distinct prefixes of
  // lex_order()[0..k], in row order. Node j of level k has value trie_value_[k][j] in column lex_order()[k], rows
  // [trie_rows_[k][j], trie_rows_[k][j+1]) and children [trie_children_[k][j], trie_children_[k][j+1]) in level k+1.
  // Box and closest queries walk these small arrays instead of binary-searching the large (cache-missing) row
  // ranges near the root.
  std::vector<std::vector<std::uint32_t>> trie_value_, trie_rows_, trie_children_;
  std::size_t trie_levels() const { return trie_value_.size(); }
  template <class T, class F>
  void box_walk(const T* data, std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi, F& f) const;
  // Ranges of at most this many rows are filtered row by row instead of being descended into.
  static constexpr std::size_t scan_rows = 16;

  struct ValueLookup;  // per parameter: value -> value index (same_value first, then Python equality)
  std::vector<std::unique_ptr<ValueLookup>> value_lookup_;

  // Lazily filled neighbour lists, one map per method keyed by a 64-bit hash of the query; an entry keeps its query
  // so a hash collision is detected (and simply not served). Cleared when it holds more than max_stored indices.
  struct NeighbourCache {
    struct Entry {
      Config query;
      std::vector<std::size_t> neighbours;
    };
    static constexpr std::size_t max_stored = std::size_t{1} << 23;  // indices (64 MiB)
    std::mutex mutex;
    std::unordered_map<std::uint64_t, Entry> maps[5];
    std::size_t stored = 0;
  };
  std::unique_ptr<NeighbourCache> cache_;  // guarded by its own mutex
};

template <class F>
void SearchSpace::for_each_in_box(std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi, F&& f) const {
  const std::size_t d = num_params();
  if (size() == 0 || lo.size() != d || hi.size() != d) return;
  for (std::size_t p = 0; p < d; ++p)
    if (lo[p] > hi[p]) return;
  if (d == 0) { f(std::size_t{0}); return; }
  for (std::size_t p = 0; p < d; ++p)
    if (lo[p] >= param_values(p).size()) return;  // no value index that high
  switch (matrix_.width()) {  // one dispatch on the element width, raw loads below
    case 1: box_walk(reinterpret_cast<const std::uint8_t*>(matrix_.data()), lo, hi, f); break;
    case 2: box_walk(reinterpret_cast<const std::uint16_t*>(matrix_.data()), lo, hi, f); break;
    default: box_walk(reinterpret_cast<const std::uint32_t*>(matrix_.data()), lo, hi, f); break;
  }
}

template <class T, class F>
void SearchSpace::box_walk(const T* data, std::span<const std::uint32_t> lo_by_param,
                           std::span<const std::uint32_t> hi_by_param, F& f) const {
  // The matrix's bytes are only guaranteed byte-aligned: read wider elements with memcpy (a plain load in practice).
  auto at = [data](std::size_t i) -> std::uint32_t {
    if constexpr (sizeof(T) == 1) {
      return data[i];
    } else {
      T v;
      std::memcpy(&v, reinterpret_cast<const unsigned char*>(data) + i * sizeof(T), sizeof(T));
      return v;
    }
  };
  const std::size_t d = num_params();
  const auto& ord = report_.order;
  const std::size_t levels = trie_levels();
  // Box bounds and column indices by lex depth.
  constexpr std::size_t local = 32;
  std::uint32_t lo_small[local], hi_small[local];
  std::vector<std::uint32_t> lo_large, hi_large;
  std::uint32_t* lo = lo_small;
  std::uint32_t* hi = hi_small;
  if (d > local) {
    lo_large.resize(d);
    hi_large.resize(d);
    lo = lo_large.data();
    hi = hi_large.data();
  }
  for (std::size_t k = 0; k < d; ++k) {
    lo[k] = lo_by_param[ord[k]];
    hi[k] = hi_by_param[ord[k]];
  }
  // First row in [b, e) whose column at `depth` is >= value (rows share the prefix above depth): gallop, then bisect.
  auto lower = [&](std::size_t b, std::size_t e, std::size_t depth, std::uint32_t value) {
    const std::size_t col = ord[depth];
    if (b >= e || at(b * d + col) >= value) return b;
    std::size_t low = b, step = 1, high = e;
    while (low + step < e) {
      if (at((low + step) * d + col) >= value) { high = low + step; break; }
      low += step;
      step *= 2;
    }
    std::size_t first = low + 1, count = high - low - 1;
    while (count > 0) {
      const std::size_t half = count / 2;
      if (at((first + half) * d + col) < value) { first += half + 1; count -= half + 1; }
      else count = half;
    }
    return first;
  };
  // Rows [b, e) share the prefix of lex depths [0, depth); report those inside the box in the other columns.
#if defined(__SSE2__)
  // Byte-wide rows of at most 16 columns are checked whole with one 16-byte load (the prefix columns are inside the
  // box anyway; the bytes past the row get bounds [0, 255] and always pass).
  const bool simd = sizeof(T) == 1 && d <= 16;
  alignas(16) std::uint8_t lo_bytes[16], hi_bytes[16];
  for (std::size_t p = 0; p < 16; ++p) {
    lo_bytes[p] = p < d ? static_cast<std::uint8_t>(std::min<std::uint32_t>(lo_by_param[p], 255)) : 0;
    hi_bytes[p] = p < d ? static_cast<std::uint8_t>(std::min<std::uint32_t>(hi_by_param[p], 255)) : 255;
  }
  const __m128i vlo = _mm_load_si128(reinterpret_cast<const __m128i*>(lo_bytes));
  const __m128i vhi = _mm_load_si128(reinterpret_cast<const __m128i*>(hi_bytes));
  const std::size_t simd_rows = size() * d >= 16 ? (size() * d - 16) / d + 1 : 0;  // rows r with r*d + 16 <= bytes
  const std::size_t scan_limit = simd ? 32 : scan_rows;
#else
  const std::size_t scan_limit = scan_rows;
#endif
  auto scan = [&](std::size_t b, std::size_t e, std::size_t depth) {
#if defined(__SSE2__)
    if (simd) {
      const auto* bytes = reinterpret_cast<const unsigned char*>(data);
      const std::size_t simd_end = std::min(e, simd_rows);
      for (; b < simd_end; ++b) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + b * d));
        const __m128i ok =
            _mm_and_si128(_mm_cmpeq_epi8(_mm_max_epu8(v, vlo), v), _mm_cmpeq_epi8(_mm_min_epu8(v, vhi), v));
        if (_mm_movemask_epi8(ok) == 0xFFFF) f(b);
      }
    }
#endif
    for (std::size_t r = b; r < e; ++r) {
      const std::size_t base = r * d;
      std::size_t k = depth;
      while (k < d) {
        const std::uint32_t v = at(base + ord[k]);
        if (v < lo[k] || v > hi[k]) break;
        ++k;
      }
      if (k == d) f(r);
    }
  };
  if (size() <= scan_limit) { scan(0, size(), 0); return; }
  // Iterative DFS over the lexicographic order; values without configurations are skipped and rows are reported in
  // ascending order. A frame holds rows [begin, end) sharing the prefix of lex depths [0, depth). Within the trie's
  // levels it iterates the node's children [child, child_end) (values ascending); below, it finds each present
  // value >= next by galloping search in the rows.
  struct Frame { std::size_t begin, end; std::uint64_t next; std::size_t child, child_end; };
  Frame frames_small[local];
  std::vector<Frame> frames_large;
  Frame* stack = frames_small;
  if (d > local) {
    frames_large.resize(d);
    stack = frames_large.data();
  }
  std::size_t top = 0;  // number of frames
  auto push = [&](std::size_t depth, std::size_t b, std::size_t e, std::size_t cb, std::size_t ce) {
    if (e - b <= scan_limit) { scan(b, e, depth); return; }
    if (depth < levels) {
      const auto& values = trie_value_[depth];
      cb = static_cast<std::size_t>(std::lower_bound(values.begin() + static_cast<std::ptrdiff_t>(cb),
                                                     values.begin() + static_cast<std::ptrdiff_t>(ce), lo[depth]) -
                                    values.begin());
    }
    stack[top++] = {b, e, lo[depth], cb, ce};
  };
  push(0, 0, size(), 0, levels > 0 ? trie_value_[0].size() : 0);
  while (top > 0) {
    const std::size_t depth = top - 1;
    Frame& fr = stack[depth];
    if (depth < levels) {
      if (fr.child >= fr.child_end || trie_value_[depth][fr.child] > hi[depth]) { --top; continue; }
      const std::size_t node = fr.child++;
      const std::size_t b = trie_rows_[depth][node], e = trie_rows_[depth][node + 1];
      if (depth + 1 == d) { f(b); continue; }  // a leaf: one row
      if (depth + 1 < levels)
        push(depth + 1, b, e, trie_children_[depth][node], trie_children_[depth][node + 1]);
      else
        push(depth + 1, b, e, 0, 0);
      continue;
    }
    const std::size_t col = ord[depth];
    if (fr.next > hi[depth] || fr.begin >= fr.end) { --top; continue; }
    const std::size_t b = lower(fr.begin, fr.end, depth, static_cast<std::uint32_t>(fr.next));
    if (depth + 1 == d) {
      // Last column: rows are unique, so the range holds distinct ascending values; scan them.
      for (std::size_t r = b; r < fr.end && at(r * d + col) <= hi[depth]; ++r) f(r);
      --top;
      continue;
    }
    if (b >= fr.end) { --top; continue; }
    const std::uint32_t found = at(b * d + col);
    if (found > hi[depth]) { --top; continue; }
    // Rows with this value end where the next value starts.
    const std::size_t e = found == UINT32_MAX ? fr.end : lower(b, fr.end, depth, found + 1);
    fr.next = std::uint64_t{found} + 1;
    fr.begin = e;
    push(depth + 1, b, e, 0, 0);
  }
}

}  // namespace ktune
