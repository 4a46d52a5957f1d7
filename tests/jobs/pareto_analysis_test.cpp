// The rules of `ktune pareto` and the one normalisation, through the library.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "ktune/jobs/pareto_analysis.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/multiobjective/front_normalisation.hpp"
#include "ktune/multiobjective/indicators.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace {
namespace pareto_analysis_test {

using namespace ktune;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;

const std::string kConvolution = shared_path("data/benchmark_hub/cachefiles/convolution_milo/MI250X_T4.json.gz");
const std::string kThreads = "threads=block_size_x*block_size_y";

ParetoRequest request() {
  ParetoRequest r;
  r.results_path = kConvolution;
  r.objectives = {"time,threads:max"};
  r.derived = {kThreads};
  return r;
}

TEST(FrontNormalisation, IdealIsZeroNadirIsOneAndAFlatObjectiveIsOnlyShifted) {
  const std::vector<double> front = {1, 10, 2, 10, 4, 10};  // objective 2 flat on the front
  const FrontNormalisation n(front, 2);
  EXPECT_EQ(n.ideal(), (std::vector<double>{1, 10}));
  EXPECT_EQ(n.nadir(), (std::vector<double>{4, 10}));
  EXPECT_DOUBLE_EQ(n(1, 0), 0);
  EXPECT_DOUBLE_EQ(n(4, 0), 1);
  EXPECT_DOUBLE_EQ(n(2.5, 0), 0.5);
  EXPECT_DOUBLE_EQ(n(12, 1), 2);
  EXPECT_EQ(n(std::vector<double>{4, 11}), (std::vector<double>{1, 1}));
  EXPECT_EQ(n.hypervolume_reference(), (std::vector<double>{kHypervolumeReference, kHypervolumeReference}));
  EXPECT_THROW(FrontNormalisation({1, 2}, {0, 3}), std::invalid_argument);
  EXPECT_THROW(FrontNormalisation(std::vector<double>{1, 2, 3}, 2), std::invalid_argument);
  // igd_plus with an ideal and nadir is the plain indicator in the normalised space.
  const std::vector<double> run = {2, 11, 3, 12};
  EXPECT_DOUBLE_EQ(igd_plus(run, front, 2, n.ideal(), n.nadir()), igd_plus(n(run), n(front), 2));
}

TEST(ParetoAnalysis, TheFrontIsNonDominatedSortedAndBoundsTheIdealAndNadir) {
  const ParetoAnalysis a = analyse_pareto(request());
  ASSERT_GE(a.front.size(), 2u);
  EXPECT_EQ(a.parameters.size(), a.front[0].configuration.size());
  for (std::size_t k = 1; k < a.front.size(); ++k) {
    EXPECT_LT(a.front[k - 1].values[0], a.front[k].values[0]);  // ascending time
    EXPECT_LT(a.front[k - 1].values[1], a.front[k].values[1]);  // so more threads (else it would be dominated)
  }
  EXPECT_EQ(a.ideal[0], a.front.front().values[0]);
  EXPECT_EQ(a.ideal[1], a.front.back().values[1]);
  EXPECT_EQ(a.nadir[0], a.front.back().values[0]);
  EXPECT_EQ(a.nadir[1], a.front.front().values[1]);
  EXPECT_GT(a.hypervolume, 0);
  EXPECT_LE(a.configurations, a.records);
  const nlohmann::json j = pareto_report_json(a);
  EXPECT_EQ(j.at("front").size(), a.front.size());
  EXPECT_EQ(j.at("hypervolume_reference"), kHypervolumeReference);
}

TEST(ParetoAnalysis, RunsAreScoredAgainstTheTrueFront) {
  // A brute-force run finds the whole front: IGD+ 0 and the front's hypervolume.
  TuneRequest all;
  all.simulate_path = kConvolution;
  all.objectives = {"time", "threads:max"};
  all.derived = {kThreads};
  TuneJob brute(std::move(all));
  const std::string everything = (temp_dir() / "pareto_all.json").string();
  brute.write_t4(everything, brute.run());
  TuneRequest few;
  few.simulate_path = kConvolution;
  few.strategy = "random_sample";
  few.budget.max_evaluations = 30;
  few.objectives = {"time", "threads:max"};
  few.derived = {kThreads};
  TuneJob sample(std::move(few));
  const std::string some = (temp_dir() / "pareto_some.json").string();
  sample.write_t4(some, sample.run());

  ParetoRequest r = request();
  r.runs = {everything, some};
  const ParetoAnalysis a = analyse_pareto(r);
  ASSERT_EQ(a.runs.size(), 2u);
  EXPECT_EQ(a.runs[0].true_front_points_found, a.front.size());
  EXPECT_DOUBLE_EQ(a.runs[0].igd_plus, 0);
  EXPECT_DOUBLE_EQ(a.runs[0].hypervolume, a.hypervolume);
  EXPECT_EQ(a.runs[1].evaluated, 30u);
  EXPECT_GT(a.runs[1].igd_plus, 0);
  EXPECT_LT(a.runs[1].hypervolume, a.hypervolume);
}

TEST(ParetoAnalysis, RefusalsSayWhetherTheRequestOrTheInputIsWrong) {
  auto kind = [](ParetoRequest r) {
    try {
      (void)analyse_pareto(r);
    } catch (const JobError& e) {
      return e.kind() == JobError::Kind::request ? "request" : "input";
    }
    return "none";
  };
  ParetoRequest one = request();
  one.objectives = {"time"};
  EXPECT_STREQ(kind(one), "request");
  ParetoRequest bad_derive = request();  // the expression is read against the file's parameters
  bad_derive.derived = {"threads=block_size_x*"};
  EXPECT_STREQ(kind(bad_derive), "input");
  ParetoRequest unknown = request();
  unknown.derived = {"threads=no_such_parameter*2"};
  EXPECT_STREQ(kind(unknown), "input");
  ParetoRequest unrecorded = request();
  unrecorded.objectives = {"time,energy"};
  EXPECT_STREQ(kind(unrecorded), "input");
  ParetoRequest missing = request();
  missing.runs = {"/nonexistent/run.json"};
  EXPECT_STREQ(kind(missing), "input");
}

}  // namespace pareto_analysis_test
}  // namespace
