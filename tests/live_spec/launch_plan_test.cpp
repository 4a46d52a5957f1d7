// plan_launch / LaunchPlanner against Kernel Tuner's create_kernel_instance and prepare_kernel_string rules.
#include <chrono>

#include <gtest/gtest.h>

#include "ktune/live/launch_planner.hpp"
#include "temp_files.hpp"

namespace ktune::live {
namespace {

using ktune::testing::error_of;

std::string define_of(const LaunchPlan& plan, const std::string& name) {
  for (const auto& [n, v] : plan.defines)
    if (n == name) return v;
  return "<undefined>";
}
int count_of(const LaunchPlan& plan, const std::string& name) {
  int n = 0;
  for (const auto& d : plan.defines) n += d.first == name;
  return n;
}

KernelSpecification vector_add() {
  KernelSpecification spec;
  spec.kernel_name = "vector_add";
  spec.kernel_code = "...";
  spec.problem_size = {"n", "1", "1"};
  return spec;
}

TEST(LaunchPlan, GridIsCeilOfProblemSizeOverBlockSize) {
  const Problem problem = ProblemBuilder().parameter("block_size_x", {32, 100}).constant("n", 1000).build();
  const KernelSpecification spec = vector_add();
  const LaunchPlan a = plan_launch(spec, problem, std::vector<Value>{32});
  EXPECT_EQ(a.geometry.block, (std::array<std::uint64_t, 3>{32, 1, 1}));
  EXPECT_EQ(a.geometry.grid, (std::array<std::uint64_t, 3>{32, 1, 1}));  // ceil(1000 / 32) = 32
  const LaunchPlan b = plan_launch(spec, problem, std::vector<Value>{100});
  EXPECT_EQ(b.geometry.grid, (std::array<std::uint64_t, 3>{10, 1, 1}));  // exact division
  EXPECT_EQ(b.kernel_name, "vector_add");
}

TEST(LaunchPlan, MissingBlockSizeParameterDefaultsTo256) {
  const Problem problem = ProblemBuilder().parameter("tile", {1, 2}).build();
  KernelSpecification spec = vector_add();
  spec.problem_size = {"1000", "7", "1"};
  const LaunchPlan plan = plan_launch(spec, problem, std::vector<Value>{2});
  EXPECT_EQ(plan.geometry.block, (std::array<std::uint64_t, 3>{256, 1, 1}));
  // Kernel Tuner divides by the default divisor only when it is a parameter: the grid is the problem size.
  EXPECT_EQ(plan.geometry.grid, (std::array<std::uint64_t, 3>{1000, 7, 1}));
  EXPECT_EQ(define_of(plan, "block_size_x"), "256");
  EXPECT_EQ(define_of(plan, "block_size_y"), "1");
}

TEST(LaunchPlan, GridDivListsMultiplyAndEmptyListDividesByOne) {
  const Problem problem = ProblemBuilder()
                              .parameter("block_size_x", {16})
                              .parameter("block_size_y", {8})
                              .parameter("tile_size_x", {3})
                              .parameter("tile_size_y", {2})
                              .build();
  KernelSpecification spec = vector_add();
  spec.problem_size = {"4096", "4096", "5"};
  spec.grid_div = {{{"block_size_x", "tile_size_x"}, {"block_size_y * tile_size_y"}, {}}};
  const LaunchPlan plan = plan_launch(spec, problem, std::vector<Value>{16, 8, 3, 2});
  EXPECT_EQ(plan.geometry.grid[0], 86u);   // ceil(4096 / 48) = 85.33 -> 86
  EXPECT_EQ(plan.geometry.grid[1], 256u);  // 4096 / 16
  EXPECT_EQ(plan.geometry.grid[2], 5u);    // []: no division
  EXPECT_EQ(define_of(plan, "grid_size_x"), "86");
  EXPECT_EQ(define_of(plan, "grid_size_z"), "5");
}

TEST(LaunchPlan, CustomBlockSizeNamesAreDefinedUnderTheirNames) {
  const Problem problem = ProblemBuilder().parameter("threads", {64}).build();
  KernelSpecification spec = vector_add();
  spec.problem_size = {"640", "1", "1"};
  spec.block_size_names = {"threads"};  // the default divisor follows the block-size name
  const LaunchPlan plan = plan_launch(spec, problem, std::vector<Value>{64});
  EXPECT_EQ(plan.geometry.block[0], 64u);
  EXPECT_EQ(plan.geometry.grid[0], 10u);
  EXPECT_EQ(count_of(plan, "threads"), 1);
  EXPECT_EQ(define_of(plan, "block_size_y"), "1");  // missing names take the defaults
}

TEST(LaunchPlan, DefinesEveryParameterAsACLiteral) {
  const Problem problem = ProblemBuilder()
                              .parameter("block_size_x", {128})
                              .parameter("float_type", {"float", "double"})
                              .parameter("alpha", {0.1, 2.0, 1e-5})
                              .parameter("use_smem", {false, true})
                              .constant("n", 1 << 20)
                              .build();
  KernelSpecification spec = vector_add();
  const LaunchPlan plan = plan_launch(spec, problem, std::vector<Value>{128, "double", 0.1, true});
  EXPECT_EQ(define_of(plan, "block_size_x"), "128");
  EXPECT_EQ(define_of(plan, "float_type"), "double");  // verbatim: usable as a type
  EXPECT_EQ(define_of(plan, "alpha"), "0.1");
  EXPECT_EQ(define_of(plan, "use_smem"), "1");
  EXPECT_EQ(define_of(plan, "kernel_tuner"), "1");
  EXPECT_EQ(define_of(plan, "problem_size_x"), std::to_string(1 << 20));
  EXPECT_EQ(define_of(plan, "grid_size_x"), std::to_string((1 << 20) / 128));
  EXPECT_EQ(count_of(plan, "block_size_x"), 1);
  EXPECT_EQ(define_of(plan_launch(spec, problem, std::vector<Value>{128, "float", 2.0, false}), "alpha"), "2.0");
  EXPECT_EQ(define_of(plan_launch(spec, problem, std::vector<Value>{128, "float", 1e-5, false}), "alpha"), "1e-05");
  // Round-trip digits: the literal parses back to the same double.
  EXPECT_EQ(LaunchPlanner::c_literal(Value(0.1 + 0.2)), "0.30000000000000004");
  EXPECT_EQ(LaunchPlanner::c_literal(Value(std::int64_t{-7})), "-7");
  EXPECT_CONTAINS(error_of<std::invalid_argument>([] { (void)LaunchPlanner::c_literal(Value()); }), "None");
}

TEST(LaunchPlan, DefineParametersFalseKeepsOnlyExtraDefines) {
  const Problem problem = ProblemBuilder().parameter("block_size_x", {32}).constant("n", 64).build();
  KernelSpecification spec = vector_add();
  spec.define_parameters = false;
  spec.extra_defines = {{"TWICE", "2 * block_size_x"}, {"GRID", "grid_size_x + problem_size_x"}};
  const LaunchPlan plan = plan_launch(spec, problem, std::vector<Value>{32});
  ASSERT_EQ(plan.defines.size(), 2u);
  EXPECT_EQ(define_of(plan, "TWICE"), "64");
  EXPECT_EQ(define_of(plan, "GRID"), "66");  // 2 + 64
}

TEST(LaunchPlan, ExtraDefineOverridesAnAutomaticOne) {
  const Problem problem = ProblemBuilder().parameter("block_size_x", {32}).build();
  KernelSpecification spec = vector_add();
  spec.problem_size = {"64", "1", "1"};
  spec.extra_defines = {{"kernel_tuner", "0"}, {"HALF", "block_size_x / 2"}};
  const LaunchPlan plan = plan_launch(spec, problem, std::vector<Value>{32});
  EXPECT_EQ(count_of(plan, "kernel_tuner"), 1);
  EXPECT_EQ(define_of(plan, "kernel_tuner"), "0");
  EXPECT_EQ(define_of(plan, "HALF"), "16.0");  // Python true division
}

TEST(LaunchPlan, KernelNameSubstitutesWholeParameterTokens) {
  const Problem problem = ProblemBuilder()
                              .parameter("float_type", {"float", "double"})
                              .parameter("n", {4})
                              .parameter("flag", {true})
                              .build();
  KernelSpecification spec = vector_add();
  spec.problem_size = {"100", "1", "1"};
  spec.kernel_name = "vector_add<float_type, n, flag>";
  EXPECT_EQ(plan_launch(spec, problem, std::vector<Value>{"double", 4, true}).kernel_name,
            "vector_add<double, 4, true>");
  spec.kernel_name = "kernel_n_float_type";  // one token: not a parameter name
  EXPECT_EQ(plan_launch(spec, problem, std::vector<Value>{"double", 4, true}).kernel_name, "kernel_n_float_type");
}

TEST(LaunchPlan, T1GlobalAndLocalSizes) {
  const Problem problem = ProblemBuilder().parameter("block_size_x", {32, 64}).parameter("tile", {2}).build();
  KernelSpecification spec = vector_add();
  spec.problem_size = {"1000", "1", "1"};
  spec.global_size = {"problem_size_x // tile", "8", "1"};
  spec.local_size = {"block_size_x", "4", "1"};
  const LaunchPlan plan = plan_launch(spec, problem, std::vector<Value>{64, 2});
  EXPECT_EQ(plan.geometry.block, (std::array<std::uint64_t, 3>{64, 4, 1}));
  EXPECT_EQ(plan.geometry.grid, (std::array<std::uint64_t, 3>{8, 2, 1}));  // ceil(500 / 64), 8 / 4
  EXPECT_EQ(define_of(plan, "grid_size_x"), "8");
}

TEST(LaunchPlan, ProblemSizeMayUseParametersAndConstants) {
  const Problem problem = ProblemBuilder().parameter("block_size_x", {10}).parameter("per_thread", {4}).constant("n", 400).build();
  KernelSpecification spec = vector_add();
  spec.problem_size = {"n // per_thread", "1", "1"};
  EXPECT_EQ(plan_launch(spec, problem, std::vector<Value>{10, 4}).geometry.grid[0], 10u);
}

TEST(LaunchPlan, ErrorsNameTheExpression) {
  const Problem problem = ProblemBuilder().parameter("block_size_x", {32}).parameter("zero", {0}).build();
  KernelSpecification spec = vector_add();
  spec.problem_size = {"nn", "1", "1"};
  std::string e = error_of<std::invalid_argument>([&] { (void)LaunchPlanner(spec, problem); });
  EXPECT_CONTAINS(e, "problem_size[0]");
  EXPECT_CONTAINS(e, "unknown name 'nn'");

  spec.problem_size = {"100", "1", "1"};
  spec.grid_div[0] = {"block_size_x", "zero"};
  e = error_of<std::invalid_argument>([&] { (void)plan_launch(spec, problem, std::vector<Value>{32, 0}); });
  EXPECT_CONTAINS(e, "grid_div_x[1]");
  EXPECT_CONTAINS(e, "positive divisor");

  spec.grid_div[0] = {"block_size_x"};
  spec.problem_size = {"100 / 3", "1", "1"};
  e = error_of<std::invalid_argument>([&] { (void)plan_launch(spec, problem, std::vector<Value>{32, 0}); });
  EXPECT_CONTAINS(e, "problem_size[0]");
  EXPECT_CONTAINS(e, "not an integer size");

  spec.problem_size = {"100 // zero", "1", "1"};
  e = error_of<std::invalid_argument>([&] { (void)plan_launch(spec, problem, std::vector<Value>{32, 0}); });
  EXPECT_CONTAINS(e, "evaluating \"100 // zero\" failed");

  spec.problem_size = {"100", "1", "1"};
  spec.extra_defines = {{"BAD", "(+"}};
  e = error_of<std::invalid_argument>([&] { (void)LaunchPlanner(spec, problem); });
  EXPECT_CONTAINS(e, "extra_defines 'BAD'");

  spec.extra_defines.clear();
  e = error_of<std::invalid_argument>([&] { (void)plan_launch(spec, problem, std::vector<Value>{32}); });
  EXPECT_CONTAINS(e, "configuration has 1 values");
}

TEST(LaunchPlan, PlannerIsFast) {
  // A typical problem: 8 parameters, 2-D geometry with tiled grid divisors, two extra defines.
  const Problem problem = ProblemBuilder()
                              .parameter("block_size_x", {16, 32, 64})
                              .parameter("block_size_y", {1, 2, 4, 8})
                              .parameter("tile_size_x", {1, 2, 4})
                              .parameter("tile_size_y", {1, 2, 4})
                              .parameter("use_padding", {0, 1})
                              .parameter("read_only", {0, 1})
                              .parameter("float_type", {"float", "double"})
                              .parameter("unroll", {1, 2, 4})
                              .constant("n", 4096)
                              .build();
  KernelSpecification spec = vector_add();
  spec.kernel_name = "convolution<float_type>";
  spec.problem_size = {"n", "n", "1"};
  spec.grid_div = {{{"block_size_x", "tile_size_x"}, {"block_size_y", "tile_size_y"}, {}}};
  spec.extra_defines = {{"SHARED_W", "block_size_x * tile_size_x + 16"}, {"SHARED_H", "block_size_y * tile_size_y + 16"}};
  const LaunchPlanner planner(spec, problem);
  const std::vector<Value> config{32, 4, 2, 2, 1, 0, "float", 2};
  const LaunchPlan plan = planner.plan(config);
  EXPECT_EQ(plan.geometry.grid, (std::array<std::uint64_t, 3>{64, 512, 1}));
  EXPECT_EQ(define_of(plan, "SHARED_W"), "80");
  const int reps = 2000;
  const auto start = std::chrono::steady_clock::now();
  std::size_t sink = 0;
  for (int i = 0; i < reps; ++i) sink += planner.plan(config).defines.size();
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / reps;
  EXPECT_EQ(sink, plan.defines.size() * reps);
  RecordProperty("plan_us", std::to_string(us));
  std::printf("LaunchPlanner::plan: %.2f us per configuration\n", us);
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__)
  EXPECT_LT(us, 20.0);
#endif
}

}  // namespace
}  // namespace ktune::live
