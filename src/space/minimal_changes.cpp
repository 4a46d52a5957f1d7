// The few rows of a strictly-adjacent box that can be the repair of a point near its centre. A swarm repairs the
// same invalid snap again and again from points that differ slightly (firefly: 15 times per snap on the RTX 3090
// gemm space), and each repair's branch and bound mostly proves that nothing beats its first find. Around a snap s,
// a box row c costs sum_p (c_p eps - x_p)^2 = sum_p r_p^2 + sum over its changed parameters of (eps^2 -+ 2 eps r_p),
// r = x - s eps. While every |r_p| < eps / 2 each change costs more than nothing, so a row whose changes include
// another row's changes is always farther: the repair is one of the rows whose changes are minimal (about 4 of the
// box's 1 000). They depend on s alone, so they are found once, by a walk of the box (about seven repairs' work:
// pruning the nodes whose changes so far include a found row's spares little, since the minimal rows' changes lie deep
// in the lexicographic tree), and cached beside the neighbour lists from a snap's fourth repair on (a snap repaired
// once or twice, as most of basinhopping's and dual_annealing's are, is cheaper by branch and bound).
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>

#include "ktune/search_space.hpp"

#include "space/search_space_index.hpp"

namespace ktune {
namespace {

// A row's changes from the box's centre, by lex depth: a bit in `up` for a step up, in `down` for a step down.
struct Changes {
  std::uint64_t up = 0, down = 0;
  bool changed = false;  // at the last level
  bool within(const Changes& other) const { return (up & ~other.up) == 0 && (down & ~other.down) == 0; }
};

// The rows found so far whose changes include no other found row's; few, so a list.
class MinimalRows {
 public:
  bool covers(const Changes& c) const {
    return std::any_of(rows_.begin(), rows_.end(), [&](const Entry& e) { return e.changes.within(c); });
  }
  void offer(const Changes& c, std::size_t row) {
    if ((c.up | c.down) == 0 || covers(c)) return;  // the centre itself, or not minimal
    std::erase_if(rows_, [&](const Entry& e) { return c.within(e.changes); });
    rows_.push_back({c, row});
  }
  std::vector<std::size_t> rows() const {
    std::vector<std::size_t> out;
    for (const Entry& e : rows_) out.push_back(e.row);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  struct Entry {
    Changes changes;
    std::size_t row;
  };
  std::vector<Entry> rows_;
};

// Row ranges at most this long are scanned rather than descended into (as in closest_to_point).
constexpr std::size_t kScanRows = 8;

}  // namespace

// Depth first over the lexicographic prefix tree, the centre's own value first at every level so that rows with
// few changes are found early; a node whose changes so far include a found row's holds nothing minimal.
std::vector<std::size_t> SearchSpace::Index::minimal_changes(const SearchSpace& space,
                                                              std::span<const std::uint32_t> lo_by_param,
                                                              std::span<const std::uint32_t> hi_by_param,
                                                              std::span<const std::uint32_t> config) const {
  const std::size_t d = space.num_params();
  if (d == 0 || d > 64 || space.size() == 0) return {};
  const auto& ord = space.lex_order();
  const std::size_t levels = trie_levels();
  std::uint32_t lo[64], hi[64], centre[64];  // by lex depth
  for (std::size_t k = 0; k < d; ++k) {
    lo[k] = lo_by_param[ord[k]];
    hi[k] = hi_by_param[ord[k]];
    centre[k] = config[ord[k]];
  }
  auto changed = [&](Changes c, std::size_t k, std::uint32_t v) {
    c.changed = v != centre[k];
    if (v > centre[k]) c.up |= std::uint64_t{1} << k;
    else if (v < centre[k]) c.down |= std::uint64_t{1} << k;
    return c;
  };
  MinimalRows found;
  auto search = [&](auto at) {
    auto visit = [&](auto& recurse, std::size_t begin, std::size_t end, std::size_t depth, Changes so_far,
                     std::size_t child_begin, std::size_t child_end) -> void {
      if (so_far.changed && found.covers(so_far)) return;  // (the centre's own value changes nothing)
      if (end - begin <= kScanRows) {
        for (std::size_t r = begin; r < end; ++r) {
          Changes c = so_far;
          std::size_t k = depth;
          for (; k < d; ++k) {
            const std::uint32_t v = at(r, ord[k]);
            if (v < lo[k] || v > hi[k]) break;
            c = changed(c, k, v);
          }
          if (k == d) found.offer(c, r);
        }
        return;
      }
      // The children inside the box: at most three values (a step down, the centre's, a step up).
      struct Child {
        std::uint32_t value;
        std::size_t begin, end, child_begin, child_end;
      };
      std::array<Child, 3> children;
      std::size_t count = 0;
      if (depth < levels) {
        const auto first = trie_value[depth].begin();
        const auto b = first + static_cast<std::ptrdiff_t>(child_begin);
        const auto e = first + static_cast<std::ptrdiff_t>(child_end);
        const auto stop = static_cast<std::size_t>(std::upper_bound(b, e, hi[depth]) - first);
        for (auto i = static_cast<std::size_t>(std::lower_bound(b, e, lo[depth]) - first); i < stop && count < 3; ++i) {
          const TrieNode n = trie_node(depth, i);
          children[count++] = {trie_value[depth][i], n.begin, n.end, n.child_begin, n.child_end};
        }
      } else {
        const std::size_t col = ord[depth];
        const std::size_t stop = lower_row(space, begin, end, depth, hi[depth] + 1);  // indices stay below UINT32_MAX
        for (std::size_t r = lower_row(space, begin, stop, depth, lo[depth]); r < stop && count < 3;) {
          const std::uint32_t v = at(r, col);
          const std::size_t e = lower_row(space, r, stop, depth, v + 1);
          children[count++] = {v, r, e, 0, 0};
          r = e;
        }
      }
      for (int centre_pass = 1; centre_pass >= 0; --centre_pass)
        for (std::size_t i = 0; i < count; ++i) {
          const Child& child = children[i];
          if ((child.value == centre[depth]) != (centre_pass == 1)) continue;
          const Changes c = changed(so_far, depth, child.value);
          if (depth + 1 == d) found.offer(c, child.begin);  // a leaf range holds one row
          else recurse(recurse, child.begin, child.end, depth + 1, c, child.child_begin, child.child_end);
        }
    };
    visit(visit, 0, space.size(), 0, Changes{}, 0, levels > 0 ? trie_value[0].size() : 0);
  };
  space.matrix_.visit_rows(search);
  return found.rows();
}

std::optional<std::vector<std::size_t>> SearchSpace::Index::cached_minimal_changes(
    const SearchSpace& space, std::span<const std::uint32_t> lo, std::span<const std::uint32_t> hi,
    std::span<const std::uint32_t> config) const {
  const std::uint64_t key = NeighbourCache::key(config);
  NeighbourCache::Shard& shard = cache.shard(key);
  constexpr std::size_t slot = NeighbourCache::kMinimalChangesSlot;
  {
    std::lock_guard<std::mutex> lock(shard.mutex);
    if (!shard.sightings)
      shard.sightings = std::make_unique<std::array<NeighbourCache::Sighting, NeighbourCache::kSightingSlots>>();
    NeighbourCache::Sighting& seen = (*shard.sightings)[key % NeighbourCache::kSightingSlots];
    if (seen.key != key) seen = {key, 0};
    if (seen.count < kMinimalChangesAfter) ++seen.count;
    if (seen.count < kMinimalChangesAfter) return std::nullopt;  // (the map is looked up only from here on)
    if (const auto* rows = NeighbourCache::find(shard, slot, key, config)) return *rows;
  }
  // Computed outside the lock (as neighbour lists are): a duplicate computation is harmless.
  std::vector<std::size_t> rows = minimal_changes(space, lo, hi, config);
  std::lock_guard<std::mutex> lock(shard.mutex);
  cache.store(shard, slot, key, config, rows);
  return rows;
}

}  // namespace ktune
