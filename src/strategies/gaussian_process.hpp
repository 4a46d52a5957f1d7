#pragma once
// A Gaussian process with a fixed, unit-amplitude stationary kernel for Bayesian optimisation over a finite set of
// candidate points. It keeps the Cholesky factor L of the training covariance, the kernel values k(c, x) of every
// tracked candidate c and training point x, and v_c = L^-1 k(X, c) with |v_c|^2.
//
// Updates are deferred to the next prediction: add_point extends L and the kernel values at once (O(n^2 + C)), but
// the new columns of V for all candidates, and the rows of candidates added since, are computed in predict() as one
// block (a matrix product and a triangular solve) instead of one matrix-vector product per point and one triangular
// solve per candidate. A prediction after k new points and f new candidates costs O(C n k + f n^2 + C n); keep_points
// refits on a subset with no new kernel evaluation and keeps V's columns of the points that stay first.
#include <cstddef>
#include <cstdint>
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

  // k(a, b). Memoised by the bits of the scaled squared distance: candidates and training points sit on the
  // parameters' value grids, so a run meets a few thousand distinct distances in millions of evaluations, and the
  // memo returns the very value the formula gave. (So a process is not to be shared between threads.)
  double kernel(const double* a, const double* b) const;

  // Adds a training input (x.size() == dims, points() < max_points()).
  void add_point(std::span<const double> x);
  // Forgets every training point (candidates stay tracked, with the prior).
  void clear_points();
  // Keeps only the training points at these positions (in the order added), in the order given: the same posterior
  // as clear_points() and add_point() of each, without evaluating the kernel again. Listing first, in their present
  // order, the points that were first already keeps their part of the factorisation.
  void keep_points(std::span<const std::size_t> positions);

  // Tracks a candidate (candidates() < max_candidates()); returns its slot.
  std::size_t add_candidate(std::span<const double> x);
  // Stops tracking the candidate in `slot`; the last slot's candidate moves into `slot`.
  void remove_candidate(std::size_t slot);

  // Posterior mean and standard deviation of every tracked candidate, given the training targets y (one per point,
  // in the order added; standardised by the caller: the prior has mean 0 and variance 1).
  void predict(std::span<const double> y, std::vector<double>& mean, std::vector<double>& sd);

 private:
  // Brings V and |v|^2 up to date for every candidate (the deferred work of add_point and add_candidate).
  void update_candidates();
  void kernel_column(std::size_t point);  // k(c, x_point) for every tracked candidate

  CovarianceKernel kernel_;
  double inv_lengthscale_, noise_;
  std::size_t dims_, max_points_, max_candidates_;
  std::size_t n_ = 0, c_ = 0;
  std::size_t done_ = 0;           // V's columns [0, done_) are up to date for every candidate not marked fresh
  std::vector<double> x_;          // training inputs, row-major n x dims
  std::vector<double> cx_;         // candidate inputs, row-major C x dims
  std::vector<std::uint8_t> fresh_;  // per slot: added since the last update, its row of V not yet computed
  struct Factors;                  // the Eigen matrices, kept out of this header (Eigen is private to the library)
  double kernel_of_squared_distance(double sq) const;
  // kernel()'s memo: open addressing over the distance's bits (kEmpty: a free slot; never a distance's bits, which
  // are those of a non-negative number)
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct MemoEntry {
    std::uint64_t key;  // the distance's bits
    double value;
  };
  mutable std::vector<MemoEntry> memo_;  // one cache line holds both halves of an entry
  mutable std::size_t memo_used_ = 0;
  mutable unsigned memo_shift_ = 0;
  std::unique_ptr<Factors> f_;
};

}  // namespace ktune::strategies
