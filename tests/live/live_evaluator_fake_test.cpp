// The live evaluator against FakeBackend: every failure kind costs exactly one configuration and the run goes on,
// isolated (worker process: timeouts and crashes) and in process; statistics, metrics, accuracy, verification kinds,
// device limits and budgets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "fake_backend.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"
#include "temp_files.hpp"

namespace ktune {
namespace {
namespace live_evaluator_fake_test {

using live::LiveEvaluator;
using live::LiveEvaluatorOptions;
using testing::fake_factory;
using testing::fake_specification;
using testing::FakeBackendOptions;

Problem kernels_problem(std::vector<Value> kernels, std::vector<Value> xs = {Value(1)}) {
  return ProblemBuilder("fake").parameter("x", std::move(xs)).parameter("kernel", std::move(kernels))
      .constant("n_elements", 64).build();
}

TuningResult brute_force(const SearchSpace& space, Evaluator& evaluator, Budget budget = {}) {
  auto strategy = make_strategy("brute_force", {});
  TuningOptions options;
  options.budget = budget;
  return tune(space, evaluator, *strategy, options);
}

// index -> record of every evaluated configuration, keyed by "x,kernel".
std::map<std::string, EvaluationRecord> records_by_config(const TuningResult& result, const LiveEvaluator& evaluator) {
  std::map<std::string, EvaluationRecord> out;
  for (const auto& e : result.trace.entries()) {
    EvaluationRecord r = evaluator.record(e.index);
    const std::string key = r.config[0].repr() + "," + r.config[1].str();
    EXPECT_EQ(out.count(key), 0u) << "evaluated twice: " << key;
    EXPECT_EQ(r.status, e.status);
    out[key] = std::move(r);
  }
  return out;
}

TEST(LiveEvaluatorFake, EveryFailureKindCostsOneConfigurationIsolated) {
  const Problem problem =
      kernels_problem({"correct", "wrong", "compile_error", "launch_error", "segfault", "hang"}, {1, 2});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();
  spec.timeout_s = 1;
  spec.verification.kind = live::Verification::Kind::configuration;
  spec.verification.configuration = {{"x", Value(1)}, {"kernel", Value("correct")}};
  LiveEvaluator evaluator(problem, space, spec, {.objectives = {}, .isolate = true, .backend_factory = fake_factory()});
  EXPECT_EQ(evaluator.workers_started(), 1u);
  EXPECT_EQ(evaluator.device_name(), "fake device");

  const TuningResult result = brute_force(space, evaluator);
  EXPECT_EQ(result.evaluations, 12u);
  EXPECT_EQ(result.stop_reason, StopReason::space_exhausted);
  const auto records = records_by_config(result, evaluator);
  ASSERT_EQ(records.size(), 12u);
  for (const char* x : {"1", "2"}) {
    const auto at = [&](const std::string& kernel) { return records.at(std::string(x) + "," + kernel); };
    EXPECT_EQ(at("correct").status, Status::ok) << at("correct").message;
    EXPECT_EQ(at("correct").runtimes_ms.size(), 5u);
    EXPECT_EQ(at("wrong").status, Status::verification_failed);
    EXPECT_NE(at("wrong").message.find("out"), std::string::npos) << at("wrong").message;
    EXPECT_TRUE(at("wrong").runtimes_ms.empty()) << "a wrong configuration is not benchmarked";
    EXPECT_EQ(at("compile_error").status, Status::compile_failed);
    EXPECT_NE(at("compile_error").message.find("expected ';'"), std::string::npos) << "the log is kept";
    EXPECT_EQ(at("launch_error").status, Status::runtime_failed);
    EXPECT_NE(at("launch_error").message.find("out of resources"), std::string::npos);
    EXPECT_EQ(at("segfault").status, Status::runtime_failed);
    EXPECT_EQ(at("segfault").message, "worker killed by SIGSEGV");
    EXPECT_EQ(at("hang").status, Status::timeout);
    EXPECT_EQ(at("hang").message, "timeout after 1 s");
    // It hangs in the check run: the second is verification time (issue 19 item 7), not benchmark time.
    EXPECT_GE(at("hang").verification_ms, 900.0);
    EXPECT_EQ(at("hang").benchmark_ms, 0.0);
    EXPECT_LT(at("hang").framework_ms, 100.0);
  }
  // A fresh worker after each crash or timeout, started lazily: the last configuration (x=2, hang) needs none.
  EXPECT_EQ(evaluator.workers_started(), 4u);
  EXPECT_EQ(records.at("2,correct").status, Status::ok);
}

TEST(LiveEvaluatorFake, FailuresInProcess) {
  const Problem problem = kernels_problem({"correct", "wrong", "compile_error", "launch_error"});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();
  spec.verification.kind = live::Verification::Kind::configuration;
  spec.verification.configuration = {{"x", Value(1)}, {"kernel", Value("correct")}};
  LiveEvaluator evaluator(problem, space, spec, {.objectives = {}, .isolate = false, .backend_factory = fake_factory()});
  const auto records = records_by_config(brute_force(space, evaluator), evaluator);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records.at("1,correct").status, Status::ok);
  EXPECT_EQ(records.at("1,wrong").status, Status::verification_failed);
  EXPECT_EQ(records.at("1,compile_error").status, Status::compile_failed);
  EXPECT_EQ(records.at("1,launch_error").status, Status::runtime_failed);
  EXPECT_EQ(evaluator.workers_started(), 0u);
}

TEST(LiveEvaluatorFake, StatisticMeanMedianMin) {
  const Problem problem = kernels_problem({"correct"});
  const SearchSpace space = SearchSpace::build(problem);
  // The warm-up takes 100; the timed launches 5, 1, 3, 2, 10: mean 4.2, median 3, min 1.
  const FakeBackendOptions durations = testing::fake_options({100, 5, 1, 3, 2, 10});
  for (const auto& [statistic, expected] : std::vector<std::pair<live::Statistic, double>>{
           {live::Statistic::mean, 4.2}, {live::Statistic::median, 3.0}, {live::Statistic::min, 1.0}}) {
    for (bool isolate : {true, false}) {
      auto spec = fake_specification();
      spec.statistic = statistic;
      LiveEvaluator evaluator(problem, space, spec, {.objectives = {}, .isolate = isolate, .backend_factory = fake_factory(durations)});
      const EvaluationOutcome outcome = evaluator.evaluate(0);
      ASSERT_EQ(outcome.status, Status::ok);
      ASSERT_EQ(outcome.objectives.size(), 1u);
      EXPECT_DOUBLE_EQ(outcome.objectives[0], expected);
      const EvaluationRecord r = evaluator.record(0);
      EXPECT_EQ(r.runtimes_ms, (std::vector<double>{5, 1, 3, 2, 10}));
      ASSERT_NE(r.find("time"), nullptr);
      EXPECT_DOUBLE_EQ(r.find("time")->value.to_double(), expected);
      EXPECT_EQ(r.find("time")->unit, "ms");
      EXPECT_FALSE(r.timestamp.empty());
      EXPECT_GE(r.framework_ms, 0.0);
      EXPECT_DOUBLE_EQ(outcome.charged_ms, r.charged_ms());
    }
  }
}

TEST(LiveEvaluatorFake, MetricsAndMetricObjective) {
  const Problem problem = kernels_problem({"correct", "compile_error"});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();
  spec.metrics = {{"GFLOP/s", "2*n_elements/(time/1e3)/1e9", "GFLOP/s"}, {"double_rate", "2*GFLOP/s", ""}};
  spec.metrics[1].expression = "x * 2";  // a metric over a parameter
  const FakeBackendOptions durations = testing::fake_options({4.0});
  LiveEvaluator evaluator(problem, space, spec,
                          {.objectives = {{"GFLOP/s", true}, {"time", false}}, .isolate = true,
                           .backend_factory = fake_factory(durations)});
  const EvaluationOutcome outcome = evaluator.evaluate(0);
  ASSERT_EQ(outcome.status, Status::ok);
  const double gflops = 2 * 64 / (4.0 / 1e3) / 1e9;
  EXPECT_DOUBLE_EQ(outcome.objectives[0], gflops);
  EXPECT_DOUBLE_EQ(outcome.objectives[1], 4.0);
  const EvaluationRecord r = evaluator.record(0);
  ASSERT_NE(r.find("GFLOP/s"), nullptr);
  EXPECT_DOUBLE_EQ(r.find("GFLOP/s")->value.to_double(), gflops);
  EXPECT_EQ(r.find("GFLOP/s")->unit, "GFLOP/s");
  EXPECT_DOUBLE_EQ(r.find("double_rate")->value.to_double(), 2.0);
  const EvaluationOutcome failed = evaluator.evaluate(1);
  EXPECT_EQ(failed.status, Status::compile_failed);
  EXPECT_TRUE(std::isnan(failed.objectives[0]));
}

TEST(LiveEvaluatorFake, UnknownObjectiveIsAnError) {
  const Problem problem = kernels_problem({"correct"});
  const SearchSpace space = SearchSpace::build(problem);
  const std::string message = testing::error_of<std::invalid_argument>([&] {
    LiveEvaluator e(problem, space, fake_specification(), {.objectives = {{"energy", false}}, .isolate = false,
                                                           .backend_factory = fake_factory()});
  });
  EXPECT_CONTAINS(message, "objective 'energy' is not measured");
}

TEST(LiveEvaluatorFake, FailingReferenceConfigurationIsAClearError) {
  const Problem problem = kernels_problem({"correct", "compile_error"});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();
  spec.verification.kind = live::Verification::Kind::configuration;
  spec.verification.configuration = {{"x", Value(1)}, {"kernel", Value("compile_error")}};
  const std::string message = testing::error_of<std::runtime_error>([&] {
    LiveEvaluator e(problem, space, spec, {.objectives = {}, .isolate = true, .backend_factory = fake_factory()});
  });
  EXPECT_CONTAINS(message, "the reference configuration (x=1, kernel='compile_error') failed");
  EXPECT_CONTAINS(message, "expected ';'");
}

TEST(LiveEvaluatorFake, BlockLargerThanTheDeviceIsInvalidWithoutCompiling) {
  const Problem problem = ProblemBuilder("fake")
                              .parameter("block_size_x", {32, 64, 128})
                              .parameter("kernel", {"compile_error"})
                              .max_threads(std::nullopt)
                              .build();
  const SearchSpace space = SearchSpace::build(problem);
  LiveEvaluator evaluator(problem, space, fake_specification(),
                          {.objectives = {}, .isolate = false, .backend_factory = fake_factory(testing::fake_options({1}, 64))});
  EXPECT_EQ(evaluator.evaluate(0).status, Status::compile_failed);  // compiled (and failed)
  const auto outcome = evaluator.evaluate(2);
  EXPECT_EQ(outcome.status, Status::invalid);  // never compiled: otherwise it would be compile_failed
  EXPECT_CONTAINS(evaluator.record(2).message, "a block of 128 threads exceeds the device's maximum of 64");
}

TEST(LiveEvaluatorFake, AccuracyReplacesTheToleranceCheck) {
  const Problem problem = kernels_problem({"correct", "wrong"});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();
  spec.verification.kind = live::Verification::Kind::configuration;
  spec.verification.configuration = {{"x", Value(1)}, {"kernel", Value("correct")}};
  spec.accuracy = {{"error", "out", "max absolute"}};
  LiveEvaluator evaluator(problem, space, spec,
                          {.objectives = {{"time", false}, {"error", false}}, .isolate = true, .backend_factory = fake_factory()});
  const auto correct = evaluator.evaluate(0);
  ASSERT_EQ(correct.status, Status::ok);
  EXPECT_DOUBLE_EQ(correct.objectives[1], 0.0);
  const auto wrong = evaluator.evaluate(1);
  ASSERT_EQ(wrong.status, Status::ok) << evaluator.record(1).message;
  EXPECT_NEAR(wrong.objectives[1], 1.0, 1e-6);  // out = 2*in + 1 (in float)
  EXPECT_NEAR(evaluator.record(1).find("error")->value.to_double(), 1.0, 1e-6);
}

TEST(LiveEvaluatorFake, CallbackAndFileVerification) {
  const Problem problem = kernels_problem({"correct", "wrong"});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification(16);
  spec.verification.kind = live::Verification::Kind::callback;
  spec.verification.callback = [](std::span<const live::KernelArgument> after) -> std::string {
    const auto in = reinterpret_cast<const float*>(after[0].bytes.data());
    const auto out = reinterpret_cast<const float*>(after[1].bytes.data());
    for (std::size_t i = 0; i < after[0].count(); ++i)
      if (out[i] != 2 * in[i]) return "out[" + std::to_string(i) + "] is not 2*in";
    return "";
  };
  {
    LiveEvaluator evaluator(problem, space, spec, {.objectives = {}, .isolate = true, .backend_factory = fake_factory()});
    EXPECT_EQ(evaluator.evaluate(0).status, Status::ok);
    EXPECT_EQ(evaluator.evaluate(1).status, Status::verification_failed);
    EXPECT_EQ(evaluator.record(1).message, "out[0] is not 2*in");
  }
  // The expected output as a raw file: 2*in, from the same deterministic arguments.
  auto arguments = live::make_arguments(spec, problem);
  std::vector<float> expected(arguments[0].count());
  std::memcpy(expected.data(), arguments[0].bytes.data(), arguments[0].bytes.size());
  for (float& v : expected) v *= 2;
  const std::string path = testing::write_temp(
      "expected_out.bin", std::string(reinterpret_cast<const char*>(expected.data()), expected.size() * sizeof(float)));
  spec.verification = {};
  spec.verification.kind = live::Verification::Kind::files;
  spec.verification.files = {{"out", path}};
  LiveEvaluator evaluator(problem, space, spec, {.objectives = {}, .isolate = false, .backend_factory = fake_factory()});
  EXPECT_EQ(evaluator.evaluate(0).status, Status::ok);
  EXPECT_EQ(evaluator.evaluate(1).status, Status::verification_failed);
}

TEST(LiveEvaluatorFake, BudgetStopsTheRun) {
  const Problem problem = kernels_problem({"correct", "wrong", "compile_error", "launch_error"}, {1, 2, 3});
  const SearchSpace space = SearchSpace::build(problem);
  LiveEvaluator evaluator(problem, space, fake_specification(),
                          {.objectives = {}, .isolate = true, .backend_factory = fake_factory()});
  Budget budget;
  budget.max_evaluations = 5;
  const TuningResult result = brute_force(space, evaluator, budget);
  EXPECT_EQ(result.evaluations, 5u);
  EXPECT_EQ(result.trace.size(), 5u);
  EXPECT_EQ(result.stop_reason, StopReason::max_evaluations);
}

TEST(LiveEvaluatorFake, BackendFactoryFailureInTheWorker) {
  const Problem problem = kernels_problem({"correct"});
  const SearchSpace space = SearchSpace::build(problem);
  const auto unavailable = [] () -> std::unique_ptr<live::Backend> { throw live::BackendUnavailable("no such device here"); };
  const std::string message = testing::error_of<live::BackendUnavailable>([&] {
    LiveEvaluator e(problem, space, fake_specification(), {.objectives = {}, .isolate = true, .backend_factory = unavailable});
  });
  EXPECT_EQ(message, "no such device here");
}

// A worker that cannot be set up again after a crash (a saturated machine, a device gone) costs the configuration that
// needed it, and the next one tries again; three failures in a row end the run with the reason. The factory runs in
// the worker, so it counts its calls in a file.
std::function<std::unique_ptr<live::Backend>()> factory_failing_on(std::string counter, std::vector<int> failing) {
  return [counter, failing, good = fake_factory()]() -> std::unique_ptr<live::Backend> {
    int calls = 0;
    std::ifstream(counter) >> calls;
    std::ofstream(counter, std::ios::trunc) << ++calls;
    if (std::find(failing.begin(), failing.end(), calls) != failing.end())
      throw std::runtime_error("device set-up failed (call " + std::to_string(calls) + ")");
    return good();
  };
}

TEST(LiveEvaluatorFake, AWorkerThatCannotBeRestartedCostsOneConfiguration) {
  const Problem problem = kernels_problem({"correct", "segfault"}, {1, 2, 3});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();
  spec.verification.kind = live::Verification::Kind::configuration;
  spec.verification.configuration = {{"x", Value(1)}, {"kernel", Value("correct")}};
  // Call 1 sets up the first worker; 1,segfault kills it; the restart for 2,correct (call 2) fails.
  LiveEvaluator evaluator(problem, space, spec,
                          {.objectives = {},
                           .isolate = true,
                           .backend_factory = factory_failing_on(testing::fresh_temp_path("restart_once"), {2})});
  const TuningResult result = brute_force(space, evaluator);
  const auto records = records_by_config(result, evaluator);
  ASSERT_EQ(records.size(), 6u);
  EXPECT_EQ(records.at("2,correct").status, Status::runtime_failed);
  EXPECT_NE(records.at("2,correct").message.find("could not be started again: device set-up failed (call 2)"),
            std::string::npos)
      << records.at("2,correct").message;
  EXPECT_EQ(records.at("3,correct").status, Status::ok) << records.at("3,correct").message;
  EXPECT_EQ(records.at("3,segfault").message, "worker killed by SIGSEGV");

  LiveEvaluator broken(problem, space, spec,
                       {.objectives = {},
                        .isolate = true,
                        .backend_factory = factory_failing_on(testing::fresh_temp_path("restart_never"), {2, 3, 4})});
  const std::string message = testing::error_of<std::runtime_error>([&] { brute_force(space, broken); });
  EXPECT_NE(message.find("could not be started again (3 tries in a row): device set-up failed (call 4)"),
            std::string::npos)
      << message;
}

}  // namespace live_evaluator_fake_test
}  // namespace
}  // namespace ktune
