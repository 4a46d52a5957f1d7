#pragma once
// N configurations x d parameters of value indices, row-major, stored in the smallest unsigned width (1, 2 or 4
// bytes) that holds every parameter's largest value index. The compact form everything hot works on.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ktune {

class IndexMatrix {
 public:
  IndexMatrix() = default;
  // max_index: the largest value index any column can hold.
  IndexMatrix(std::size_t cols, std::uint32_t max_index)
      : cols_(cols), width_(max_index <= 0xFFu ? 1 : (max_index <= 0xFFFFu ? 2 : 4)) {}

  // An empty matrix of the same column count and width.
  IndexMatrix same_shape() const {
    IndexMatrix m;
    m.cols_ = cols_;
    m.width_ = width_;
    return m;
  }
  std::size_t rows() const { return cols_ == 0 ? rows_ : bytes_.size() / (cols_ * width_); }
  std::size_t cols() const { return cols_; }
  unsigned width() const { return width_; }

  std::uint32_t get(std::size_t row, std::size_t col) const {
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
  void push_row(const std::uint32_t* values) {
    if (cols_ == 0) {
      ++rows_;
      return;
    }
    const std::size_t base = bytes_.size();
    bytes_.resize(base + cols_ * width_);
    std::uint8_t* p = bytes_.data() + base;
    if (width_ == 1) {
      for (std::size_t c = 0; c < cols_; ++c) p[c] = static_cast<std::uint8_t>(values[c]);
    } else {
      for (std::size_t c = 0; c < cols_; ++c) store(p, c, values[c]);
    }
  }
  void set(std::size_t row, std::size_t col, std::uint32_t value) { store(bytes_.data() + row * cols_ * width_, col, value); }
  void resize_rows(std::size_t n) {
    if (cols_ == 0) rows_ = n;
    else bytes_.resize(n * cols_ * width_);
  }
  // Appends rows [begin, end) of `block` (same shape).
  void append_rows(const IndexMatrix& block, std::size_t begin, std::size_t end) {
    const std::size_t stride = cols_ * width_;
    if (cols_ == 0) {
      rows_ += end - begin;
      return;
    }
    bytes_.insert(bytes_.end(), block.bytes_.begin() + static_cast<std::ptrdiff_t>(begin * stride),
                  block.bytes_.begin() + static_cast<std::ptrdiff_t>(end * stride));
  }
  void reserve_rows(std::size_t n) { bytes_.reserve(n * cols_ * width_); }
  void shrink_to_fit() { bytes_.shrink_to_fit(); }
  void append(const IndexMatrix& other) {  // same shape required
    bytes_.insert(bytes_.end(), other.bytes_.begin(), other.bytes_.end());
    rows_ += other.rows_;
  }
  std::size_t memory_bytes() const { return bytes_.capacity(); }
  const std::uint8_t* data() const { return bytes_.data(); }

 private:
  void store(std::uint8_t* p, std::size_t c, std::uint32_t v) {
    switch (width_) {
      case 1: p[c] = static_cast<std::uint8_t>(v); break;
      case 2: { auto s = static_cast<std::uint16_t>(v); std::memcpy(p + 2 * c, &s, 2); break; }
      default: std::memcpy(p + 4 * c, &v, 4); break;
    }
  }
  std::size_t cols_ = 0;
  unsigned width_ = 1;
  std::size_t rows_ = 0;  // only used when cols_ == 0 (a problem whose every parameter was folded away)
  std::vector<std::uint8_t> bytes_;
};

}  // namespace ktune
