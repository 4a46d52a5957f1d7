// Live tuning over a space too large to list: a cpp kernel whose 14 parameters are those of gpu_like_14x8
// (4.4e12 combinations), tuned with a small budget by every strategy, through worker processes. The space is lazy
// (its 8 independent groups, never listed), the configurations it evaluates lie far beyond 2^32 and every one is
// compiled with its own values.
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_backend.hpp"
#include "ktune/io/t1_reader.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"
#include "shared_data.hpp"

namespace ktune {
namespace {

// Every parameter shapes the loop (the compiler sees them as constants); the output does not depend on them.
constexpr const char* kKernel = R"(
void scale(const float* a, const float* b, float* c, int n) {
  const int step = (block_size_x * block_size_y / 16 + tile_size_x * tile_size_y + vector + unroll_a * unroll_b +
                    split_k * stages + warps + cache_a + cache_b + pad + swizzle) % 7 + 1;
  for (int start = 0; start < step; ++start)
    for (int i = start; i < n; i += step) c[i] = a[i] + b[i];
}
)";

live::KernelSpecification scale_spec() {
  live::KernelSpecification spec;
  spec.backend = "cpp";
  spec.kernel_name = "scale";
  spec.kernel_code = kKernel;
  spec.problem_size = {"n", "1", "1"};
  spec.arguments = testing::vector_add_arguments(4096);
  spec.repetition = ktune::RepetitionPolicy{.adaptive = false, .runs = 2};
  spec.timeout_s = 20;
  return spec;
}

TEST(LazySpaceLive, EveryStrategyTunesASpaceOfTrillionsOfConfigurations) {
  if (!testing::cpp_backend_available()) GTEST_SKIP() << "the cpp backend is not available here (no C compiler?)";
  Problem problem = io::read_t1_file(testing::shared_path("data/searchspaces/big/gpu_like_14x8.json"));
  problem.constants.emplace("n", Value(4096));
  const SearchSpace space = SearchSpace::build(problem);
  ASSERT_TRUE(space.is_lazy());
  ASSERT_GT(problem.cartesian_size(), std::uint64_t{1'000'000'000'000});
  live::LiveEvaluator evaluator(problem, space, scale_spec());
  std::size_t beyond_32_bits = 0, strategies = 0;
  for (const StrategyInfo& info : strategy_registry()) {
    if (info.name == "brute_force") continue;  // would list the space in order: covered by the lazy space tests
    SCOPED_TRACE(info.name);
    auto strategy = make_strategy(info.name, {});
    TuningOptions options;
    options.seed = 5;
    options.budget.max_evaluations = 4;
    const TuningResult result = tune(space, evaluator, *strategy, options);
    EXPECT_GE(result.evaluations, 1u);
    EXPECT_LE(result.evaluations, 4u);
    ASSERT_TRUE(result.trace.best().has_value()) << "no configuration ran";
    for (const auto& entry : result.trace.entries()) {
      ASSERT_LT(entry.index, space.size());
      EXPECT_EQ(entry.status, Status::ok) << evaluator.record(entry.index).message;
      if (entry.index > 0xFFFFFFFFu) ++beyond_32_bits;
    }
    // The record names the configuration that ran, by its values.
    const auto best = result.trace[*result.trace.best()].index;
    EXPECT_EQ(space.config_of(evaluator.record(best).config), space.config_at(best));
    ++strategies;
  }
  EXPECT_GE(strategies, 20u);
  EXPECT_GE(beyond_32_bits, strategies);  // 64-bit indices all the way to the compiled kernel
}

}  // namespace
}  // namespace ktune
