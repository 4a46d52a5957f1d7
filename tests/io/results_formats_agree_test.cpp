// Acceptance: a brute-forced space stored in both formats (benchmark_hub's Kernel Tuner caches and their T4
// conversions) reads as the same parameters and the same records.
#include <filesystem>
#include <unordered_map>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/results_file.hpp"
#include "results_expectations.hpp"
#include "temp_files.hpp"

namespace ktune::io {
namespace {

using ktune::testing::same_double;
using ktune::testing::shared_path;

struct FilePair {
  std::string name, cache, t4;
};

std::vector<FilePair> file_pairs() {
  std::vector<FilePair> pairs;
  for (const char* app : {"convolution_milo", "dedispersion_milo"})
    for (const char* gpu : {"A100", "A4000", "MI250X"}) {
      const std::string base = shared_path(fmt::format("data/benchmark_hub/cachefiles/{}/{}", app, gpu));
      pairs.push_back({fmt::format("{}_{}", app, gpu), base + ".json.gz", base + "_T4.json.gz"});
    }
  const std::string dir = shared_path("data/benchmark_hub/hyperparametertuning/cachefiles");
  for (const char* strategy : {"diff_evo", "dual_annealing", "firefly_algorithm", "genetic_algorithm", "pso",
                               "simulated_annealing"}) {
    const std::string base = fmt::format("{}/hyperparamtuning_paper_bruteforce_{}", dir, strategy);
    pairs.push_back({fmt::format("hyperparameters_{}", strategy), base + ".json", base + "_T4.json"});
  }
  return pairs;
}

void PrintTo(const FilePair& pair, std::ostream* out) { *out << pair.name; }

class ResultsFormatsAgree : public ::testing::TestWithParam<FilePair> {};

TEST_P(ResultsFormatsAgree, SameParametersAndRecords) {
  const ResultsFile cache = read_results_file(GetParam().cache);
  const ResultsFile t4 = read_results_file(GetParam().t4);
  ASSERT_EQ(cache.format, ResultsFormat::KernelTunerCache);
  ASSERT_EQ(t4.format, ResultsFormat::T4);
  EXPECT_FALSE(cache.truncated);
  EXPECT_FALSE(t4.truncated);
  ASSERT_EQ(cache.objectives.size(), 1u);
  EXPECT_EQ(cache.objectives, t4.objectives);
  const std::string objective = cache.objectives[0];
  EXPECT_TRUE(objective == "time" || objective == "score");

  // Parameters: the same names in the same order, the same value sets.
  ASSERT_EQ(cache.problem.parameters.size(), t4.problem.parameters.size());
  for (std::size_t p = 0; p < cache.problem.parameters.size(); ++p) {
    const Parameter& a = cache.problem.parameters[p];
    const Parameter& b = t4.problem.parameters[p];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.values.size(), b.values.size()) << a.name;
    for (const Value& v : a.values)
      EXPECT_TRUE(std::any_of(b.values.begin(), b.values.end(), [&](const Value& w) { return same_value(v, w); }))
          << a.name << " " << v.repr();
  }

  // Records: matched by configuration.
  ASSERT_EQ(cache.records.size(), t4.records.size());
  std::unordered_map<std::string, const EvaluationRecord*> by_key;
  for (const EvaluationRecord& r : t4.records) EXPECT_TRUE(by_key.emplace(kernel_tuner_key(r.config), &r).second);
  std::size_t failures = 0;
  for (const EvaluationRecord& a : cache.records) {
    const std::string key = kernel_tuner_key(a.config);
    const auto it = by_key.find(key);
    ASSERT_NE(it, by_key.end()) << key;
    const EvaluationRecord& b = *it->second;
    for (std::size_t p = 0; p < a.config.size(); ++p) ASSERT_TRUE(same_value(a.config[p], b.config[p])) << key;
    ASSERT_EQ(a.status, b.status) << key;
    failures += a.status != Status::ok;
    EXPECT_EQ(a.message, b.message) << key;
    EXPECT_EQ(a.timestamp, b.timestamp) << key;
    const auto x = a.objective(objective), y = b.objective(objective);
    ASSERT_EQ(x.has_value(), y.has_value()) << key;
    if (x) {
      EXPECT_TRUE(same_double(*x, *y)) << key << ": " << *x << " vs " << *y;
    }
    ASSERT_EQ(a.runtimes_ms.size(), b.runtimes_ms.size()) << key;
    for (std::size_t i = 0; i < a.runtimes_ms.size(); ++i) ASSERT_TRUE(same_double(a.runtimes_ms[i], b.runtimes_ms[i])) << key;
    EXPECT_TRUE(same_double(a.compile_ms, b.compile_ms)) << key;
    EXPECT_TRUE(same_double(a.framework_ms, b.framework_ms)) << key;
    EXPECT_TRUE(same_double(a.verification_ms, b.verification_ms)) << key;
    EXPECT_TRUE(same_double(a.strategy_ms, b.strategy_ms)) << key;
    EXPECT_TRUE(same_double(a.charged_ms(), b.charged_ms())) << key;
  }
  if (GetParam().name == "convolution_milo_A100") {
    EXPECT_EQ(failures, 161u);
  }
}

INSTANTIATE_TEST_SUITE_P(BenchmarkHub, ResultsFormatsAgree, ::testing::ValuesIn(file_pairs()),
                         [](const ::testing::TestParamInfo<FilePair>& info) { return info.param.name; });

}  // namespace
}  // namespace ktune::io
