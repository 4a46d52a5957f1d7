#pragma once
// A Gaussian process with a fixed, unit-amplitude stationary kernel for Bayesian optimisation over a finite set of
// candidate points. It keeps the Cholesky factor L of the training covariance and, for every tracked candidate c,
// v_c = L^-1 k(X, c) and |v_c|^2; adding a training point then costs O(n^2 + C n) and a prediction for all C
// candidates O(n^2 + C n) instead of the O(C n^2) of a fresh solve.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace ktune::strategies {

enum class CovarianceKernel { Matern32, Matern52, Rbf };

class GaussianProcess {
 public:
  // `dims` input dimensions, at most `max_points` training points and `max_candidates` tracked candidates.
  // `noise` is added to the diagonal of the training covariance (jitter that keeps the Cholesky factor stable).
  GaussianProcess(CovarianceKernel kernel, double lengthscale, std::size_t dims, std::size_t max_points,
                  std::size_t max_candidates, double noise = 1e-6);
  ~GaussianProcess();
  GaussianProcess(GaussianProcess&&) noexcept;
  GaussianProcess& operator=(GaussianProcess&&) noexcept;

  std::size_t points() const { return n_; }
  std::size_t candidates() const { return c_; }
  std::size_t max_points() const { return max_points_; }
  std::size_t max_candidates() const { return max_candidates_; }

  double kernel(const double* a, const double* b) const;

  // Adds a training input (x.size() == dims, points() < max_points()).
  void add_point(std::span<const double> x);
  // Forgets every training point (candidates stay tracked, with the prior).
  void clear_points();

  // Tracks a candidate (candidates() < max_candidates()); returns its slot.
  std::size_t add_candidate(std::span<const double> x);
  // Stops tracking the candidate in `slot`; the last slot's candidate moves into `slot`.
  void remove_candidate(std::size_t slot);

  // Posterior mean and standard deviation of every tracked candidate, given the training targets y (one per point,
  // in the order added; standardised by the caller: the prior has mean 0 and variance 1).
  void predict(std::span<const double> y, std::vector<double>& mean, std::vector<double>& sd) const;

 private:
  CovarianceKernel kernel_;
  double inv_lengthscale_, noise_;
  std::size_t dims_, max_points_, max_candidates_;
  std::size_t n_ = 0, c_ = 0;
  std::vector<double> x_;   // training inputs, row-major n x dims
  std::vector<double> cx_;  // candidate inputs, row-major C x dims
  struct Factors;           // the Eigen matrices, kept out of this header (Eigen is private to the library)
  std::unique_ptr<Factors> f_;
};

}  // namespace ktune::strategies
