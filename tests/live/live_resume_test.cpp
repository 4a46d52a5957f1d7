// `ktune tune T1FILE` live with the cpp backend: a run killed with SIGKILL after some results reached the cache is
// resumed by rerunning with the same cache; the result is complete, every configuration is in the file exactly once,
// and the file is valid (read back with the project's reader). Skipped when the cpp backend is unavailable.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/live/backend.hpp"
#include "run_ktune.hpp"
#include "slow_scale_problem.hpp"

extern char** environ;

namespace ktune {
namespace {

using testing::quoted;
using testing::run_ktune;

using testing::cache_entries;

TEST(LiveResume, KilledRunResumesWithEveryConfigurationOnce) {
  try {
    (void)live::make_backend("cpp");
  } catch (const live::BackendUnavailable& e) {
    GTEST_SKIP() << "the cpp backend is not available here: " << e.what();
  }
  const std::string kernel = testing::cli_write_temp("slow_scale.c", testing::kSlowScaleKernel);
  const std::string t1 = testing::cli_write_temp("slow_scale_T1.json", testing::scale_t1(kernel));
  const std::string cache = (testing::cli_temp_dir() / "slow_scale_cache.json").string();
  std::remove(cache.c_str());

  // First run: started directly so that we have its pid to SIGKILL.
  const std::string binary = KTUNE_BINARY;
  std::vector<std::string> args = {binary, "tune", t1, "--cache", cache, "--quiet"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);

  std::size_t at_kill = 0;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up) {
    at_kill = cache_entries(cache);
    if (at_kill >= 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the first run ended before it could be killed";
  ASSERT_GE(at_kill, 3u);
  ASSERT_LT(at_kill, 16u) << "the run was not interrupted";

  // The cut file is readable (as an interrupted run) with the entries it had.
  const io::ResultsFile cut = io::read_results_file(cache);
  EXPECT_GE(cut.records.size(), at_kill);  // flushed entries are never lost
  EXPECT_LT(cut.records.size(), 16u);

  // Second run: resumes, measures only what is missing.
  const testing::KtuneRun rerun = run_ktune("tune " + quoted(t1) + " --cache " + quoted(cache) + " --json");
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  const auto j = nlohmann::json::parse(rerun.out);
  const std::size_t resumed = j.at("resumed").get<std::size_t>();
  EXPECT_EQ(resumed, cut.records.size());
  EXPECT_EQ(j.at("evaluations").get<std::size_t>() + resumed, 16u);
  EXPECT_EQ(j.at("stop_reason"), "space exhausted");
  EXPECT_EQ(j.at("live").at("backend"), "cpp");
  EXPECT_EQ(j.at("failures"), 0);
  // factor=1 is the fastest by no margin we can rely on; the best is some successful configuration.
  EXPECT_FALSE(j.at("best").is_null());

  const io::ResultsFile done = io::read_results_file(cache);
  EXPECT_FALSE(done.truncated);
  ASSERT_EQ(done.records.size(), 16u);
  std::set<std::string> keys;
  for (const auto& r : done.records) {
    EXPECT_EQ(r.status, Status::ok) << r.message;
    EXPECT_EQ(r.runtimes_ms.size(), 7u);
    keys.insert(io::kernel_tuner_key(r.config));
  }
  EXPECT_EQ(keys.size(), 16u) << "a configuration was measured twice";

  // A third run measures nothing.
  const testing::KtuneRun again = run_ktune("tune " + quoted(t1) + " --cache " + quoted(cache) + " --json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const auto k = nlohmann::json::parse(again.out);
  EXPECT_EQ(k.at("evaluations"), 0);
  EXPECT_EQ(k.at("resumed"), 16);
  EXPECT_EQ(io::read_results_file(cache).records.size(), 16u);
}

TEST(LiveTuneCommand, T1WithoutKernelSpecificationNeedsSimulate) {
  const std::string t1 = testing::cli_write_temp(
      "space_only_T1.json",
      R"({"General": {"BenchmarkName": "x", "FormatVersion": 1}, "ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "int", "Values": "[1, 2]"}], "Conditions": []}})");
  const auto run = run_ktune("tune " + quoted(t1));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(testing::contains(run.err, "no KernelSpecification")) << run.err;
  EXPECT_TRUE(testing::contains(run.err, "--simulate")) << run.err;
}

TEST(LiveTuneCommand, BadStatisticIsAUsageError) {
  const std::string kernel = testing::cli_write_temp("slow_scale2.c", testing::kSlowScaleKernel);
  const std::string t1 = testing::cli_write_temp("slow_scale2_T1.json", testing::scale_t1(kernel));
  const auto run = run_ktune("tune " + quoted(t1) + " --statistic mode");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(testing::contains(run.err, "--statistic: 'mode' is not mean, median or min")) << run.err;
}

}  // namespace
}  // namespace ktune
