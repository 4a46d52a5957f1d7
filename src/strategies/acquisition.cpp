#include "strategies/acquisition.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace ktune::strategies {
namespace {

bool slot_taken(const std::vector<std::size_t>& taken, std::size_t j) {
  return !taken.empty() && std::find(taken.begin(), taken.end(), j) != taken.end();
}

// PoI is Phi(z), monotone in z: only slots within 1 of the largest z can reach the largest Phi (unless Phi is flat
// there, deep in a tail, where every slot is scored).
std::size_t best_probability_slot(const AcquisitionRound& r, const std::vector<std::size_t>& taken) {
  const std::size_t n = r.mu.size();
  double z_max = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < n; ++j)
    if (!slot_taken(taken, j)) z_max = std::max(z_max, r.z[j]);
  const double below = z_max - 1;
  if (!std::isfinite(z_max) || !(normal_cdf(below) < normal_cdf(z_max)))
    return best_slot_by_full_scan(Acquisition::Poi, r, taken);
  std::size_t best = n;
  double best_p = -1;
  for (std::size_t j = 0; j < n; ++j) {
    if (r.z[j] <= below || slot_taken(taken, j)) continue;
    const double p = normal_cdf(r.z[j]);
    if (p > best_p) best = j, best_p = p;
  }
  return best;
}

// EI's maximum without computing it for most slots. Bounds of EI = improvement Phi(z) + sigma phi(z), each also as
// rounded: max(improvement, 0) + 0.4 sigma (0.4 > 1 / sqrt(2 pi)); below the incumbent (z < 0), by Mills' ratio
// (Phi(z) >= |z| phi(z) / (1 + z^2)), (sigma + 1e-9) phi(z) / (1 + z^2), with phi(z) bounded first without exp
// (e^x >= 1 + x + x^2/2 + x^3/6), and a relative 1e-9 for the rounding of the two nearly cancelling terms. A slot
// whose bound is below an EI already computed cannot win; the slot with the largest first bound is computed first.
std::size_t best_expected_improvement_slot(const AcquisitionRound& r, const std::vector<std::size_t>& taken) {
  const std::size_t n = r.mu.size();
  const double target = r.incumbent - r.exploration;
  std::size_t first = n;
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < n; ++j) {
    const double bound = std::max(target - r.mu[j], 0.0) + 0.4 * r.sigma[j];
    if (bound > top && !slot_taken(taken, j)) first = j, top = bound;
  }
  if (first == n) return first;
  const double reached = -acquisition_value(Acquisition::Ei, r, first);
  const bool tails = reached > 1e-200;  // far from underflow, where the relative margins hold
  std::size_t best = n;
  double best_value = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < n; ++j) {
    if (std::max(target - r.mu[j], 0.0) + 0.4 * r.sigma[j] < reached || slot_taken(taken, j)) continue;
    if (const double z = r.z[j]; z < 0 && tails) {
      const double q = z * z, mills = (r.sigma[j] + 1e-9) / (1 + q) * (1 + 1e-9);
      if (mills * (0.3989423 / (1 + q / 2 + q * q / 8 + q * q * q / 48)) < reached) continue;
      if (mills * normal_pdf(z) < reached) continue;
    }
    const double v = acquisition_value(Acquisition::Ei, r, j);
    if (best == n || v < best_value) best = j, best_value = v;
  }
  return best;
}

}  // namespace

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }
double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi); }

bool standardised_improvements(std::span<const double> mu, std::span<const double> sigma, double incumbent,
                               double exploration, std::vector<double>& z) {
  z.resize(mu.size());
  bool finite = true;
  for (std::size_t j = 0; j < mu.size(); ++j) {
    const double improvement = incumbent - exploration - mu[j];
    z[j] = improvement / (sigma[j] + 1e-9);
    finite = finite && std::isfinite(z[j]);
  }
  return finite;
}

namespace {

double plain_value(Acquisition af, const AcquisitionRound& r, std::size_t j) {
  const double mu = r.mu[j], sigma = r.sigma[j];
  switch (af) {
    case Acquisition::Ei: {
      const double improvement = r.incumbent - r.exploration - mu;
      return -(improvement * normal_cdf(r.z[j]) + sigma * normal_pdf(r.z[j]));
    }
    case Acquisition::Poi:
      return -normal_cdf(r.z[j]);
    case Acquisition::Lcb:
      return mu - r.exploration * sigma;
    case Acquisition::LcbSrinivas:
      return mu - r.beta * sigma;
  }
  return mu;
}

}  // namespace

double acquisition_value(Acquisition af, const AcquisitionRound& r, std::size_t j) {
  const double v = plain_value(af, r, j);
  if (r.runs.empty()) return v;
  const double runs = r.runs[j];
  return af == Acquisition::Ei || af == Acquisition::Poi ? runs * v : runs * v + (1 - runs) * r.failed_value;
}

std::size_t best_slot_by_full_scan(Acquisition af, const AcquisitionRound& r, const std::vector<std::size_t>& taken) {
  const std::size_t n = r.mu.size();
  std::size_t best = n;
  double best_value = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < n; ++j) {
    const double v = acquisition_value(af, r, j);
    if ((best == n || v < best_value) && !slot_taken(taken, j)) best = j, best_value = v;
  }
  return best;
}

std::size_t best_slot(Acquisition af, const AcquisitionRound& r, bool z_finite, const std::vector<std::size_t>& taken) {
  if (!r.runs.empty()) return best_slot_by_full_scan(af, r, taken);  // the bounds below ignore the weights
  if (z_finite && af == Acquisition::Poi) return best_probability_slot(r, taken);
  if (z_finite && af == Acquisition::Ei) return best_expected_improvement_slot(r, taken);
  return best_slot_by_full_scan(af, r, taken);
}

}  // namespace ktune::strategies
