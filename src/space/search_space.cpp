// SearchSpace core: construction from a sorted matrix, the eager indexes (bounds, used values, hash index, prefix
// trie, value lookups) and the conversions between indices, configurations and values.
#include "ktune/search_space.hpp"

#include "space/packing.hpp"
#include "space/product_space.hpp"
#include "space/search_space_index.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <exception>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>

namespace ktune {

namespace {

// Row hash over a row's bytes as the matrix stores them, eight at a time (a row of 8 + 2 bytes is two multiplies,
// not ten): each word is mixed into a 64-bit state with a multiply-xorshift step, then the state is finalised.
inline std::uint64_t mix_step(std::uint64_t h, std::uint64_t word) {
  h ^= word;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 31);
}
inline std::uint64_t mix_final(std::uint64_t h) {
  h ^= h >> 29;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 32);
}
constexpr std::uint64_t kHashSeed = 0x6b74756e65737061ULL;
inline std::uint64_t load_word(const std::uint8_t* p) {
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
// Continues state h over the row's words from byte `from` (a multiple of 8) on: the full words, then, if the length
// is not a multiple of 8, the last 8 bytes (overlapping the word before); a row shorter than 8 bytes is one word,
// zero-padded.
inline std::uint64_t hash_row_from(std::uint64_t h, const std::uint8_t* row, std::size_t bytes, std::size_t from) {
  if (bytes < 8) {
    std::uint64_t w = 0;
    for (std::size_t i = 0; i < bytes; ++i) w |= std::uint64_t{row[i]} << (8 * i);
    return mix_step(h, w);
  }
  for (; from + 8 <= bytes; from += 8) h = mix_step(h, load_word(row + from));
  if (bytes % 8 != 0) h = mix_step(h, load_word(row + bytes - 8));
  return h;
}
inline std::uint64_t row_hash(const std::uint8_t* row, std::size_t bytes) {
  return mix_final(hash_row_from(kHashSeed, row, bytes, 0));
}

// Slot of a finalised hash in a table of `slots` entries (any size, not only powers of two: the table can then
// be sized to a load factor of ~0.6 instead of up to 0.25 after rounding up), and the next slot of a probe.
inline std::size_t home_slot(std::uint64_t h, std::uint64_t slots) {
  __extension__ typedef unsigned __int128 u128;
  return static_cast<std::size_t>((static_cast<u128>(h) * slots) >> 64);
}
inline std::size_t next_slot(std::size_t s, std::uint64_t slots) { return s + 1 == slots ? 0 : s + 1; }

constexpr std::size_t no_cap = std::numeric_limits<std::size_t>::max();
std::atomic<std::size_t> trie_budget_cap{no_cap};
// 2^22 rows: below, the hash index's O(1) lookups are worth its bytes; the automatic form turns lazy at 2^24.
constexpr std::size_t kPackedRowsFrom = std::size_t{1} << 22;
std::atomic<std::size_t> packed_rows_from{kPackedRowsFrom};

// Writes config in the matrix's byte layout (width 1, 2 or 4) so a row can be compared with memcmp.
void encode(const std::uint32_t* config, std::size_t d, unsigned width, std::uint8_t* out) {
  for (std::size_t c = 0; c < d; ++c) {
    switch (width) {
      case 1: out[c] = static_cast<std::uint8_t>(config[c]); break;
      case 2: { auto s = static_cast<std::uint16_t>(config[c]); std::memcpy(out + 2 * c, &s, 2); break; }
      default: std::memcpy(out + 4 * c, &config[c], 4); break;
    }
  }
}

// A configuration encoded by encode(), on the stack for the usual row sizes.
class EncodedKey {
 public:
  EncodedKey(const std::uint32_t* config, std::size_t d, unsigned width) {
    if (d * width > sizeof small_) large_.resize(d * width);
    encode(config, d, width, data());
  }
  std::uint8_t* data() { return large_.empty() ? small_ : large_.data(); }

 private:
  std::uint8_t small_[256];
  std::vector<std::uint8_t> large_;
};

}  // namespace

SearchSpace::SearchSpace(Problem problem, IndexMatrix matrix, ConstructionReport report)
    : problem_(std::move(problem)), matrix_(std::move(matrix)), report_(std::move(report)) {
  const std::size_t d = problem_.parameters.size();
  if (matrix_.cols() != d)
    throw std::invalid_argument(fmt::format("search space: the matrix has {} columns for {} parameters",
                                            matrix_.cols(), d));
  if (matrix_.rows() >= std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("search space: more than 2^32-2 configurations are not supported");
  size_ = matrix_.rows();
  if (report_.order.empty()) {
    report_.order.resize(d);
    std::iota(report_.order.begin(), report_.order.end(), std::size_t{0});
  }
  std::vector<char> seen(d, 0);
  bool permutation = report_.order.size() == d;
  for (std::size_t p : report_.order) {
    if (!permutation || p >= d || seen[p]) { permutation = false; break; }
    seen[p] = 1;
  }
  if (!permutation) throw std::invalid_argument("search space: the lexicographic order is not a permutation");
  if (!matrix_.is_packed()) {
    if (auto packed = packed_layout(problem_, report_.order, size_)) {
      packed->reserve_rows(size_);
      packed->append(matrix_);  // row by row into the packed layout
      matrix_ = std::move(*packed);
    }
  }
  index_ = std::make_unique<Index>(*this);
}

std::optional<IndexMatrix> packed_layout(const Problem& problem, std::span<const std::size_t> order, std::size_t rows) {
  if (rows < packed_rows_from.load()) return std::nullopt;
  std::vector<std::uint32_t> counts;
  for (const auto& p : problem.parameters) counts.push_back(static_cast<std::uint32_t>(p.values.size()));
  return IndexMatrix::packed(counts, order);
}

std::size_t set_packed_rows_from_for_testing(std::optional<std::size_t> rows) {
  return packed_rows_from.exchange(rows ? *rows : kPackedRowsFrom);
}

SearchSpace::SearchSpace(Problem problem, std::unique_ptr<Product> product, ConstructionReport report)
    : problem_(std::move(problem)), report_(std::move(report)), product_(std::move(product)) {
  static_assert(sizeof(std::size_t) >= sizeof(std::uint64_t), "lazy spaces index with 64 bits");
  size_ = static_cast<std::size_t>(product_->size);
  report_.lazy = true;
  report_.group_sizes.clear();
  for (const auto& factor : product_->factors) report_.group_sizes.push_back(factor.size());
  set_bounds_from_groups();
}

void SearchSpace::set_bounds_from_groups() {
  const std::size_t d = num_params();
  lower_.assign(d, 0);
  upper_.assign(d, 0);
  used_.assign(d, {});
  for (std::size_t p = 0; p < d; ++p) {
    const SearchSpace& factor = product_->factors[product_->factor_of[p]];
    const std::size_t j = product_->local_of[p];
    lower_[p] = factor.lower_bound(j);
    upper_[p] = factor.upper_bound(j);
    used_[p] = factor.used_values(j);
  }
}

std::size_t SearchSpace::group_count() const { return product_ ? product_->factors.size() : 0; }
const SearchSpace& SearchSpace::group(std::size_t c) const {
  if (c >= group_count()) throw std::out_of_range(fmt::format("group {} of {}", c, group_count()));
  return product_->factors[c];
}
const std::vector<std::size_t>& SearchSpace::group_params(std::size_t c) const {
  if (c >= group_count()) throw std::out_of_range(fmt::format("group {} of {}", c, group_count()));
  return product_->params[c];
}
std::size_t SearchSpace::group_stride(std::size_t c) const {
  if (c >= group_count()) throw std::out_of_range(fmt::format("group {} of {}", c, group_count()));
  return static_cast<std::size_t>(product_->stride[c]);
}

std::uint32_t SearchSpace::lazy_value_index(std::size_t config, std::size_t param) const {
  return product_->value_index(config, param);
}

SearchSpace::SearchSpace(SearchSpace&&) noexcept = default;
SearchSpace& SearchSpace::operator=(SearchSpace&&) noexcept = default;
SearchSpace::~SearchSpace() = default;

SearchSpace SearchSpace::from_configs(Problem problem, const std::vector<Config>& configs) {
  std::vector<std::size_t> order(problem.parameters.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  return from_configs(std::move(problem), configs, std::move(order));
}

SearchSpace SearchSpace::from_configs(Problem problem, const std::vector<Config>& configs,
                                      std::vector<std::size_t> order) {
  const auto start = std::chrono::steady_clock::now();
  problem.validate();
  const std::size_t d = problem.parameters.size();
  {
    std::vector<char> seen(d, 0);
    bool ok = order.size() == d;
    for (std::size_t p : order) {
      if (!ok || p >= d || seen[p]) { ok = false; break; }
      seen[p] = 1;
    }
    if (!ok) throw std::invalid_argument("from_configs: the order is not a permutation of the parameter indices");
  }
  std::uint32_t max_index = 0;
  for (const auto& p : problem.parameters)
    max_index = std::max<std::uint32_t>(max_index, static_cast<std::uint32_t>(p.values.size() - 1));
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Config& c = configs[i];
    if (c.size() != d)
      throw std::invalid_argument(fmt::format("configuration {} has {} values, expected {}", i, c.size(), d));
    for (std::size_t p = 0; p < d; ++p)
      if (c[p] >= problem.parameters[p].values.size())
        throw std::invalid_argument(fmt::format("configuration {}: value index {} of parameter '{}' is out of range "
                                                "({} values)", i, c[p], problem.parameters[p].name,
                                                problem.parameters[p].values.size()));
  }
  // Sort under the order and drop duplicates, through a permutation to avoid copying the configs.
  std::vector<std::uint32_t> perm(configs.size());
  std::iota(perm.begin(), perm.end(), 0u);
  std::sort(perm.begin(), perm.end(), [&](std::uint32_t a, std::uint32_t b) {
    for (std::size_t p : order)
      if (configs[a][p] != configs[b][p]) return configs[a][p] < configs[b][p];
    return false;
  });
  perm.erase(std::unique(perm.begin(), perm.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return configs[a] == configs[b]; }),
             perm.end());
  IndexMatrix matrix(d, max_index);
  if (d == 0) {
    if (!configs.empty()) matrix.push_row(nullptr);
  } else {
    matrix.reserve_rows(perm.size());
    for (std::uint32_t i : perm) matrix.push_row(configs[i].data());
  }
  ConstructionReport report;
  report.cartesian_size = problem.cartesian_size();
  report.order = std::move(order);
  SearchSpace space(std::move(problem), std::move(matrix), std::move(report));
  space.report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return space;
}

SearchSpace::Index::Index(SearchSpace& space) {
  space.matrix_.visit_rows([&](auto at) { index_rows(space, at); });  // one dispatch on the layout
}

template <class Rows>
void SearchSpace::Index::index_rows(SearchSpace& space, Rows at) {
  const std::size_t d = space.num_params();
  const std::size_t n = space.size();
  const auto& ord = space.report_.order;
  const IndexMatrix& matrix = space.matrix_;

  // A plain matrix's rows are found through a hash index, built on a second thread (large spaces) while this one
  // computes the used values (true bounds), the first lexicographic depth at which each row differs from the
  // previous one, and the prefix index. One thread inserts in row order, so the table is the same whatever the
  // threading. A packed matrix's rows are sorted words: a directory of their top bits narrows a binary search.
  const bool hashed = !matrix.is_packed() && n > 0 && d > 0;
  const std::size_t slots = hashed ? std::max<std::size_t>(n + n / 2 + n / 8, 4) : 0;  // load ~0.6
  hash_slots.clear();
  hash_slot_count = slots;
  std::exception_ptr hash_failure;
  auto build_hash = [this, &matrix, n, slots, &hash_failure] {
    try {
      hash_slots.assign(slots, 0);
      // Inserts in row order with the slots a few rows ahead prefetched: the table is larger than the caches, and
      // overlapping its misses is what makes this pass fast. The home slots are hashed a chunk ahead, in a small
      // double buffer (a tight loop over consecutive rows), not for every row at once: that array was 4 bytes per
      // configuration of the construction's peak memory.
      const std::uint8_t* bytes = matrix.data();
      const std::size_t row_bytes = matrix.row_bytes();
      constexpr std::size_t chunk = 4096, ahead = 48;
      static_assert(ahead <= chunk, "a prefetch looks at most into the next chunk");
      std::vector<std::uint32_t> home(n <= chunk ? n : 2 * chunk);  // indexed by row % (2 * chunk)
      const auto hash_chunk = [&](std::size_t begin) {
        for (std::size_t r = begin; r < std::min(n, begin + chunk); ++r)
          home[r % (2 * chunk)] =
              static_cast<std::uint32_t>(home_slot(row_hash(bytes + r * row_bytes, row_bytes), slots));
      };
      hash_chunk(0);
      for (std::size_t begin = 0; begin < n; begin += chunk) {
        hash_chunk(begin + chunk);  // the next chunk's, for the prefetches across the boundary
        for (std::size_t r = begin; r < std::min(n, begin + chunk); ++r) {
          if (r + ahead < n) __builtin_prefetch(&hash_slots[home[(r + ahead) % (2 * chunk)]], 1);
          std::size_t s = home[r % (2 * chunk)];
          while (hash_slots[s] != 0) s = next_slot(s, slots);
          hash_slots[s] = static_cast<std::uint32_t>(r + 1);
        }
      }
    } catch (...) {
      hash_failure = std::current_exception();
    }
  };
  std::jthread hasher;  // joins when it goes out of scope, also on an exception below
  if (slots > 0) {
    if (n >= (std::size_t{1} << 16)) hasher = std::jthread(build_hash);
    else build_hash();
  }
  if (matrix.is_packed()) build_directory(matrix, n);

  std::vector<std::vector<char>> present(d);
  for (std::size_t p = 0; p < d; ++p) present[p].assign(space.param_values(p).size(), 0);
  // diff[r]: the first lexicographic depth at which row r differs from row r - 1 (0 for the first row), capped at
  // 255. Plain rows compare column by column and keep it (a byte per row) for the trie pass; packed rows read it off
  // the top bit of the two words' xor, in both passes, and keep nothing.
  constexpr bool packed = requires { at.word(std::size_t{0}); };
  std::array<std::uint8_t, 64> depth_of_bit{};
  for (std::size_t k = 0; packed && k < d; ++k)
    for (unsigned b = 0; b < 32 && ((matrix.mask(ord[k]) >> b) & 1u); ++b)
      depth_of_bit[matrix.shift(ord[k]) + b] = static_cast<std::uint8_t>(std::min<std::size_t>(k, 255));
  auto first_difference = [&](std::size_t r) -> std::size_t {
    std::size_t k = 0;
    if constexpr (packed) {
      const std::uint64_t x = r == 0 ? 0 : std::uint64_t{at.word(r)} ^ at.word(r - 1);
      if (x != 0) k = depth_of_bit[63 - std::countl_zero(x)];
    } else if (r > 0) {
      while (k < d && at(r, ord[k]) == at(r - 1, ord[k])) ++k;
    }
    return k;
  };
  std::vector<std::uint8_t> diff(packed ? 0 : n, 0);
  std::vector<std::size_t> starts(d, 0);  // rows with diff == k
  for (std::size_t r = 0; r < n; ++r) {
    const std::size_t k = first_difference(r);
    // Only the columns at depths >= k can hold a value the rows above did not (usually one or two of them).
    for (std::size_t j = k; j < d; ++j) present[ord[j]][at(r, ord[j])] = 1;
    if constexpr (!packed) diff[r] = static_cast<std::uint8_t>(std::min<std::size_t>(k, 255));
    if (k < d) ++starts[k];
  }
  space.lower_.assign(d, 0);
  space.upper_.assign(d, 0);
  space.used_.assign(d, {});
  for (std::size_t p = 0; p < d; ++p) {
    for (std::uint32_t v = 0; v < present[p].size(); ++v)
      if (present[p][v]) space.used_[p].push_back(v);
    if (!space.used_[p].empty()) {
      space.lower_[p] = space.used_[p].front();
      space.upper_[p] = space.used_[p].back();
    }
  }

  // Prefix trie over the top levels. Row r starts a new node in every level >= diff[r]. Level k has
  // #{r : diff[r] <= k} nodes.
  trie_value.clear();
  trie_rows.clear();
  trie_children.clear();
  if (n > 0 && d > 0) {
    // Node budget: what keeps the eager structures within ~24 bytes per configuration (12 bytes per node), at
    // least n/4 nodes; construction transients then keep the peak near 32 bytes per configuration. A packed
    // space is kept compact: n/16 nodes (0.75 bytes per configuration).
    const std::size_t base = matrix.memory_bytes() + slots * sizeof(std::uint32_t);
    std::size_t budget = matrix.is_packed() ? n / 16 : std::max(n / 4, (24 * n > base ? 24 * n - base : 0) / 12);
    if (const std::size_t cap = trie_budget_cap.load(); cap != no_cap) budget = std::min(budget, cap);
    std::size_t levels = 0, total = 0, nodes = 0;
    while (levels < std::min<std::size_t>(d, 255)) {
      nodes += starts[levels];
      if (total + nodes > budget) break;
      total += nodes;
      ++levels;
    }
    trie_value.resize(levels);
    trie_rows.resize(levels);
    trie_children.resize(levels > 0 ? levels - 1 : 0);
    for (std::size_t k = 0, count = 0; k < levels; ++k) {  // exact sizes: no growth transients
      count += starts[k];
      trie_value[k].reserve(count);
      trie_rows[k].reserve(count + 1);
      if (k + 1 < levels) trie_children[k].reserve(count + 1);
    }
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t k = packed ? std::min<std::size_t>(first_difference(r), 255) : diff[r]; k < levels; ++k) {
        trie_value[k].push_back(at(r, ord[k]));
        trie_rows[k].push_back(static_cast<std::uint32_t>(r));
        if (k + 1 < levels) trie_children[k].push_back(static_cast<std::uint32_t>(trie_value[k + 1].size()));
      }
    for (std::size_t k = 0; k < levels; ++k) {
      trie_rows[k].push_back(static_cast<std::uint32_t>(n));
      if (k + 1 < levels) trie_children[k].push_back(static_cast<std::uint32_t>(trie_value[k + 1].size()));
    }
  }

  // Value lookups for config_of.
  value_lookup.reserve(d);
  for (std::size_t p = 0; p < d; ++p) {
    ValueLookup& lookup = value_lookup.emplace_back();
    const auto& values = space.param_values(p);
    for (std::uint32_t j = 0; j < values.size(); ++j) {
      const Value& v = values[j];
      if (v.is_numeric()) lookup.numeric.emplace_back(v.to_double(), j);
      else if (v.is_string()) lookup.strings.emplace(v.as_string(), j);  // first wins; lists hold no duplicates
      else lookup.others.push_back(j);
    }
    std::stable_sort(lookup.numeric.begin(), lookup.numeric.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  if (hasher.joinable()) hasher.join();
  if (hash_failure) std::rethrow_exception(hash_failure);
}

void set_trie_budget_for_testing(std::optional<std::size_t> nodes) {
  trie_budget_cap.store(nodes ? *nodes : no_cap);
}

void SearchSpace::Index::build_directory(const IndexMatrix& matrix, std::size_t n) {
  // The word's used bits, and a directory of 2^k buckets of its top k bits, at least 16 rows per bucket on average
  // (at most 0.25 bytes per configuration).
  unsigned bits = 0;
  for (std::size_t c = 0; c < matrix.cols(); ++c)
    if (matrix.mask(c) != 0) bits = std::max(bits, matrix.shift(c) + std::bit_width(matrix.mask(c)));
  unsigned k = 0;
  while (k < bits && k < 32 && (std::uint64_t{16} << k) <= n) ++k;
  directory_shift = bits - k;
  directory.assign((std::size_t{1} << k) + 1, 0);
  // directory[j] = the first row whose bucket is >= j; rows ascend, so one pass fills every bucket up to each row's.
  std::size_t next = 0;
  for (std::size_t r = 0; r < n; ++r) {
    const std::uint64_t bucket = bucket_of(matrix.word(r));
    for (; next <= bucket; ++next) directory[next] = static_cast<std::uint32_t>(r);
  }
  for (; next < directory.size(); ++next) directory[next] = static_cast<std::uint32_t>(n);
}

std::size_t SearchSpace::Index::find_word(const IndexMatrix& matrix, std::uint64_t word) const {
  const std::uint64_t bucket = bucket_of(word);
  std::size_t first = directory[bucket], count = directory[bucket + 1] - first;
  while (count > 0) {  // lower bound of word among the bucket's rows
    const std::size_t half = count / 2;
    if (matrix.word(first + half) < word) {
      first += half + 1;
      count -= half + 1;
    } else {
      count = half;
    }
  }
  return first < directory[bucket + 1] && matrix.word(first) == word ? first : SIZE_MAX;
}

std::optional<std::size_t> SearchSpace::Index::find_row(const SearchSpace& space, const std::uint32_t* config) const {
  const std::size_t d = space.num_params();
  if (space.matrix_.is_packed()) {
    const std::size_t r = find_word(space.matrix_, space.matrix_.pack(config));
    return r == SIZE_MAX ? std::nullopt : std::optional<std::size_t>(r);
  }
  if (hash_slots.empty()) return std::nullopt;
  const unsigned width = space.matrix_.width();
  const std::size_t row_bytes = d * width;
  EncodedKey encoded(config, d, width);
  const std::uint8_t* key = encoded.data();
  std::uint64_t s = home_slot(row_hash(key, row_bytes), hash_slot_count);
  const std::uint8_t* data = space.matrix_.data();
  for (;;) {
    const std::uint32_t slot = hash_slots[s];
    if (slot == 0) return std::nullopt;
    const std::size_t r = slot - 1;
    if (std::memcmp(data + r * row_bytes, key, row_bytes) == 0) return r;
    s = next_slot(s, hash_slot_count);
  }
}

void SearchSpace::Index::find_variants(const SearchSpace& space, const std::uint32_t* config, std::span<const Edit> edits,
                                       std::size_t* rows) const {
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  const std::size_t d = space.num_params();
  const std::size_t k = edits.size();
  if (space.matrix_.is_packed()) {
    const IndexMatrix& matrix = space.matrix_;
    const std::uint64_t word = matrix.pack(config);
    for (std::size_t e = 0; e < k; ++e) {
      const unsigned shift = matrix.shift(edits[e].param);
      const std::uint64_t mask = std::uint64_t{matrix.mask(edits[e].param)} << shift;
      rows[e] = find_word(matrix, (word & ~mask) | ((std::uint64_t{edits[e].value} << shift) & mask));
    }
    return;
  }
  if (hash_slots.empty()) {
    std::fill(rows, rows + k, none);
    return;
  }
  const unsigned width = space.matrix_.width();
  const std::size_t row_bytes = d * width;
  const std::uint8_t* data = space.matrix_.data();
  EncodedKey encoded(config, d, width);
  std::uint8_t* key = encoded.data();
  // Hash states after each full word of the key: a variant's hash continues from the state before the word that
  // holds its parameter.
  std::vector<std::uint64_t> prefix(row_bytes / 8 + 1);
  prefix[0] = kHashSeed;
  for (std::size_t w = 0; w + 1 < prefix.size(); ++w) prefix[w + 1] = mix_step(prefix[w], load_word(key + 8 * w));
  // Pass 1: slots, prefetched.
  std::vector<std::uint64_t> slot(k);
  for (std::size_t e = 0; e < k; ++e) {
    const std::size_t at = edits[e].param * width, from = row_bytes < 8 ? 0 : at / 8 * 8;
    encode(&edits[e].value, 1, width, key + at);
    slot[e] = home_slot(mix_final(hash_row_from(prefix[from / 8], key, row_bytes, from)), hash_slot_count);
    encode(&config[edits[e].param], 1, width, key + at);  // the key is config's again
    __builtin_prefetch(&hash_slots[slot[e]]);
  }
  // Pass 2: first candidate rows, prefetched.
  for (std::size_t e = 0; e < k; ++e) {
    const std::uint32_t v = hash_slots[slot[e]];
    rows[e] = v == 0 ? none : v - 1;
    if (v != 0) __builtin_prefetch(data + rows[e] * row_bytes);
  }
  // Pass 3: compare, continuing the linear probe on a mismatch.
  for (std::size_t e = 0; e < k; ++e) {
    if (rows[e] == none) continue;
    const std::size_t p = edits[e].param;
    encode(&edits[e].value, 1, width, key + p * width);
    std::uint64_t s = slot[e];
    std::size_t r = rows[e];
    rows[e] = none;
    for (;;) {
      if (std::memcmp(data + r * row_bytes, key, row_bytes) == 0) {
        rows[e] = r;
        break;
      }
      s = next_slot(s, hash_slot_count);
      const std::uint32_t v = hash_slots[s];
      if (v == 0) break;
      r = v - 1;
    }
    encode(&config[p], 1, width, key + p * width);
  }
}

std::optional<std::size_t> SearchSpace::index_of(std::span<const std::uint32_t> config) const {
  const std::size_t d = num_params();
  if (config.size() != d || size() == 0) return std::nullopt;
  for (std::size_t p = 0; p < d; ++p)
    if (config[p] >= param_values(p).size()) return std::nullopt;
  if (d == 0) return std::size_t{0};
  if (product_) return product_->index_of(config);
  return index_->find_row(*this, config.data());
}

std::size_t SearchSpace::Index::lower_row(const SearchSpace& space, std::size_t begin, std::size_t end,
                                          std::size_t depth, std::uint32_t value) {
  const IndexMatrix& matrix = space.matrix_;
  const std::size_t col = space.report_.order[depth];
  // Galloping from begin, then binary search: cheap when the answer is near begin, O(log n) otherwise.
  if (begin >= end || matrix.get(begin, col) >= value) return begin;
  std::size_t lo = begin;  // invariant: get(lo) < value
  std::size_t step = 1;
  std::size_t hi = end;    // invariant: hi == end or get(hi) >= value
  while (lo + step < end) {
    if (matrix.get(lo + step, col) >= value) { hi = lo + step; break; }
    lo += step;
    step *= 2;
  }
  // Answer in (lo, hi].
  std::size_t count = hi - lo - 1;
  std::size_t first = lo + 1;
  while (count > 0) {
    const std::size_t half = count / 2;
    if (matrix.get(first + half, col) < value) {
      first += half + 1;
      count -= half + 1;
    } else {
      count = half;
    }
  }
  return first;
}

Config SearchSpace::config_at(std::size_t index) const {
  if (index >= size()) throw std::out_of_range(fmt::format("configuration index {} >= size {}", index, size()));
  Config c(num_params());
  if (product_) product_->config_at(index, c.data());
  else matrix_.row(index, c.data());
  return c;
}

std::vector<Value> SearchSpace::values_at(std::size_t index) const { return values_of(config_at(index)); }

std::vector<Value> SearchSpace::values_of(const Config& config) const {
  const std::size_t d = num_params();
  if (config.size() != d)
    throw std::invalid_argument(fmt::format("configuration has {} value indices, expected {}", config.size(), d));
  std::vector<Value> out;
  out.reserve(d);
  for (std::size_t p = 0; p < d; ++p) {
    if (config[p] >= param_values(p).size())
      throw std::out_of_range(fmt::format("value index {} of parameter '{}' is out of range ({} values)", config[p],
                                          param_name(p), param_values(p).size()));
    out.push_back(param_values(p)[config[p]]);
  }
  return out;
}

std::optional<Config> SearchSpace::config_of(const std::vector<Value>& values) const {
  const std::size_t d = num_params();
  if (values.size() != d) return std::nullopt;
  Config out(d);
  for (std::size_t p = 0; p < d; ++p) {
    const Value& v = values[p];
    const Index::ValueLookup& lookup =
        product_ ? product_->factors[product_->factor_of[p]].index_->value_lookup[product_->local_of[p]]
                 : index_->value_lookup[p];
    const auto& list = param_values(p);
    std::optional<std::uint32_t> found;
    if (v.is_numeric()) {
      const double key = v.to_double();
      auto [b, e] = std::equal_range(lookup.numeric.begin(), lookup.numeric.end(), std::make_pair(key, 0u),
                                     [](const auto& a, const auto& c) { return a.first < c.first; });
      for (auto it = b; it != e && !found; ++it)
        if (same_value(list[it->second], v)) found = it->second;
      for (auto it = b; it != e && !found; ++it)
        if (python_equal(list[it->second], v)) found = it->second;
    } else if (v.is_string()) {
      if (auto it = lookup.strings.find(v.as_string()); it != lookup.strings.end()) found = it->second;
    } else {
      for (std::uint32_t j : lookup.others)
        if (same_value(list[j], v)) { found = j; break; }
      if (!found)
        for (std::uint32_t j : lookup.others)
          if (python_equal(list[j], v)) { found = j; break; }
    }
    if (!found) return std::nullopt;
    out[p] = *found;
  }
  return out;
}

bool SearchSpace::is_valid(const std::vector<Value>& values) const {
  const auto config = config_of(values);
  return config && index_of(*config).has_value();
}

std::vector<std::size_t> SearchSpace::tunable_params() const {
  std::vector<std::size_t> out;
  for (std::size_t p = 0; p < num_params(); ++p)
    if (used_[p].size() > 1) out.push_back(p);
  return out;
}

std::size_t SearchSpace::memory_bytes() const {
  std::size_t bytes = matrix_.memory_bytes() + (index_ ? index_->memory_bytes() : 0);
  if (product_) bytes += product_->memory_bytes();
  bytes += (lower_.capacity() + upper_.capacity()) * sizeof(std::uint32_t);
  for (const auto& u : used_) bytes += u.capacity() * sizeof(std::uint32_t);
  return bytes;
}

std::size_t SearchSpace::Index::memory_bytes() const {
  std::size_t bytes = (hash_slots.capacity() + directory.capacity()) * sizeof(std::uint32_t);
  for (const auto* level : {&trie_value, &trie_rows, &trie_children})
    for (const auto& v : *level) bytes += v.capacity() * sizeof(std::uint32_t);
  for (const auto& l : value_lookup) {
    bytes += sizeof(ValueLookup) + l.numeric.capacity() * sizeof(l.numeric[0]) +
             l.others.capacity() * sizeof(std::uint32_t);
    for (const auto& [s, j] : l.strings) bytes += s.capacity() + sizeof(j) + 2 * sizeof(void*);
  }
  return bytes;
}

std::optional<NeighbourMethod> parse_neighbour_method(std::string_view name) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string n = lower(name);
  if (n == "strictly-adjacent") return NeighbourMethod::StrictlyAdjacent;
  if (n == "adjacent") return NeighbourMethod::Adjacent;
  if (n == "hamming") return NeighbourMethod::Hamming;
  if (n == "hamming-adjacent") return NeighbourMethod::HammingAdjacent;
  if (n == "closest-param-indices") return NeighbourMethod::ClosestParamIndices;
  return std::nullopt;
}

std::optional<SpaceForm> parse_space_form(std::string_view name) {
  if (name == "auto" || name == "automatic") return SpaceForm::automatic;
  if (name == "materialised" || name == "materialized") return SpaceForm::materialised;
  if (name == "lazy") return SpaceForm::lazy;
  return std::nullopt;
}

const char* to_string(SpaceForm form) {
  switch (form) {
    case SpaceForm::automatic: return "auto";
    case SpaceForm::materialised: return "materialised";
    case SpaceForm::lazy: return "lazy";
  }
  return "unknown";
}

const char* to_string(NeighbourMethod method) {
  switch (method) {
    case NeighbourMethod::StrictlyAdjacent: return "strictly-adjacent";
    case NeighbourMethod::Adjacent: return "adjacent";
    case NeighbourMethod::Hamming: return "Hamming";
    case NeighbourMethod::HammingAdjacent: return "Hamming-adjacent";
    case NeighbourMethod::ClosestParamIndices: return "closest-param-indices";
  }
  return "unknown";
}

}  // namespace ktune
