// Transfer through the jobs: `ktune tune --transfer` (files and results stores as sources, the sources of another
// kernel refused) and `ktune compare --transfer` (each strategy scored cold and with transfer, every space from the
// sources of its kernel on other devices, never its own file or its own device).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "ktune/io/results_file.hpp"
#include "ktune/jobs/comparison_job.hpp"
#include "ktune/jobs/comparison_reports.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/store/results_store.hpp"
#include "ktune/store/store_transfer.hpp"
#include "sanitizers.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace ktune {
namespace {

using ktune::testing::fresh_temp_path;
using ktune::testing::shared_path;

std::string hub(const std::string& file) { return shared_path("data/benchmark_hub/cachefiles/" + file); }

// The best configuration of a results file, as values.
std::vector<Value> best_of(const std::string& path) {
  const io::ResultsFile f = io::read_results_file(path);
  const EvaluationRecord* best = nullptr;
  for (const auto& r : f.records)
    if (r.objective("time") && (!best || *r.objective("time") < *best->objective("time"))) best = &r;
  return best->config;
}

bool same_config(const std::vector<Value>& a, const std::vector<Value>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same_value);
}

TuneOutcome tune_with(const std::vector<std::string>& transfer, std::uint64_t evaluations = 10) {
  TuneRequest request;
  request.simulate_path = hub("pnpoly/RTX_3090.json.gz");
  request.seed = 5;
  request.budget.max_evaluations = evaluations;
  request.transfer = transfer;
  TuneJob job(std::move(request));
  return job.run();
}

TEST(TransferJob, TuneStartsFromTheSourcesBest) {
  const TuneOutcome out = tune_with({hub("pnpoly/RTX_Titan.json.gz")});
  ASSERT_EQ(out.transfer_sources, std::vector<std::string>{hub("pnpoly/RTX_Titan.json.gz")});
  ASSERT_FALSE(out.records.empty());
  EXPECT_TRUE(same_config(out.records.front().config, best_of(hub("pnpoly/RTX_Titan.json.gz"))));
  EXPECT_EQ(out.records.size(), 10u);
}

TEST(TransferJob, TuneTakesTheSourcesOfItsKernelFromAStore) {
  const std::string path = fresh_temp_path("sources.ktune");
  {
    store::ResultsStore db(path);
    store::import_results_file(db, hub("pnpoly/RTX_Titan.json.gz"));
    store::import_results_file(db, hub("gemm_clblast/RTX_Titan.json.gz"));  // another kernel: passed over
  }
  const TuneOutcome out = tune_with({path});
  ASSERT_EQ(out.transfer_sources.size(), 1u);
  EXPECT_NE(out.transfer_sources[0].find("cn_pnpoly"), std::string::npos) << out.transfer_sources[0];
  EXPECT_TRUE(same_config(out.records.front().config, best_of(hub("pnpoly/RTX_Titan.json.gz"))));
}

TEST(TransferJob, TuneRefusesASourceOfAnotherKernelNamingIt) {
  try {
    tune_with({hub("gemm_clblast/RTX_Titan.json.gz")});
    FAIL() << "no error";
  } catch (const JobError& e) {
    EXPECT_EQ(e.kind(), JobError::Kind::input);
    EXPECT_NE(std::string(e.what()).find("gemm_clblast/RTX_Titan.json.gz"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Xgemm"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tune_with({fresh_temp_path("missing.json")}), JobError);
}

TEST(TransferJob, CompareScoresColdAndTransferFromOtherDevicesOnly) {
  CompareRequest r;
  r.spaces = {hub("convolution_milo/A100.json.gz"), hub("pnpoly/RTX_3090.json.gz")};
  r.strategies = {"auto"};
  r.transfer = {hub("convolution_milo/A100_T4.json.gz"), hub("convolution_milo/A4000.json.gz"),
                hub("convolution_milo/MI250X_T4.json.gz"), hub("pnpoly/RTX_3090.json.gz"),
                hub("pnpoly/RTX_Titan.json.gz")};
  r.options.repeats = 3;
  r.options.seed = 2;
  r.options.threads = 1;
  const ComparisonJob job(r);
  const auto report = job.run();
  ASSERT_EQ(report.strategies, (std::vector<std::string>{"auto", "auto+transfer"}));
  ASSERT_EQ(report.spaces.size(), 2u);
  // A100's own T4 twin is left out; pnpoly's own file too.
  EXPECT_EQ(report.spaces[0].transfer_sources, (std::vector<std::string>{hub("convolution_milo/A4000.json.gz"),
                                                                         hub("convolution_milo/MI250X_T4.json.gz")}));
  EXPECT_EQ(report.spaces[1].transfer_sources, std::vector<std::string>{hub("pnpoly/RTX_Titan.json.gz")});
  const nlohmann::json j = comparison_json(report, false);
  EXPECT_TRUE(j.at("spaces")[0].contains("transfer_sources"));
  EXPECT_TRUE(j.at("aggregate").contains("auto+transfer"));
  // With the source's best first, transfer is ahead of cold at the first time point on pnpoly.
  EXPECT_GT(report.spaces[1].strategies[1].performance.front(), report.spaces[1].strategies[0].performance.front());
}

// `--transfer cachefiles/*/*`: each cache with its T4 twin. The twins are merged into one source per device, so the
// scores are those of the caches alone (with the twins apart, the opening took the A4000's two best and none of
// the MI250X's, and the twelve GPU spaces' mean fell from 0.954 to 0.945 at 20 repeats).
TEST(TransferJob, CompareCountsACacheAndItsT4TwinAsOneSource) {
  CompareRequest r;
  r.spaces = {hub("convolution_milo/A100.json.gz")};
  r.strategies = {"auto"};
  r.transfer = {hub("convolution_milo/A4000.json.gz"), hub("convolution_milo/MI250X.json.gz")};
  r.options.repeats = 3;
  r.options.seed = 4;
  r.options.threads = 1;
  const auto caches = ComparisonJob(r).run();
  r.transfer = {hub("convolution_milo/A100_T4.json.gz"), hub("convolution_milo/A4000.json.gz"),
                hub("convolution_milo/A4000_T4.json.gz"), hub("convolution_milo/MI250X.json.gz"),
                hub("convolution_milo/MI250X_T4.json.gz")};
  const auto twins = ComparisonJob(r).run();
  auto twin = [](const std::string& device) {
    return hub("convolution_milo/" + device + ".json.gz") + " + " + hub("convolution_milo/" + device + "_T4.json.gz");
  };
  EXPECT_EQ(twins.spaces[0].transfer_sources, (std::vector<std::string>{twin("A4000"), twin("MI250X")}));
  EXPECT_EQ(twins.aggregate[1].score, caches.aggregate[1].score);
}

// Reduction at 4M elements from the 16M size (PoCL, bench/spaces): the sizes agree overall (Spearman 0.92), but the
// 16M size's best are 1.1-1.3 times the 4M optimum, which ranks 79th there. Regressed on the source's quantiles (the
// plain GP beside it), the search stayed in the source's best region: -0.030 against cold on average over seeds 0-2,
// -0.045 at worst. With the model on their logarithm, which proposes when it predicts better: -0.011 (transfer
// 0.894). Since bayes_opt opens with 3 configurations instead of 5 (2026-11-29) cold auto scores 0.929 there instead of
// 0.905, transfer is unchanged, and the difference is -0.034: inside the 0.05, and transfer itself must hold.
TEST(TransferJob, ASourceThatAgreesOnlyBelowTheTopCostsLittle) {
  if (ktune::testing::kUnderSanitizers) GTEST_SKIP() << "300 runs of a statistical check; the code is covered above";
  const std::string dir = std::string(KTUNE_SOURCE_DIR) + "/bench/spaces/cachefiles/reduction_ocl/";
  CompareRequest r;
  r.spaces = {dir + "pocl_4M.json.gz"};
  r.strategies = {"auto"};
  r.transfer = {dir + "pocl_16M.json.gz"};
  r.options.repeats = 100;
  r.options.threads = 1;
  double gain = 0, transfer = 0;
  for (std::uint64_t seed : {0, 1, 2}) {
    r.options.seed = seed;
    const auto report = ComparisonJob(r).run();
    ASSERT_EQ(report.strategies, (std::vector<std::string>{"auto", "auto+transfer"}));
    gain += (report.aggregate[1].score - report.aggregate[0].score) / 3;
    transfer += report.aggregate[1].score / 3;
  }
  EXPECT_GT(gain, -0.05);
  EXPECT_GT(transfer, 0.88);
}

TEST(TransferJob, CompareRefusesBadSettingsAndSeveralObjectives) {
  CompareRequest r;
  r.spaces = {hub("pnpoly/RTX_3090.json.gz")};
  r.strategies = {"auto"};
  r.transfer = {hub("pnpoly/RTX_Titan.json.gz")};
  r.transfer_settings = {"opening=x"};
  EXPECT_THROW(ComparisonJob{r}, JobError);
  r.transfer_settings.clear();
  r.objectives = {"time", "GFLOP/s:max"};
  EXPECT_THROW(ComparisonJob{r}, JobError);
}

}  // namespace
}  // namespace ktune
