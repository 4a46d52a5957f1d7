// TuneRequest::wisdom_path (`ktune tune --wisdom`): the winner of a run is added to the wisdom file under the device
// name the backend reports (a live cpp run: the CPU's model name from /proc/cpuinfo; simulated: the cache's), with
// the T1 ReferenceConfiguration as the kernel's default, and a newer run replaces the entry of the same device+size.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ktune/jobs/tune_job.hpp"
#include "ktune/live/backend.hpp"
#include "ktune/live/launch_planner.hpp"
#include "ktune/runtime/wisdom.hpp"
#include "temp_files.hpp"

namespace {

using ktune::TuneJob;
using ktune::TuneRequest;

std::string a100() {
  return ktune::testing::shared_path("data/benchmark_hub/cachefiles/convolution_milo/A100.json.gz");
}

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.starts_with("model name")) {
      std::string name = line.substr(line.find(':') + 1);
      return name.substr(name.find_first_not_of(" \t"));
    }
  return "";
}

TEST(TuneWisdom, ASimulatedRunAddsItsWinnerAndANewerRunReplacesIt) {
  if (!std::ifstream(a100())) GTEST_SKIP() << "no shared data";
  const std::string wisdom_path = ktune::testing::fresh_temp_path("tune.wisdom");
  std::vector<std::string> winners;
  for (std::uint64_t seed : {1u, 2u}) {
    TuneRequest request;
    request.simulate_path = a100();
    request.strategy = "random_sample";
    request.budget.max_evaluations = 20;
    request.seed = seed;
    request.wisdom_path = wisdom_path;
    TuneJob job(std::move(request));
    const auto outcome = job.run();
    ASSERT_TRUE(job.write_outputs(outcome).empty());
    ASSERT_TRUE(outcome.best);
    // The winner by a plain loop over the run's records.
    const ktune::EvaluationRecord* best = nullptr;
    for (const auto& r : outcome.records)
      if (r.status == ktune::Status::ok && (!best || *r.objective("time") < *best->objective("time"))) best = &r;
    const auto wisdom = ktune::runtime::Wisdom::load(wisdom_path);
    const auto* kernel = wisdom.find("convolution_kernel");
    ASSERT_NE(kernel, nullptr);
    ASSERT_EQ(kernel->entries.size(), 1u);  // the second run replaced the first
    const auto& e = kernel->entries[0];
    EXPECT_EQ(e.device, "NVIDIA A100-PCIE-40GB");
    EXPECT_EQ(e.problem_size, (ktune::runtime::ProblemSize{4096, 4096}));
    EXPECT_DOUBLE_EQ(e.value, *best->objective("time"));
    std::vector<std::string> literals;
    for (const auto& v : best->config) literals.push_back(ktune::live::LaunchPlanner::c_literal(v));
    EXPECT_EQ(e.values, literals);
    EXPECT_EQ(e.provenance.at("seed"), std::to_string(seed));
    EXPECT_EQ(e.provenance.at("strategy"), "random_sample");
    EXPECT_EQ(e.provenance.at("evaluations"), "20");
    EXPECT_TRUE(e.provenance.contains("ktune_version"));
    EXPECT_TRUE(kernel->default_values.empty());  // a simulated run has no reference configuration
    winners.push_back(e.provenance.at("seed"));
  }
  EXPECT_EQ(winners, (std::vector<std::string>{"1", "2"}));
}

TEST(TuneWisdom, SeveralObjectivesAreRefused) {
  TuneRequest request;
  request.simulate_path = a100();
  request.objectives = {"time,compile_time"};
  request.wisdom_path = ktune::testing::fresh_temp_path("two.wisdom");
  try {
    TuneJob job(std::move(request));
    ADD_FAILURE() << "no refusal";
  } catch (const ktune::JobError& e) {
    EXPECT_EQ(e.kind(), ktune::JobError::Kind::request);
    EXPECT_CONTAINS(std::string(e.what()), "--wisdom is for one objective");
  }
}

TEST(TuneWisdom, ALiveCppRunIsRecordedUnderTheCpusModelNameWithTheReferenceAsDefault) {
  try {
    (void)ktune::live::make_backend("cpp");
  } catch (const ktune::live::BackendUnavailable& e) {
    GTEST_SKIP() << "the cpp backend is not available here: " << e.what();
  }
  const std::string problem = ktune::testing::write_temp("scale.json", R"json({
 "General": {"BenchmarkName": "scale", "OutputFormat": "JSON"},
 "ConfigurationSpace": {"TuningParameters": [{"Name": "unroll", "Type": "int", "Values": "[1, 2, 4]"}],
                        "Conditions": []},
 "KernelSpecification": {"Language": "cpp", "KernelName": "scale", "KernelFile": "scale.c",
   "ProblemSize": [512], "GlobalSize": ["1"], "LocalSize": ["1"], "Iterations": 2,
   "ReferenceConfiguration": {"unroll": 1},
   "Arguments": [{"Name": "x", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadWrite",
                  "FillType": "Constant", "FillValue": 1.0, "Size": 512},
                 {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "AccessType": "ReadOnly",
                  "FillValue": 512}]}})json");
  ktune::testing::write_temp("scale.c", R"(void scale(float* x, int n) {
  for (int i = 0; i < n; i += unroll)
    for (int j = i; j < i + unroll && j < n; ++j) x[j] = 2.0f * x[j];
}
)");
  TuneRequest request;
  request.problem_path = problem;
  request.strategy = "brute_force";
  request.wisdom_path = ktune::testing::fresh_temp_path("live.wisdom");
  TuneJob job(std::move(request));
  const auto outcome = job.run();
  const auto failures = job.write_outputs(outcome);
  ASSERT_TRUE(failures.empty()) << failures.front();
  const auto wisdom = ktune::runtime::Wisdom::load(job.request().wisdom_path);
  const auto* kernel = wisdom.find("scale");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->parameters, (std::vector<std::string>{"unroll"}));
  EXPECT_EQ(kernel->default_values, (std::vector<std::string>{"1"}));
  ASSERT_EQ(kernel->entries.size(), 1u);
  const auto& e = kernel->entries[0];
  if (const std::string model = cpu_model_name(); !model.empty()) {
    EXPECT_EQ(e.device, model);
  }
  EXPECT_EQ(e.problem_size, (ktune::runtime::ProblemSize{512}));
  EXPECT_EQ(e.provenance.at("backend"), "cpp");
  EXPECT_TRUE(e.provenance.contains("kernel_source_hash"));
  EXPECT_TRUE(e.provenance.contains("compiler"));
  EXPECT_EQ(e.values[0], ktune::live::LaunchPlanner::c_literal(outcome.records.at(*outcome.best).config[0]));
}

}  // namespace
