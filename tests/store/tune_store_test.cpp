// TuneJob with a results store: every evaluation recorded as it is measured, resumed by a later run under the cache's
// rules (same kernel, device, problem size and build unless reuse_cache).
#include <gtest/gtest.h>

#include "ktune/jobs/tune_job.hpp"
#include "ktune/store/store_recorder.hpp"
#include "ktune/store/store_transfer.hpp"
#include "temp_files.hpp"

namespace ktune::store {
namespace {

using ktune::testing::fresh_temp_path;
using ktune::testing::shared_path;

const std::string kTitan = shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_Titan.json.gz");
const std::string k3090 = shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz");

TuneOutcome run(const std::string& simulate, const std::string& store, std::uint64_t evaluations, bool reuse = false) {
  TuneRequest request;
  request.simulate_path = simulate;
  request.strategy = "random_sample";
  request.seed = 3;
  request.budget.max_evaluations = evaluations;
  request.store_path = store;
  request.reuse_cache = reuse;
  TuneJob job(std::move(request));
  return job.run();
}

TEST(TuneStore, RecordsEveryEvaluationAndResumes) {
  const std::string path = fresh_temp_path("tune.ktune");
  const TuneOutcome first = run(kTitan, path, 20);
  EXPECT_EQ(first.resumed, 0u);
  {
    const ResultsStore store(path, OpenMode::existing);
    const auto spaces = store.spaces();
    ASSERT_EQ(spaces.size(), 1u);
    EXPECT_EQ(spaces[0].origin.device_name, "NVIDIA TITAN RTX");
    EXPECT_EQ(spaces[0].records, 20u);
    const auto sessions = store.sessions(spaces[0].id);
    ASSERT_EQ(sessions.size(), 1u);
    EXPECT_EQ(sessions[0].info.strategy, "random_sample");
    EXPECT_EQ(sessions[0].info.seed, std::optional<std::uint64_t>(3));
    const auto records = store.records(spaces[0].id);
    ASSERT_EQ(records.size(), first.records.size());
    for (std::size_t i = 0; i < records.size(); ++i)
      for (std::size_t p = 0; p < records[i].config.size(); ++p)
        EXPECT_TRUE(same_value(records[i].config[p], first.records[i].config[p]));
  }
  // Rerun with a larger budget: the 20 are resumed (and count toward it), 10 more are measured and recorded.
  const TuneOutcome second = run(kTitan, path, 30);
  EXPECT_EQ(second.resumed, 20u);
  EXPECT_EQ(second.result.evaluations, 10u);  // measured; the trace holds all 30
  EXPECT_EQ(second.records.size(), 30u);
  const ResultsStore store(path, OpenMode::existing);
  EXPECT_EQ(store.spaces()[0].records, 30u);
}

TEST(TuneStore, ResumesOnlyTheSameDeviceUnlessReused) {
  const std::string path = fresh_temp_path("devices.ktune");
  {
    ResultsStore store(path);
    import_results_file(store, k3090);  // another device's brute force
  }
  EXPECT_EQ(run(kTitan, path, 10).resumed, 0u);
  const std::string reused = fresh_temp_path("reused.ktune");
  {
    ResultsStore store(reused);
    import_results_file(store, k3090);
  }
  EXPECT_GT(run(kTitan, reused, 10, /*reuse=*/true).resumed, 4000u);
}

TEST(TuneStore, ResumableFollowsTheCacheRules) {
  SpaceOrigin a;
  a.kernel_name = "k";
  a.device_name = "GPU";
  a.problem_size = 1000;
  a.problem = ProblemBuilder("k").parameter("x", {1, 2}).build();
  a.provenance = {{"backend", "cuda"}, {"kernel_source_hash", "fnv1a64:1"}};
  SpaceOrigin b = a;
  b.problem_size = nlohmann::json::array({1000, 1, 1});  // the same size, as Kernel Tuner judges
  b.provenance.erase("backend");                          // recorded on one side only: no difference
  EXPECT_TRUE(resumable(a, b, false));
  b.provenance["kernel_source_hash"] = "fnv1a64:2";  // another build
  EXPECT_FALSE(resumable(a, b, false));
  EXPECT_TRUE(resumable(a, b, true));
  b = a;
  b.problem = ProblemBuilder("k").parameter("y", {1, 2}).build();  // other parameters: never
  EXPECT_FALSE(resumable(a, b, true));
  b = a;
  b.problem_size = 2000;
  EXPECT_FALSE(resumable(a, b, false));
}

}  // namespace
}  // namespace ktune::store
