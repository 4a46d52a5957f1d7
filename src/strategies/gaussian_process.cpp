#include "strategies/gaussian_process.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <Eigen/Dense>

namespace ktune::strategies {

// Per candidate rows are contiguous: candidates come and go one at a time, and fresh rows are solved as a block.
using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct GaussianProcess::Factors {
  Eigen::MatrixXd l;             // lower Cholesky factor of K(X, X) + noise I (top-left n x n used)
  Eigen::MatrixXd kxx;           // K(X, X), the kernel among the training points (top-left n x n used)
  RowMajorMatrix kcx;            // row c: k(c, X) (top-left C x n used)
  RowMajorMatrix v;              // row c: (L^-1 k(X, c))^T (columns [0, done_) of rows not fresh are current)
  Eigen::VectorXd squared_norm;  // |v_c|^2 over the current columns: the variance explained by the training points
  Eigen::VectorXd row;           // scratch
};

GaussianProcess::GaussianProcess(CovarianceKernel kernel, double lengthscale, std::size_t dims, std::size_t max_points,
                                 std::size_t max_candidates, double noise)
    : kernel_(kernel),
      inv_lengthscale_(1.0 / lengthscale),
      noise_(noise),
      dims_(dims),
      max_points_(max_points),
      max_candidates_(max_candidates),
      fresh_(max_candidates, 0),
      f_(std::make_unique<Factors>()) {
  if (!(lengthscale > 0)) throw std::invalid_argument("GaussianProcess: the length scale must be positive");
  const auto p = static_cast<Eigen::Index>(max_points), c = static_cast<Eigen::Index>(max_candidates);
  f_->l = Eigen::MatrixXd::Zero(p, p);
  // Zeroed although every entry read is written first, except V's rows of fresh candidates, which the block update
  // computes along and then replaces: they are never used, but stay defined.
  f_->kxx = Eigen::MatrixXd::Zero(p, p);
  f_->kcx = RowMajorMatrix::Zero(c, p);
  f_->v = RowMajorMatrix::Zero(c, p);
  f_->squared_norm = Eigen::VectorXd::Zero(c);
  f_->row.resize(p);
  x_.reserve(max_points * dims);
  cx_.reserve(max_candidates * dims);
  memo_.assign(std::size_t{1} << 12, {kEmpty, 0.0});
  memo_shift_ = 64 - 12;
}

GaussianProcess::~GaussianProcess() = default;
GaussianProcess::GaussianProcess(GaussianProcess&&) noexcept = default;
GaussianProcess& GaussianProcess::operator=(GaussianProcess&&) noexcept = default;

double GaussianProcess::kernel(const double* a, const double* b) const {
  double sq = 0;
  for (std::size_t i = 0; i < dims_; ++i) {
    const double t = (a[i] - b[i]) * inv_lengthscale_;
    sq += t * t;
  }
  std::uint64_t bits;
  std::memcpy(&bits, &sq, sizeof bits);
  if (bits == kEmpty || memo_.empty()) return kernel_of_squared_distance(sq);  // (empty: a moved-from process)
  const std::size_t mask = memo_.size() - 1;
  std::size_t slot = static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> memo_shift_);
  for (;; slot = (slot + 1) & mask) {
    if (memo_[slot].key == bits) return memo_[slot].value;
    if (memo_[slot].key == kEmpty) break;
  }
  const double value = kernel_of_squared_distance(sq);
  if (2 * (memo_used_ + 1) > memo_.size()) {
    // Half full: start over, twice as large up to kMaxMemo entries (a space whose distances rarely repeat).
    constexpr std::size_t kMaxMemo = std::size_t{1} << 20;
    const std::size_t size = std::min(2 * memo_.size(), kMaxMemo);
    memo_.assign(size, {kEmpty, 0.0});
    memo_shift_ = 64 - static_cast<unsigned>(std::countr_zero(size));
    memo_used_ = 0;
    slot = static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ull) >> memo_shift_);
  }
  memo_[slot] = {bits, value};
  ++memo_used_;
  return value;
}

double GaussianProcess::kernel_of_squared_distance(double sq) const {
  switch (kernel_) {
    case CovarianceKernel::Matern32: {
      const double r = std::sqrt(3.0 * sq);
      return (1.0 + r) * std::exp(-r);
    }
    case CovarianceKernel::Matern52: {
      const double r = std::sqrt(5.0 * sq);
      return (1.0 + r + r * r / 3.0) * std::exp(-r);
    }
    case CovarianceKernel::Rbf:
      break;
  }
  return std::exp(-0.5 * sq);
}

namespace {

// Row i of the Cholesky factor from the kernel row k(x_i, X[0, i)) and the rows above it. A point (nearly) in the
// span of the others would give a zero pivot: clamp it to the jitter, which amounts to a little more noise on that
// observation.
void cholesky_row(Eigen::MatrixXd& l, const Eigen::MatrixXd& kxx, Eigen::Index i, double noise, Eigen::VectorXd& row) {
  auto r = row.head(i);
  r = kxx.row(i).head(i).transpose();
  if (i > 0) l.topLeftCorner(i, i).triangularView<Eigen::Lower>().solveInPlace(r);
  l.row(i).head(i) = r.transpose();
  l(i, i) = std::sqrt(std::max(1.0 + noise - r.squaredNorm(), noise));
}

}  // namespace

void GaussianProcess::add_point(std::span<const double> x) {
  if (x.size() != dims_ || n_ >= max_points_) throw std::logic_error("GaussianProcess::add_point: bad point");
  const auto n = static_cast<Eigen::Index>(n_);
  for (Eigen::Index i = 0; i < n; ++i)
    f_->kxx(n, i) = f_->kxx(i, n) = kernel(&x_[static_cast<std::size_t>(i) * dims_], x.data());
  f_->kxx(n, n) = 1.0;
  cholesky_row(f_->l, f_->kxx, n, noise_, f_->row);
  x_.insert(x_.end(), x.begin(), x.end());
  ++n_;
  kernel_column(n_ - 1);
}

void GaussianProcess::kernel_column(std::size_t point) {
  const double* x = &x_[point * dims_];
  auto column = f_->kcx.col(static_cast<Eigen::Index>(point));
  for (std::size_t j = 0; j < c_; ++j) column[static_cast<Eigen::Index>(j)] = kernel(&cx_[j * dims_], x);
}

void GaussianProcess::clear_points() {
  n_ = 0;
  done_ = 0;
  x_.clear();
  f_->squared_norm.setZero();
  std::fill(fresh_.begin(), fresh_.end(), std::uint8_t{0});  // no column to compute for anyone
}

void GaussianProcess::keep_points(std::span<const std::size_t> positions) {
  std::vector<char> seen(n_, 0);
  for (std::size_t p : positions) {
    if (p >= n_ || seen[p]) throw std::logic_error("GaussianProcess::keep_points: bad or repeated position");
    seen[p] = 1;
  }
  const auto m = static_cast<Eigen::Index>(positions.size());
  Eigen::Index prefix = 0;  // the leading points that stay where they are keep their rows of L and columns of V
  while (prefix < m && positions[static_cast<std::size_t>(prefix)] == static_cast<std::size_t>(prefix)) ++prefix;
  const auto c = static_cast<Eigen::Index>(c_);
  const auto at = [&](Eigen::Index t) { return static_cast<Eigen::Index>(positions[static_cast<std::size_t>(t)]); };
  // Gather the kernel values into the new order (through copies: sources and destinations overlap).
  Eigen::MatrixXd kxx(m, m);
  RowMajorMatrix kcx(c, m - prefix);
  for (Eigen::Index a = 0; a < m; ++a)
    for (Eigen::Index b = 0; b < m; ++b) kxx(a, b) = f_->kxx(at(a), at(b));
  for (Eigen::Index t = prefix; t < m; ++t) kcx.col(t - prefix) = f_->kcx.col(at(t)).head(c);
  f_->kxx.topLeftCorner(m, m) = kxx;
  f_->kcx.block(0, prefix, c, m - prefix) = kcx;
  std::vector<double> x(static_cast<std::size_t>(m) * dims_);
  for (Eigen::Index t = 0; t < m; ++t)
    std::copy_n(&x_[positions[static_cast<std::size_t>(t)] * dims_], dims_, &x[static_cast<std::size_t>(t) * dims_]);
  x_ = std::move(x);
  for (Eigen::Index i = prefix; i < m; ++i) cholesky_row(f_->l, f_->kxx, i, noise_, f_->row);
  n_ = static_cast<std::size_t>(m);
  done_ = std::min(done_, static_cast<std::size_t>(prefix));
  const auto kept = static_cast<Eigen::Index>(done_);
  f_->squared_norm.head(c) = f_->v.topLeftCorner(c, kept).rowwise().squaredNorm();
}

std::size_t GaussianProcess::add_candidate(std::span<const double> x) {
  if (x.size() != dims_ || c_ >= max_candidates_) throw std::logic_error("GaussianProcess::add_candidate: bad point");
  const auto slot = static_cast<Eigen::Index>(c_);
  for (std::size_t i = 0; i < n_; ++i) f_->kcx(slot, static_cast<Eigen::Index>(i)) = kernel(&x_[i * dims_], x.data());
  f_->squared_norm[slot] = 0;
  fresh_[c_] = done_ > 0;  // its row of V is computed at the next prediction
  cx_.insert(cx_.end(), x.begin(), x.end());
  return c_++;
}

void GaussianProcess::remove_candidate(std::size_t slot) {
  if (slot >= c_) throw std::logic_error("GaussianProcess::remove_candidate: bad slot");
  const std::size_t last = c_ - 1;
  if (slot != last) {
    const auto s = static_cast<Eigen::Index>(slot), e = static_cast<Eigen::Index>(last);
    const auto n = static_cast<Eigen::Index>(n_);
    f_->kcx.block(s, 0, 1, n) = f_->kcx.block(e, 0, 1, n);
    const auto done = static_cast<Eigen::Index>(done_);
    if (!fresh_[last]) f_->v.block(s, 0, 1, done) = f_->v.block(e, 0, 1, done);
    f_->squared_norm[s] = f_->squared_norm[e];
    fresh_[slot] = fresh_[last];
    std::copy(cx_.begin() + static_cast<std::ptrdiff_t>(last * dims_),
              cx_.begin() + static_cast<std::ptrdiff_t>((last + 1) * dims_),
              cx_.begin() + static_cast<std::ptrdiff_t>(slot * dims_));
  }
  cx_.resize(last * dims_);
  f_->squared_norm[static_cast<Eigen::Index>(last)] = 0;
  fresh_[last] = 0;
  --c_;
}

// Up to this many new points, V's new columns are computed one by one (see update_candidates).
constexpr Eigen::Index kColumnByColumn = 8;

void GaussianProcess::update_candidates() {
  const auto n = static_cast<Eigen::Index>(n_), d = static_cast<Eigen::Index>(done_);
  const auto c = static_cast<Eigen::Index>(c_);
  if (n > d && c > 0) {
    // The new columns for every candidate at once: V_new = (K(C, X_new) - V_old L21^T) L22^-T. (Rows of fresh
    // candidates come out wrong here and are replaced below.)
    auto block = f_->v.block(0, d, c, n - d);
    block = f_->kcx.block(0, d, c, n - d);
    if (n - d <= kColumnByColumn) {
      // A few points (the proposals of one round): a matrix-vector product each. A matrix product would pack all of
      // V for a product of the same arithmetic, which costs as much again.
      for (Eigen::Index j = d; j < n; ++j) {
        auto column = f_->v.col(j).head(c);
        if (j > 0) column.noalias() -= f_->v.topLeftCorner(c, j) * f_->l.row(j).head(j).transpose();
        column /= f_->l(j, j);
      }
    } else {
      if (d > 0) block.noalias() -= f_->v.topLeftCorner(c, d) * f_->l.block(d, 0, n - d, d).transpose();
      f_->l.block(d, d, n - d, n - d).transpose().triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(block);
    }
    f_->squared_norm.head(c) += block.rowwise().squaredNorm();
  }
  // Candidates added since the last update, when V had columns already: their whole rows, V_f = K(F, X) L^-T.
  std::vector<Eigen::Index> rows;
  for (std::size_t j = 0; j < c_; ++j)
    if (fresh_[j]) rows.push_back(static_cast<Eigen::Index>(j)), fresh_[j] = 0;
  if (!rows.empty() && n > 0) {
    RowMajorMatrix b(static_cast<Eigen::Index>(rows.size()), n);
    for (std::size_t i = 0; i < rows.size(); ++i) b.row(static_cast<Eigen::Index>(i)) = f_->kcx.row(rows[i]).head(n);
    f_->l.topLeftCorner(n, n).transpose().triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(b);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      f_->v.row(rows[i]).head(n) = b.row(static_cast<Eigen::Index>(i));
      f_->squared_norm[rows[i]] = b.row(static_cast<Eigen::Index>(i)).squaredNorm();
    }
  }
  done_ = n_;
}

void GaussianProcess::predict(std::span<const double> y, std::vector<double>& mean, std::vector<double>& sd) {
  if (y.size() != n_) throw std::logic_error("GaussianProcess::predict: one target per training point");
  update_candidates();
  const auto n = static_cast<Eigen::Index>(n_);
  const auto c = static_cast<Eigen::Index>(c_);
  mean.assign(c_, 0.0);
  sd.resize(c_);
  if (n > 0 && c > 0) {
    // mean_c = k_c^T K^-1 y = v_c . (L^-1 y)
    Eigen::VectorXd z = Eigen::Map<const Eigen::VectorXd>(y.data(), n);
    f_->l.topLeftCorner(n, n).triangularView<Eigen::Lower>().solveInPlace(z);
    Eigen::Map<Eigen::VectorXd>(mean.data(), c).noalias() = f_->v.topLeftCorner(c, n) * z;
  }
  for (std::size_t j = 0; j < c_; ++j)
    sd[j] = std::sqrt(std::max(1.0 - f_->squared_norm[static_cast<Eigen::Index>(j)], 1e-12));
}

}  // namespace ktune::strategies
