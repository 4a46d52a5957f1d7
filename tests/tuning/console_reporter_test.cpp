// The console of a tuning run (issue 19): header, one line per configuration as Kernel Tuner's verbose mode prints
// it, progress lines in a log, failures counted by reason; and a stop request ending tune() cleanly.
#include <gtest/gtest.h>

#include <cstdio>
#include <chrono>
#include <string>
#include <thread>

#include "fake_evaluator.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/console_reporter.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"
#include "stop_after.hpp"

namespace ktune {
namespace {

using testing::StopAfter;

using testing::FakeEvaluator;

SearchSpace small_space() {
  return SearchSpace::build(ProblemBuilder("small").parameter("x", {1, 2, 3, 4}).parameter("y", {8, 16}).build());
}

// Everything written to a temporary FILE*.
std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  return text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  for (std::size_t end; (end = text.find('\n', begin)) != std::string::npos; begin = end + 1)
    lines.push_back(text.substr(begin, end - begin));
  return lines;
}

TEST(ConsoleReporter, HeaderLinesProgressAndFailuresInALog) {
  const SearchSpace space = small_space();
  FakeEvaluator evaluator(space, [](std::size_t i) { return 10.0 - static_cast<double>(i); },
                          [](std::size_t) { return 1.0; });
  evaluator.failing = {2, 5};
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  ConsoleReporterOptions options;
  options.stream = out;
  options.terminal = false;
  options.log_interval_seconds = 0;  // a progress line after every configuration
  ConsoleReporter console(options);
  Budget budget;
  budget.max_evaluations = 6;
  console.header({"small", "simulated from nowhere", "brute_force", budget, 7}, space);
  TuningOptions tuning;
  tuning.budget = budget;
  tuning.listeners.push_back(&console);
  auto strategy = make_strategy("brute_force");
  const TuningResult result = tune(space, evaluator, *strategy, tuning);
  console.finish();
  const auto lines = lines_of(contents(out));
  std::fclose(out);

  ASSERT_EQ(lines.size(), 2u + 6u * 2u);
  EXPECT_EQ(lines[0], "ktune: tuning small (8 configurations) simulated from nowhere");
  EXPECT_EQ(lines[1], "  strategy brute_force, budget max 6 evaluations, seed 7");
  // Configuration lines (brute force: the declared order), each followed by a progress line.
  EXPECT_EQ(lines[2], "     1  x=1, y=8, time=10 ms");
  EXPECT_EQ(lines[4], "     2  x=1, y=16, time=9 ms");
  EXPECT_EQ(lines[6], "     3  x=2, y=8, runtime failed");
  EXPECT_TRUE(lines[3].starts_with("  1 of 6 evaluations | best time 10 ms | ")) << lines[3];
  EXPECT_TRUE(lines[13].starts_with("  6 of 6 evaluations | best time 6 ms | ")) << lines[13];
  EXPECT_NE(lines[3].find("elapsed, about"), std::string::npos) << lines[3];
  EXPECT_EQ(ConsoleReporter::failures_text(result.trace), "2 failed: 2 runtime");
}

TEST(ConsoleReporter, OutcomesNameTheFailureAndShowEveryMeasurement) {
  EvaluationRecord r;
  r.status = Status::compile_failed;
  r.message = "\n  kernel.cl:3: error: expected ';'\nmore compiler output\n";
  EXPECT_EQ(ConsoleReporter::outcome_text(r, "time"), "compile failed: kernel.cl:3: error: expected ';'");
  r.status = Status::timeout;
  r.message = "timeout after 5 s";
  EXPECT_EQ(ConsoleReporter::outcome_text(r, "time"), "timed out: timeout after 5 s");
  r.status = Status::verification_failed;
  r.message = "the kernel wrote to 'in' (first at element 5), declared read-only";
  EXPECT_EQ(ConsoleReporter::outcome_text(r, "time"),
            "wrong result: the kernel wrote to 'in' (first at element 5), declared read-only");
  r = {};
  r.runtimes_ms = {1.0, 2.0};
  r.measurements = {{"GFLOP/s", Value(123.456), "GFLOP/s"}, {"powercap_energy", Value(0.5), "J"}};
  EXPECT_EQ(ConsoleReporter::outcome_text(r, "time"), "time=1.5 ms, GFLOP/s=123.5 GFLOP/s, powercap_energy=0.5 J");
  EXPECT_EQ(ConsoleReporter::outcome_text(r, "GFLOP/s"), "GFLOP/s=123.5 GFLOP/s, powercap_energy=0.5 J");
  EXPECT_EQ(ConsoleReporter::unit_of(r, "time"), "ms");
  EXPECT_EQ(ConsoleReporter::unit_of(r, "powercap_energy"), "J");
  EXPECT_EQ(ConsoleReporter::unit_of(r, "score"), "");
}

// An evaluator whose evaluations take `seconds` of wall time (a long compile, a slow kernel).
class SlowEvaluator final : public Evaluator {
 public:
  SlowEvaluator(Evaluator& inner, double seconds) : inner_(inner), seconds_(seconds) {}
  const std::vector<Objective>& objectives() const override { return inner_.objectives(); }
  bool simulated() const override { return false; }
  EvaluationOutcome evaluate(std::size_t index) override {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_));
    return inner_.evaluate(index);
  }
  EvaluationRecord record(std::size_t index) const override { return inner_.record(index); }

 private:
  Evaluator& inner_;
  double seconds_;
};

TEST(ConsoleReporter, ALogHearsFromALongEvaluation) {
  const SearchSpace space = small_space();
  FakeEvaluator fake(space, [](std::size_t i) { return static_cast<double>(i); }, [](std::size_t) { return 1.0; });
  SlowEvaluator slow(fake, 1.6);
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  ConsoleReporterOptions options;
  options.stream = out;
  options.terminal = false;
  options.log_interval_seconds = 0.5;
  ConsoleReporter console(options);
  Budget budget;
  budget.max_evaluations = 1;
  console.header({"small", "live on nothing", "brute_force", budget, 0}, space);
  TuningOptions tuning;
  tuning.budget = budget;
  tuning.listeners.push_back(&console);
  auto strategy = make_strategy("brute_force");
  (void)tune(space, slow, *strategy, tuning);
  console.finish();
  const std::string text = contents(out);
  std::fclose(out);
  // Lines at 0.5 s intervals while the 1.6 s evaluation runs: two or three, then the configuration's own line.
  std::size_t heartbeats = 0;
  for (const std::string& line : lines_of(text))
    if (line.starts_with("  evaluation 1 still running after ")) {
      ++heartbeats;
      EXPECT_TRUE(line.ends_with(" s: x=1, y=8")) << line;
    }
  EXPECT_GE(heartbeats, 2u) << text;
  EXPECT_LE(heartbeats, 3u) << text;
  EXPECT_NE(text.find("     1  x=1, y=8, time=0 ms"), std::string::npos) << text;
}

TEST(Interruption, AStopRequestEndsTuneWithWhatWasEvaluated) {
  const SearchSpace space = small_space();
  FakeEvaluator evaluator(space, [](std::size_t i) { return static_cast<double>(i); }, [](std::size_t) { return 1.0; });
  StopAfter stop(3);
  TuningOptions tuning;
  tuning.listeners.push_back(&stop);
  auto strategy = make_strategy("random_sample");
  const TuningResult result = tune(space, evaluator, *strategy, tuning);
  clear_stop_request();
  EXPECT_EQ(result.stop_reason, StopReason::interrupted);
  EXPECT_EQ(result.evaluations, 3u);
  EXPECT_EQ(result.trace.size(), 3u);
  EXPECT_EQ(evaluator.calls.size(), 3u);  // nothing evaluated after the request
  // Cleared, the next run goes to the end.
  const TuningResult again = tune(space, evaluator, *strategy, TuningOptions{});
  EXPECT_NE(again.stop_reason, StopReason::interrupted);
  EXPECT_EQ(again.trace.size(), 8u);
}

}  // namespace
}  // namespace ktune
