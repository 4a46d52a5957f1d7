// Code of the caller's in a live run (what the Python module passes): observers on this side of the worker told of
// every timed launch, metrics as code, generated sources and defines per configuration, Kernel Tuner's C convention
// of a function that returns its own time, run_kernel, and the device a kernel runs on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <mutex>

#include "fake_backend.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/live/run_kernel.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/interruption.hpp"
#include "temp_files.hpp"

namespace ktune {
namespace {

using live::LiveEvaluator;
using testing::fake_factory;
using testing::fake_specification;

// Records the hooks in order; reports how many launches it saw and a value per configuration.
class RecordingObserver final : public live::LaunchObserver {
 public:
  void register_device(const live::DeviceInfo& device) override { device_name = device.name; }
  void register_configuration(std::span<const Value> config) override {
    calls.clear();
    kernel = config[1].str();
  }
  void before_start() override { calls += "b"; }
  void after_start() override { calls += "s"; }
  void during() override {
    if (calls.empty() || calls.back() != 'd') calls += "d";
  }
  void after_finish() override { calls += "f"; }
  std::vector<live::Observation> results() override {
    if (kernel == "trivial") throw std::runtime_error("sensor unplugged");
    double launches = 0;
    for (char c : calls) launches += c == 'b';
    history.push_back(calls);
    return {{"launches", launches, ""}, {"energy", 3.0, "J"}};
  }
  std::string device_name, calls, kernel;
  std::vector<std::string> history;
};

Problem kernels_problem(std::vector<Value> kernels) {
  return ProblemBuilder("fake").parameter("x", {1, 2}).parameter("kernel", std::move(kernels)).build();
}

std::string without_during(std::string calls) {
  std::erase(calls, 'd');
  return calls;
}

class LaunchObservers : public ::testing::TestWithParam<bool> {};

TEST_P(LaunchObservers, SeeEveryTimedLaunchAndTheirResultsAreMeasurements) {
  const bool isolate = GetParam();
  const Problem problem = kernels_problem({"correct", "trivial"});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();
  spec.repetition = ktune::RepetitionPolicy{.adaptive = false, .runs = 4};
  auto observer = std::make_shared<RecordingObserver>();
  spec.launch_observers = {observer};
  // a metric as code over an observer's measurement, as the objective
  spec.metrics = {{"energy_per_launch", "", "J", [](std::span<const Value> config, const live::MeasurementMap& m) {
                     return m.at("energy") / m.at("launches") * config[0].to_double();
                   }}};
  LiveEvaluator evaluator(problem, space, spec,
                          {.objectives = {{"energy_per_launch", false}}, .isolate = isolate,
                           .backend_factory = fake_factory(testing::fake_options({2.0}))});
  EXPECT_EQ(observer->device_name, "fake device");
  for (std::size_t i = 0; i < space.size(); ++i) {
    const auto values = space.values_at(i);
    const EvaluationOutcome outcome = evaluator.evaluate(i);
    const EvaluationRecord r = evaluator.record(i);
    if (values[1].str() == "trivial") {  // the observer throws for it: that configuration fails
      EXPECT_EQ(outcome.status, Status::runtime_failed);
      EXPECT_CONTAINS(r.message, "sensor unplugged");
      continue;
    }
    ASSERT_EQ(outcome.status, Status::ok) << r.message;
    EXPECT_EQ(without_during(observer->history.back()), "bsfbsfbsfbsf");
    EXPECT_DOUBLE_EQ(r.find("launches")->value.to_double(), 4);
    EXPECT_DOUBLE_EQ(outcome.objectives[0], 3.0 / 4 * values[0].to_double());
    EXPECT_DOUBLE_EQ(r.find("time")->value.to_double(), 2.0);  // the hand-shakes do not change the timing
  }
}

INSTANTIATE_TEST_SUITE_P(IsolatedAndInProcess, LaunchObservers, ::testing::Bool());

TEST(LaunchObserversInTheWorker, AreToldDuringALongLaunch) {
  const Problem problem = kernels_problem({"correct"});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();
  spec.repetition = ktune::RepetitionPolicy{.adaptive = false, .runs = 1};
  auto observer = std::make_shared<RecordingObserver>();
  spec.launch_observers = {observer};
  auto options = testing::fake_options({1.0});
  options.on_launch = [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); };
  LiveEvaluator evaluator(problem, space, spec, {.objectives = {}, .isolate = true,
                                                 .backend_factory = fake_factory(options)});
  ASSERT_EQ(evaluator.evaluate(0).status, Status::ok);
  EXPECT_EQ(observer->history.back(), "bsdf");
}

TEST(LiveCallerCode, AMetricAsCodeThatThrowsIsNaNAndAnObjectiveOnItFails) {
  const Problem problem = kernels_problem({"correct"});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();
  spec.metrics = {{"bad", "", "", [](std::span<const Value>, const live::MeasurementMap&) -> double {
                     throw std::runtime_error("division by zero");
                   }}};
  LiveEvaluator evaluator(problem, space, spec, {.objectives = {{"bad", false}}, .isolate = false,
                                                 .backend_factory = fake_factory()});
  EXPECT_EQ(evaluator.evaluate(0).status, Status::runtime_failed);
  EXPECT_TRUE(std::isnan(evaluator.record(0).find("bad")->value.to_double()));
}

// Caller's code that was interrupted (Python's KeyboardInterrupt landed in it) throws Interrupted: the evaluation is
// abandoned with no record, never recorded as that code's failure (a wrong result, a NaN, a failed observer).
class InterruptingObserver final : public live::LaunchObserver {
 public:
  explicit InterruptingObserver(std::string hook) : hook_(std::move(hook)) {}
  void register_device(const live::DeviceInfo&) override {}
  void register_configuration(std::span<const Value>) override { maybe_throw("register_configuration"); }
  void before_start() override { maybe_throw("before_start"); }
  void after_start() override {}
  void during() override {}
  void after_finish() override {}
  std::vector<live::Observation> results() override {
    maybe_throw("results");
    return {};
  }

 private:
  void maybe_throw(const std::string& hook) const {
    if (hook == hook_) throw Interrupted();
  }
  std::string hook_;
};

class InterruptedCallerCode : public ::testing::TestWithParam<std::string> {};

TEST_P(InterruptedCallerCode, AbandonsTheEvaluationWithNoRecord) {
  const std::string where = GetParam();
  const Problem problem = kernels_problem({"correct"});
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = fake_specification();
  const auto interrupted = [](auto&&...) -> std::string { throw Interrupted(); };
  if (where == "verification") {
    spec.verification.kind = live::Verification::Kind::callback;
    spec.verification.callback = interrupted;
  } else if (where == "metric") {
    spec.metrics = {{"m", "", "", [](std::span<const Value>, const live::MeasurementMap&) -> double {
                       throw Interrupted();
                     }}};
  } else if (where == "generate_code") {
    spec.generate_code = interrupted;
  } else if (where == "generate_defines") {
    spec.generate_defines = [](std::span<const Value>) -> live::Defines { throw Interrupted(); };
  } else {
    spec.launch_observers = {std::make_shared<InterruptingObserver>(where)};
  }
  for (const bool isolate : {false, true}) {
    LiveEvaluator evaluator(problem, space, spec, {.objectives = {}, .isolate = isolate,
                                                   .backend_factory = fake_factory()});
    EXPECT_THROW(evaluator.evaluate(0), Interrupted) << where << (isolate ? " in a worker" : " in process");
    EXPECT_THROW(evaluator.record(0), std::logic_error) << where;  // nothing recorded for it
  }
}

INSTANTIATE_TEST_SUITE_P(LiveCallerCode, InterruptedCallerCode,
                         ::testing::Values("verification", "metric", "generate_code", "generate_defines",
                                           "register_configuration", "before_start", "results"));

using testing::cpp_backend_available;

// c[i] = a[i] + OFFSET; the function returns `reported` as its time.
live::KernelSpecification offset_spec() {
  live::KernelSpecification spec;
  spec.backend = "cpp";
  spec.kernel_name = "add_offset";
  spec.kernel_code = "this is replaced by the generator";
  spec.problem_size = {"16", "1", "1"};
  using live::Access, live::ElementType, live::Fill;
  spec.arguments = {testing::vector_argument("a", ElementType::float32, Access::read_only, "16", Fill::random, 1),
                    testing::vector_argument("c", ElementType::float32, Access::write_only, "16", Fill::zeros)};
  spec.repetition = ktune::RepetitionPolicy{.adaptive = false, .runs = 2};
  spec.timeout_s = 30;
  spec.generate_code = [](std::span<const Value> config) {
    if (config[0].as_int() == 3) throw std::runtime_error("no code for 3");
    return std::string("float add_offset(const float* a, float* c) {\n"
                       "  for (int i = 0; i < 16; ++i) c[i] = a[i] + OFFSET;\n"
                       "  return 0.25f * ") + config[0].repr() + ";\n}\n";
  };
  spec.generate_defines = [](std::span<const Value> config) {
    return live::Defines{{"OFFSET", std::to_string(10 * config[0].as_int())}};
  };
  spec.backend_options.time_from_return = true;
  return spec;
}

TEST(LiveCallerCode, GeneratedSourcesAndDefinesPerConfigurationAndTheReturnedTime) {
  if (!cpp_backend_available()) GTEST_SKIP() << "no C compiler";
  const Problem problem = ProblemBuilder("offset").parameter("k", {1, 2, 3}).build();
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = offset_spec();
  std::vector<std::string> wrong;
  spec.verification.kind = live::Verification::Kind::callback;
  spec.verification.callback = [&](std::span<const live::KernelArgument> after) -> std::string {
    float a = 0, c = 0;
    std::memcpy(&a, after[0].bytes.data(), sizeof a);
    std::memcpy(&c, after[1].bytes.data(), sizeof c);
    return std::abs(c - a - 10.0f) < 1e-5f ? "" : "c[0] - a[0] = " + std::to_string(c - a);
  };
  LiveEvaluator evaluator(problem, space, spec, {});
  ASSERT_EQ(evaluator.evaluate(0).status, Status::ok) << evaluator.record(0).message;
  EXPECT_EQ(evaluator.record(0).runtimes_ms, (std::vector<double>{0.25, 0.25}));  // the function's own time
  EXPECT_EQ(evaluator.evaluate(1).status, Status::verification_failed);          // OFFSET is 20 for k=2
  EXPECT_EQ(evaluator.evaluate(2).status, Status::compile_failed);
  EXPECT_CONTAINS(evaluator.record(2).message, "no code for 3");
}

TEST(LiveCallerCode, RunKernelReturnsEveryArgumentAfterOneRun) {
  if (!cpp_backend_available()) GTEST_SKIP() << "no C compiler";
  const Problem problem = ProblemBuilder("offset").parameter("k", {2}).build();
  const auto spec = offset_spec();
  for (bool isolate : {true, false}) {
    const auto after = live::run_kernel(spec, problem, std::vector<Value>{Value(2)}, isolate);
    ASSERT_EQ(after.size(), 2u);
    for (std::size_t i = 0; i < 16; ++i) {
      float a = 0, c = 0;
      std::memcpy(&a, after[0].bytes.data() + 4 * i, 4);
      std::memcpy(&c, after[1].bytes.data() + 4 * i, 4);
      EXPECT_FLOAT_EQ(c, a + 20.0f);
    }
  }
  const std::string message = testing::error_of<std::runtime_error>(
      [&] { (void)live::run_kernel(spec, ProblemBuilder("offset").parameter("k", {3}).build(), std::vector<Value>{Value(3)}); });
  EXPECT_CONTAINS(message, "add_offset (k=3)");
  EXPECT_CONTAINS(message, "no code for 3");
}

// probe_device: the device a kernel runs on, named as tuning names it (a results file is looked up by that name).
TEST(LiveCallerCode, ProbedDeviceIsTheDeviceTuningRecords) {
  if (!cpp_backend_available()) GTEST_SKIP() << "no C compiler";
  const Problem problem = ProblemBuilder("offset").parameter("k", {2}).build();
  const auto spec = offset_spec();
  const std::string isolated = live::probe_device(spec).name;
  EXPECT_FALSE(isolated.empty());
  EXPECT_EQ(live::probe_device(spec, false).name, isolated);
  const SearchSpace space = SearchSpace::build(problem);
  live::LiveEvaluatorOptions o;
  LiveEvaluator evaluator(problem, space, spec, std::move(o));
  EXPECT_EQ(evaluator.device_name(), isolated);
}

}  // namespace
}  // namespace ktune
