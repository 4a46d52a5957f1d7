#pragma once
// bayes_opt's acquisition functions over a pool of candidates, and the choice of the pool slot that optimises one.
// The choice skips the normal distribution's erfc wherever a bound shows a slot cannot win, and picks exactly the
// slot a full scan picks (the same value, the first of equal ones): a pool of a thousand is scored several times per
// evaluation, and erfc was most of that.
#include <cstddef>
#include <span>
#include <vector>

namespace ktune::strategies {

enum class Acquisition { Ei, Poi, Lcb, LcbSrinivas };

// One round's posterior over the pool and its constants. z[j] = (incumbent - exploration - mu[j]) / (sigma[j] +
// 1e-9), EI's and PoI's standardised improvement, from standardised_improvements().
struct AcquisitionRound {
  std::span<const double> mu, sigma, z;
  double incumbent = 0, exploration = 0;
  double beta = 0;  // LcbSrinivas' exploration weight this round
  // Learned failure avoidance: per slot the probability that it runs (empty: every slot runs). A failure counts as
  // the GP counts one, the worst cost seen (`failed_value`, standardised): EI and PoI are weighted by it (a failure
  // improves nothing), LCB is its expectation over running and failing.
  std::span<const double> runs;
  double failed_value = 0;
};

double normal_cdf(double z);
double normal_pdf(double z);

// z of every slot into `z`; false when one is not finite (then best_slot scans every slot).
bool standardised_improvements(std::span<const double> mu, std::span<const double> sigma, double incumbent,
                               double exploration, std::vector<double>& z);

// The value to minimise of slot j (EI and PoI negated).
double acquisition_value(Acquisition af, const AcquisitionRound& round, std::size_t j);

// The slot minimising acquisition_value, skipping the slots in `taken`; of equal values the first; mu.size() when
// every slot is taken. `z_finite`: what standardised_improvements returned. With `runs`, every slot is scored.
std::size_t best_slot(Acquisition af, const AcquisitionRound& round, bool z_finite,
                      const std::vector<std::size_t>& taken);
// The same by scoring every slot (the reference best_slot equals).
std::size_t best_slot_by_full_scan(Acquisition af, const AcquisitionRound& round,
                                   const std::vector<std::size_t>& taken);

}  // namespace ktune::strategies
