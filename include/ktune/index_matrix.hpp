#pragma once
// N configurations x d parameters of value indices, in one of two layouts, the compact form everything hot works on:
//   plain   row-major, one element per parameter in the smallest unsigned width (1, 2 or 4 bytes) that holds every
//           parameter's largest value index;
//   packed  one 32- or 64-bit word per row, each parameter in as many bits as its values need, the parameters of a
//           given order from the most significant bit down: rows sorted lexicographically in that order are then
//           sorted as unsigned numbers, so a row is found by binary search instead of a hash index. Large spaces use
//           it (10 parameters of 8 values: 4 bytes a row instead of 10, and no 8 bytes of hash slots).
// Loops over many elements read them through a row reader (visit_rows) to dispatch on the layout once.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace ktune {

// Reads element (row, col) of a plain matrix of element type T.
template <class T>
struct PlainRows {
  static constexpr bool kBytes = sizeof(T) == 1;  // one byte per element: rows may be compared as byte vectors
  const std::uint8_t* bytes;
  std::size_t cols;
  std::uint32_t operator()(std::size_t row, std::size_t col) const {
    if constexpr (sizeof(T) == 1) {
      return bytes[row * cols + col];
    } else {
      T v;  // only byte alignment is guaranteed
      std::memcpy(&v, bytes + (row * cols + col) * sizeof(T), sizeof(T));
      return v;
    }
  }
};

// Reads element (row, col) of a packed matrix whose rows are words of type W.
template <class W>
struct PackedRows {
  static constexpr bool kBytes = false;
  const std::uint8_t* bytes;
  const std::uint8_t* shift;
  const std::uint32_t* mask;
  W word(std::size_t row) const {
    W w;
    std::memcpy(&w, bytes + row * sizeof(W), sizeof(W));
    return w;
  }
  std::uint32_t operator()(std::size_t row, std::size_t col) const {
    return static_cast<std::uint32_t>(word(row) >> shift[col]) & mask[col];
  }
};

class IndexMatrix {
 public:
  IndexMatrix() = default;
  // A plain matrix. max_index: the largest value index any column can hold.
  IndexMatrix(std::size_t cols, std::uint32_t max_index)
      : cols_(cols), width_(max_index <= 0xFFu ? 1 : (max_index <= 0xFFFFu ? 2 : 4)) {}
  // A packed matrix for columns of value_counts[c] values each, packed in msb_first order (a permutation of the
  // columns; msb_first[0] in the most significant bits). nullopt if a row needs more than 64 bits or the shapes
  // disagree.
  static std::optional<IndexMatrix> packed(std::span<const std::uint32_t> value_counts,
                                           std::span<const std::size_t> msb_first) {
    const std::size_t cols = value_counts.size();
    if (cols == 0 || msb_first.size() != cols) return std::nullopt;
    IndexMatrix m;
    m.cols_ = cols;
    m.packed_ = true;
    m.shift_.assign(cols, 0);
    m.mask_.assign(cols, 0);
    std::vector<char> seen(cols, 0);
    unsigned bits = 0;
    for (std::size_t k = cols; k-- > 0;) {  // least significant first
      const std::size_t c = msb_first[k];
      if (c >= cols || seen[c]) return std::nullopt;
      seen[c] = 1;
      unsigned b = 0;
      while (b < 32 && (std::uint64_t{1} << b) < value_counts[c]) ++b;
      if (b == 0) continue;  // one value: no bits (shift 0, mask 0)
      if (bits + b > 64) return std::nullopt;
      m.shift_[c] = static_cast<std::uint8_t>(bits);
      m.mask_[c] = static_cast<std::uint32_t>((std::uint64_t{1} << b) - 1);
      bits += b;
    }
    m.width_ = bits <= 32 ? 4 : 8;
    return m;
  }

  // An empty matrix of the same layout.
  IndexMatrix same_shape() const {
    IndexMatrix m;  // (not a copy of *this: that would copy every row first)
    m.cols_ = cols_;
    m.width_ = width_;
    m.packed_ = packed_;
    m.shift_ = shift_;
    m.mask_ = mask_;
    return m;
  }
  std::size_t rows() const { return cols_ == 0 ? rows_ : bytes_.size() / row_bytes(); }
  std::size_t cols() const { return cols_; }
  bool is_packed() const { return packed_; }
  // Plain: bytes per element. Packed: bytes per row (the word).
  unsigned width() const { return width_; }
  std::size_t row_bytes() const { return packed_ ? width_ : cols_ * width_; }

  std::uint32_t get(std::size_t row, std::size_t col) const {
    if (packed_) return static_cast<std::uint32_t>(word(row) >> shift_[col]) & mask_[col];
    const std::size_t i = row * cols_ + col;
    switch (width_) {
      case 1: return bytes_[i];
      case 2: { std::uint16_t v; std::memcpy(&v, bytes_.data() + 2 * i, 2); return v; }
      default: { std::uint32_t v; std::memcpy(&v, bytes_.data() + 4 * i, 4); return v; }
    }
  }
  void row(std::size_t r, std::uint32_t* out) const {
    for (std::size_t c = 0; c < cols_; ++c) out[c] = get(r, c);
  }
  // Packed only: row r's word, and the word a row of these values would have (every value in range).
  std::uint64_t word(std::size_t r) const {
    if (width_ == 4) {
      std::uint32_t w;
      std::memcpy(&w, bytes_.data() + 4 * r, 4);
      return w;
    }
    std::uint64_t w;
    std::memcpy(&w, bytes_.data() + 8 * r, 8);
    return w;
  }
  std::uint64_t pack(const std::uint32_t* values) const {
    std::uint64_t w = 0;
    for (std::size_t c = 0; c < cols_; ++c) w |= std::uint64_t{values[c] & mask_[c]} << shift_[c];
    return w;
  }
  unsigned shift(std::size_t col) const { return shift_[col]; }
  std::uint32_t mask(std::size_t col) const { return mask_[col]; }

  void push_row(const std::uint32_t* values) {
    if (cols_ == 0) {
      ++rows_;
      return;
    }
    const std::size_t base = bytes_.size();
    bytes_.resize(base + row_bytes());
    std::uint8_t* p = bytes_.data() + base;
    if (packed_) {
      store_word(p, pack(values));
    } else if (width_ == 1) {
      for (std::size_t c = 0; c < cols_; ++c) p[c] = static_cast<std::uint8_t>(values[c]);
    } else {
      for (std::size_t c = 0; c < cols_; ++c) store(p, c, values[c]);
    }
  }
  void set(std::size_t row, std::size_t col, std::uint32_t value) {
    std::uint8_t* p = bytes_.data() + row * row_bytes();
    if (packed_) {
      const std::uint64_t m = std::uint64_t{mask_[col]} << shift_[col];
      store_word(p, (word(row) & ~m) | ((std::uint64_t{value} << shift_[col]) & m));
    } else {
      store(p, col, value);
    }
  }
  void resize_rows(std::size_t n) {
    if (cols_ == 0) rows_ = n;
    else bytes_.resize(n * row_bytes());
  }
  // Appends rows [begin, end) of `block` (same layout).
  void append_rows(const IndexMatrix& block, std::size_t begin, std::size_t end) {
    const std::size_t stride = row_bytes();
    if (cols_ == 0) {
      rows_ += end - begin;
      return;
    }
    bytes_.insert(bytes_.end(), block.bytes_.begin() + static_cast<std::ptrdiff_t>(begin * stride),
                  block.bytes_.begin() + static_cast<std::ptrdiff_t>(end * stride));
  }
  void reserve_rows(std::size_t n) { bytes_.reserve(n * row_bytes()); }
  void shrink_to_fit() { bytes_.shrink_to_fit(); }
  // Appends every row of `other`, which has the same columns; rows of another layout are converted one by one.
  void append(const IndexMatrix& other) {
    if (packed_ == other.packed_ && width_ == other.width_ && shift_ == other.shift_) {
      bytes_.insert(bytes_.end(), other.bytes_.begin(), other.bytes_.end());
      rows_ += other.rows_;
      return;
    }
    std::vector<std::uint32_t> row(cols_);
    for (std::size_t r = 0; r < other.rows(); ++r) {
      other.row(r, row.data());
      push_row(row.data());
    }
  }
  std::size_t memory_bytes() const { return bytes_.capacity() + shift_.capacity() + mask_.capacity() * 4; }
  const std::uint8_t* data() const { return bytes_.data(); }

  // Calls f with the reader of this matrix's layout (PlainRows<uint8_t/uint16_t/uint32_t> or
  // PackedRows<uint32_t/uint64_t>) and returns what it returns.
  template <class F>
  decltype(auto) visit_rows(F&& f) const {
    const std::uint8_t* b = bytes_.data();
    if (packed_) {
      if (width_ == 4) return f(PackedRows<std::uint32_t>{b, shift_.data(), mask_.data()});
      return f(PackedRows<std::uint64_t>{b, shift_.data(), mask_.data()});
    }
    switch (width_) {
      case 1: return f(PlainRows<std::uint8_t>{b, cols_});
      case 2: return f(PlainRows<std::uint16_t>{b, cols_});
      default: return f(PlainRows<std::uint32_t>{b, cols_});
    }
  }

 private:
  void store(std::uint8_t* p, std::size_t c, std::uint32_t v) {
    switch (width_) {
      case 1: p[c] = static_cast<std::uint8_t>(v); break;
      case 2: { auto s = static_cast<std::uint16_t>(v); std::memcpy(p + 2 * c, &s, 2); break; }
      default: std::memcpy(p + 4 * c, &v, 4); break;
    }
  }
  void store_word(std::uint8_t* p, std::uint64_t w) const {
    if (width_ == 4) {
      const auto w32 = static_cast<std::uint32_t>(w);
      std::memcpy(p, &w32, 4);
    } else {
      std::memcpy(p, &w, 8);
    }
  }
  std::size_t cols_ = 0;
  unsigned width_ = 1;
  bool packed_ = false;
  std::size_t rows_ = 0;  // only used when cols_ == 0 (a problem whose every parameter was folded away)
  std::vector<std::uint8_t> shift_;   // packed: per column, its lowest bit in the word
  std::vector<std::uint32_t> mask_;   // packed: per column, (1 << its bits) - 1
  std::vector<std::uint8_t> bytes_;
};

}  // namespace ktune
