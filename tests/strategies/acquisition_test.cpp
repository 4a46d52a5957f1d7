// bayes_opt's choice of the pool slot: the pruned search for EI and PoI picks exactly what scoring every slot picks,
// on random pools and on the edge cases of its bounds (ties, flat tails of Phi, all slots below the incumbent, EI
// underflowing, taken slots).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ktune/rng.hpp"
#include "strategies/acquisition.hpp"

namespace ktune {
namespace {
namespace acquisition_test {

using strategies::Acquisition;
using strategies::AcquisitionRound;

struct Pool {
  std::vector<double> mu, sigma, z;
  double incumbent = 0, exploration = 0;
  bool z_finite = false;
  AcquisitionRound round() const { return {mu, sigma, z, incumbent, exploration, 1.7, {}, 0.0}; }
};

Pool make_pool(Rng& rng, std::size_t n, int kind) {
  Pool p;
  p.incumbent = -1 + 2 * rng.uniform01();
  p.exploration = kind == 3 ? 0.0 : 0.3 * rng.uniform01();
  for (std::size_t j = 0; j < n; ++j) {
    double mu = -2 + 4 * rng.uniform01(), sigma = 1e-6 + rng.uniform01();
    if (kind == 1) mu = std::round(mu * 2) / 2, sigma = std::round(sigma * 4) / 4 + 1e-6;  // many exact ties
    if (kind == 2) mu = p.incumbent + 5 + 40 * rng.uniform01(), sigma = 1e-6 + 0.1 * rng.uniform01();  // deep tail
    if (kind == 3) mu = p.incumbent - 20 - rng.uniform01(), sigma = 1e-6;  // far better: Phi flat at 1
    if (kind == 4) mu = p.incumbent + 1e3 * rng.uniform01(), sigma = 1e-6;  // EI underflows
    p.mu.push_back(mu);
    p.sigma.push_back(sigma);
  }
  p.z_finite = strategies::standardised_improvements(p.mu, p.sigma, p.incumbent, p.exploration, p.z);
  return p;
}

TEST(Acquisition, PrunedChoiceEqualsAFullScan) {
  Rng rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const int kind = trial % 5;
    const Pool p = make_pool(rng, 1 + rng.below(300), kind);
    ASSERT_TRUE(p.z_finite);
    std::vector<std::size_t> taken;
    for (int t = 0; t < 3; ++t) {
      for (auto af : {Acquisition::Ei, Acquisition::Poi, Acquisition::Lcb, Acquisition::LcbSrinivas}) {
        const std::size_t expected = strategies::best_slot_by_full_scan(af, p.round(), taken);
        ASSERT_EQ(strategies::best_slot(af, p.round(), p.z_finite, taken), expected)
            << "trial " << trial << " kind " << kind << " function " << static_cast<int>(af) << " taken "
            << taken.size();
      }
      // Then as multi-fast asks: the same functions with the slots proposed so far excluded.
      if (taken.size() < p.mu.size())
        taken.push_back(strategies::best_slot_by_full_scan(Acquisition::Ei, p.round(), taken));
    }
  }
}

// Learned failure avoidance: a slot's chance to run weighs EI and PoI (a failure improves nothing) and makes LCB an
// expectation over running and failing (a failure counts as the worst value); the slot a little worse but sure to run
// wins over the best that will likely fail, and nothing changes without the weights.
TEST(Acquisition, AChanceToFailWeighsEveryFunction) {
  Pool p;
  p.mu = {-1.0, -0.8};
  p.sigma = {0.3, 0.3};
  p.z_finite = strategies::standardised_improvements(p.mu, p.sigma, 0.0, 0.0, p.z);
  for (auto af : {Acquisition::Ei, Acquisition::Poi, Acquisition::Lcb, Acquisition::LcbSrinivas})
    EXPECT_EQ(strategies::best_slot(af, p.round(), p.z_finite, {}), 0u);
  const std::vector<double> runs{0.2, 1.0};
  AcquisitionRound weighted = p.round();
  weighted.runs = runs;
  weighted.failed_value = 2.0;
  for (auto af : {Acquisition::Ei, Acquisition::Poi, Acquisition::Lcb, Acquisition::LcbSrinivas}) {
    EXPECT_EQ(strategies::best_slot(af, weighted, p.z_finite, {}), 1u) << static_cast<int>(af);
    EXPECT_EQ(strategies::best_slot_by_full_scan(af, weighted, {}), 1u) << static_cast<int>(af);
  }
  EXPECT_DOUBLE_EQ(strategies::acquisition_value(Acquisition::Ei, weighted, 0),
                   0.2 * strategies::acquisition_value(Acquisition::Ei, p.round(), 0));
  EXPECT_DOUBLE_EQ(strategies::acquisition_value(Acquisition::Lcb, weighted, 0),
                   0.2 * strategies::acquisition_value(Acquisition::Lcb, p.round(), 0) + 0.8 * 2.0);
  EXPECT_DOUBLE_EQ(strategies::acquisition_value(Acquisition::Lcb, weighted, 1),
                   strategies::acquisition_value(Acquisition::Lcb, p.round(), 1));
}

TEST(Acquisition, EveryTakenSlotMeansNoChoice) {
  Rng rng(5);
  const Pool p = make_pool(rng, 3, 0);
  const std::vector<std::size_t> all{0, 1, 2};
  for (auto af : {Acquisition::Ei, Acquisition::Poi, Acquisition::Lcb})
    EXPECT_EQ(strategies::best_slot(af, p.round(), p.z_finite, all), 3u);
}

TEST(Acquisition, ANonFiniteImprovementFallsBackToTheFullScan) {
  Pool p;
  p.mu = {0.0, std::nan(""), -1.0};
  p.sigma = {0.5, 0.5, 0.5};
  p.z_finite = strategies::standardised_improvements(p.mu, p.sigma, 0.0, 0.0, p.z);
  EXPECT_FALSE(p.z_finite);
  for (auto af : {Acquisition::Ei, Acquisition::Poi})
    EXPECT_EQ(strategies::best_slot(af, p.round(), p.z_finite, {}),
              strategies::best_slot_by_full_scan(af, p.round(), {}));
}

}  // namespace acquisition_test
}  // namespace
}  // namespace ktune
