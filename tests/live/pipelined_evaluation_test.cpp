// Compile workers (LiveEvaluatorOptions::compile_workers) with the real cpp backend: a pipelined brute force measures
// the same configurations in the same order with the same statuses as a sequential one (a compile error keeps its
// log, a crash and a hang cost one configuration), its configurations really come from the compile workers, and no
// measurement ever overlaps another. Skipped when the cpp backend is unavailable.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cerrno>

#include <algorithm>
#include <fstream>
#include <map>
#include <utility>

#include "fake_backend.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/tuning/tune.hpp"
#include "temp_files.hpp"
#include "stop_after.hpp"

namespace ktune {
namespace {

using testing::StopAfter;

using testing::cpp_backend_available;

constexpr const char* kKernels = R"(
#include <stdio.h>
#include <time.h>
static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
void vector_add(const float* a, const float* b, float* c, int n) {
  long long start = now_ns();
#if variant == 1
  this does not compile;
#elif variant == 2
  *(volatile int*)0 = 1;  /* crash */
#elif variant == 3
  volatile int spin = 1;
  while (spin) {}         /* never ends */
#endif
  for (int i = 0; i < n; i += unroll)
    for (int j = 0; j < unroll; ++j) c[i + j] = a[i + j] + b[i + j];
  while (now_ns() - start < 2000000LL) {}  /* 2 ms: long enough to see an overlap */
  FILE* log = fopen(LAUNCH_LOG, "a");
  if (log) { fprintf(log, "%lld %lld\n", start, now_ns()); fclose(log); }
}
)";

live::KernelSpecification spec(const std::string& launch_log) {
  live::KernelSpecification s;
  s.backend = "cpp";
  s.kernel_name = "vector_add";
  s.kernel_code = kKernels;
  s.compiler_options = {"-DLAUNCH_LOG=\"" + launch_log + "\""};
  s.problem_size = {"n", "1", "1"};
  s.arguments = testing::vector_add_arguments(256);
  s.repetition = ktune::RepetitionPolicy{.adaptive = false, .runs = 3};
  s.timeout_s = 1;
  return s;
}

struct TracedRun {
  std::vector<std::size_t> order;
  std::vector<Status> statuses;
  std::vector<std::string> messages;
  std::size_t prebuilt = 0, compile_workers = 0;
};

TracedRun brute_force(const Problem& problem, std::size_t compile_workers, const std::string& launch_log) {
  const SearchSpace space = SearchSpace::build(problem);
  live::LiveEvaluatorOptions options;
  options.compile_workers = compile_workers;
  live::LiveEvaluator evaluator(problem, space, spec(launch_log), options);
  auto strategy = make_strategy("brute_force", {});
  const TuningResult result = tune(space, evaluator, *strategy, {});
  TracedRun run;
  for (const auto& e : result.trace.entries()) {
    const EvaluationRecord r = evaluator.record(e.index);
    run.order.push_back(e.index);
    run.statuses.push_back(r.status);
    run.messages.push_back(r.message);
  }
  run.prebuilt = evaluator.prebuilt_configurations();
  run.compile_workers = evaluator.compile_workers();
  return run;
}

TEST(PipelinedEvaluation, SameConfigurationsOrderAndStatusesAsSequential) {
  if (!cpp_backend_available()) GTEST_SKIP() << "the cpp backend is not available here";
  const Problem problem =
      ProblemBuilder("pipelined").parameter("variant", {0, 1, 2, 3}).parameter("unroll", {1, 2, 4}).constant("n", 256).build();
  const std::string log = (ktune::testing::temp_dir() / "launches-a.log").string();
  const TracedRun sequential = brute_force(problem, 0, log);
  const TracedRun pipelined = brute_force(problem, 1, log);
  EXPECT_EQ(sequential.compile_workers, 0u);
  EXPECT_EQ(sequential.prebuilt, 0u);
  EXPECT_EQ(pipelined.compile_workers, 1u);
  ASSERT_EQ(pipelined.order, sequential.order);
  EXPECT_EQ(pipelined.statuses, sequential.statuses);
  for (std::size_t i = 0; i < sequential.order.size(); ++i) {
    if (sequential.statuses[i] == Status::compile_failed) {
      EXPECT_CONTAINS(pipelined.messages[i], "this");  // the compiler's log, from the compile worker
    } else {
      EXPECT_EQ(pipelined.messages[i], sequential.messages[i]);
    }
  }
  // Every configuration that compiles was compiled by the compile worker (brute force announces its batches).
  const auto compiled = static_cast<std::size_t>(
      std::count_if(sequential.statuses.begin(), sequential.statuses.end(), [](Status s) { return s != Status::compile_failed; }));
  EXPECT_EQ(pipelined.prebuilt, compiled);
}

TEST(PipelinedEvaluation, NoMeasurementOverlapsAnother) {
  if (!cpp_backend_available()) GTEST_SKIP() << "the cpp backend is not available here";
  const Problem problem = ProblemBuilder("overlap")
                              .parameter("variant", {0})
                              .parameter("unroll", {1, 2, 4, 8})
                              .parameter("pad", {0, 1, 2})
                              .constant("n", 256)
                              .build();
  const std::string log = (ktune::testing::temp_dir() / "launches-b.log").string();
  const TracedRun run = brute_force(problem, 2, log);
  ASSERT_EQ(run.order.size(), 12u);
  EXPECT_EQ(run.prebuilt, 12u);
  std::ifstream in(log);
  std::vector<std::pair<long long, long long>> launches;
  for (long long a, b; in >> a >> b;) launches.emplace_back(a, b);
  ASSERT_GE(launches.size(), 12u * 3);  // the reference-free run: 3 timed launches (and a warm-up) each
  std::sort(launches.begin(), launches.end());
  for (std::size_t i = 1; i < launches.size(); ++i)
    EXPECT_LE(launches[i - 1].second, launches[i].first) << "launch " << i << " began before launch " << i - 1 << " ended";
}

TEST(PipelinedEvaluation, AStopEndsTheRunAndItsCompileWorkers) {
  if (!cpp_backend_available()) GTEST_SKIP() << "the cpp backend is not available here";
  const Problem problem = ProblemBuilder("stopped").parameter("variant", {0}).parameter("unroll", {1, 2, 4, 8})
                              .parameter("pad", {0, 1, 2}).constant("n", 256).build();
  const SearchSpace space = SearchSpace::build(problem);
  {
    live::LiveEvaluatorOptions options;
    options.compile_workers = 1;
    live::LiveEvaluator evaluator(problem, space, spec((ktune::testing::temp_dir() / "launches-c.log").string()),
                                  options);
    auto strategy = make_strategy("brute_force", {});
    StopAfter stop(3);
    TuningOptions tuning;
    tuning.listeners = {&stop};
    const TuningResult result = tune(space, evaluator, *strategy, tuning);
    clear_stop_request();
    EXPECT_EQ(result.stop_reason, StopReason::interrupted);
    EXPECT_EQ(result.trace.size(), 3u);  // what was measured is kept; nothing compiled ahead is recorded
    for (const auto& e : result.trace.entries()) EXPECT_EQ(evaluator.record(e.index).status, Status::ok);
  }
  // The evaluator is gone, and with it every worker: this process has no child left.
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

}  // namespace
}  // namespace ktune
