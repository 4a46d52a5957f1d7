// The live evaluator end to end with the real `cpp` backend (system compiler + dlopen) in worker processes:
// deliberately bad kernels (does not compile, crashes on a null write, never ends, wrong output) each cost exactly one
// configuration and a brute-force run ends with the right statuses. Skipped when the cpp backend is unavailable.
#include <gtest/gtest.h>

#include <map>

#include "fake_backend.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"
#include "temp_files.hpp"

namespace ktune {
namespace {

// `variant` picks the behaviour; `unroll` only multiplies the configurations.
constexpr const char* kBadKernels = R"(
void vector_add(const float* a, const float* b, float* c, int n) {
#if variant == 1
  this does not compile;
#elif variant == 2
  *(volatile int*)0 = 1;  /* crash */
#elif variant == 3
  volatile int spin = 1;
  while (spin) {}         /* never ends */
#endif
  for (int i = 0; i < n; i += unroll)
    for (int j = 0; j < unroll; ++j) c[i + j] = a[i + j] + b[i + j] + (variant == 4 ? 0.5f : 0.0f);
}
)";

live::KernelSpecification bad_kernels_spec() {
  live::KernelSpecification spec;
  spec.backend = "cpp";
  spec.kernel_name = "vector_add";
  spec.kernel_code = kBadKernels;
  spec.problem_size = {"n", "1", "1"};
  spec.arguments = testing::vector_add_arguments(1024);
  spec.verification.kind = live::Verification::Kind::configuration;
  spec.verification.configuration = {{"variant", Value(0)}, {"unroll", Value(1)}};
  spec.repetition = ktune::RepetitionPolicy{.adaptive = false, .runs = 3};
  spec.timeout_s = 1;
  return spec;
}

using testing::cpp_backend_available;

TEST(LiveCppBackend, BadKernelsCostOneConfigurationEach) {
  if (!cpp_backend_available()) GTEST_SKIP() << "the cpp backend is not available here (no C compiler?)";
  const Problem problem = ProblemBuilder("bad_kernels")
                              .parameter("variant", {0, 1, 2, 3, 4})
                              .parameter("unroll", {1, 2})
                              .constant("n", 1024)
                              .build();
  const SearchSpace space = SearchSpace::build(problem);
  live::LiveEvaluator evaluator(problem, space, bad_kernels_spec());
  auto strategy = make_strategy("brute_force", {});
  const TuningResult result = tune(space, evaluator, *strategy, {});
  ASSERT_EQ(result.trace.size(), 10u);
  EXPECT_EQ(result.evaluations, 10u);

  std::map<std::int64_t, std::vector<EvaluationRecord>> by_variant;
  for (const auto& e : result.trace.entries()) {
    EvaluationRecord r = evaluator.record(e.index);
    by_variant[r.config[0].as_int()].push_back(std::move(r));
  }
  const std::map<std::int64_t, Status> expected = {{0, Status::ok},
                                                   {1, Status::compile_failed},
                                                   {2, Status::runtime_failed},
                                                   {3, Status::timeout},
                                                   {4, Status::verification_failed}};
  for (const auto& [variant, status] : expected) {
    ASSERT_EQ(by_variant[variant].size(), 2u) << "variant " << variant;
    for (const auto& r : by_variant[variant]) EXPECT_EQ(r.status, status) << "variant " << variant << ": " << r.message;
  }
  EXPECT_CONTAINS(by_variant[1][0].message, "this");  // the compiler's log names the bad line
  EXPECT_EQ(by_variant[2][0].message, "worker killed by SIGSEGV");
  EXPECT_EQ(by_variant[3][0].message, "timeout after 1 s");
  EXPECT_CONTAINS(by_variant[4][0].message, "c");
  for (const auto& r : by_variant[0]) {
    EXPECT_EQ(r.runtimes_ms.size(), 3u);
    EXPECT_GT(r.compile_ms, 0.0);
    EXPECT_GT(r.verification_ms, 0.0);
    ASSERT_NE(r.find("time"), nullptr);
    EXPECT_GT(r.find("time")->value.to_double(), 0.0);
  }
  // One worker at the start, one more after each crash and each timeout (2 + 2).
  EXPECT_EQ(evaluator.workers_started(), 5u);
  ASSERT_TRUE(result.trace.best().has_value());
  EXPECT_EQ(evaluator.record(result.trace[*result.trace.best()].index).config[0].as_int(), 0);
}

TEST(LiveCppBackend, InProcessRunsTheSameKernels) {
  if (!cpp_backend_available()) GTEST_SKIP() << "the cpp backend is not available here (no C compiler?)";
  // Without isolation only the failures that leave the process alive can be tried.
  const Problem problem = ProblemBuilder("bad_kernels")
                              .parameter("variant", {0, 1, 4})
                              .parameter("unroll", {1, 4})
                              .constant("n", 1024)
                              .build();
  const SearchSpace space = SearchSpace::build(problem);
  live::LiveEvaluator evaluator(problem, space, bad_kernels_spec(), {.objectives = {}, .isolate = false, .backend_factory = {}});
  EXPECT_EQ(evaluator.evaluate(0).status, Status::ok);
  EXPECT_EQ(evaluator.evaluate(1).status, Status::ok);
  EXPECT_EQ(evaluator.evaluate(2).status, Status::compile_failed);
  EXPECT_EQ(evaluator.evaluate(4).status, Status::verification_failed);
  EXPECT_EQ(evaluator.workers_started(), 0u);
}

}  // namespace
}  // namespace ktune
