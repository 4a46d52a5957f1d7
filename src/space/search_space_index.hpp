#pragma once
// The index structures behind a SearchSpace (its pImpl): the hash index of the rows, the prefix trie of the
// lexicographic order, the value lookups of config_of and the lazily filled neighbour cache, with the queries that
// walk them. Internal to src/space; the public header only holds a pointer to it.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ktune/search_space.hpp"

namespace ktune {

// Caps the node count of the prefix trie of spaces built afterwards (0 = no trie; nullopt = the normal memory-based
// budget), so tests reach the search paths the trie usually spares. Process-wide; for tests only.
void set_trie_budget_for_testing(std::optional<std::size_t> nodes);

struct SearchSpace::Index {
  // Builds every structure from the space's sorted matrix (O(N d)), filling the space's bounds and used values too.
  explicit Index(SearchSpace& space);

  // --- hash index: row of a configuration --------------------------------------------------------------------
  std::vector<std::uint32_t> hash_slots;  // open addressing: row index + 1, 0 = empty
  std::uint64_t hash_slot_count = 0;       // not a power of two: see home_slot
  // Row of a configuration whose length and value indices are already known to be in range; nullopt if absent.
  std::optional<std::size_t> find_row(const SearchSpace& space, const std::uint32_t* config) const;
  // Batched lookups of the variants of config with one parameter changed: for each edit (param, value), rows[k] is
  // the row of config with config[param] = value, or SIZE_MAX. Every index except possibly edits' own parameter must
  // be in range, and every edit's value too (the key is hashed as the matrix stores it, in its element width).
  // Prefetches the hash slots and rows of all variants first so their cache misses overlap.
  struct Edit {
    std::uint32_t param, value;
  };
  void find_variants(const SearchSpace& space, const std::uint32_t* config, std::span<const Edit> edits,
                     std::size_t* rows) const;

  // --- packed rows: a directory instead of the hash index ---------------------------------------------------------
  // A packed matrix's words ascend with the rows; directory[j] is the first row whose word's top bits (the word
  // shifted right by directory_shift) are >= j, so the rows of bucket j are [directory[j], directory[j+1]).
  std::vector<std::uint32_t> directory;
  unsigned directory_shift = 0;
  std::uint64_t bucket_of(std::uint64_t word) const { return directory_shift >= 64 ? 0 : word >> directory_shift; }
  void build_directory(const IndexMatrix& matrix, std::size_t n);
  // The row holding this word, SIZE_MAX if none.
  std::size_t find_word(const IndexMatrix& matrix, std::uint64_t word) const;

  // --- prefix trie ---------------------------------------------------------------------------------------------
  // The top levels of the lexicographic prefix tree, level by level, as many levels as keep the eager structures
  // within ~30 bytes per configuration (at least size()/4 nodes). Level k holds the distinct prefixes of
  // lex_order()[0..k], in row order. Node j of level k has value trie_value[k][j] in column lex_order()[k], rows
  // [trie_rows[k][j], trie_rows[k][j+1]) and children [trie_children[k][j], trie_children[k][j+1]) in level k+1.
  // Box and closest queries walk these small arrays instead of binary-searching the large (cache-missing) row
  // ranges near the root.
  std::vector<std::vector<std::uint32_t>> trie_value, trie_rows, trie_children;
  std::size_t trie_levels() const { return trie_value.size(); }
  // Node `node` of level `depth`: its rows [begin, end) and its children [child_begin, child_end) in the next level
  // (none on the last level).
  struct TrieNode {
    std::size_t begin, end, child_begin = 0, child_end = 0;
  };
  TrieNode trie_node(std::size_t depth, std::size_t node) const {
    TrieNode n{trie_rows[depth][node], trie_rows[depth][node + 1]};
    if (depth + 1 < trie_levels()) {
      n.child_begin = trie_children[depth][node];
      n.child_end = trie_children[depth][node + 1];
    }
    return n;
  }
  // Ranges of at most this many rows are filtered row by row instead of being descended into.
  static constexpr std::size_t scan_rows = 16;
  // Rows [begin, end) share their columns lex_order()[0..depth); returns the first row r in [begin, end) with
  // column lex_order()[depth] >= value (end if none).
  static std::size_t lower_row(const SearchSpace& space, std::size_t begin, std::size_t end, std::size_t depth,
                               std::uint32_t value);
  // SearchSpace::for_each_in_box, inlined for the callers in src/space.
  template <class F>
  void for_each_in_box(const SearchSpace& space, std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi,
                       F&& f) const;
  template <class Rows, class F>
  void box_walk(const SearchSpace& space, Rows at, std::span<const std::uint32_t> lo,
                std::span<const std::uint32_t> hi, F& f) const;

  // --- neighbour queries -----------------------------------------------------------------------------------------
  std::vector<std::size_t> compute_neighbours(const SearchSpace& space, std::span<const std::uint32_t> config,
                                              NeighbourMethod method) const;
  std::vector<std::size_t> box_neighbours(const SearchSpace& space, std::span<const std::uint32_t> config,
                                          bool strictly) const;
  std::vector<std::size_t> hamming_neighbours(const SearchSpace& space, std::span<const std::uint32_t> config,
                                              bool adjacent_only) const;
  // The box of config's (strictly-)adjacent neighbours (its own configuration included); false if it is empty. lo and
  // hi receive num_params() bounds.
  static bool neighbour_box(const SearchSpace& space, std::span<const std::uint32_t> config, bool strictly,
                            std::span<std::uint32_t> lo, std::span<std::uint32_t> hi);
  // The rows inside config's neighbour box [lo, hi] (config itself left out) closest to the continuous point x,
  // ascending: see SearchSpace::closest_neighbours. Branch and bound over the lexicographic prefix tree
  // (closest_to_point.cpp).
  std::vector<std::size_t> closest_to_point(const SearchSpace& space, std::span<const double> x,
                                            std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi,
                                            std::span<const std::uint32_t> config) const;
  // The rows of config's strictly-adjacent box (config left out) whose changes from config, each a step up or down in
  // one parameter, include no other such row's changes; ascending. The repair of a point within half a step of
  // config in every coordinate is always among them (minimal_changes.cpp). lo and hi: config's strictly-adjacent box
  // (at most three values a column). Needs num_params() <= 64.
  std::vector<std::size_t> minimal_changes(const SearchSpace& space, std::span<const std::uint32_t> lo,
                                           std::span<const std::uint32_t> hi,
                                           std::span<const std::uint32_t> config) const;
  // minimal_changes() from the neighbour cache, computed on config's kMinimalChangesAfter-th query (a walk costs
  // about seven branch-and-bound repairs; on the gemm benchmark 4 and 6 were best, 1 and 2 cost dual_annealing 64%
  // and 8%, basinhopping 15% and 5%); nullopt before (the caller repairs by closest_to_point).
  static constexpr std::uint32_t kMinimalChangesAfter = 4;
  std::optional<std::vector<std::size_t>> cached_minimal_changes(const SearchSpace& space,
                                                                 std::span<const std::uint32_t> lo,
                                                                 std::span<const std::uint32_t> hi,
                                                                 std::span<const std::uint32_t> config) const;
  // Valid configurations minimising the L1 index distance to config (distance 0 allowed only if allow_exact);
  // ascending. Branch and bound over the lexicographic prefix tree.
  std::vector<std::size_t> closest(const SearchSpace& space, std::span<const std::uint32_t> config,
                                   bool allow_exact) const;

  // --- value lookups (config_of) ---------------------------------------------------------------------------------
  // Per parameter: numeric values sorted by their double value (Python equality across bool/int/float implies equal
  // doubles, so equal_range finds every candidate), strings in a hash map, anything else scanned.
  struct ValueLookup {
    std::vector<std::pair<double, std::uint32_t>> numeric;
    std::unordered_map<std::string, std::uint32_t> strings;
    std::vector<std::uint32_t> others;
  };
  std::vector<ValueLookup> value_lookup;

  // --- neighbour cache -----------------------------------------------------------------------------------------
  // Lazily filled neighbour lists, one map per method keyed by a 64-bit hash of the query; an entry keeps its query
  // so a hash collision is detected (and simply not served). In shards by hash, each with its own mutex: the threads
  // of compare and hypertune query it all the time, and one mutex for all cost them more than it saved (two threads
  // ran a hypertune grid no faster than one). The budget is shared: when an insertion would pass max_stored, the
  // shard it goes to is cleared (a working set that fits is never cleared, however it spreads over the shards).
  struct NeighbourCache {
    struct Entry {
      Config query;
      std::vector<std::size_t> neighbours;
    };
    // How often a configuration's minimal changes were asked before they are computed: a small direct-mapped table
    // per shard (a slot taken by another key starts over), so counting costs no allocation.
    struct Sighting {
      std::uint64_t key = 0;
      std::uint32_t count = 0;
    };
    static constexpr std::size_t kSightingSlots = 64;
    static constexpr std::size_t kMinimalChangesSlot = 5;  // after the five neighbour methods'
    // The key of a query: a 64-bit hash of its value indices.
    static std::uint64_t key(std::span<const std::uint32_t> config) {
      std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ config.size();
      for (std::uint32_t v : config) {
        h ^= v;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
      }
      h *= 0xc4ceb9fe1a85ec53ULL;
      return h ^ (h >> 29);
    }
    static constexpr std::size_t max_stored = std::size_t{1} << 23;  // indices (64 MiB)
    static constexpr std::size_t kShards = 64;
    struct alignas(64) Shard {
      std::mutex mutex;
      std::array<std::unordered_map<std::uint64_t, Entry>, 6> maps;
      std::size_t stored = 0;
      std::unique_ptr<std::array<Sighting, kSightingSlots>> sightings;  // allocated on first use
    };
    std::array<Shard, kShards> shards;
    std::atomic<std::size_t> stored{0};  // indices held by all shards
    Shard& shard(std::uint64_t key) { return shards[key >> 58]; }  // the top 6 bits
    // The rows stored for config in map `slot` of its shard, null if none (or another query of the same hash). The
    // caller holds the shard's lock.
    static const std::vector<std::size_t>* find(Shard& shard, std::size_t slot, std::uint64_t key,
                                                std::span<const std::uint32_t> config) {
      const auto it = shard.maps[slot].find(key);
      if (it == shard.maps[slot].end() ||
          !std::equal(it->second.query.begin(), it->second.query.end(), config.begin(), config.end()))
        return nullptr;
      return &it->second.neighbours;
    }
    // Stores rows for config in map `slot` (the caller holds the shard's lock); an insertion that would pass
    // max_stored clears the shard first.
    void store(Shard& shard, std::size_t slot, std::uint64_t key, std::span<const std::uint32_t> config,
               const std::vector<std::size_t>& rows) {
      const std::size_t cost = rows.size() + config.size() + 8;
      if (stored.load(std::memory_order_relaxed) + cost > max_stored) {
        for (auto& m : shard.maps) m.clear();
        stored.fetch_sub(shard.stored, std::memory_order_relaxed);
        shard.stored = 0;
      }
      if (shard.maps[slot].try_emplace(key, Entry{Config(config.begin(), config.end()), rows}).second) {
        shard.stored += cost;
        stored.fetch_add(cost, std::memory_order_relaxed);
      }
    }
  };
  static_assert(NeighbourCache::kShards == 64, "shard() takes the top 6 bits of the key");
  mutable NeighbourCache cache;  // each shard guarded by its own mutex

  // Bytes held by the hash index, the trie and the value lookups.
  std::size_t memory_bytes() const;

 private:
  template <class Rows>
  void index_rows(SearchSpace& space, Rows at);  // the passes of the constructor, through the matrix's row reader
};

template <class F>
void SearchSpace::Index::for_each_in_box(const SearchSpace& space, std::span<const std::uint32_t> lo,
                                         std::span<const std::uint32_t> hi, F&& f) const {
  const std::size_t d = space.num_params();
  if (space.size() == 0 || lo.size() != d || hi.size() != d) return;
  for (std::size_t p = 0; p < d; ++p)
    if (lo[p] > hi[p]) return;
  if (d == 0) { f(std::size_t{0}); return; }
  for (std::size_t p = 0; p < d; ++p)
    if (lo[p] >= space.param_values(p).size()) return;  // no value index that high
  space.matrix_.visit_rows([&](auto at) { box_walk(space, at, lo, hi, f); });  // one dispatch on the layout
}

template <class Rows, class F>
void SearchSpace::Index::box_walk(const SearchSpace& space, Rows at, std::span<const std::uint32_t> lo_by_param,
                                  std::span<const std::uint32_t> hi_by_param, F& f) const {
  const std::size_t d = space.num_params();
  const auto& ord = space.report_.order;
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
    if (b >= e || at(b, col) >= value) return b;
    std::size_t low = b, step = 1, high = e;
    while (low + step < e) {
      if (at(low + step, col) >= value) { high = low + step; break; }
      low += step;
      step *= 2;
    }
    std::size_t first = low + 1, count = high - low - 1;
    while (count > 0) {
      const std::size_t half = count / 2;
      if (at(first + half, col) < value) { first += half + 1; count -= half + 1; }
      else count = half;
    }
    return first;
  };
  // Rows [b, e) share the prefix of lex depths [0, depth); report those inside the box in the other columns.
#if defined(__SSE2__)
  // Byte-wide rows of at most 16 columns are checked whole with one 16-byte load (the prefix columns are inside the
  // box anyway; the bytes past the row get bounds [0, 255] and always pass).
  const bool simd = Rows::kBytes && d <= 16;
  alignas(16) std::uint8_t lo_bytes[16], hi_bytes[16];
  for (std::size_t p = 0; p < 16; ++p) {
    lo_bytes[p] = p < d ? static_cast<std::uint8_t>(std::min<std::uint32_t>(lo_by_param[p], 255)) : 0;
    hi_bytes[p] = p < d ? static_cast<std::uint8_t>(std::min<std::uint32_t>(hi_by_param[p], 255)) : 255;
  }
  const __m128i vlo = _mm_load_si128(reinterpret_cast<const __m128i*>(lo_bytes));
  const __m128i vhi = _mm_load_si128(reinterpret_cast<const __m128i*>(hi_bytes));
  const std::size_t simd_rows = space.size() * d >= 16 ? (space.size() * d - 16) / d + 1 : 0;  // rows r with r*d + 16 <= bytes
  const std::size_t scan_limit = simd ? 32 : scan_rows;
#else
  const std::size_t scan_limit = scan_rows;
#endif
  auto scan = [&](std::size_t b, std::size_t e, std::size_t depth) {
#if defined(__SSE2__)
    if (simd) {
      const unsigned char* bytes = space.matrix_.data();
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
      std::size_t k = depth;
      while (k < d) {
        const std::uint32_t v = at(r, ord[k]);
        if (v < lo[k] || v > hi[k]) break;
        ++k;
      }
      if (k == d) f(r);
    }
  };
  if (space.size() <= scan_limit) { scan(0, space.size(), 0); return; }
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
      const auto& values = trie_value[depth];
      cb = static_cast<std::size_t>(std::lower_bound(values.begin() + static_cast<std::ptrdiff_t>(cb),
                                                     values.begin() + static_cast<std::ptrdiff_t>(ce), lo[depth]) -
                                    values.begin());
    }
    stack[top++] = {b, e, lo[depth], cb, ce};
  };
  push(0, 0, space.size(), 0, levels > 0 ? trie_value[0].size() : 0);
  while (top > 0) {
    const std::size_t depth = top - 1;
    Frame& fr = stack[depth];
    if (depth < levels) {
      if (fr.child >= fr.child_end || trie_value[depth][fr.child] > hi[depth]) { --top; continue; }
      const std::size_t node = fr.child++;
      const std::size_t b = trie_rows[depth][node], e = trie_rows[depth][node + 1];
      if (depth + 1 == d) { f(b); continue; }  // a leaf: one row
      if (depth + 1 < levels)
        push(depth + 1, b, e, trie_children[depth][node], trie_children[depth][node + 1]);
      else
        push(depth + 1, b, e, 0, 0);
      continue;
    }
    const std::size_t col = ord[depth];
    if (fr.next > hi[depth] || fr.begin >= fr.end) { --top; continue; }
    const std::size_t b = lower(fr.begin, fr.end, depth, static_cast<std::uint32_t>(fr.next));
    if (depth + 1 == d) {
      // Last column: rows are unique, so the range holds distinct ascending values; scan them.
      for (std::size_t r = b; r < fr.end && at(r, col) <= hi[depth]; ++r) f(r);
      --top;
      continue;
    }
    if (b >= fr.end) { --top; continue; }
    const std::uint32_t found = at(b, col);
    if (found > hi[depth]) { --top; continue; }
    // Rows with this value end where the next value starts.
    const std::size_t e = found == UINT32_MAX ? fr.end : lower(b, fr.end, depth, found + 1);
    fr.next = std::uint64_t{found} + 1;
    fr.begin = e;
    push(depth + 1, b, e, 0, 0);
  }
}

}  // namespace ktune
