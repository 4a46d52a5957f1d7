// `ktune tune --devices`: two OpenCL devices (PoCL exposes the CPU twice with POCL_DEVICES="pthread pthread") share
// a live brute force: the same configurations in the same order with the same statuses as one device, both devices
// measure, the cache holds exactly what the run reports and a resumed run goes on from it; bad device lists are
// refused with the reason. (That a device never measures two configurations at once, and that a lost device loses
// only its in-flight configuration, is tests/tuning/concurrent_evaluator_test.cpp.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "ktune/io/results_file.hpp"
#include "run_ktune.hpp"
#include "spawn_ktune.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using testing::contains;
using testing::quoted;
using testing::run_ktune;

const std::string kVectorAdd = quoted((fs::path(KTUNE_SOURCE_DIR) / "examples/vector_add/vector_add_opencl.json").string());

class MultiDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("POCL_DEVICES");
    if (old) saved_ = old;
    had_ = old != nullptr;
    ::setenv("POCL_DEVICES", "pthread pthread", 1);
  }
  void TearDown() override {
    if (had_) ::setenv("POCL_DEVICES", saved_.c_str(), 1);
    else ::unsetenv("POCL_DEVICES");
  }

 private:
  std::string saved_;
  bool had_ = false;
};

nlohmann::json tune(const std::string& flags) {
  const auto run = run_ktune("tune " + kVectorAdd + " --json --quiet --trace --iterations 2 " + flags);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.exit_code == 0 ? nlohmann::json::parse(run.out) : nlohmann::json::object();
}

std::vector<std::pair<std::size_t, std::string>> order(const nlohmann::json& out) {
  std::vector<std::pair<std::size_t, std::string>> o;
  for (const auto& e : out.value("trace", nlohmann::json::array()))
    o.emplace_back(e["index"].get<std::size_t>(), e["status"].get<std::string>());
  return o;
}

TEST_F(MultiDevice, TwoDevicesShareABruteForceWithTheResultsOfOne) {
  const nlohmann::json one = tune("--strategy brute_force");
  const nlohmann::json two = tune("--strategy brute_force --devices 0,1");
  ASSERT_TRUE(two.contains("live")) << two.dump();
  EXPECT_EQ(order(two), order(one));
  EXPECT_EQ(two["statuses"], one["statuses"]);
  const auto& devices = two["live"]["devices"];
  ASSERT_EQ(devices.size(), 2u) << two["live"].dump();
  std::size_t total = 0;
  for (const auto& d : devices) {
    EXPECT_GT(d["evaluations"].get<std::size_t>(), 0u) << devices.dump();
    EXPECT_EQ(d["lost"], "");
    total += d["evaluations"].get<std::size_t>();
  }
  EXPECT_EQ(total, two["trace"].size());  // brute force asks for everything it measures
  EXPECT_EQ(devices[0]["device_name"], devices[1]["device_name"]);
  // all: every device of the platform.
  const nlohmann::json all = tune("--strategy brute_force --devices all");
  EXPECT_EQ(all["live"]["devices"].size(), 2u);
  EXPECT_EQ(order(all), order(one));
}

TEST_F(MultiDevice, TheCacheHoldsWhatWasAskedAndAResumeGoesOn) {
  const std::string cache = (testing::temp_dir() / "two-devices-cache.json").string();
  fs::remove(cache);
  const nlohmann::json first = tune("--strategy genetic_algorithm --seed 3 --max-fevals 6 --devices 0,1 --cache " + quoted(cache));
  ASSERT_EQ(first["trace"].size(), 6u);
  const auto cached = nlohmann::json::parse(testing::read_text(cache));
  EXPECT_EQ(cached["cache"].size(), 6u) << "configurations measured ahead but never asked are not recorded";
  const nlohmann::json resumed =
      tune("--strategy genetic_algorithm --seed 3 --max-fevals 16 --devices 0,1 --cache " + quoted(cache));
  EXPECT_EQ(resumed["resumed"], 6u);
  EXPECT_EQ(resumed["trace"].size(), 16u);  // --max-fevals counts the resumed results too
  EXPECT_EQ(resumed["evaluations"], 10u);
}

std::size_t records_in(const std::string& path) {
  try {
    return io::read_results_file(path).records.size();
  } catch (const std::exception&) {
    return 0;
  }
}

// Ctrl-C with two devices busy: what was asked is written (the cache, the report), what was in flight is dropped,
// and the cache resumes.
TEST_F(MultiDevice, CtrlCWritesWhatWasMeasuredAndTheCacheResumes) {
  const std::string cache = (testing::temp_dir() / "two-devices-interrupted.json").string();
  fs::remove(cache);
  const std::string matmul = (fs::path(KTUNE_SOURCE_DIR) / "examples/matmul/matmul_opencl.json").string();
  testing::SpawnedKtune run({"tune", matmul, "--strategy", "brute_force", "--devices", "0,1", "--iterations", "1",
                             "--cache", cache, "--json", "--quiet"},
                            "two-devices");
  ASSERT_TRUE(run.started());
  ASSERT_TRUE(testing::wait_until([&] { return records_in(cache) >= 4; })) << run.err_so_far();
  run.signal(SIGINT);
  const testing::KtuneRun done = run.wait();
  ASSERT_EQ(done.exit_code, 130) << done.err;
  const auto out = nlohmann::json::parse(done.out);
  EXPECT_EQ(out.at("stop_reason"), "interrupted");
  const auto measured = out.at("evaluations").get<std::size_t>();
  EXPECT_EQ(records_in(cache), measured);
  const auto rerun = run_ktune("tune " + quoted(matmul) + " --strategy brute_force --devices 0,1 --iterations 1 "
                               "--max-fevals 2 --json --quiet --cache " + quoted(cache));
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_EQ(nlohmann::json::parse(rerun.out).at("resumed").get<std::size_t>(), measured);
}

TEST_F(MultiDevice, BadDeviceListsAreRefused) {
  auto run = run_ktune("tune " + kVectorAdd + " --devices 0,5");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(contains(run.err, "there is no device 5")) << run.err;
  run = run_ktune("tune " + kVectorAdd + " --devices 1,1");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(contains(run.err, "device 1 is named twice")) << run.err;
  run = run_ktune("tune " + kVectorAdd + " --devices 0,x");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(contains(run.err, "'x' is not a device index")) << run.err;
  run = run_ktune("tune " + kVectorAdd + " --devices 0,1 --compile-workers 1");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(contains(run.err, "--compile-workers with several --devices")) << run.err;
  // The cpp backend measures on the host CPU: one device.
  const std::string cpp = quoted((fs::path(KTUNE_SOURCE_DIR) / "examples/vector_add/vector_add_cpp.json").string());
  run = run_ktune("tune " + cpp + " --devices 0,1");
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(contains(run.err, "there is no device 1 (the cpp backend has 1 here")) << run.err;
}

}  // namespace
}  // namespace ktune
