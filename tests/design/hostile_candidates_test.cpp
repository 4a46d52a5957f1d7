// The hostile plug-ins of tests/data/hostile, scored as ktune design scores a candidate and run as tune --isolate
// runs a plug-in. Each attack is stopped: what the sandbox ends is that candidate's failure with the reason; what it
// cannot end (a read or write of a file it cannot see) has no effect, and the candidate scores exactly as the same
// strategy without its hostile part. The planted secret and the API key reach no result, message or listener, and no
// process of the run is left.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ktune/design/candidate_scorer.hpp"
#include "ktune/jobs/job_error.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/tuning/strategy_plugins.hpp"
#include "loopback_listener.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace {
namespace hostile_candidates_test {

using namespace ktune;
using namespace ktune::design;
namespace fs = std::filesystem;
using ktune::testing::read_text;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;

const std::string kSecret = "TOPSECRET-planted-" + std::to_string(::getpid());
const std::string kKey = "sk-hostile-test-key-" + std::to_string(::getpid());

const bool kEnvironment = [] {
  ::setenv("KTUNE_PLUGIN_CACHE", (temp_dir() / "plugin-cache").c_str(), 1);
  ktune::testing::share_precompiled_plugin_headers();
  ::setenv("OPENAI_API_KEY", kKey.c_str(), 1);
  return true;
}();

// A TCP listener on 127.0.0.1 that keeps whatever it is sent.
class Listener {
 public:
  Listener() {
    thread_ = std::thread([this] {
      started_ = true;
      for (;;) {
        const int c = ::accept(socket_.fd, nullptr, nullptr);
        if (c < 0 || stop_) break;
        ++connections_;
        char buffer[4096];
        for (ssize_t n; (n = ::read(c, buffer, sizeof buffer)) > 0;) {
          const std::lock_guard lock(mutex_);
          received_.append(buffer, static_cast<std::size_t>(n));
        }
        ::close(c);
      }
    });
    // Every candidate is scored in a process forked from this one. AddressSanitizer's allocator (GCC 12) is not
    // fork-safe: a fork while the new thread's start-up holds one of its locks leaves the child waiting for ever.
    while (!started_) std::this_thread::yield();
  }
  ~Listener() {
    stop_ = true;
    ::shutdown(socket_.fd, SHUT_RDWR);
    thread_.join();
  }
  int port() const { return socket_.port(); }
  int connections() const { return connections_; }
  std::string received() {
    const std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  ktune::testing::LoopbackListener socket_;
  std::atomic<bool> started_{false}, stop_{false};
  std::atomic<int> connections_{0};
  std::mutex mutex_;
  std::string received_;
  std::thread thread_;
};

Listener& listener() {
  static Listener l;
  return l;
}

const fs::path& outside() {
  static const fs::path folder = [] {
    const fs::path f = temp_dir() / "outside";
    fs::create_directories(f);
    std::ofstream(f / "secret.txt") << kSecret << "\n";
    return f;
  }();
  return folder;
}

// The hostile plug-in `name` (its part put into the skeleton) with its placeholders filled in, as a file of its own.
std::string hostile(const std::string& name) {
  const std::string folder = std::string(KTUNE_SOURCE_DIR) + "/tests/data/hostile/";
  std::string text = read_text(folder + "skeleton.cpp");
  const auto replace = [&](const std::string& from, const std::string& to) {
    for (std::size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, from.size(), to);
  };
  replace("// @ATTACK@\n", read_text(folder + name + ".inc"));
  replace("@NAME@", name);
  replace("@SECRET_FILE@", (outside() / "secret.txt").string());
  replace("@OUTSIDE@", outside().string());
  replace("@PORT@", std::to_string(listener().port()));
  replace("@HOME@", std::getenv("HOME") ? std::getenv("HOME") : "/root");
  std::string key_hex;
  for (unsigned char c : kKey) key_hex += fmt::format("{:02x}", c);
  replace("@KEY_HEX@", key_hex);
  const fs::path path = temp_dir() / "hostile" / (name + ".cpp");
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path.string();
}

const methodology::Comparison& spaces() {
  static const methodology::Comparison comparison = [] {
    methodology::ComparisonOptions options;
    options.repeats = 3;
    options.threads = 1;
    return methodology::Comparison(
        methodology::load_spaces({shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz")}),
        options);
  }();
  return comparison;
}

ScoringLimits limits() {
  ScoringLimits l;
  l.run_seconds = 4;
  return l;
}

// The processes of this test's run still alive: none may be left by a candidate.
int children_left() {
  int n = 0;
  const std::string me = std::to_string(::getpid());
  for (const auto& entry : fs::directory_iterator("/proc")) {
    if (entry.path().filename().string().find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_text((entry.path() / "stat").string());
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    const std::string name = stat.substr(stat.find('(') + 1, close - stat.find('(') - 1);
    std::istringstream fields(stat.substr(close + 2));
    std::string state, parent;
    fields >> state >> parent;
    n += parent == me || name == "ktune-hostile-d";
  }
  return n;
}

// Nothing of the run is anywhere it should not be.
void expect_no_leak(const std::string& text) {
  EXPECT_EQ(text.find(kSecret), std::string::npos) << text;
  EXPECT_EQ(text.find(kKey), std::string::npos) << text;
}

void expect_nothing_escaped() {
  EXPECT_EQ(listener().connections(), 0);
  expect_no_leak(listener().received());
  for (const char* file : {"written-by-candidate", "system-ran", "written-at-load", "system-ran-at-load"})
    EXPECT_FALSE(fs::exists(outside() / file)) << file;
  EXPECT_FALSE(fs::exists("/tmp/ktune-hostile-written"));
  const char* home = std::getenv("HOME");
  EXPECT_FALSE(fs::exists(fs::path(home ? home : "/root") / "ktune-hostile-written"));
  for (int i = 0; i < 50 && children_left() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(children_left(), 0);
}

CandidateScore score(const std::string& name, const sandbox::Layers& disabled = {}) {
  ScoringLimits l = limits();
  l.disabled = disabled;
  const CandidateScore s = CandidateScorer(spaces(), l).score(hostile(name));
  expect_no_leak(s.error + s.compile_log + s.declared_name);
  expect_nothing_escaped();
  return s;
}

const CandidateScore& clean() {
  static const CandidateScore s = score("clean");
  return s;
}

bool complete_sandbox() { return sandbox::available_layers().complete(); }

TEST(HostileCandidates, TheCleanStrategyScores) {
  ASSERT_TRUE(clean().ok) << clean().stage << ": " << clean().error;
}

// The sandbox changes no score: the clean strategy scores in it exactly as in this process.
TEST(HostileCandidates, TheSandboxChangesNoScore) {
  const std::string path = hostile("clean");
  (void)load_strategy_plugin(path);
  const methodology::ComparisonReport in_process = spaces().run({methodology::parse_strategy_spec(path)});
  EXPECT_EQ(in_process.aggregate.at(0).score, clean().score);
}

// What the sandbox cannot end has no effect: the candidate scores as the clean one.
TEST(HostileCandidates, WritingOutsideTheScratchFolderChangesNothing) {
  if (!complete_sandbox()) GTEST_SKIP() << "needs every sandbox layer";
  const CandidateScore s = score("write_outside");
  ASSERT_TRUE(s.ok) << s.stage << ": " << s.error;
  EXPECT_EQ(s.score, clean().score);
}

TEST(HostileCandidates, ReadingAPlantedSecretFindsNothing) {
  if (!complete_sandbox()) GTEST_SKIP() << "needs every sandbox layer";
  const CandidateScore s = score("read_secret");
  ASSERT_TRUE(s.ok) << s.stage << ": " << s.error;
  EXPECT_EQ(s.score, clean().score);
}

TEST(HostileCandidates, ReadingTheApiKeyFindsNothing) {
  const CandidateScore s = score("read_key");
  ASSERT_TRUE(s.ok) << s.stage << ": " << s.error;
  EXPECT_EQ(s.score, clean().score);
}

// What the sandbox ends is the candidate's failure, with the reason.
TEST(HostileCandidates, ConnectingToALocalListenerEndsTheCandidate) {
  if (!sandbox::available_layers().seccomp) GTEST_SKIP() << "no seccomp here";
  const CandidateScore s = score("connect_listener");
  EXPECT_EQ(s.stage, "sandbox") << s.error;
  EXPECT_NE(s.error.find("forbids: socket"), std::string::npos) << s.error;
}

TEST(HostileCandidates, SystemAndForkEndTheCandidate) {
  if (!sandbox::available_layers().seccomp) GTEST_SKIP() << "no seccomp here";
  for (const char* name : {"spawn_processes", "daemons"}) {
    const CandidateScore s = score(name);
    EXPECT_EQ(s.stage, "sandbox") << name;
    EXPECT_NE(s.error.find("a system call the sandbox forbids"), std::string::npos) << s.error;
  }
}

TEST(HostileCandidates, AStaticConstructorIsStoppedAsTheLibraryLoads) {
  if (!sandbox::available_layers().seccomp) GTEST_SKIP() << "no seccomp here";
  const CandidateScore s = score("static_constructor");
  EXPECT_EQ(s.stage, "sandbox") << s.error;
  EXPECT_NE(s.error.find("the plug-in was stopped by the sandbox"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("forbids: socket"), std::string::npos) << s.error;
}

TEST(HostileCandidates, AnIncludeOfASecretIsRefusedBeforeCompiling) {
  const CandidateScore s = score("include_secret");
  EXPECT_EQ(s.stage, "compile") << s.error;
  EXPECT_NE(s.error.find("is refused"), std::string::npos) << s.error;
}

#if !defined(__SANITIZE_ADDRESS__)  // AddressSanitizer's process cannot have an address-space limit
TEST(HostileCandidates, AllocatingTenGigabytesEndsAtTheMemoryLimit) {
  const CandidateScore s = score("allocate");
  EXPECT_EQ(s.stage, "memory") << s.error;
  EXPECT_NE(s.error.find("ran out of memory"), std::string::npos) << s.error;
}
#endif

TEST(HostileCandidates, AnEndlessLoopEndsAtTheTimeLimit) {
  const CandidateScore s = score("endless_loop");
  EXPECT_EQ(s.stage, "timeout") << s.error;
}

TEST(HostileCandidates, ATenGigabyteFileEndsAtTheFileSizeLimit) {
  const CandidateScore s = score("huge_file");
  EXPECT_EQ(s.stage, "sandbox") << s.error;
  EXPECT_NE(s.error.find("wrote a file larger than the sandbox's limit of 256 MiB"), std::string::npos) << s.error;
}

// The degraded mode, each layer forced off: what is left still stops what it can, and nothing claims more.
TEST(HostileCandidates, WithoutNamespacesSeccompStillKeepsThemOffTheNetworkAndTheKeyIsStillGone) {
  if (!sandbox::available_layers().seccomp) GTEST_SKIP() << "no seccomp here";
  const sandbox::Layers no_namespaces{true, true, true, true, true, true, false};
  const CandidateScore connect = score("connect_listener", no_namespaces);
  EXPECT_EQ(connect.stage, "sandbox") << connect.error;
  EXPECT_NE(connect.error.find("forbids: socket"), std::string::npos) << connect.error;
  const CandidateScore key = score("read_key", no_namespaces);
  ASSERT_TRUE(key.ok) << key.stage << ": " << key.error;
  EXPECT_EQ(key.score, clean().score);
  const CandidateScore daemons = score("daemons", no_namespaces);
  EXPECT_EQ(daemons.stage, "sandbox") << daemons.error;
}

TEST(HostileCandidates, WithoutSeccompTheNetworkNamespaceStillKeepsThemOffTheNetwork) {
  if (!sandbox::available_layers().network_namespace) GTEST_SKIP() << "no network namespace here";
  sandbox::Layers no_seccomp;
  no_seccomp.seccomp = true;
  const CandidateScore s = score("connect_listener", no_seccomp);  // its connection fails: it goes on
  ASSERT_TRUE(s.ok) << s.stage << ": " << s.error;
  EXPECT_EQ(s.score, clean().score);
}

// The same plug-ins under tune --isolate: loaded only in the worker's sandbox, their runs end with the reason.
std::optional<TuneOutcome> isolated(const std::string& name, std::string& error) {
  TuneRequest r;
  r.simulate_path = shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz");
  r.strategy = hostile(name);
  r.budget.max_evaluations = 30;
  r.seed = 3;
  r.isolate_strategy = true;
  r.isolation_seconds = 3;
  error.clear();
  std::optional<TuneOutcome> outcome;
  try {
    TuneJob job(r);
    outcome.emplace(job.run());
  } catch (const JobError& e) {
    error = e.what();
  }
  expect_no_leak(error + (outcome ? outcome->result.failure : std::string()));
  expect_nothing_escaped();
  return outcome;
}

TEST(HostileIsolatedPlugins, EachIsStoppedWithItsReason) {
  if (!sandbox::available_layers().seccomp) GTEST_SKIP() << "no seccomp here";
  for (const auto& [name, reason] : {std::pair{"connect_listener", "forbids: socket"},
                                     {"spawn_processes", "a system call the sandbox forbids"},
                                     {"daemons", "a system call the sandbox forbids"},
                                     {"huge_file", "wrote a file larger than"},
                                     {"endless_loop", "took longer than its limit"}}) {
    std::string error;
    const auto outcome = isolated(name, error);
    ASSERT_TRUE(outcome) << name << ": " << error;
    EXPECT_EQ(outcome->result.stop_reason, StopReason::strategy_failed) << name;
    EXPECT_NE(outcome->result.failure.find(reason), std::string::npos) << name << ": " << outcome->result.failure;
  }
}

TEST(HostileIsolatedPlugins, AStaticConstructorNeverRunsInKtune) {
  if (!sandbox::available_layers().seccomp) GTEST_SKIP() << "no seccomp here";
  std::string error;
  (void)isolated("static_constructor", error);
  EXPECT_NE(error.find("was stopped by the sandbox while loading"), std::string::npos) << error;
  EXPECT_NE(error.find("forbids: socket"), std::string::npos) << error;
}

TEST(HostileIsolatedPlugins, WhatCannotBeEndedHasNoEffect) {
  if (!complete_sandbox()) GTEST_SKIP() << "needs every sandbox layer";
  std::string error;
  const auto reference = isolated("clean", error);
  ASSERT_TRUE(reference) << error;
  for (const char* name : {"write_outside", "read_secret", "read_key"}) {
    const auto outcome = isolated(name, error);
    ASSERT_TRUE(outcome) << name << ": " << error;
    EXPECT_EQ(outcome->result.stop_reason, reference->result.stop_reason) << name << ": " << outcome->result.failure;
    ASSERT_EQ(outcome->result.trace.size(), reference->result.trace.size()) << name;
    for (std::size_t i = 0; i < reference->result.trace.size(); ++i)
      EXPECT_EQ(outcome->result.trace[i].index, reference->result.trace[i].index) << name;
  }
}

}  // namespace hostile_candidates_test
}  // namespace
