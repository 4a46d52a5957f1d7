// Issue 19, items 1, 2, 4 and 7 on a live run (`ktune tune T1FILE`, cpp backend):
//  - SIGINT / SIGTERM stop the run within a bounded time, every requested output (CSV, T4, cache, --json) is written
//    with what was measured, exit status 130 / 143, and the cache resumes; a second SIGINT ends a run at once;
//  - compiles that time out leave no temporary directories, and a run removes those of dead ktune processes;
//  - a kernel writing an input it declared read-only fails that configuration, and the next one sees the original;
//  - the time of a failed compile or of a timeout lands in the field of the step it was spent in.
// Skipped when the cpp backend (a C compiler) is unavailable.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ktune/io/results_file.hpp"
#include "ktune/live/backend.hpp"
#include "slow_scale_problem.hpp"
#include "spawn_ktune.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using testing::quoted;
using testing::run_ktune;
using testing::SpawnedKtune;
using testing::wait_until;

bool cpp_backend_available(std::string& why) {
  try {
    (void)live::make_backend("cpp");
    return true;
  } catch (const live::BackendUnavailable& e) {
    why = e.what();
    return false;
  }
}

#define REQUIRE_CPP_BACKEND()                                                        \
  do {                                                                               \
    std::string why;                                                                 \
    if (!cpp_backend_available(why)) GTEST_SKIP() << "no cpp backend here: " << why; \
  } while (0)

using testing::cache_entries;
using testing::scale_t1;
using testing::kSlowScaleKernel;

std::size_t lines_of(const std::string& path) {
  std::istringstream in(testing::read_text(path));
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

// Interrupts a live run with `sig` once 3 results are in its cache; checks what it left and that it resumes.
void interrupt_live_run(int sig, int expected_status, const std::string& name) {
  const std::string kernel = testing::cli_write_temp(name + ".c", kSlowScaleKernel);
  const std::string t1 = testing::cli_write_temp(name + "_T1.json", scale_t1(kernel));
  const std::string dir = testing::cli_temp_dir().string() + "/";
  const std::string cache = dir + name + "_cache.json", csv = dir + name + ".csv", t4 = dir + name + "_t4.json";
  for (const auto& f : {cache, csv, t4}) std::remove(f.c_str());

  SpawnedKtune run({"tune", t1, "--cache", cache, "--csv", csv, "--output", t4, "--json"}, name);
  ASSERT_TRUE(run.started());
  ASSERT_TRUE(wait_until([&] { return cache_entries(cache) >= 3; })) << run.err_so_far();
  const auto signalled = std::chrono::steady_clock::now();
  run.signal(sig);
  const testing::KtuneRun done = run.wait();
  const double stop_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();
  ASSERT_EQ(done.exit_code, expected_status) << done.err;
  EXPECT_LT(stop_seconds, 5.0) << "the in-flight configuration must be abandoned or finished promptly";
  EXPECT_TRUE(testing::contains(done.err, "interrupted after")) << done.err;

  // Every output holds exactly what was measured.
  const auto j = nlohmann::json::parse(done.out);
  EXPECT_EQ(j.at("stop_reason"), "interrupted");
  const auto measured = j.at("evaluations").get<std::size_t>();
  EXPECT_GE(measured, 3u);
  EXPECT_LT(measured, 16u);
  EXPECT_FALSE(j.at("best").is_null());
  EXPECT_EQ(io::read_results_file(t4).records.size(), measured);
  EXPECT_EQ(lines_of(csv), measured + 1);  // a header and one row per evaluation
  const io::ResultsFile in_cache = io::read_results_file(cache);
  EXPECT_EQ(in_cache.records.size(), measured);
  EXPECT_FALSE(in_cache.truncated);

  // The cache resumes: only what is missing is measured.
  const testing::KtuneRun rerun = run_ktune("tune " + quoted(t1) + " --cache " + quoted(cache) + " --json --quiet");
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  const auto r = nlohmann::json::parse(rerun.out);
  EXPECT_EQ(r.at("resumed").get<std::size_t>(), measured);
  EXPECT_EQ(r.at("evaluations").get<std::size_t>() + measured, 16u);
  EXPECT_EQ(io::read_results_file(cache).records.size(), 16u);
}

TEST(LiveInterruption, SigintWritesEveryOutputAndTheRunResumes) {
  REQUIRE_CPP_BACKEND();
  interrupt_live_run(SIGINT, 130, "sigint");
}

TEST(LiveInterruption, SigtermDoesTheSameWithStatus143) {
  REQUIRE_CPP_BACKEND();
  interrupt_live_run(SIGTERM, 143, "sigterm");
}

TEST(LiveInterruption, ASecondSigintEndsTheRunAtOnce) {
  REQUIRE_CPP_BACKEND();
  // In process, a kernel that never returns cannot be abandoned: the first SIGINT is noted, the second one ends it.
  const std::string kernel = testing::cli_write_temp("forever.c", R"(
void scale(const float* in, float* out, int n) {
  volatile int spin = 1;
  while (spin) {}
}
)");
  const std::string t1 = testing::cli_write_temp("forever_T1.json", scale_t1(kernel));
  SpawnedKtune run({"tune", t1, "--in-process", "--max-fevals", "1"}, "forever");
  ASSERT_TRUE(run.started());
  // Let it reach the kernel (compiling takes a moment); it never ends by itself.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ASSERT_TRUE(run.running()) << run.err_so_far();
  run.signal(SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(run.running()) << "the first SIGINT waits for the configuration in flight";
  const auto second = std::chrono::steady_clock::now();
  run.signal(SIGINT);
  const testing::KtuneRun done = run.wait(std::chrono::seconds(10));
  EXPECT_FALSE(run.timed_out());
  EXPECT_EQ(done.exit_code, -SIGINT) << done.err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - second).count(), 2.0);
}

// Sets TMPDIR for this process (and the ktune it starts) to a fresh directory; restores it at scope end.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string& name) : path_(testing::cli_temp_dir() / name) {
    fs::remove_all(path_);
    fs::create_directories(path_);
    if (const char* old = std::getenv("TMPDIR")) old_ = old;
    ::setenv("TMPDIR", path_.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (old_) ::setenv("TMPDIR", old_->c_str(), 1);
    else ::unsetenv("TMPDIR");
  }
  const fs::path& path() const { return path_; }
  // The entries ktune made there (its temporary directories are "ktune-<pid>-XXXXXX").
  std::vector<std::string> ktune_entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_))
      if (e.path().filename().string().starts_with("ktune-")) out.push_back(e.path().filename().string());
    return out;
  }

 private:
  fs::path path_;
  std::optional<std::string> old_;
};

TEST(LiveTemporaryFiles, CompilesThatTimeOutLeaveNothingBehind) {
  REQUIRE_CPP_BACKEND();
  ScopedTmpdir tmp("tmp_timeout");
  // The compiler waits forever reading a FIFO nobody writes (as an include of /dev/zero would, without its memory).
  const std::string fifo = (testing::cli_temp_dir() / "never_written.fifo").string();
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string kernel =
      testing::cli_write_temp("hangs_compiler.c", "#include \"" + fifo + "\"\n" + kSlowScaleKernel);
  const std::string t1 = testing::cli_write_temp("hangs_compiler_T1.json", scale_t1(kernel, 1.5));
  const std::string cache = (testing::cli_temp_dir() / "hangs_compiler_cache.json").string();
  std::remove(cache.c_str());
  const testing::KtuneRun run =
      run_ktune("tune " + quoted(t1) + " --max-fevals 2 --json --quiet --cache " + quoted(cache));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("statuses").at("timeout"), 2) << run.out;
  EXPECT_EQ(tmp.ktune_entries(), std::vector<std::string>{});
  std::remove(fifo.c_str());
  // Item 7: the 1.5 s were spent compiling.
  const io::ResultsFile results = io::read_results_file(cache);
  ASSERT_EQ(results.records.size(), 2u);
  for (const auto& r : results.records) {
    EXPECT_EQ(r.status, Status::timeout);
    EXPECT_GE(r.compile_ms, 1400.0);
    EXPECT_EQ(r.benchmark_ms, 0.0);
    EXPECT_LT(r.framework_ms, 500.0);
  }
}

TEST(LiveTemporaryFiles, ARunRemovesThoseOfDeadProcessesOnly) {
  REQUIRE_CPP_BACKEND();
  ScopedTmpdir tmp("tmp_orphans");
  // A process that has ended: its pid names a directory nobody will remove (as after kill -9 of ktune).
  const pid_t dead = [] {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return pid;
  }();
  const fs::path orphan = tmp.path() / ("ktune-" + std::to_string(dead) + "-abcdef");
  const fs::path alive = tmp.path() / ("ktune-" + std::to_string(::getpid()) + "-ghijkl");
  const fs::path other = tmp.path() / "ktune-notapid";
  for (const auto& d : {orphan, alive, other}) {
    fs::create_directories(d);
    std::ofstream(d / "kernel.o") << "x";
  }
  const std::string kernel = testing::cli_write_temp("quick_scale.c", kSlowScaleKernel);
  const std::string t1 = testing::cli_write_temp("quick_scale_T1.json", scale_t1(kernel));
  const testing::KtuneRun run = run_ktune("tune " + quoted(t1) + " --max-fevals 1 --json --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(fs::exists(orphan)) << "the directory of a dead process stays";
  EXPECT_TRUE(fs::exists(alive)) << "the directory of a running process was removed";
  EXPECT_TRUE(fs::exists(other)) << "a directory not named by ktune's pattern was removed";
  fs::remove_all(alive);
  fs::remove_all(other);
  EXPECT_EQ(tmp.ktune_entries(), std::vector<std::string>{});
}

TEST(LiveInputs, AKernelWritingItsReadOnlyInputFailsThatConfigurationOnly) {
  REQUIRE_CPP_BACKEND();
  // factor 2 writes into `in`; every other configuration must still see the original input (and verify).
  const std::string kernel = testing::cli_write_temp("writes_input.c", R"(
void scale(const float* in, float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] * 2.0f;
  if (factor == 2) ((float*)in)[5] = 246.0f;
}
)");
  auto t1 = nlohmann::json::parse(scale_t1(kernel, 20, 3));
  t1["KernelSpecification"]["ReferenceConfiguration"] = {{"factor", 1}, {"block_size_x", 16}};
  const std::string path = testing::cli_write_temp("writes_input_T1.json", t1.dump());
  const std::string t4 = (testing::cli_temp_dir() / "writes_input_t4.json").string();
  const std::string csv = (testing::cli_temp_dir() / "writes_input.csv").string();
  const testing::KtuneRun run = run_ktune("tune " + quoted(path) + " --strategy brute_force --output " + quoted(t4) +
                                          " --csv " + quoted(csv) + " --json --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const io::ResultsFile results = io::read_results_file(t4);
  ASSERT_EQ(results.records.size(), 16u);
  std::size_t failed = 0;
  for (const auto& r : results.records) {
    const bool writes = r.config[0].as_int() == 2;
    if (writes) {
      ++failed;
      EXPECT_EQ(r.status, Status::verification_failed);
    } else {
      EXPECT_EQ(r.status, Status::ok) << "factor " << r.config[0].repr() << ": " << r.message;
    }
  }
  EXPECT_EQ(failed, 4u);
  // The reason, which T4 has no field for, is in the CSV: once per configuration that wrote its input.
  const std::string text = testing::read_text(csv);
  std::size_t reasons = 0;
  for (std::size_t at = 0; (at = text.find("the kernel wrote to 'in' (first at element 5), declared read-only", at)) !=
                           std::string::npos;
       ++at)
    ++reasons;
  EXPECT_EQ(reasons, 4u) << text;
}

TEST(LiveTimes, EachStepsTimeLandsInItsOwnField) {
  REQUIRE_CPP_BACKEND();
  // A compile error: the compiler's time is compile_time (it was 0, with the time in framework_time).
  const std::string broken = testing::cli_write_temp("broken.c", "void scale(const float* in, float* out, int n) { oops }\n");
  const std::string cache = (testing::cli_temp_dir() / "times_cache.json").string();
  std::remove(cache.c_str());
  testing::KtuneRun run = run_ktune("tune " + quoted(testing::cli_write_temp("broken_T1.json", scale_t1(broken))) +
                                    " --max-fevals 2 --json --quiet --cache " + quoted(cache));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  io::ResultsFile results = io::read_results_file(cache);
  ASSERT_EQ(results.records.size(), 2u);
  for (const auto& r : results.records) {
    EXPECT_EQ(r.status, Status::compile_failed);
    EXPECT_GT(r.compile_ms, 5.0);  // starting a compiler takes milliseconds at least
    EXPECT_LT(r.framework_ms, r.compile_ms);
  }
  // A kernel that never ends: the timeout's time is benchmark time (it was compiled, then launched).
  const std::string forever = testing::cli_write_temp("forever_isolated.c", R"(
void scale(const float* in, float* out, int n) {
  volatile int spin = 1;
  while (spin) {}
}
)");
  std::remove(cache.c_str());
  run = run_ktune("tune " + quoted(testing::cli_write_temp("forever_isolated_T1.json", scale_t1(forever, 1.5))) +
                  " --max-fevals 1 --json --quiet --cache " + quoted(cache));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  results = io::read_results_file(cache);
  ASSERT_EQ(results.records.size(), 1u);
  const auto& r = results.records[0];
  EXPECT_EQ(r.status, Status::timeout);
  EXPECT_GT(r.compile_ms, 5.0);
  EXPECT_GE(r.compile_ms + r.benchmark_ms, 1400.0);
  EXPECT_GT(r.benchmark_ms, 500.0);
  EXPECT_LT(r.framework_ms, 500.0);
}

TEST(LiveWorkerOutput, WhatAKernelPrintsNamesItsConfigurationAndStaysOffStdout) {
  REQUIRE_CPP_BACKEND();
  const std::string kernel = testing::cli_write_temp("prints.c", R"(
#include <stdio.h>
void scale(const float* in, float* out, int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] * factor;
  printf("kernel says %d\n", factor);
  fprintf(stderr, "and warns %d\n", block_size_x);
}
)");
  const std::string t1 = testing::cli_write_temp("prints_T1.json", scale_t1(kernel, 20, 1));
  const testing::KtuneRun run = run_ktune("tune " + quoted(t1) + " --strategy brute_force --max-fevals 2 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(nlohmann::json::accept(run.out)) << "stdout must hold the JSON only:\n" << run.out;
  EXPECT_TRUE(testing::contains(run.err, "[factor=1, block_size_x=16] kernel says 1\n")) << run.err;
  EXPECT_TRUE(testing::contains(run.err, "[factor=1, block_size_x=16] and warns 16\n")) << run.err;
  EXPECT_TRUE(testing::contains(run.err, "[factor=1, block_size_x=32] kernel says 1\n")) << run.err;
  EXPECT_FALSE(testing::contains(run.err, "[factor=2")) << run.err;  // only the two configurations measured
}

TEST(LiveBlockSizeLimit, ALiveRunTakesTheDevicesLimit) {
  // Item 10: the OpenCL device (PoCL on the CPU allows 4096 work-items per group) decides which blocks are valid,
  // not Kernel Tuner's default of 1024; --max-threads overrides it.
  try {
    (void)live::make_backend("opencl");
  } catch (const live::BackendUnavailable& e) {
    GTEST_SKIP() << "no OpenCL here: " << e.what();
  }
  auto t1 =
      nlohmann::json::parse(testing::read_text(std::string(KTUNE_SOURCE_DIR) + "/examples/matmul/matmul_opencl.json"));
  t1["KernelSpecification"]["KernelFile"] = std::string(KTUNE_SOURCE_DIR) + "/examples/matmul/matmul.cl";
  t1["ConfigurationSpace"]["TuningParameters"][0]["Values"] = "[16, 32, 64]";
  t1["ConfigurationSpace"]["TuningParameters"][1]["Values"] = "[16, 32, 64]";
  t1["ConfigurationSpace"]["Conditions"] = nlohmann::json::array();  // blocks of 256 to 4096 work-items
  const std::string path = testing::cli_write_temp("big_blocks_T1.json", t1.dump());
  const testing::KtuneRun run = run_ktune("tune " + quoted(path) + " --max-fevals 1 --json --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  const auto device_limit = j.at("live").at("device_max_threads").get<std::uint64_t>();
  ASSERT_GT(device_limit, 0u);
  EXPECT_EQ(j.at("max_threads").get<std::uint64_t>(), device_limit);
  const auto space_size = [&](const std::string& flags) {
    const testing::KtuneRun s = run_ktune("space " + quoted(path) + " --json " + flags);
    EXPECT_EQ(s.exit_code, 0) << s.err;
    return nlohmann::json::parse(s.out).at("valid_configs").get<std::size_t>();
  };
  EXPECT_EQ(j.at("space_size").get<std::size_t>(), space_size("--max-threads " + std::to_string(device_limit)));
  if (device_limit > 1024) {
    EXPECT_GT(j.at("space_size").get<std::size_t>(), space_size(""));
  }
  const testing::KtuneRun limited =
      run_ktune("tune " + quoted(path) + " --max-fevals 1 --json --quiet --max-threads 256");
  ASSERT_EQ(limited.exit_code, 0) << limited.err;
  EXPECT_EQ(nlohmann::json::parse(limited.out).at("space_size").get<std::size_t>(), space_size("--max-threads 256"));
}

}  // namespace
}  // namespace ktune
