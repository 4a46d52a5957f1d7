#include "strategies/gaussian_process.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Dense>

namespace ktune::strategies {

struct GaussianProcess::Factors {
  Eigen::MatrixXd l;             // lower Cholesky factor of K(X, X) + noise I (top-left n x n used)
  Eigen::MatrixXd v;             // row c: (L^-1 k(X, c))^T (top-left C x n used)
  Eigen::VectorXd squared_norm;  // |v_c|^2: the variance explained by the training points
  Eigen::VectorXd k_points;      // scratch
  Eigen::VectorXd k_candidates;  // scratch
};

GaussianProcess::GaussianProcess(CovarianceKernel kernel, double lengthscale, std::size_t dims, std::size_t max_points,
                                 std::size_t max_candidates, double noise)
    : kernel_(kernel),
      inv_lengthscale_(1.0 / lengthscale),
      noise_(noise),
      dims_(dims),
      max_points_(max_points),
      max_candidates_(max_candidates),
      f_(std::make_unique<Factors>()) {
  if (!(lengthscale > 0)) throw std::invalid_argument("GaussianProcess: the length scale must be positive");
  const auto p = static_cast<Eigen::Index>(max_points), c = static_cast<Eigen::Index>(max_candidates);
  f_->l = Eigen::MatrixXd::Zero(p, p);
  f_->v.resize(c, p);
  f_->squared_norm = Eigen::VectorXd::Zero(c);
  f_->k_points.resize(p);
  f_->k_candidates.resize(c);
  x_.reserve(max_points * dims);
  cx_.reserve(max_candidates * dims);
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

void GaussianProcess::add_point(std::span<const double> x) {
  if (x.size() != dims_ || n_ >= max_points_) throw std::logic_error("GaussianProcess::add_point: bad point");
  const auto n = static_cast<Eigen::Index>(n_);
  // New row of L: l = L^-1 k(X, x), diagonal sqrt(k(x, x) + noise - |l|^2).
  for (std::size_t i = 0; i < n_; ++i) f_->k_points[static_cast<Eigen::Index>(i)] = kernel(&x_[i * dims_], x.data());
  auto l = f_->k_points.head(n);
  if (n > 0) f_->l.topLeftCorner(n, n).triangularView<Eigen::Lower>().solveInPlace(l);
  // A point (nearly) in the span of the others would give a zero pivot: clamp it to the jitter, which amounts to a
  // little more noise on that observation.
  const double pivot = std::sqrt(std::max(1.0 + noise_ - l.squaredNorm(), noise_));
  f_->l.block(n, 0, 1, n) = l.transpose();
  f_->l(n, n) = pivot;
  // New column of V for the tracked candidates: (k(c, x) - v_c . l) / pivot.
  const auto c = static_cast<Eigen::Index>(c_);
  if (c > 0) {
    for (std::size_t j = 0; j < c_; ++j)
      f_->k_candidates[static_cast<Eigen::Index>(j)] = kernel(&cx_[j * dims_], x.data());
    auto column = f_->v.block(0, n, c, 1);
    if (n > 0)
      column.noalias() = (f_->k_candidates.head(c) - f_->v.topLeftCorner(c, n) * l) / pivot;
    else
      column = f_->k_candidates.head(c) / pivot;
    f_->squared_norm.head(c) += column.cwiseAbs2();
  }
  x_.insert(x_.end(), x.begin(), x.end());
  ++n_;
}

void GaussianProcess::clear_points() {
  n_ = 0;
  x_.clear();
  f_->squared_norm.setZero();
}

std::size_t GaussianProcess::add_candidate(std::span<const double> x) {
  if (x.size() != dims_ || c_ >= max_candidates_) throw std::logic_error("GaussianProcess::add_candidate: bad point");
  const auto n = static_cast<Eigen::Index>(n_);
  const auto slot = static_cast<Eigen::Index>(c_);
  for (std::size_t i = 0; i < n_; ++i) f_->k_points[static_cast<Eigen::Index>(i)] = kernel(&x_[i * dims_], x.data());
  auto v = f_->k_points.head(n);
  if (n > 0) f_->l.topLeftCorner(n, n).triangularView<Eigen::Lower>().solveInPlace(v);
  f_->v.block(slot, 0, 1, n) = v.transpose();
  f_->squared_norm[slot] = v.squaredNorm();
  cx_.insert(cx_.end(), x.begin(), x.end());
  return c_++;
}

void GaussianProcess::remove_candidate(std::size_t slot) {
  if (slot >= c_) throw std::logic_error("GaussianProcess::remove_candidate: bad slot");
  const std::size_t last = c_ - 1;
  if (slot != last) {
    const auto s = static_cast<Eigen::Index>(slot), e = static_cast<Eigen::Index>(last);
    const auto n = static_cast<Eigen::Index>(n_);
    f_->v.block(s, 0, 1, n) = f_->v.block(e, 0, 1, n);
    f_->squared_norm[s] = f_->squared_norm[e];
    std::copy(cx_.begin() + static_cast<std::ptrdiff_t>(last * dims_),
              cx_.begin() + static_cast<std::ptrdiff_t>((last + 1) * dims_),
              cx_.begin() + static_cast<std::ptrdiff_t>(slot * dims_));
  }
  cx_.resize(last * dims_);
  f_->squared_norm[static_cast<Eigen::Index>(last)] = 0;
  --c_;
}

void GaussianProcess::predict(std::span<const double> y, std::vector<double>& mean, std::vector<double>& sd) const {
  if (y.size() != n_) throw std::logic_error("GaussianProcess::predict: one target per training point");
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
