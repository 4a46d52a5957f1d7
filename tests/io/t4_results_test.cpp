// Reading and writing T4 results files (ktune/io/results_file.hpp).
#include <cmath>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/t4_results.hpp"
#include "ktune/io/results_file.hpp"
#include "results_expectations.hpp"
#include "temp_files.hpp"

namespace ktune::io {
namespace {

using ktune::testing::error_of;
using ktune::testing::shared_path;

const std::string kT4 = R"({
  "metadata": {"timeunit": "seconds"},
  "results": [
    {"timestamp": "t0", "configuration": {"bx": 64, "alg": "z", "f": 0.5},
     "times": {"compilation": 0.5, "framework": 0.25, "search_algorithm": 0.125, "validation": 0.0625, "benchmark": 2,
               "runtimes": [0.001, 0.003]},
     "invalidity": "correct", "correctness": 1,
     "measurements": [{"name": "time", "value": 2.0, "unit": "ms"}, {"name": "GB/s", "value": 7, "unit": "GB/s"},
                      {"name": "readings", "value": [1, 2.5], "unit": ""}],
     "objectives": ["time"]},
    {"configuration": {"alg": "a", "bx": 32, "f": 1}, "times": {"compilation_time": 1.5},
     "invalidity": "compile", "correctness": 0,
     "measurements": [{"name": "time", "value": "CompilationFailedConfig", "unit": ""}], "objectives": ["time"]},
    {"configuration": {"bx": 128, "alg": "z", "f": 0.25}, "times": {"runtimes": [NaN]}, "invalidity": "runtime",
     "correctness": 0, "measurements": [], "objectives": ["time"]},
    {"configuration": {"bx": 64, "alg": "m", "f": 0.5}, "times": {}, "invalidity": "correctness", "correctness": 0},
    {"configuration": {"bx": 64, "alg": "m", "f": 0.5}, "times": {}, "invalidity": "timeout", "correctness": 0},
    {"configuration": {"bx": 64, "alg": "m", "f": 0.5}, "times": {}, "invalidity": "constraints", "correctness": 0}
  ],
  "schema_version": "1.0.0"
})";

ResultsFile parse(const std::string& text, const std::string& name = "r_T4.json") { return parse_t4_results(text, name); }

std::string t4_error(const std::string& text) {
  return error_of<InputError>([&] { (void)parse(text, "bad.json"); });
}

std::string edited(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(T4Results, RecordsAndTimesInMilliseconds) {
  const ResultsFile f = parse(kT4);
  EXPECT_EQ(f.format, ResultsFormat::T4);
  EXPECT_STREQ(to_string(f.format), "T4");
  EXPECT_EQ(f.objectives, std::vector<std::string>{"time"});
  EXPECT_FALSE(f.truncated);
  EXPECT_EQ(f.problem.name, "r_T4");
  EXPECT_EQ(f.device_name, "");
  EXPECT_TRUE(f.problem_size.is_null());
  ASSERT_EQ(f.records.size(), 6u);
  const EvaluationRecord& r = f.records[0];
  EXPECT_EQ(r.timestamp, "t0");
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.compile_ms, 500);
  EXPECT_EQ(r.framework_ms, 250);
  EXPECT_EQ(r.strategy_ms, 125);
  EXPECT_EQ(r.verification_ms, 62.5);
  EXPECT_EQ(r.benchmark_ms, 2000);
  EXPECT_EQ(r.runtimes_ms, (std::vector<double>{0.001 * 1000, 0.003 * 1000}));
  ASSERT_EQ(r.measurements.size(), 3u);
  EXPECT_EQ(r.measurements[0].name, "time");
  EXPECT_EQ(r.measurements[0].unit, "ms");
  EXPECT_EQ(r.objective("time"), 2.0);  // measurements are not converted
  EXPECT_TRUE(r.measurements[1].value.is_int());
  EXPECT_EQ(r.measurements[1].unit, "GB/s");
  EXPECT_EQ(r.measurements[2].value.repr(), "[1, 2.5]");
  EXPECT_EQ(f.records[1].compile_ms, 1500);  // "compilation_time", the schema's spelling
}

TEST(T4Results, StatusFromInvalidity) {
  const ResultsFile f = parse(kT4);
  const Status expected[] = {Status::ok,      Status::compile_failed, Status::runtime_failed, Status::verification_failed,
                             Status::timeout, Status::invalid};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(f.records[i].status, expected[i]) << i;
    EXPECT_EQ(f.records[i].message, kernel_tuner_error(expected[i]));
  }
  EXPECT_EQ(f.records[1].find("time")->value.as_string(), "CompilationFailedConfig");
  EXPECT_EQ(f.records[1].objective("time"), std::nullopt);
  EXPECT_TRUE(std::isnan(f.records[2].runtimes_ms[0]));
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"invalidity\": \"timeout\"", "\"invalidity\": \"slow\"")),
                  "bad.json: results[4]: unknown invalidity 'slow'");
}

TEST(T4Results, ParametersFromTheConfigurations) {
  const ResultsFile f = parse(kT4);
  ASSERT_EQ(f.problem.parameters.size(), 3u);
  // Names in the order of the first configuration; numbers ascending, strings in order of appearance.
  EXPECT_EQ(f.problem.parameters[0].name, "bx");
  EXPECT_EQ(f.problem.parameters[1].name, "alg");
  EXPECT_EQ(Value(f.problem.parameters[0].values).repr(), "[32, 64, 128]");
  EXPECT_EQ(Value(f.problem.parameters[1].values).repr(), "['z', 'a', 'm']");
  EXPECT_EQ(Value(f.problem.parameters[2].values).repr(), "[0.25, 0.5, 1]");  // 1 stays an int
  EXPECT_TRUE(f.problem.constraints.empty());
  // Configs in parameter order, whatever the order in the file, holding the problem's values.
  EXPECT_EQ(kernel_tuner_key(f.records[1].config), "32,a,1");
  EXPECT_TRUE(f.records[1].config[2].is_int());
  // Mixed numbers and strings: order of appearance.
  const ResultsFile g = parse(edited(kT4, "\"bx\": 32", "\"bx\": \"auto\""));
  EXPECT_EQ(Value(g.problem.parameters[0].values).repr(), "[64, 'auto', 128]");
}

TEST(T4Results, TimeUnits) {
  const auto compile_ms = [&](const std::string& metadata) {
    return parse(edited(kT4, "\"metadata\": {\"timeunit\": \"seconds\"},", metadata)).records[0].compile_ms;
  };
  EXPECT_EQ(compile_ms(""), 500);  // no metadata: seconds, as the methodology reads T4
  EXPECT_EQ(compile_ms("\"metadata\": {},"), 500);
  EXPECT_EQ(compile_ms("\"metadata\": {\"timeunit\": \"s\"},"), 500);
  for (const char* ms : {"milliseconds", "miliseconds", "ms"})
    EXPECT_EQ(compile_ms(fmt::format("\"metadata\": {{\"timeunit\": \"{}\"}},", ms)), 0.5);
  for (const char* us : {"microseconds", "us"})
    EXPECT_EQ(compile_ms(fmt::format("\"metadata\": {{\"timeunit\": \"{}\"}},", us)), 0.0005);
  EXPECT_EQ(compile_ms("\"metadata\": {\"timeunit\": \"nanoseconds\"},"), 0.5 / 1e6);
  EXPECT_EQ(compile_ms("\"metadata\": {\"timeunit\": \"ns\"},"), 0.5 / 1e6);
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"seconds\"", "\"hours\"")), "bad.json: metadata.timeunit: unknown time unit 'hours'");
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"seconds\"", "1")), "bad.json: metadata.timeunit: expected a string");
  EXPECT_CONTAINS(t4_error(edited(kT4, "{\"timeunit\": \"seconds\"}", "[]")), "bad.json: metadata: expected an object");
}

TEST(T4Results, MalformedResultsAreErrorsNamingTheResult) {
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"alg\": \"a\", \"bx\": 32, \"f\": 1", "\"alg\": \"a\", \"f\": 1")),
                  "bad.json: results[1]: configuration: parameter 'bx' is missing");
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"alg\": \"a\", \"bx\": 32,", "\"alg\": \"a\", \"bx\": 32, \"by\": 1,")),
                  "bad.json: results[1]: configuration: parameter 'by' is not in the configuration of results[0]");
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"bx\": 32", "\"bx\": {}")), "results[1]: configuration: a JSON object is not supported");
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"compilation_time\": 1.5", "\"compilation_time\": \"x\"")),
                  "results[1]: times.compilation_time: expected a number");
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"runtimes\": [NaN]", "\"runtimes\": 1")), "results[2]: times.runtimes: expected a list");
  EXPECT_CONTAINS(t4_error(edited(kT4, ", \"times\": {}, \"invalidity\": \"timeout\"", ", \"invalidity\": \"timeout\"")),
                  "results[4]: missing 'times'");
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"invalidity\": \"timeout\", ", "")), "results[4]: missing 'invalidity'");
  EXPECT_CONTAINS(t4_error(edited(kT4, "{\"configuration\": {\"bx\": 128", "{\"x\": {\"bx\": 128")),
                  "results[2]: missing 'configuration'");
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"invalidity\": \"runtime\"", "\"invalidity\": 3")), "results[2]: invalidity: expected a string");
  EXPECT_CONTAINS(t4_error(edited(kT4, "{\"name\": \"GB/s\", ", "{")), "results[0]: measurements[1]: missing 'name'");
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"value\": 7", "\"value\": {\"a\": 7}")),
                  "results[0]: measurements[1].value: a JSON object is not supported");
  EXPECT_CONTAINS(t4_error(edited(kT4, "\"objectives\": [\"time\"]", "\"objectives\": \"time\"")),
                  "results[0]: objectives: expected a list of strings");
  EXPECT_CONTAINS(t4_error(edited(kT4, "{\"timestamp\": \"t0\",", "7, {\"timestamp\": \"t0\",")), "results[0]: expected an object");
  EXPECT_CONTAINS(t4_error(R"({"results": {}})"), "bad.json: results: expected an array");
  EXPECT_CONTAINS(t4_error(R"({"results": [{"configuration": {}, "times": {}, "invalidity": "correct"}]})"),
                  "results[0]: the configuration has no parameters");
  EXPECT_CONTAINS(t4_error(R"({"results": [{"configuration": {"a": NaN}, "times": {}, "invalidity": "correct"}]})"),
                  "bad.json: results: parameter 'a': value nan at position 1 is not a finite number");
  EXPECT_CONTAINS(t4_error(R"({"metadata": {}})"), "bad.json: results: missing");
  EXPECT_CONTAINS(t4_error(R"({"results" []})"), "bad.json: invalid JSON at byte 12 (line 1, column 12): expected ':'");
  EXPECT_CONTAINS(t4_error(R"([])"), "bad.json: expected a JSON object at the top level, got an array");
}

TEST(T4Results, NoResultsNoParameters) {
  const ResultsFile f = parse(R"({"schema_version": "1.0.0", "metadata": {"timeunit": "ms"}, "results": []})");
  EXPECT_TRUE(f.records.empty());
  EXPECT_TRUE(f.problem.parameters.empty());
}

TEST(T4Results, CutShortKeepsTheCompleteResults) {
  const std::string path = shared_path("data/benchmark_hub/hyperparametertuning/cachefiles/"
                                       "hyperparamtuning_paper_bruteforce_pso_T4.json");
  const std::string text = read_file_text(path);
  const ResultsFile full = parse(text, path);
  ASSERT_EQ(full.records.size(), 81u);
  const std::size_t results_begin = text.find("\"results\": [") + 12;
  for (std::size_t k = 0; k <= 50; ++k) {
    const std::size_t cut = results_begin + (text.size() - 1 - results_begin) * k / 50;
    const std::string prefix = text.substr(0, cut);
    SCOPED_TRACE(cut);
    const ResultsFile f = parse(prefix, path);
    EXPECT_TRUE(f.truncated);
    // Complete results: each ends with the line "    }" followed by "," or by the end of the array.
    std::size_t complete = 0;
    for (std::size_t at = prefix.find("\n    }", results_begin); at != std::string::npos; at = prefix.find("\n    }", at + 1))
      complete += at + 6 <= prefix.size();
    ASSERT_EQ(f.records.size(), complete);
    for (std::size_t i = 0; i < complete; ++i) EXPECT_SAME_RECORD(f.records[i], full.records[i]);
    // The parameters hold only the values of the complete results.
    if (complete > 0) {
      EXPECT_EQ(f.problem.parameters.size(), full.problem.parameters.size());
      for (std::size_t p = 0; p < f.problem.parameters.size(); ++p)
        for (const Value& v : f.problem.parameters[p].values)
          EXPECT_TRUE(std::any_of(f.records.begin(), f.records.end(),
                                  [&](const EvaluationRecord& r) { return same_value(r.config[p], v); }));
    }
  }
  EXPECT_CONTAINS(error_of<InputError>([&] { (void)parse(text.substr(0, results_begin - 5), "cut.json"); }),
                  "cut.json: the file ends at byte");
  // Metadata behind the results and cut off: the time unit is unknown.
  EXPECT_CONTAINS(error_of<InputError>([&] { (void)parse(R"({"results": [{"configuration": {"a": 1}, "times": {}, "invalidity": "correct"}, {)", "cut.json"); }),
                  "cut.json: the file is cut short, and its metadata");
}

// ---- Writing ----

std::vector<EvaluationRecord> sample_records(const Problem& problem) {
  std::vector<EvaluationRecord> records(3);
  records[0].config = {problem.parameters[0].values[0], problem.parameters[1].values[1]};
  records[0].measurements = {{"time", 1.25, ""}, {"GFLOP/s", std::int64_t{12}, "GFLOP/s"}, {"power", Value::List{1.5, NAN}, "W"}};
  records[0].runtimes_ms = {1.0, 1.5, 0.1, 1e-300, 5e-324, NAN, INFINITY};
  records[0].compile_ms = 1.0 / 3.0;
  records[0].benchmark_ms = 12;
  records[0].verification_ms = 0.1;
  records[0].framework_ms = 1e22;
  records[0].strategy_ms = -0.0;
  records[0].timestamp = "2024-01-01 00:00:00+00:00";
  records[1].config = {problem.parameters[0].values[1], problem.parameters[1].values[0]};
  records[1].status = Status::runtime_failed;
  records[1].message = "RuntimeFailedConfig";
  records[1].measurements = {{"time", "RuntimeFailedConfig", ""}};
  records[1].compile_ms = 2.5;
  records[2].config = {problem.parameters[0].values[1], problem.parameters[1].values[1]};
  records[2].status = Status::invalid;
  records[2].message = "InvalidConfig";
  return records;
}

TEST(T4Results, WriteThenReadGivesTheSameRecords) {
  const Problem problem = ProblemBuilder("p").parameter("bx", {32, 64}).parameter("alg", {"a\"q", "b"}).build();
  auto records = sample_records(problem);
  std::ostringstream out;
  write_t4_results(out, problem, records, {"time"},
                   {{"tool", "ktune"}, {"timeunit", "seconds"}, {"strategy", "random"}});
  const ResultsFile f = parse(out.str());
  ASSERT_EQ(f.records.size(), records.size());
  records[0].measurements[0].unit = "ms";  // the writer marks time measurements as milliseconds
  records[1].measurements[0].unit = "ms";
  for (std::size_t i = 0; i < records.size(); ++i) EXPECT_SAME_RECORD(f.records[i], records[i]);
  EXPECT_EQ(f.objectives, std::vector<std::string>{"time"});
  // The document: valid JSON once the Python-style non-finite numbers are replaced, ms as time unit, extras kept.
  std::string text = out.str();
  for (const std::string token : {"-Infinity", "Infinity", "NaN"})
    for (auto at = text.find(token); at != std::string::npos; at = text.find(token)) text.replace(at, token.size(), "null");
  const nlohmann::json doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema_version"], "1.0.0");
  EXPECT_EQ(doc["metadata"], (nlohmann::json{{"tool", "ktune"}, {"timeunit", "milliseconds"}, {"strategy", "random"}}));
  const auto& r1 = doc["results"][1];
  EXPECT_EQ(r1["invalidity"], "runtime");
  EXPECT_EQ(r1["correctness"], 0);
  EXPECT_EQ(r1["objectives"], nlohmann::json::array({"time"}));
  EXPECT_EQ(r1["configuration"], (nlohmann::json{{"bx", 64}, {"alg", "a\"q"}}));
  EXPECT_EQ(doc["results"][0]["times"]["framework"], 1e22);
  EXPECT_EQ(doc["results"][0]["measurements"][1], (nlohmann::json{{"name", "GFLOP/s"}, {"value", 12}, {"unit", "GFLOP/s"}}));
  EXPECT_THROW(write_t4_results(out, problem, records, {"time"}, nlohmann::json::array()), std::invalid_argument);
  records[0].config.pop_back();
  EXPECT_THROW(write_t4_results(out, problem, records, {"time"}), std::invalid_argument);
}

// A time measurement without a unit is written in milliseconds; the counts and ratios of the runs are not times.
TEST(T4Results, OnlyTimesGetMillisecondsWithoutAUnit) {
  const Problem problem = ProblemBuilder("p").parameter("bx", {32, 64}).build();
  std::vector<EvaluationRecord> records(1);
  records[0].config = {problem.parameters[0].values[0]};
  records[0].status = Status::ok;
  for (const char* name : {"time", "compile_time", "time_runs", "time_spread", "time_outliers", "time_rejected"})
    records[0].measurements.push_back({name, Value(1.0), ""});
  std::ostringstream out;
  write_t4_results(out, problem, records, {"time"});
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  std::map<std::string, std::string> units;
  for (const auto& m : doc["results"][0]["measurements"]) units[m["name"]] = m["unit"];
  EXPECT_EQ(units, (std::map<std::string, std::string>{{"time", "ms"}, {"compile_time", "ms"}, {"time_runs", ""},
                                                       {"time_spread", ""}, {"time_outliers", ""},
                                                       {"time_rejected", ""}}));
}

TEST(T4Results, WriteRealRecordsThenRead) {
  // Convolution on the A100 (4362 records, 161 failures) from its Kernel Tuner cache, written as T4 and read back.
  const ResultsFile cache = read_results_file(shared_path("data/benchmark_hub/cachefiles/convolution_milo/A100.json.gz"));
  std::ostringstream out;
  write_t4_results(out, cache.problem, cache.records, cache.objectives);
  const ResultsFile f = parse(out.str());
  ASSERT_EQ(f.records.size(), cache.records.size());
  for (std::size_t i = 0; i < f.records.size(); ++i) {
    EvaluationRecord expected = cache.records[i];
    for (Measurement& m : expected.measurements)
      if (m.name.starts_with("time")) m.unit = "ms";
    EXPECT_SAME_RECORD(f.records[i], expected);
  }
}

}  // namespace
}  // namespace ktune::io
