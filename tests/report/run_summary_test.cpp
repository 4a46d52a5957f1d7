// What a report page shows of a run: each number checked on a run small enough to work out by hand.
#include "ktune/report/run_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace ktune::report {
namespace {

using json = nlohmann::json;

EvaluationRecord record(std::vector<Value> config, std::optional<double> time, Status status = Status::ok,
                        std::string message = "") {
  EvaluationRecord r;
  r.config = std::move(config);
  r.status = status;
  r.message = std::move(message);
  if (time) {
    r.measurements.push_back({"time", *time, "ms"});
    r.runtimes_ms = {*time, *time};
  }
  return r;
}

// Two parameters; the time depends on `a` only (1 -> 10 ms, 2 -> 40 ms, 4 -> 1000 ms); each value of b was measured
// with each value of a once, so b explains nothing.
SummaryOptions options(std::vector<std::string> objectives, std::size_t top = 20, std::size_t max_points = 4000) {
  SummaryOptions o;
  o.objectives = std::move(objectives);
  o.top = top;
  o.max_points = max_points;
  return o;
}

ReportRun small_run() {
  ReportRun run;
  run.name = "small";
  run.problem.parameters = {{"a", {1, 2, 4}}, {"b", {Value("x"), Value("y")}}};
  run.records = {record({2, "x"}, 40.0),
                 record({4, "x"}, 1000.0),
                 record({1, "y"}, 10.0),
                 record({4, "y"}, std::nullopt, Status::compile_failed, "error: too many registers\nmore"),
                 record({2, "y"}, 40.0),
                 record({4, "x"}, std::nullopt, Status::compile_failed, "error: too many registers"),
                 record({1, "x"}, 10.0),
                 record({4, "y"}, std::nullopt, Status::runtime_failed, "launch failed"),
                 record({4, "y"}, 1000.0)};
  return run;
}

TEST(RunSummary, TheBestIsTheFirstOfTheLowestTimes) {
  const json s = summarize_run(small_run());
  EXPECT_EQ(s["records"], 9);
  EXPECT_EQ(s["with_value"], 6);
  EXPECT_EQ(s["best"]["value"], 10.0);
  EXPECT_EQ(s["best"]["evaluation"], 3);
  EXPECT_EQ(s["best"]["config"], json({{"a", 1}, {"b", "y"}}));
  EXPECT_EQ(s["objectives"][0], json({{"name", "time"}, {"unit", "ms"}, {"higher_is_better", false}}));
  EXPECT_EQ(s["by_status"], json({{"ok", 6}, {"compile-failed", 2}, {"runtime-failed", 1}}));
}

TEST(RunSummary, TheProgressHasAPointWhereTheBestImprovesAndAtTheEnd) {
  const json p = summarize_run(small_run())["progress"];
  EXPECT_EQ(p["evaluation"], json({1, 3, 9}));
  EXPECT_EQ(p["best"], json({40.0, 10.0, 10.0}));
}

TEST(RunSummary, TheClockIsTheRecordsOwnOrTheSumOfWhatEachCost) {
  ReportRun run = small_run();
  json s = summarize_run(run);
  // No clock recorded: compile 0 + the runs' sum per record, accumulated (40+40, +1000+1000, +10+10 ...).
  EXPECT_DOUBLE_EQ(s["progress"]["seconds"][0].get<double>(), 0.080);
  EXPECT_DOUBLE_EQ(s["progress"]["seconds"][1].get<double>(), 2.100);
  for (std::size_t i = 0; i < run.records.size(); ++i) run.records[i].clock_ms = 1000.0 * static_cast<double>(i + 1);
  s = summarize_run(run);
  EXPECT_EQ(s["progress"]["seconds"], json({1.0, 3.0, 9.0}));
  EXPECT_EQ(s["seconds"], 9.0);
}

TEST(RunSummary, AParameterThatDecidesTheTimeExplainsAllOfItsVariance) {
  const json s = summarize_run(small_run());
  EXPECT_EQ(s["importance"][0]["name"], "a");
  EXPECT_NEAR(s["importance"][0]["share"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(s["importance"][1]["share"].get<double>(), 0.0, 1e-12);
  const json a = s["parameters"][0];
  EXPECT_EQ(a["measured"], json({2, 2, 5}));
  EXPECT_EQ(a["failed"], json({0, 0, 3}));
  EXPECT_EQ(a["stats"][0]["median"], 10.0);
  EXPECT_EQ(a["stats"][2]["max"], 1000.0);
  EXPECT_TRUE(a["numeric"]);
  EXPECT_FALSE(s["parameters"][1]["numeric"]);
}

TEST(RunSummary, ValuesThatSpanDecadesAreOnALogScale) {
  const json s = summarize_run(small_run());
  EXPECT_TRUE(s["log_scale"]);  // 10 to 1000 ms
  const json h = s["distribution"];
  EXPECT_TRUE(h["log"]);
  std::size_t total = 0;
  for (const auto& c : h["counts"]) total += c.get<std::size_t>();
  EXPECT_EQ(total, 6u);
  EXPECT_NEAR(h["edges"].front().get<double>(), 10.0, 1e-9);
  EXPECT_NEAR(h["edges"].back().get<double>(), 1000.0, 1e-9);
}

TEST(RunSummary, TheTopTableIsSortedAndCut) {
  const json top = summarize_run(small_run(), options({}, 3))["top"];
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0]["evaluation"], 3);  // ties keep the order measured
  EXPECT_EQ(top[1]["evaluation"], 7);
  EXPECT_EQ(top[2]["values"][0], 40.0);
  EXPECT_EQ(top[0]["runs"], 2);
}

TEST(RunSummary, FailuresAreGroupedByStatusWithTheirFirstLines) {
  const json f = summarize_run(small_run())["failures"];
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0]["status"], "compile-failed");
  EXPECT_EQ(f[0]["count"], 2);
  EXPECT_EQ(f[0]["messages"], json::array({{{"message", "error: too many registers"}, {"count", 2}}}));
  EXPECT_EQ(f[1]["status"], "runtime-failed");
}

TEST(RunSummary, AMaximisedObjectiveTakesTheHighest) {
  ReportRun run = small_run();
  for (auto& r : run.records)
    if (r.status == Status::ok) r.measurements.push_back({"GFLOP/s", 1000.0 / r.measurements[0].value.to_double(), ""});
  const json s = summarize_run(run, options({"GFLOP/s"}));
  EXPECT_EQ(s["best"]["value"], 100.0);
  EXPECT_TRUE(s["objectives"][0]["higher_is_better"]);
  EXPECT_EQ(s["top"][0]["values"][0], 100.0);
  EXPECT_EQ(s["progress"]["best"], json({25.0, 100.0, 100.0}));
}

TEST(RunSummary, AnObjectiveOfUnknownDirectionMustSayIt) {
  try {
    summarize_run(small_run(), options({"widgets"}));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'widgets'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("widgets:max"), std::string::npos) << e.what();
  }
  EXPECT_EQ(summarize_run(small_run(), options({"time:max"}))["best"]["value"], 1000.0);
}

TEST(RunSummary, TwoObjectivesGiveTheParetoFront) {
  ReportRun run;
  run.problem.parameters = {{"k", {0, 1, 2, 3, 4}}};
  // (time, energy): (1, 5) (2, 2) (3, 3) (4, 1) (2, 6): the front is the first, second and fourth.
  const double points[][2] = {{1, 5}, {2, 2}, {3, 3}, {4, 1}, {2, 6}};
  for (int k = 0; k < 5; ++k) {
    EvaluationRecord r = record({k}, points[k][0]);
    r.measurements.push_back({"energy", points[k][1], "J"});
    run.records.push_back(r);
  }
  const json p = summarize_run(run, options({"time", "energy"}))["pareto"];
  EXPECT_EQ(p["front"], json({{1.0, 5.0, 1}, {2.0, 2.0, 2}, {4.0, 1.0, 4}}));
  EXPECT_EQ(p["points"].size(), 5u);
  EXPECT_EQ(p["y"]["unit"], "J");
  // Thinned, the cloud keeps at most max_points; the front stays whole.
  const json thin = summarize_run(run, options({"time", "energy"}, 20, 2))["pareto"];
  EXPECT_LE(thin["points"].size(), 3u);
  EXPECT_EQ(thin["front"].size(), 3u);
}

TEST(RunSummary, ARunWithoutASuccessHasNoBestAndNoDistribution) {
  ReportRun run;
  run.problem.parameters = {{"a", {1}}};
  run.records = {record({1}, std::nullopt, Status::timeout, "")};
  const json s = summarize_run(run);
  EXPECT_TRUE(s["best"].is_null());
  EXPECT_TRUE(s["distribution"].is_null());
  EXPECT_EQ(s["progress"]["best"], json::array());
  EXPECT_EQ(s["failures"][0]["messages"][0]["message"], "");
}

}  // namespace
}  // namespace ktune::report
