// Runs of other tuners (ktune/methodology/external_runs.hpp): the golden trace file, T4 files of single runs written
// from benchmark_hub records, matching them to their space, and the errors.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/t4_results.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/methodology/external_runs.hpp"
#include "shared_data.hpp"
#include "temp_files.hpp"

namespace ktune::methodology {
namespace {

using testing::shared_path;
using testing::temp_dir;
using testing::write_temp;

const std::string kTraces = "data/methodology_golden/traces.json.gz";

template <class F>
std::string input_error_of(F&& f) {
  return testing::error_of<io::InputError>(std::forward<F>(f));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const ExternalRuns& golden_traces() {
  static const ExternalRuns runs = read_trace_file(shared_path(kTraces));
  return runs;
}

ComparisonSpace convolution_space(const std::string& gpu) {
  static std::map<std::string, std::shared_ptr<const io::ResultsFile>> loaded;
  auto& file = loaded[gpu];
  if (!file)
    file = std::make_shared<const io::ResultsFile>(
        io::read_results_file(shared_path("data/benchmark_hub/cachefiles/convolution_milo/" + gpu + "_T4.json.gz")));
  return {gpu + "_convolution_milo", file};
}

// --- trace files ---------------------------------------------------------------------------------------------------

TEST(TraceFile, GoldenTracesHaveEveryRun) {
  const ExternalRuns& runs = golden_traces();
  ASSERT_EQ(runs.size(), 2u);
  for (const char* label : {"random_sample", "genetic_algorithm"}) {
    ASSERT_TRUE(runs.contains(label)) << label;
    const auto& by_space = runs.at(label);
    EXPECT_EQ(by_space.size(), 6u);
    for (const auto& [space, space_runs] : by_space) EXPECT_EQ(space_runs.size(), 25u) << label << " " << space;
  }
}

// Point counts, first and last points as Python's json reads them from the file.
TEST(TraceFile, GoldenTracesMatchPython) {
  struct Expected {
    const char *space, *label;
    std::size_t points, nulls, last_run_points;
    RunPoint first, last;  // first point of run 0, last point of run 24
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Expected expected[] = {
      {"A100_convolution_milo", "random_sample", 10925, 395, 437, {2.1546187497219873, 2.121183916926384},
       {1215.333221163568, 1.3957439959049225}},
      {"A100_convolution_milo", "genetic_algorithm", 58500, 72, 2340, {2.4320068069657443, 0.9091519862413406},
       {639.1312031345707, 1.0908480063080788}},
      {"A4000_convolution_milo", "random_sample", 7574, 288, 312, {6.628422777950244, 5.953756004571915},
       {860.4033637270161, 1.8757999613881111}},
      {"A4000_convolution_milo", "genetic_algorithm", 53935, 181, 2340, {7.61475345416523, nan},
       {941.7222679760697, 1.200349997729063}},
      {"MI250X_convolution_milo", "random_sample", 1047, 0, 45, {0.9419334022328033, 16.169194638729095},
       {92.7831593345836, 21.297368824481964}},
      {"MI250X_convolution_milo", "genetic_algorithm", 1513, 0, 49, {0.8146014271159433, 11.03186497092247},
       {96.04627414977686, 17.14039582014084}},
      {"MI250X_dedispersion_milo", "random_sample", 9271, 0, 367, {4.242532685241727, 105.25299215316772},
       {1900.705928955094, 193.33933925628662}},
      {"MI250X_dedispersion_milo", "genetic_algorithm", 58500, 0, 2340, {4.33079437231029, 108.58258366584778},
       {5255.32496828663, 54.4976350069046}},
  };
  for (const Expected& e : expected) {
    SCOPED_TRACE(std::string(e.space) + " " + e.label);
    const std::vector<methodology::Run>& runs = golden_traces().at(e.label).at(e.space);
    std::size_t points = 0, nulls = 0;
    for (const methodology::Run& run : runs) {
      points += run.size();
      for (const RunPoint& p : run) nulls += std::isnan(p.value);
    }
    EXPECT_EQ(points, e.points);
    EXPECT_EQ(nulls, e.nulls);
    ASSERT_EQ(runs.back().size(), e.last_run_points);
    EXPECT_EQ(runs.front().front().time_s, e.first.time_s);
    if (std::isnan(e.first.value))
      EXPECT_TRUE(std::isnan(runs.front().front().value));
    else
      EXPECT_EQ(runs.front().front().value, e.first.value);
    EXPECT_EQ(runs.back().back().time_s, e.last.time_s);
    EXPECT_EQ(runs.back().back().value, e.last.value);
  }
}

// The strategy curve looks values up by exact equality: they must be the brute-forced doubles.
TEST(TraceFile, GoldenValuesAreMembersOfTheBruteForcedSpace) {
  const ComparisonSpace space = convolution_space("MI250X");
  std::set<double> values;
  for (const EvaluationRecord& r : space.results->records)
    if (auto v = r.objective("time")) values.insert(*v);
  for (const char* label : {"random_sample", "genetic_algorithm"})
    for (const methodology::Run& run : golden_traces().at(label).at(space.name))
      for (const RunPoint& p : run) {
        if (!std::isnan(p.value)) {
          ASSERT_TRUE(values.contains(p.value)) << label << " " << p.value;
        }
      }
}

TEST(TraceFile, PlainTextAndOptionalBestSoFar) {
  const ExternalRuns runs = parse_trace_text(
      R"({"description": "x", "spaces": {"s1": {"gpu": "A", "strategies": {"mine": [[[0.5, 3, 3], [1.5, null, 3],
          [1.5, NaN, null], [2, 1.25]], []], "other": []}}, "s2": {"strategies": {"mine": [[[1, Infinity, null]]]}}}})",
      "t.json");
  ASSERT_EQ(runs.size(), 2u);
  const auto& mine = runs.at("mine");
  ASSERT_EQ(mine.at("s1").size(), 2u);
  const methodology::Run& run = mine.at("s1")[0];
  ASSERT_EQ(run.size(), 4u);
  EXPECT_EQ(run[0].time_s, 0.5);
  EXPECT_EQ(run[0].value, 3);
  EXPECT_TRUE(std::isnan(run[1].value));
  EXPECT_TRUE(std::isnan(run[2].value));
  EXPECT_EQ(run[3].time_s, 2);
  EXPECT_EQ(run[3].value, 1.25);
  EXPECT_TRUE(mine.at("s1")[1].empty());
  EXPECT_TRUE(std::isnan(mine.at("s2")[0][0].value));  // non-finite: a failed evaluation
  EXPECT_TRUE(runs.at("other").at("s1").empty());
}

TEST(TraceFile, MalformedContentNamesFileAndPath) {
  const auto error = [](const std::string& text) {
    return input_error_of([&] { (void)parse_trace_text(text, "bad.json"); });
  };
  const std::string prefix = R"({"spaces": {"s": {"strategies": {"x": [)";
  EXPECT_TRUE(contains(error(R"({"results": []})"), "bad.json: spaces: missing: not a trace file"));
  EXPECT_TRUE(contains(error("[1]"), "expected a JSON object at the top level"));
  EXPECT_TRUE(contains(error(R"({"spaces": []})"), "bad.json: spaces: expected an object"));
  EXPECT_TRUE(contains(error(R"({"spaces": {"s": {"gpu": 1}}})"), R"(spaces["s"]: missing "strategies")"));
  EXPECT_TRUE(contains(error(R"({"spaces": {"s": {"strategies": {"x": {}}}}})"),
                       R"(spaces["s"].strategies["x"]: expected an array of runs)"));
  EXPECT_TRUE(contains(error(prefix + R"([[1, 2], ["3", 4]]]}}}})"),
                       R"(spaces["s"].strategies["x"][0][1][0]: expected a number)"));
  EXPECT_TRUE(contains(error(prefix + R"([], [[1, 2], [0.5, 4]]]}}}})"),
                       R"(spaces["s"].strategies["x"][1][1][0]: the time decreases)"));
  EXPECT_TRUE(contains(error(prefix + R"([[-1, 2]]]}}}})"), "[0][0][0]: the time must be a finite number >= 0"));
  EXPECT_TRUE(contains(error(prefix + R"([[1, "fast"]]]}}}})"), "[0][0][1]: expected a number or null"));
  EXPECT_TRUE(contains(error(prefix + R"([[1, 2, 2, 2]]]}}}})"), "[0][0]: expected at most 3 fields"));
  EXPECT_TRUE(contains(error(prefix + R"([[1]]]}}}})"), "[0][0]: expected [cumulative_time_s, value"));
  EXPECT_TRUE(contains(error(prefix + R"(3]}}}})"), R"(strategies["x"][0]: expected an array of evaluations)"));
  EXPECT_TRUE(contains(error(prefix + R"([[1, 2]]], "x": []}}}})"), "the strategy appears twice"));
  EXPECT_TRUE(contains(error(prefix + R"([[1, 2], [2, 3)"), "cut short"));
  EXPECT_TRUE(contains(error(prefix + R"([[1, 2]]]}}}} x)"), "unexpected text after the JSON document"));
  EXPECT_TRUE(contains(input_error_of([] { (void)read_trace_file((temp_dir() / "absent.json").string()); }),
                       "absent.json: cannot open file"));
}

// Two strategies, one of them only on a space that is not compared.
const std::string kSmallTrace = R"({"spaces": {
  "MI250X_convolution_milo": {"strategies": {"mine": [[[1, 2.5, 2.5]], [[2, null, null], [3, 1, 1]]]}},
  "other_space": {"strategies": {"mine": [], "theirs": [[[1, 2, 2]]]}}}})";

// --- single runs in T4 files --------------------------------------------------------------------------------------

// A run of `records` as Kernel Tuner would write it, parameters in reverse order (matching ignores the order).
std::string write_run(const std::string& name, const io::ResultsFile& space, std::vector<EvaluationRecord> records) {
  Problem problem = space.problem;
  std::reverse(problem.parameters.begin(), problem.parameters.end());
  problem.parameters.back().values.emplace_back(std::int64_t{9999});  // room for a configuration outside the space
  for (EvaluationRecord& r : records) std::reverse(r.config.begin(), r.config.end());
  std::ostringstream out;
  io::write_t4_results(out, problem, records, {"time"}, {{"tool", "test"}});
  return write_temp(name, out.str());
}

// Records of the space in a shuffled order, with simple times: compilation 1000 + 100 i ms, runtimes 10 and 20 ms,
// framework negative (skipped), strategy 2.5 ms, verification NaN (skipped).
std::vector<EvaluationRecord> run_records(const io::ResultsFile& space, const std::vector<std::size_t>& picks) {
  std::vector<EvaluationRecord> records;
  for (std::size_t i = 0; i < picks.size(); ++i) {
    EvaluationRecord r = space.records.at(picks[i]);
    r.compile_ms = 1000 + 100.0 * static_cast<double>(i);
    r.runtimes_ms = r.status == Status::ok ? std::vector<double>{10, 20} : std::vector<double>{};
    r.framework_ms = -5;
    r.strategy_ms = 2.5;
    r.verification_ms = std::nan("");
    records.push_back(std::move(r));
  }
  return records;
}

EvaluationRecord constraint_violation(const io::ResultsFile& space) {
  EvaluationRecord r = space.records.front();
  r.config.front() = Value(std::int64_t{9999});  // block_size_x = 9999: not in the space
  r.status = Status::invalid;
  r.measurements.clear();
  r.runtimes_ms.clear();
  r.compile_ms = 777;
  return r;
}

TEST(ExternalRuns, RunFromT4TimesAndValues) {
  const ComparisonSpace mi250x = convolution_space("MI250X");
  std::vector<EvaluationRecord> records = run_records(*mi250x.results, {4000, 5, 123});
  records.insert(records.begin() + 1, constraint_violation(*mi250x.results));
  const io::ResultsFile file = io::read_results_file(write_run("mi250x_run.json", *mi250x.results, records));
  ASSERT_EQ(file.records.size(), 4u);
  const methodology::Run run = run_from_t4(file, "time");
  ASSERT_EQ(run.size(), 3u);  // the constraint violation is skipped, its time too
  // 1000 + 10 + 20 + 2.5, then + 1100 + 32.5, then + 1200 + 32.5 (ms)
  EXPECT_DOUBLE_EQ(run[0].time_s, 1.0325);
  EXPECT_DOUBLE_EQ(run[1].time_s, 1.0325 + 1.1325);
  EXPECT_DOUBLE_EQ(run[2].time_s, 1.0325 + 1.1325 + 1.2325);
  EXPECT_EQ(run[1].value, 12.332039475440979);  // MI250X record 5, as Python reads it
  EXPECT_EQ(run[0].value, *mi250x.results->records[4000].objective("time"));
  EXPECT_EQ(run[2].value, *mi250x.results->records[123].objective("time"));
  EXPECT_TRUE(std::isnan(run_from_t4(file, "GFLOP/s")[0].value));
}

TEST(ExternalRuns, FailuresCostTimeAndHaveNoValue) {
  const ComparisonSpace a100 = convolution_space("A100");
  std::size_t failed = 0;
  while (a100.results->records.at(failed).status == Status::ok) ++failed;
  const io::ResultsFile file =
      io::read_results_file(write_run("a100_failure.json", *a100.results, run_records(*a100.results, {7, failed})));
  const methodology::Run run = run_from_t4(file, "time");
  ASSERT_EQ(run.size(), 2u);
  EXPECT_FALSE(std::isnan(run[0].value));
  EXPECT_TRUE(std::isnan(run[1].value));
  EXPECT_DOUBLE_EQ(run[1].time_s, 1.0325 + 1.1025);  // a failure has no runtimes: 1100 + 2.5 ms
}

// The convolution spaces of all GPUs have the same configurations: the values tell them apart.
TEST(ExternalRuns, MatchingSpaceByConfigurationsAndValues) {
  const std::vector<ComparisonSpace> spaces = {convolution_space("A100"), convolution_space("A4000"),
                                               convolution_space("MI250X")};
  const io::ResultsFile& mi250x = *spaces[2].results;
  std::vector<EvaluationRecord> records = run_records(mi250x, {4000, 5, 123, 2999, 17});
  records.push_back(constraint_violation(mi250x));
  const io::ResultsFile run = io::read_results_file(write_run("match.json", mi250x, records));
  EXPECT_EQ(matching_space(run, spaces), 2u);
  EXPECT_EQ(matching_space(run, spaces, "time"), 2u);
  EXPECT_EQ(matching_space(run, {spaces[2], spaces[0]}), 0u);
  EXPECT_EQ(matching_space(run, {spaces[0], spaces[1]}), std::nullopt);

  const io::ResultsFile a100_run =
      io::read_results_file(write_run("a100.json", *spaces[0].results, run_records(*spaces[0].results, {1, 2})));
  EXPECT_EQ(matching_space(a100_run, spaces), 0u);

  // A value the space does not have, a configuration it does not have, other parameter names.
  std::vector<EvaluationRecord> changed = run_records(mi250x, {4000, 5});
  changed[1].measurements.at(0).value = Value(1.5);
  EXPECT_EQ(matching_space(io::read_results_file(write_run("value.json", mi250x, changed)), spaces), std::nullopt);
  std::vector<EvaluationRecord> outside = run_records(mi250x, {4000});
  outside[0].config.front() = Value(std::int64_t{9999});
  EXPECT_EQ(matching_space(io::read_results_file(write_run("outside.json", mi250x, outside)), spaces), std::nullopt);
  io::ResultsFile renamed = run;
  renamed.problem.parameters[0].name = "block_size_w";
  EXPECT_EQ(matching_space(renamed, spaces), std::nullopt);
}

TEST(ExternalRuns, LoadFromTraceAndRunFiles) {
  const std::vector<ComparisonSpace> spaces = {convolution_space("A100"), convolution_space("MI250X"),
                                               {"elsewhere_space", nullptr}};
  const io::ResultsFile& mi250x = *spaces[1].results;
  const std::string run1 = write_run("load1.json", mi250x, run_records(mi250x, {10, 20, 30}));
  const std::string run2 = write_run("load2.json", mi250x, run_records(mi250x, {40}));
  const std::string traces = shared_path(kTraces);
  const ExternalRuns runs = load_external_runs(
      {{"ext", run1}, {"random_sample", traces}, {"ext", run2}, {"genetic_algorithm", traces}}, spaces, "time");
  ASSERT_EQ(runs.size(), 3u);
  ASSERT_EQ(runs.at("ext").size(), 1u);
  const auto& ext = runs.at("ext").at("MI250X_convolution_milo");
  ASSERT_EQ(ext.size(), 2u);
  EXPECT_EQ(ext[0].size(), 3u);
  EXPECT_EQ(ext[1].size(), 1u);
  EXPECT_EQ(ext[1][0].value, *mi250x.records[40].objective("time"));
  for (const char* label : {"random_sample", "genetic_algorithm"}) {
    const auto& by_space = runs.at(label);
    EXPECT_EQ(by_space.size(), 2u) << label;  // only the compared spaces that the file has
    EXPECT_EQ(by_space.at("A100_convolution_milo").size(), 25u);
    EXPECT_EQ(by_space.at("MI250X_convolution_milo").size(), 25u);
  }
  EXPECT_EQ(runs.at("random_sample").at("MI250X_convolution_milo")[24].back().time_s, 92.7831593345836);

  // The same trace file twice under one label adds up.
  const std::string small = write_temp("small_trace.json", kSmallTrace);
  const ExternalRuns twice = load_external_runs({{"mine", small}, {"mine", small}}, {spaces[1]}, "");
  ASSERT_EQ(twice.at("mine").at("MI250X_convolution_milo").size(), 4u);
  EXPECT_EQ(twice.at("mine").at("MI250X_convolution_milo")[3][0].time_s, 2);
}

TEST(ExternalRuns, LoadErrors) {
  const std::vector<ComparisonSpace> spaces = {convolution_space("A100"), convolution_space("MI250X")};
  const std::string traces = write_temp("small_trace.json", kSmallTrace);
  const std::string label_error =
      input_error_of([&] { (void)load_external_runs({{"mine", traces}, {"pso", traces}}, spaces, "time"); });
  EXPECT_TRUE(contains(label_error, "small_trace.json: no strategy 'pso' in this trace file"));
  EXPECT_TRUE(contains(label_error, "(it has: mine, theirs)"));
  const std::string space_error =
      input_error_of([&] { (void)load_external_runs({{"theirs", traces}}, spaces, "time"); });
  EXPECT_TRUE(contains(space_error, "strategy 'theirs' was run on none of the compared spaces"));
  EXPECT_TRUE(contains(space_error,
                       "(it was run on: other_space; compared: A100_convolution_milo, MI250X_convolution_milo)"));

  const io::ResultsFile& mi250x = *spaces[1].results;
  std::vector<EvaluationRecord> changed = run_records(mi250x, {4000});
  changed[0].measurements.at(0).value = Value(1.5);
  const std::string unmatched = write_run("unmatched.json", mi250x, changed);
  const std::string no_match = input_error_of([&] { (void)load_external_runs({{"x", unmatched}}, spaces, "time"); });
  EXPECT_TRUE(contains(no_match, "unmatched.json: the run matches none of the compared spaces"));
  EXPECT_TRUE(contains(no_match, "A100_convolution_milo, MI250X_convolution_milo"));

  const std::string invalid_only = write_run("invalid_only.json", mi250x, {constraint_violation(mi250x)});
  EXPECT_TRUE(contains(input_error_of([&] { (void)load_external_runs({{"x", invalid_only}}, spaces, "time"); }),
                       "invalid_only.json: every result violates constraints"));
  const std::string garbage = write_temp("garbage.json", "{\"results\": [1, 2");
  EXPECT_TRUE(contains(input_error_of([&] { (void)load_external_runs({{"x", garbage}}, spaces, "time"); }),
                       "garbage.json"));
  const std::string broken_trace = write_temp("broken_trace.json", R"({"spaces": {"s": 3}})");
  EXPECT_TRUE(contains(input_error_of([&] { (void)load_external_runs({{"x", broken_trace}}, spaces, "time"); }),
                       R"(broken_trace.json: spaces["s"]: expected an object)"));
}

}  // namespace
}  // namespace ktune::methodology
