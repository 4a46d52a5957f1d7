// Every example in examples/ tuned end to end through the ktune binary on this machine's real backends (the system
// compiler for cpp, PoCL for OpenCL): the run ends normally, every configuration it measured verified against the
// example's reference, and the best one is reported with its objectives. CUDA examples are checked as far as a
// machine without a GPU allows (the T1 file loads and plans) and skip with the reason otherwise. One test plants a
// wrong result in a copy of an example to show that verification really rejects it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "ktune/io/t1_reader.hpp"
#include "ktune/live/kernel_specification.hpp"
#include "ktune/search_space.hpp"
#include "run_ktune.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using testing::run_ktune;
using testing::quoted;

const fs::path kExamples = fs::path(KTUNE_SOURCE_DIR) / "examples";

struct Tuned {
  nlohmann::json out;
  std::string err;
};

// Tunes an example with a small budget and returns the parsed --json output (a test failure if the run failed).
Tuned tune_example(const std::string& t1, const std::string& flags) {
  const auto run = run_ktune("tune " + quoted((kExamples / t1).string()) + " --json --quiet --seed 1 " + flags);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  Tuned t{nlohmann::json::object(), run.err};
  if (run.exit_code == 0) t.out = nlohmann::json::parse(run.out);
  return t;
}

// Every measured configuration verified (the examples have no invalid or failing configurations) and the best
// configuration is one of them, with every objective a number.
void expect_all_verified(const Tuned& t, std::size_t evaluations, const std::vector<std::string>& objectives) {
  ASSERT_TRUE(t.out.contains("live")) << t.out.dump();
  const auto& statuses = t.out["live"]["statuses"];
  EXPECT_EQ(statuses.size(), 1u) << statuses.dump() << "\n" << t.err;
  EXPECT_EQ(statuses.value("ok", 0u), evaluations) << statuses.dump();
  EXPECT_TRUE(t.out["live"]["verification"].get<bool>());
  ASSERT_TRUE(t.out["best"].is_object()) << t.out.dump();
  for (const auto& name : objectives) {
    ASSERT_TRUE(t.out["best"]["objectives"].contains(name)) << t.out["best"].dump();
    EXPECT_TRUE(t.out["best"]["objectives"][name].is_number()) << t.out["best"].dump();
  }
  EXPECT_GT(t.out["best"]["objectives"]["time"].get<double>(), 0.0);
}

TEST(Examples, VectorAddCpp) {
  const Tuned t = tune_example("vector_add/vector_add_cpp.json", "--strategy genetic_algorithm --max-fevals 12 --iterations 3");
  expect_all_verified(t, 12, {"time"});
  EXPECT_EQ(t.out["live"]["backend"], "cpp");
}

TEST(Examples, VectorAddOpenCL) {
  const Tuned t = tune_example("vector_add/vector_add_opencl.json", "--strategy random_sample --max-fevals 8 --iterations 3");
  expect_all_verified(t, 8, {"time"});
  EXPECT_EQ(t.out["live"]["backend"], "opencl");
}

TEST(Examples, MatmulOpenCL) {
  const Tuned t = tune_example("matmul/matmul_opencl.json", "--strategy pso --max-fevals 5 --iterations 2");
  expect_all_verified(t, 5, {"time"});
}

TEST(Examples, MatmulCpp) {
  const Tuned t = tune_example("matmul/matmul_cpp.json", "--strategy hybrid_vndx --max-fevals 12 --iterations 3");
  expect_all_verified(t, 12, {"time"});
}

TEST(Examples, ConvolutionOpenCL) {
  const Tuned t = tune_example("convolution/convolution_opencl.json", "--strategy diff_evo --max-fevals 6 --iterations 3");
  expect_all_verified(t, 6, {"time"});
}

// Accuracy is the second objective (the T1 file's "Objectives"): the double-precision reference configuration has
// error 0, float accumulation a small but non-zero one, the run records it for every configuration, and the result
// is the time/error Pareto front.
TEST(Examples, MixedPrecisionAccuracyNextToTime) {
  const Tuned t = tune_example("mixed_precision/matvec.json", "--strategy brute_force --iterations 2 --trace");
  ASSERT_TRUE(t.out.contains("trace")) << t.err;
  const std::size_t n = t.out["trace"].size();
  EXPECT_EQ(n, 30u);
  expect_all_verified(t, n, {"time", "error"});
  const Problem problem = io::read_t1_file((kExamples / "mixed_precision/matvec.json").string());
  const SearchSpace space = SearchSpace::build(problem);
  std::size_t exact = 0, inexact = 0;
  for (const auto& e : t.out["trace"]) {
    const auto config = space.values_at(e["index"].get<std::size_t>());
    const double error = e["values"][1].get<double>();
    EXPECT_GE(error, 0.0);
    EXPECT_LT(error, 1e-3);  // float accumulation of 8192 products: about 1e-6 relative
    if (config[0].str() == "double") {
      EXPECT_LT(error, 1e-12) << "double accumulation against the double reference";
      ++exact;
    } else if (error > 1e-9) {
      ++inexact;
    }
  }
  EXPECT_GT(exact, 0u);
  EXPECT_GT(inexact, 0u);
  // The front runs from the fastest configuration to the most accurate one.
  const auto& front = t.out.at("pareto_front");
  ASSERT_GE(front.size(), 1u);
  double fastest = 1e300, most_accurate = 1e300;
  for (const auto& e : t.out["trace"]) {
    fastest = std::min(fastest, e["values"][0].get<double>());
    most_accurate = std::min(most_accurate, e["values"][1].get<double>());
  }
  EXPECT_EQ(front.front()["objectives"]["time"].get<double>(), fastest);
  EXPECT_EQ(front.back()["objectives"]["error"].get<double>(), most_accurate);
}

// A copy of the OpenCL vector_add whose tile == 2 configurations add 1 to every element: exactly those are
// verification-failed, tuning goes on, and the best is a correct one.
TEST(Examples, WrongResultsAreCaughtByTheReference) {
  const fs::path dir = testing::temp_dir() / "vector_add_broken";
  fs::create_directories(dir);
  fs::copy_file(kExamples / "vector_add/vector_add_opencl.json", dir / "vector_add_opencl.json",
                fs::copy_options::overwrite_existing);
  std::string source = testing::read_text((kExamples / "vector_add/vector_add.cl").string());
  const std::string correct = "c[i] = a[i] + b[i];";
  ASSERT_NE(source.find(correct), std::string::npos);
  source.replace(source.find(correct), correct.size(), "c[i] = a[i] + b[i] + (tile == 2 ? 1.0f : 0.0f);");
  std::ofstream(dir / "vector_add.cl") << source;

  const auto run = run_ktune("tune " + quoted((dir / "vector_add_opencl.json").string()) +
                             " --json --quiet --strategy brute_force --iterations 1 --trace");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto out = nlohmann::json::parse(run.out);
  const Problem problem = io::read_t1_file((dir / "vector_add_opencl.json").string());
  const SearchSpace space = SearchSpace::build(problem);
  std::size_t wrong = 0;
  for (const auto& e : out["trace"]) {
    const auto config = space.values_at(e["index"].get<std::size_t>());
    const bool planted = config[1].to_double() == 2;  // parameters: block_size_x, tile
    EXPECT_EQ(e["status"], planted ? "verification-failed" : "ok") << e.dump();
    wrong += planted;
  }
  EXPECT_GT(wrong, 0u);
  EXPECT_EQ(out["live"]["statuses"]["verification-failed"].get<std::size_t>(), wrong);
  EXPECT_NE(out["best"]["configuration"]["tile"], 2);
}

// Learned failure avoidance on a live kernel: bench/failures/live is examples/matmul's kernel with a resource limit
// the problem does not state (an accumulator beyond 256 floats does not compile: 150 of the 360 configurations).
// random_sample's draws do not depend on the times measured, so both runs are reproducible: with --avoid-failures
// fewer configurations of the same budget fail, and some were answered without a compile.
TEST(Examples, LiveFailureAvoidanceCompilesFewerFailingConfigurations) {
  const fs::path t1 = fs::path(KTUNE_SOURCE_DIR) / "bench/failures/live/matmul_limit_cpp.json";
  std::size_t failing[2] = {0, 0};
  for (int avoid = 0; avoid < 2; ++avoid) {
    const auto run = run_ktune("tune " + quoted(t1.string()) + " --json --quiet --strategy random_sample " +
                               "--max-fevals 40 --iterations 1 --seed 3" + (avoid ? " --avoid-failures" : ""));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto out = nlohmann::json::parse(run.out);
    failing[avoid] = out["live"]["statuses"].value("compile-failed", std::size_t{0});
    EXPECT_EQ(out["live"]["statuses"].size(), failing[avoid] > 0 ? 2u : 1u) << out["live"]["statuses"].dump();
    if (avoid) {
      EXPECT_GT(out["deferred"].get<std::size_t>(), 0u);
    }
  }
  EXPECT_GT(failing[0], 8u);  // a third of 40 or so
  // At least 30 % fewer (here 17 of 40 without, 9 with and 14 deferrals).
  EXPECT_LT(failing[1] * 10, failing[0] * 7) << failing[1] << " against " << failing[0];
}

// No GPU here: the CUDA example must still load and plan, and tuning it either works (a GPU) or says why not.
TEST(Examples, VectorAddCuda) {
  const std::string t1 = (kExamples / "vector_add/vector_add_cuda.json").string();
  const Problem problem = io::read_t1_file(t1);
  const live::KernelSpecification spec = live::read_t1_kernel_specification(t1, problem);
  EXPECT_EQ(spec.backend, "cuda");
  const SearchSpace space = SearchSpace::build(problem);
  ASSERT_GT(space.size(), 0u);
  const auto config = space.values_at(0);
  const live::LaunchPlan plan = live::plan_launch(spec, problem, config);
  const std::uint64_t per_block = plan.geometry.block[0] * static_cast<std::uint64_t>(config[1].to_double());
  EXPECT_EQ(plan.geometry.grid[0], ((1u << 20) + per_block - 1) / per_block);

  const auto run = run_ktune("tune " + quoted(t1) + " --json --quiet --seed 1 --strategy random_sample --max-fevals 4");
  if (run.exit_code != 0 && testing::contains(run.err, "cuda backend is not available"))
    GTEST_SKIP() << "no CUDA device here: " << run.err;
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto out = nlohmann::json::parse(run.out);
  EXPECT_EQ(out["live"]["statuses"].value("ok", 0u), 4u) << out.dump();
}

}  // namespace
}  // namespace ktune
