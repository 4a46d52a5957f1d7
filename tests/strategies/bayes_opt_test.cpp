// bayes_opt and its Gaussian process: exact posteriors from the incremental factorisation, every acquisition
// method, failures, the subsampled candidate pool, the training-set cap and every hyperparameter declared.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "fake_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/tune.hpp"
#include "strategies/gaussian_process.hpp"

namespace ktune {
namespace {
namespace bayes_opt_test {

using strategies::CovarianceKernel;
using strategies::GaussianProcess;
using testing::FakeEvaluator;

// --- Gaussian process ---------------------------------------------------------------------------------------------

std::vector<double> point(Rng& rng, std::size_t d) {
  std::vector<double> x(d);
  for (auto& v : x) v = rng.uniform01();
  return x;
}

// The textbook posterior from a fresh dense Cholesky solve (plain loops: Eigen is private to the library).
void reference_posterior(const GaussianProcess& gp, const std::vector<std::vector<double>>& xs,
                         const std::vector<double>& y, const std::vector<std::vector<double>>& cs, double noise,
                         std::vector<double>& mean, std::vector<double>& sd) {
  const std::size_t n = xs.size();
  std::vector<std::vector<double>> l(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double s = gp.kernel(xs[i].data(), xs[j].data()) + (i == j ? noise : 0.0);
      for (std::size_t k = 0; k < j; ++k) s -= l[i][k] * l[j][k];
      l[i][j] = i == j ? std::sqrt(s) : s / l[j][j];
    }
  auto forward = [&](std::vector<double> b) {  // L^-1 b
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < i; ++k) b[i] -= l[i][k] * b[k];
      b[i] /= l[i][i];
    }
    return b;
  };
  const auto z = forward(y);
  mean.clear();
  sd.clear();
  for (const auto& c : cs) {
    std::vector<double> kc(n);
    for (std::size_t i = 0; i < n; ++i) kc[i] = gp.kernel(xs[i].data(), c.data());
    const auto v = forward(kc);
    double m = 0, explained = 0;
    for (std::size_t i = 0; i < n; ++i) m += v[i] * z[i], explained += v[i] * v[i];
    mean.push_back(m);
    sd.push_back(std::sqrt(std::max(1.0 - explained, 1e-12)));
  }
}

TEST(GaussianProcess, IncrementalPosteriorEqualsAFreshSolveForEveryKernel) {
  for (auto kernel : {CovarianceKernel::Matern32, CovarianceKernel::Matern52, CovarianceKernel::Rbf}) {
    Rng rng(7);
    const std::size_t d = 3;
    const double noise = 1e-4;
    GaussianProcess gp(kernel, 0.4, d, 30, 50, noise);
    std::vector<std::vector<double>> xs, cs;
    std::vector<double> y;
    // Candidates before and after points, and removals, in an interleaved order.
    for (int i = 0; i < 20; ++i) {
      cs.push_back(point(rng, d));
      gp.add_candidate(cs.back());
    }
    for (int i = 0; i < 25; ++i) {
      xs.push_back(point(rng, d));
      y.push_back(std::sin(5 * xs.back()[0]) + xs.back()[1]);
      gp.add_point(xs.back());
      if (i % 3 == 0) {
        cs.push_back(point(rng, d));
        gp.add_candidate(cs.back());
      }
      if (i % 4 == 1) {  // the last candidate moves into the removed slot
        gp.remove_candidate(2);
        cs[2] = cs.back();
        cs.pop_back();
      }
    }
    ASSERT_EQ(gp.candidates(), cs.size());
    std::vector<double> mean, sd, ref_mean, ref_sd;
    gp.predict(y, mean, sd);
    reference_posterior(gp, xs, y, cs, noise, ref_mean, ref_sd);
    for (std::size_t j = 0; j < cs.size(); ++j) {
      EXPECT_NEAR(mean[j], ref_mean[j], 1e-7) << j;
      EXPECT_NEAR(sd[j], ref_sd[j], 1e-6) << j;
    }
  }
}

// A random mix of every operation (candidates added and removed, points added, refits after clear_points, subsets
// kept in a new order), checked against a fresh solve at every prediction.
TEST(GaussianProcess, EveryMixOfOperationsEqualsAFreshSolve) {
  Rng rng(11);
  const std::size_t d = 4;
  const double noise = 1e-5;
  GaussianProcess gp(CovarianceKernel::Matern32, 0.7, d, 40, 60, noise);
  std::vector<std::vector<double>> xs, cs;
  std::vector<double> y;
  const auto target = [](const std::vector<double>& x) { return std::cos(4 * x[0]) + x[1] * x[2]; };
  int predictions = 0, refits = 0, kept_subsets = 0;
  for (int step = 0; step < 900; ++step) {
    const auto op = rng.below(10);
    if (op < 3 && cs.size() < gp.max_candidates()) {
      cs.push_back(point(rng, d));
      gp.add_candidate(cs.back());
    } else if (op < 5 && !cs.empty()) {
      const auto slot = static_cast<std::size_t>(rng.below(cs.size()));
      gp.remove_candidate(slot);
      cs[slot] = cs.back();
      cs.pop_back();
    } else if (op < 7 && xs.size() < gp.max_points()) {
      xs.push_back(point(rng, d));
      y.push_back(target(xs.back()));
      gp.add_point(xs.back());
    } else if (op == 7 && rng.below(4) == 0) {  // a refit on every other point
      std::vector<std::vector<double>> kept;
      for (std::size_t i = 0; i < xs.size(); i += 2) kept.push_back(xs[i]);
      xs = kept;
      y.clear();
      gp.clear_points();
      for (const auto& x : xs) y.push_back(target(x)), gp.add_point(x);
      ++refits;
    } else if (op == 8 && rng.below(3) == 0 && xs.size() > 2) {
      // keep_points: a leading run of points stays, then a random subset of the rest in a random order.
      std::vector<std::size_t> positions;
      const std::size_t leading = static_cast<std::size_t>(rng.below(xs.size()));
      for (std::size_t i = 0; i < leading; ++i) positions.push_back(i);
      std::vector<std::size_t> rest;
      for (std::size_t i = leading; i < xs.size(); ++i)
        if (rng.below(3) != 0) rest.push_back(i);
      for (std::size_t i = rest.size(); i > 1; --i)
        std::swap(rest[i - 1], rest[static_cast<std::size_t>(rng.below(i))]);
      positions.insert(positions.end(), rest.begin(), rest.end());
      std::vector<std::vector<double>> kept;
      for (std::size_t p : positions) kept.push_back(xs[p]);
      xs = kept;
      y.clear();
      for (const auto& x : xs) y.push_back(target(x));
      gp.keep_points(positions);
      ++kept_subsets;
    } else {
      ASSERT_EQ(gp.candidates(), cs.size());
      ASSERT_EQ(gp.points(), xs.size());
      std::vector<double> mean, sd, ref_mean, ref_sd;
      gp.predict(y, mean, sd);
      reference_posterior(gp, xs, y, cs, noise, ref_mean, ref_sd);
      for (std::size_t j = 0; j < cs.size(); ++j) {
        ASSERT_NEAR(mean[j], ref_mean[j], 1e-6) << "step " << step << ", candidate " << j;
        ASSERT_NEAR(sd[j], ref_sd[j], 1e-6) << "step " << step << ", candidate " << j;
      }
      ++predictions;
    }
  }
  EXPECT_GT(predictions, 50);
  EXPECT_GT(refits, 3);
  EXPECT_GT(kept_subsets, 3);
  const std::size_t repeated[] = {0, 0};
  EXPECT_THROW(gp.keep_points(repeated), std::logic_error);
}

TEST(GaussianProcess, InterpolatesItsPointsAndFallsBackToThePriorFarAway) {
  GaussianProcess gp(CovarianceKernel::Matern32, 0.1, 1, 4, 4);
  const double xs[] = {0.1, 0.2, 0.3};
  const std::vector<double> y = {1.0, -1.0, 0.5};
  for (double x : xs) gp.add_candidate(std::vector<double>{x});
  gp.add_candidate(std::vector<double>{50.0});
  for (double x : xs) gp.add_point(std::vector<double>{x});
  std::vector<double> mean, sd;
  gp.predict(y, mean, sd);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(mean[i], y[i], 1e-4);
    EXPECT_LT(sd[i], 1e-2);
  }
  EXPECT_NEAR(mean[3], 0.0, 1e-9);
  EXPECT_NEAR(sd[3], 1.0, 1e-9);
  EXPECT_THROW(GaussianProcess(CovarianceKernel::Rbf, 0.0, 1, 2, 2), std::invalid_argument);
}

// The kernel's memo (keyed by the squared distance's bits) returns the formula's value, first time and every time
// after, for more distinct distances than its first table holds (it grows, and starts over when full).
TEST(GaussianProcess, MemoisedKernelEqualsTheFormula) {
  const double lengthscale = 0.7;
  for (auto kernel : {CovarianceKernel::Matern32, CovarianceKernel::Matern52, CovarianceKernel::Rbf}) {
    GaussianProcess gp(kernel, lengthscale, 3, 2, 2);
    const auto formula = [&](const std::vector<double>& a, const std::vector<double>& b) {
      double sq = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const double t = (a[i] - b[i]) * (1.0 / lengthscale);
        sq += t * t;
      }
      if (kernel == CovarianceKernel::Rbf) return std::exp(-0.5 * sq);
      const double r = std::sqrt((kernel == CovarianceKernel::Matern32 ? 3.0 : 5.0) * sq);
      return kernel == CovarianceKernel::Matern32 ? (1.0 + r) * std::exp(-r) : (1.0 + r + r * r / 3.0) * std::exp(-r);
    };
    Rng rng(3);
    std::vector<std::pair<std::vector<double>, std::vector<double>>> pairs;
    for (int i = 0; i < 30000; ++i) {
      // Grid points (the memo's case: distances repeat) and arbitrary ones (they do not).
      std::vector<double> a = point(rng, 3), b = point(rng, 3);
      if (i % 2)
        for (auto* v : {&a, &b})
          for (double& x : *v) x = (std::floor(x * 8) + 0.5) / 8;
      pairs.emplace_back(std::move(a), std::move(b));
    }
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& [a, b] : pairs) ASSERT_EQ(gp.kernel(a.data(), b.data()), formula(a, b));
  }
}

TEST(GaussianProcess, DuplicatePointsStayFinite) {
  GaussianProcess gp(CovarianceKernel::Rbf, 1.5, 2, 10, 2);
  gp.add_candidate(std::vector<double>{0.5, 0.5});
  gp.add_candidate(std::vector<double>{0.9, 0.1});
  std::vector<double> y;
  for (int i = 0; i < 10; ++i) {
    gp.add_point(std::vector<double>{0.5, 0.5 + 1e-12 * i});
    y.push_back(i % 2 ? 1.0 : -1.0);
  }
  std::vector<double> mean, sd;
  gp.predict(y, mean, sd);
  for (double v : mean) EXPECT_TRUE(std::isfinite(v));
  for (double v : sd) EXPECT_TRUE(std::isfinite(v) && v > 0);
}

// --- the strategy -------------------------------------------------------------------------------------------------

const SearchSpace& space() {
  static const SearchSpace s = SearchSpace::build(ProblemBuilder("bo")
                                                      .parameter("bx", {1, 2, 4, 8, 16, 32, 64, 128})
                                                      .parameter("by", {1, 2, 4, 8, 16, 32})
                                                      .parameter("tx", {1, 2, 3, 4, 5})
                                                      .parameter("ty", {1, 2, 3, 4})
                                                      .parameter("unroll", {0, 1, 2})
                                                      .parameter("sh", {0, 1})
                                                      .constraint("32 <= bx * by <= 1024")
                                                      .constraint("tx * ty <= 12")
                                                      .build());
  return s;
}

double bowl(std::size_t index) {
  const auto c = space().config_at(index);
  const double target[] = {5, 1, 3, 2, 1, 0};
  double v = 1.0;
  for (std::size_t p = 0; p < c.size(); ++p) v += (c[p] - target[p]) * (c[p] - target[p]);
  return v;
}

double optimum() {
  double best = bowl(0);
  for (std::size_t i = 1; i < space().size(); ++i) best = std::min(best, bowl(i));
  return best;
}

TuningResult run(std::uint64_t seed, std::size_t evaluations, std::vector<std::pair<std::string, Value>> hyper = {},
                 const std::string& strategy = "bayes_opt", std::set<std::size_t> failing = {}) {
  FakeEvaluator eval(space(), bowl, [](std::size_t) { return 1.0; });
  eval.failing = std::move(failing);
  auto s = make_strategy(strategy, hyper);
  TuningOptions options;
  options.seed = seed;
  options.budget.max_evaluations = evaluations;
  return tune(space(), eval, *s, options);
}

double best_of(const TuningResult& r) { return r.trace.cost(*r.trace.best()); }

std::vector<std::size_t> indices(const TuningResult& r) {
  std::vector<std::size_t> out;
  for (const auto& e : r.trace.entries()) out.push_back(e.index);
  return out;
}

TEST(BayesOpt, EveryMethodBeatsRandomSamplingOnASmoothFunction) {
  for (const char* method : {"ei", "poi", "lcb", "lcb-srinivas", "multi", "multi-advanced", "multi-fast"}) {
    double bo = 0, random = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      bo += best_of(run(seed, 60, {{"method", Value(std::string(method))}}));
      random += best_of(run(seed, 60, {}, "random_sample"));
    }
    EXPECT_LT(bo, random) << method;
    EXPECT_LE(bo / 5, optimum() + 2.0) << method;  // within a couple of unit steps of the optimum on average
  }
}

// On a linear scale (transform=none): on this test function's log scale the three acquisition functions of the
// portfolio agree so often that two retire early and `multi` searches as `ei` alone.
TEST(BayesOpt, HyperparametersChangeTheSearch) {
  const std::pair<std::string, Value> linear{"transform", Value(std::string("none"))};
  const auto base = indices(run(3, 60, {linear}));
  EXPECT_NE(indices(run(3, 60)), base) << "transform";
  const std::vector<std::pair<std::string, Value>> variants[] = {
      {{"method", Value(std::string("ei"))}},
      {{"covariancekernel", Value(std::string("rbf"))}},
      {{"covariancekernel", Value(std::string("matern52"))}},
      {{"covariancelengthscale", Value(0.3)}},
      {{"samplingmethod", Value(std::string("random"))}},
      {{"popsize", Value(std::int64_t{12})}},
      {{"explorationfactor", Value(std::string("2.0"))}},
      {{"multi_af_names", Value(std::string("poi,lcb"))}},
      {{"maxcandidates", Value(std::int64_t{300})}},
  };
  for (auto v : variants) {
    v.push_back(linear);
    EXPECT_NE(indices(run(3, 60, v)), base) << v.front().first;
  }
  // The first popsize entries (3 by default) are the initial sample, the same for every acquisition method.
  const auto lcb = indices(run(3, 60, {{"method", Value(std::string("lcb"))}, linear}));
  EXPECT_TRUE(std::equal(base.begin(), base.begin() + 3, lcb.begin()));
  EXPECT_NE(lcb, base);
}

TEST(BayesOpt, DeclaresEveryOptionAndRejectsBadOnes) {
  // Kernel Tuner rejects its own internal options (zeta, skip_duplicate_after, ...): ktune declares them.
  EXPECT_NO_THROW(make_strategy("bayes_opt", {{"zeta", Value(2.0)},
                                              {"skip_duplicate_after", Value(std::int64_t{2})},
                                              {"multi_af_discount_factor", Value(0.5)},
                                              {"multi_afs_required_improvement_factor", Value(0.2)},
                                              {"explorationfactor", Value(std::string("0.1"))},
                                              {"maxobservations", Value(std::int64_t{50})},
                                              {"candidaterotation", Value(std::int64_t{0})}}));
  EXPECT_THROW(make_strategy("bayes_opt", {{"explorationfactor", Value(std::string("lots"))}}), HyperparameterError);
  EXPECT_THROW(make_strategy("bayes_opt", {{"explorationfactor", Value(std::string("-1"))}}), HyperparameterError);
  EXPECT_THROW(make_strategy("bayes_opt", {{"multi_af_names", Value(std::string("ei,xyz"))}}), HyperparameterError);
  EXPECT_THROW(make_strategy("bayes_opt", {{"method", Value(std::string("multi-ultrafast"))}}), HyperparameterError);
  EXPECT_THROW(make_strategy("bayes_opt", {{"covariancelengthscale", Value(0.0)}}), HyperparameterError);
}

TEST(BayesOpt, FailedConfigurationsArePenalisedNotFatal) {
  // A third of the space fails, including many near the optimum; the run uses its whole budget and still improves.
  std::set<std::size_t> failing;
  for (std::size_t i = 0; i < space().size(); i += 3) failing.insert(i);
  for (const char* method : {"ei", "multi"}) {
    const auto r = run(4, 120, {{"method", Value(std::string(method))}}, "bayes_opt", failing);
    EXPECT_EQ(r.evaluations, 120u) << method;
    ASSERT_TRUE(r.trace.best());
    EXPECT_LE(best_of(r), optimum() + 3.0) << method;
  }
}

TEST(BayesOpt, SubsampledPoolAndCappedTrainingSetStillCoverTheWholeSpace) {
  // A pool much smaller than the space and a small GP: every configuration is still evaluated exactly once.
  const auto r = run(8, space().size(), {{"maxcandidates", Value(std::int64_t{128})},
                                         {"maxobservations", Value(std::int64_t{40})},
                                         {"method", Value(std::string("multi-advanced"))}});
  EXPECT_EQ(r.evaluations, space().size());
  const auto seen = indices(r);
  EXPECT_EQ(std::set<std::size_t>(seen.begin(), seen.end()).size(), space().size());
  EXPECT_EQ(best_of(r), optimum());
}

TEST(BayesOpt, SubsampledPoolStillFindsGoodConfigurations) {
  double pooled = 0, random = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    pooled += best_of(run(seed, 80, {{"maxcandidates", Value(std::int64_t{200})},
                                     {"maxobservations", Value(std::int64_t{50})}}));
    random += best_of(run(seed, 80, {}, "random_sample"));
  }
  EXPECT_LT(pooled, random);
}

TEST(BayesOpt, TinySpaces) {
  const SearchSpace one = SearchSpace::build(ProblemBuilder("one").parameter("a", {1}).build());
  FakeEvaluator eval(one, [](std::size_t) { return 3.0; }, [](std::size_t) { return 1.0; });
  auto s = make_strategy("bayes_opt");
  TuningOptions options;
  options.budget.max_evaluations = 10;
  const auto r = tune(one, eval, *s, options);
  EXPECT_EQ(r.evaluations, 1u);
  EXPECT_NE(r.stop_reason, StopReason::max_evaluations);
}

}  // namespace bayes_opt_test
}  // namespace
}  // namespace ktune
