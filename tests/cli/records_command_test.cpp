// Issue 33 at the command line: caches of another device refused, budgets that count what was resumed, outputs
// checked before measuring and never lost to another output's failure, one writer per cache, a full disk.
#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "shared_data.hpp"
#include "spawn_ktune.hpp"

namespace {

using namespace ktune::testing;

const std::string kA100 = shared_path("data/benchmark_hub/cachefiles/convolution_milo/A100.json.gz");
const std::string kA4000 = shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000.json.gz");

std::string fresh(const std::string& name) { return fresh_temp_path(name); }

std::size_t entries_in(const std::string& cache) {
  return nlohmann::json::parse(read_text(cache)).at("cache").size();
}

TEST(RecordsCommand, ACacheOfAnotherDeviceIsRefusedNotResumed) {
  const std::string cache = fresh("a100_cache.json");
  ASSERT_EQ(run_ktune("tune --simulate " + quoted(kA100) + " --cache " + quoted(cache) + " --max-fevals 50 --quiet")
                .exit_code,
            0);
  const KtuneRun other = run_ktune("tune --simulate " + quoted(kA4000) + " --cache " + quoted(cache) + " --max-fevals 50");
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_TRUE(contains(other.err, "device_name: the file holds results of device 'NVIDIA A100-PCIE-40GB', this run "
                                  "is on 'NVIDIA RTX A4000'")) << other.err;
  EXPECT_EQ(nlohmann::json::parse(read_text(cache)).at("device_name"), "NVIDIA A100-PCIE-40GB");  // header untouched
  const KtuneRun reused = run_ktune("tune --simulate " + quoted(kA4000) + " --cache " + quoted(cache) +
                                    " --max-fevals 60 --reuse-cache --json --quiet");
  ASSERT_EQ(reused.exit_code, 0) << reused.err;
  EXPECT_EQ(nlohmann::json::parse(reused.out).at("resumed"), 50);
}

TEST(RecordsCommand, RerunningAFinishedCommandMeasuresNothing) {
  const std::string cache = fresh("rerun_cache.json");
  const std::string command = "tune --simulate " + quoted(kA100) + " --cache " + quoted(cache) +
                              " --strategy pso --max-fevals 100 --seed 3";
  ASSERT_EQ(run_ktune(command + " --quiet").exit_code, 0);
  const KtuneRun again = run_ktune(command);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(contains(again.out, "0 evaluations measured + 100 resumed from " + cache + " (counted in the budget)"))
      << again.out;
  EXPECT_EQ(entries_in(cache), 100u);
  const KtuneRun fresh_budget = run_ktune(command + " --budget-new-only --json --quiet");
  ASSERT_EQ(fresh_budget.exit_code, 0) << fresh_budget.err;
  EXPECT_EQ(nlohmann::json::parse(fresh_budget.out).at("evaluations"), 100);
  EXPECT_EQ(entries_in(cache), 200u);
}

TEST(RecordsCommand, OutputsAreCheckedBeforeMeasuringAndNeverOverwriteInputs) {
  const std::string file = cli_write_temp("plain_file", "x");
  const KtuneRun under_file =
      run_ktune("tune --simulate " + quoted(kA100) + " --max-fevals 5 --output " + quoted(file + "/out.json"));
  EXPECT_EQ(under_file.exit_code, 1);
  EXPECT_TRUE(contains(under_file.err, file + "/out.json: --output")) << under_file.err;
  EXPECT_FALSE(contains(under_file.err, "evaluations")) << "measured before refusing:\n" << under_file.err;

  const std::string input = fresh("input_copy.json.gz");
  std::filesystem::copy_file(kA100, input);
  const auto size = std::filesystem::file_size(input);
  const KtuneRun over_input = run_ktune("tune --simulate " + quoted(input) + " --max-fevals 5 --output " + quoted(input));
  EXPECT_EQ(over_input.exit_code, 1);
  EXPECT_TRUE(contains(over_input.err, "--output would overwrite the --simulate file")) << over_input.err;
  EXPECT_EQ(std::filesystem::file_size(input), size);

  const std::string nested = (cli_temp_dir() / "new" / "folder" / "out.csv").string();
  std::filesystem::remove_all(cli_temp_dir() / "new");
  ASSERT_EQ(run_ktune("tune --simulate " + quoted(kA100) + " --max-fevals 5 --quiet --csv " + quoted(nested)).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(nested));
}

TEST(RecordsCommand, ACacheLockedByAnotherWriterIsRefused) {
  const std::string cache = fresh("locked_cache.json");
  ASSERT_EQ(run_ktune("tune --simulate " + quoted(kA100) + " --cache " + quoted(cache) + " --max-fevals 5 --quiet")
                .exit_code,
            0);
  const int fd = ::open(cache.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  const KtuneRun second = run_ktune("tune --simulate " + quoted(kA100) + " --cache " + quoted(cache) + " --max-fevals 9");
  ::close(fd);
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_TRUE(contains(second.err, "another process is writing this cache file")) << second.err;
  EXPECT_EQ(entries_in(cache), 5u);
}

// Two runs started together on one cache: whatever the interleaving, every measurement of a run that said it
// succeeded is in the file (before, the second renamed a new file over the path while the first kept appending to
// the old one).
TEST(RecordsCommand, TwoProcessesOnOneCacheLoseNothing) {
  for (int round = 0; round < 3; ++round) {
    const std::string cache = fresh("shared_cache.json");
    const std::vector<std::string> args{"tune", "--simulate", kA100, "--cache", cache, "--strategy", "brute_force",
                                        "--json", "--quiet"};
    SpawnedKtune first(args, "first"), second(args, "second");
    const KtuneRun a = first.wait(), b = second.wait();
    std::size_t measured = 0;
    for (const KtuneRun* r : {&a, &b}) {
      if (r->exit_code == 0) {
        measured += nlohmann::json::parse(r->out).at("evaluations").get<std::size_t>();
      } else {
        EXPECT_EQ(r->exit_code, 1) << r->err;
        EXPECT_TRUE(contains(r->err, "another process is writing this cache file")) << r->err;
      }
    }
    EXPECT_GT(measured, 0u);
    EXPECT_EQ(entries_in(cache), measured) << "round " << round;
  }
}

TEST(RecordsCommand, ASymlinkedCacheStaysASymlink) {
  const std::string target = fresh("real_cache.json"), link = fresh("link_cache.json");
  ASSERT_EQ(run_ktune("tune --simulate " + quoted(kA100) + " --cache " + quoted(target) + " --max-fevals 5 --quiet")
                .exit_code,
            0);
  std::filesystem::permissions(target, std::filesystem::perms(0640));
  std::filesystem::create_symlink(target, link);
  ASSERT_EQ(run_ktune("tune --simulate " + quoted(kA100) + " --cache " + quoted(link) + " --max-fevals 9 --quiet")
                .exit_code,
            0);
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(entries_in(target), 9u);
  EXPECT_EQ(std::filesystem::status(target).permissions() & std::filesystem::perms::all, std::filesystem::perms(0640));
}

TEST(RecordsCommand, MessagesAndFlagsThatDoNotFit) {
  const KtuneRun both = run_ktune("tune --simulate " + quoted(kA100) + " --quiet --verbose");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.err, "--quiet excludes --verbose")) << both.err;
  const KtuneRun live_flag = run_ktune("tune --simulate " + quoted(kA100) + " --iterations 3 --no-verify");
  EXPECT_EQ(live_flag.exit_code, 2);
  EXPECT_TRUE(contains(live_flag.err, "--iterations N, --no-verify are for live runs")) << live_flag.err;
  const KtuneRun one = run_ktune("tune --simulate " + quoted(kA100) + " --max-fevals 1 --strategy random_sample");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_TRUE(contains(one.out, "1 evaluation (")) << one.out;
  EXPECT_TRUE(contains(one.err, "max 1 evaluation,") || contains(one.err, "max 1 evaluation\n")) << one.err;
}

// A full disk under the cache (a 300 KiB tmpfs in a private mount namespace): the run goes on, says how many results
// are safe in the cache, writes its other outputs and exits 1; a new run on the full disk is refused at once, and with
// room again the cache resumes.
TEST(RecordsCommand, AFullDiskStopsTheCacheButNotTheRun) {
  if (std::system("unshare -m true >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no private mount namespace here (unshare -m needs root)";
  const std::string disk = fresh("small_disk");
  std::filesystem::create_directories(disk);
  const std::string csv = fresh("full_disk.csv"), json = fresh("full_disk.json"), err = fresh("full_disk.err"),
                    resumed = fresh("full_disk_resumed.json");
  const std::string ktune = quoted(KTUNE_BINARY);
  const std::string script =
      "mount -t tmpfs -o size=300k tmpfs " + quoted(disk) + " || exit 99; " + ktune + " tune --simulate " +
      quoted(kA100) + " --strategy brute_force --cache " + quoted(disk + "/c.json") + " --csv " + quoted(csv) +
      " --json --quiet > " + quoted(json) + " 2> " + quoted(err) + "; echo $? > " + quoted(json + ".status") + "; " +
      // A run on the still full disk is refused at once; with room again, the cache resumes.
      ktune + " tune --simulate " + quoted(kA100) + " --cache " + quoted(disk + "/c.json") + " --max-fevals 1 2> " +
      quoted(err + ".full") + "; mount -o remount,size=4m " + quoted(disk) + " && " + ktune + " tune --simulate " +
      quoted(kA100) + " --cache " + quoted(disk + "/c.json") +
      " --strategy random_sample --max-fevals 1 --budget-new-only --json --quiet > " + quoted(resumed);
  ASSERT_EQ(std::system(("unshare -m --propagation private sh -c " + quoted(script)).c_str()), 0);
  EXPECT_EQ(read_text(json + ".status"), "1\n");
  const std::string stderr_text = read_text(err);
  EXPECT_TRUE(contains(stderr_text, "No space left on device")) << stderr_text;
  EXPECT_TRUE(contains(stderr_text, "results (")) << stderr_text;
  const auto report = nlohmann::json::parse(read_text(json));
  EXPECT_EQ(report.at("evaluations"), 4362);
  std::size_t rows = 0;
  for (char c : read_text(csv)) rows += c == '\n';
  EXPECT_EQ(rows, 4363u);  // header + every evaluation, on the healthy disk
  EXPECT_TRUE(contains(read_text(err + ".full"), "is full")) << read_text(err + ".full");
  const auto again = nlohmann::json::parse(read_text(resumed));
  EXPECT_GT(again.at("resumed").get<int>(), 100);
  EXPECT_LT(again.at("resumed").get<int>(), 4362);
}

}  // namespace
