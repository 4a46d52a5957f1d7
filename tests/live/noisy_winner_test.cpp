// A confirmed winner under noise (issue 38): a cpp kernel whose eight configurations differ by 1-3% returns its own
// time with 4% Gaussian jitter; adaptive repetition with --confirm-top 5 must pick the true best, or one it reports
// as tied with the winner, in nearly every seeded run, where 7 fixed runs often pick another.
//
// The jitter is deterministic: the kernel keeps its random state in a file named by KTUNE_TEST_JITTER, so every
// launch of every build continues one sequence, started from the run's seed; decisions depend only on the times, so a
// seed always gives the same run. KTUNE_NOISE_RUNS sets the number of seeded runs (8 here; the closing note of the
// issue states 40).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "fake_backend.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "sanitizers.hpp"
#include "temp_files.hpp"

namespace ktune {
namespace {

constexpr int kTrueBest = 3;
// Mean time of each configuration x (ms): x = 3 is fastest, the nearest 1% slower.
constexpr double kBase[] = {1.03, 1.02, 1.01, 1.00, 1.01, 1.02, 1.03, 1.015};
constexpr double kJitter = 0.04;  // relative standard deviation of a run

const char* const kNoisyKernel = R"(#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static uint64_t next_state(uint64_t s) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
float noisy(float* out) {
  const char* path = getenv("KTUNE_TEST_JITTER");
  FILE* f = path ? fopen(path, "r+b") : NULL;
  if (!f) return -1.0f;
  uint64_t s = 0;
  if (fread(&s, sizeof s, 1, f) != 1) s = 1;
  s = next_state(s);
  const double u1 = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
  s = next_state(s);
  const double u2 = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
  rewind(f);
  fwrite(&s, sizeof s, 1, f);
  fclose(f);
  out[0] = 1.0f;
  const double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
  return (float)(BASE * (1.0 + JITTER * z));
}
)";

struct Pick {
  int winner = -1;
  bool true_best_tied = false;  // the true best is the winner or tied with it
  double benchmark_ms = 0;
};

TuneRequest noisy_request(std::uint64_t seed, const std::string& iterations, std::size_t confirm_top) {
  const std::string state = testing::fresh_temp_path("jitter_state");
  {
    std::ofstream out(state, std::ios::binary);
    const std::uint64_t start = 0x9E3779B97F4A7C15ULL * (seed + 1);
    out.write(reinterpret_cast<const char*>(&start), sizeof start);
  }
  ::setenv("KTUNE_TEST_JITTER", state.c_str(), 1);
  TuneRequest request;
  request.problem = ProblemBuilder("noisy").parameter("x", {0, 1, 2, 3, 4, 5, 6, 7}).build();
  live::KernelSpecification spec;
  spec.backend = "cpp";
  spec.kernel_name = "noisy";
  spec.kernel_code = kNoisyKernel;
  spec.problem_size = {"1", "1", "1"};
  spec.arguments = {testing::vector_argument("out", live::ElementType::float32, live::Access::write_only, "1",
                                             live::Fill::zeros)};
  spec.backend_options.time_from_return = true;
  spec.generate_defines = [](std::span<const Value> config) {
    return live::Defines{{"BASE", std::to_string(kBase[config[0].as_int()])}, {"JITTER", std::to_string(kJitter)}};
  };
  spec.timeout_s = 30;
  request.kernel = spec;
  request.strategy = "brute_force";
  request.seed = seed;
  request.live.iterations = iterations;
  request.confirm_top = confirm_top;
  return request;
}

Pick tune_once(std::uint64_t seed, const std::string& iterations, std::size_t confirm_top) {
  TuneJob job(noisy_request(seed, iterations, confirm_top));
  const TuneOutcome outcome = job.run();
  Pick pick;
  if (!outcome.best) return pick;
  const Trace& trace = outcome.result.trace;
  pick.winner = job.space().values_at(trace[*outcome.best].index)[0].as_int();
  pick.true_best_tied = pick.winner == kTrueBest;
  for (const auto& c : outcome.confirmed)
    if (c.tied && job.space().values_at(trace[c.position].index)[0].as_int() == kTrueBest) pick.true_best_tied = true;
  for (const auto& r : outcome.records) pick.benchmark_ms += r.benchmark_ms;
  return pick;
}

TEST(NoisyWinner, AdaptiveRepetitionAndConfirmationFindTheTrueBest) {
  if (!testing::cpp_backend_available()) GTEST_SKIP() << "no C compiler";
  if (testing::kUnderSanitizers) GTEST_SKIP() << "16 live tunes of the next test's kind: a release-build check";
  const char* env = std::getenv("KTUNE_NOISE_RUNS");
  const int runs = env ? std::atoi(env) : 8;
  int fixed_right = 0, confirmed_right = 0;
  for (int seed = 0; seed < runs; ++seed) {
    fixed_right += tune_once(seed, "7", 0).winner == kTrueBest;
    confirmed_right += tune_once(seed, "auto", 5).true_best_tied;
  }
  std::printf("true best (or tied with the winner) in %d of %d runs with adaptive repetition and --confirm-top 5; "
              "the true best in %d of %d with 7 fixed runs\n",
              confirmed_right, runs, fixed_right, runs);
  EXPECT_GE(confirmed_right * 100, 95 * runs - 100);  // at most one miss in the 8 seeds here
  EXPECT_GT(confirmed_right, fixed_right);
}

TEST(NoisyWinner, TheConfirmationIsInTheOutcomeAndTheReport) {
  if (!testing::cpp_backend_available()) GTEST_SKIP() << "no C compiler";
  TuneJob job(noisy_request(1, "auto", 5));
  const TuneOutcome outcome = job.run();
  ASSERT_EQ(outcome.confirmed.size(), 5u);
  const auto& winner = outcome.confirmed.front();
  EXPECT_TRUE(winner.winner);
  EXPECT_TRUE(winner.tied);
  EXPECT_EQ(*outcome.best, winner.position);
  EXPECT_EQ(winner.summary.runs, 15u);  // 3 rounds of 5
  for (std::size_t k = 1; k < outcome.confirmed.size(); ++k) {
    EXPECT_FALSE(outcome.confirmed[k].winner);
    EXPECT_LE(winner.summary.value, outcome.confirmed[k].summary.value);
    EXPECT_EQ(outcome.confirmed[k].tied, tied(winner.summary, outcome.confirmed[k].summary));
  }
  const nlohmann::json report = tune_report_json(job, outcome, false);
  ASSERT_EQ(report["confirmed"].size(), 5u);
  EXPECT_EQ(report["confirmed"][0]["winner"], true);
  EXPECT_EQ(report["confirmed"][0]["runs"], 15);
  EXPECT_LE(report["confirmed"][0]["interval"][0].get<double>(), report["confirmed"][0]["time"].get<double>());
  EXPECT_EQ(report["best"]["evaluation"], winner.position + 1);
  // Not for a simulation, nor for another objective.
  TuneRequest simulated;
  simulated.simulate_path = testing::shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz");
  simulated.confirm_top = 3;
  EXPECT_THROW(TuneJob{std::move(simulated)}, JobError);
  TuneRequest energy = noisy_request(1, "auto", 3);
  energy.objectives = {"compile_time"};
  EXPECT_THROW(TuneJob{std::move(energy)}, JobError);
}

}  // namespace
}  // namespace ktune
