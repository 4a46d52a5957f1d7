// Reading Kernel Tuner cache files into EvaluationRecords (ktune/io/results_file.hpp).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/results_file.hpp"
#include "io/cache_layout.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "results_expectations.hpp"
#include "temp_files.hpp"

namespace ktune::io {
namespace {

using ktune::testing::error_of;
using ktune::testing::shared_path;
using ktune::testing::write_temp;

// A cache in Kernel Tuner's layout with every kind of entry.
const std::string kCache = R"({
"device_name": "NVIDIA RTX A4000",
"kernel_name": "vector_add",
"problem_size": [
100
],
"tune_params_keys": [
"block_size_x",
"alg",
"flag",
"mixed"
],
"tune_params": {
"block_size_x": [
128,
256
],
"alg": [
"a,1",
"b"
],
"flag": [
true,
false
],
"mixed": [
"test",
1,
true,
2.45
]
},
"objective": "time",
"cache": {
"128,a,1,True,2.45": {"block_size_x": 128, "alg": "a,1", "flag": true, "mixed": 2.45, "time": 0.5, "times": [0.25, 0.75], "compile_time": 440.5, "verification_time": 0, "benchmark_time": 1.5, "GB/s": 12, "power_readings": [[1, 2.5], [3, 4]], "note": "ok", "strategy_time": 0.125, "framework_time": 0.8, "timestamp": "2022-12-23 12:11:26.411558+00:00"},
"256,b,False,1": {"block_size_x": 256, "alg": "b", "flag": false, "mixed": 1, "__error__": "CompilationFailedConfig", "compile_time": 7.5, "verification_time": 0, "benchmark_time": 0, "strategy_time": 0, "framework_time": 1.25, "timestamp": "t2"},
"128,b,True,True": {"block_size_x": 128, "alg": "b", "flag": true, "mixed": true, "time": "RuntimeFailedConfig", "compile_time": 3.5, "verification_time": 0, "benchmark_time": 0.25, "strategy_time": 0, "framework_time": 2.5},
"256,a,1,True,test": {"block_size_x": 256, "alg": "a,1", "flag": true, "mixed": "test", "time": NaN, "GB/s": Infinity, "times": [NaN, -Infinity], "compile_time": 1.0, "verification_time": 0, "benchmark_time": 2, "strategy_time": 0, "framework_time": 0},
"128,b,False,test": {"mixed": "test", "flag": false, "block_size_x": 128, "alg": "b", "score": -0.5, "scores": [-0.5], "compile_time": 41.25, "verification_time": 0, "benchmark_time": 2291309.4415632077, "strategy_time": 0, "framework_time": 1.5}
}
})";

ResultsFile parse(const std::string& text, const std::string& name = "c.json") {
  return parse_kernel_tuner_cache(text, name);
}

std::string cache_error(const std::string& text) {
  return error_of<InputError>([&] { (void)parse(text, "bad.json"); });
}

// kCache with `from` replaced by `to` (once).
std::string edited(const std::string& from, const std::string& to) {
  std::string text = kCache;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(KernelTunerCache, HeaderFields) {
  const ResultsFile f = parse(kCache);
  EXPECT_EQ(f.format, ResultsFormat::KernelTunerCache);
  EXPECT_STREQ(to_string(f.format), "Kernel Tuner cache");
  EXPECT_EQ(f.device_name, "NVIDIA RTX A4000");
  EXPECT_EQ(f.kernel_name, "vector_add");
  EXPECT_EQ(f.problem_size, nlohmann::json::parse("[100]"));
  EXPECT_EQ(f.objectives, std::vector<std::string>{"time"});
  EXPECT_FALSE(f.truncated);
  EXPECT_EQ(f.problem.name, "vector_add");
  ASSERT_EQ(f.problem.parameters.size(), 4u);
  EXPECT_EQ(f.problem.parameters[3].name, "mixed");
  EXPECT_EQ(f.records.size(), 5u);
}

TEST(KernelTunerCache, SuccessfulEntryMapsEveryField) {
  const ResultsFile f = parse(kCache);
  const EvaluationRecord& r = f.records[0];
  ASSERT_EQ(r.config.size(), 4u);
  EXPECT_TRUE(r.config[0].is_int() && r.config[0].as_int() == 128);
  EXPECT_EQ(r.config[1].as_string(), "a,1");  // from the field: the key cannot be split at its commas
  EXPECT_TRUE(r.config[2].is_bool() && r.config[2].as_bool());
  EXPECT_TRUE(r.config[3].is_float() && r.config[3].as_float() == 2.45);
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_EQ(r.message, "");
  EXPECT_EQ(r.runtimes_ms, (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(r.compile_ms, 440.5);
  EXPECT_EQ(r.benchmark_ms, 1.5);
  EXPECT_EQ(r.verification_ms, 0);
  EXPECT_EQ(r.framework_ms, 0.8);
  EXPECT_EQ(r.strategy_ms, 0.125);
  EXPECT_EQ(r.timestamp, "2022-12-23 12:11:26.411558+00:00");
  EXPECT_TRUE(std::isnan(r.clock_ms));
  ASSERT_EQ(r.measurements.size(), 4u);  // time, GB/s, power_readings, note: in file order
  EXPECT_EQ(r.measurements[0].name, "time");
  EXPECT_TRUE(r.measurements[0].value.is_float());
  EXPECT_EQ(r.measurements[1].name, "GB/s");
  EXPECT_TRUE(r.measurements[1].value.is_int() && r.measurements[1].value.as_int() == 12);
  EXPECT_EQ(r.measurements[2].name, "power_readings");
  EXPECT_EQ(r.measurements[2].value.repr(), "[[1, 2.5], [3, 4]]");
  EXPECT_EQ(r.measurements[3].value.as_string(), "ok");
  EXPECT_EQ(r.objective("time"), 0.5);
  EXPECT_EQ(r.charged_ms(), 440.5 + 1.0 + 0.8);
}

TEST(KernelTunerCache, ConfigsHoldTheProblemsOwnValuesInParameterOrder) {
  const ResultsFile f = parse(kCache);
  for (const EvaluationRecord& r : f.records)
    for (std::size_t p = 0; p < r.config.size(); ++p) {
      const auto& values = f.problem.parameters[p].values;
      EXPECT_TRUE(std::any_of(values.begin(), values.end(), [&](const Value& v) { return same_value(v, r.config[p]); }))
          << r.config[p].repr();
    }
  // The last entry lists its fields out of order.
  const EvaluationRecord& r = f.records[4];
  EXPECT_EQ(kernel_tuner_key(r.config), "128,b,False,test");
  // Mixed-type values stay apart: true is not 1.
  EXPECT_TRUE(f.records[1].config[3].is_int());
  EXPECT_TRUE(f.records[2].config[3].is_bool());
}

TEST(KernelTunerCache, ErrorEntries) {
  const ResultsFile f = parse(kCache);
  const EvaluationRecord& compile = f.records[1];
  EXPECT_EQ(compile.status, Status::compile_failed);
  EXPECT_EQ(compile.message, "CompilationFailedConfig");
  EXPECT_TRUE(compile.runtimes_ms.empty());  // failures get no runtimes from benchmark_time
  EXPECT_EQ(compile.objective("time"), std::nullopt);
  EXPECT_EQ(compile.charged_ms(), 7.5 + 1.25);
  EXPECT_TRUE(compile.measurements.empty());

  // Legacy: the error name in the objective field. It stays a measurement, so it can be written back.
  const EvaluationRecord& runtime = f.records[2];
  EXPECT_EQ(runtime.status, Status::runtime_failed);
  EXPECT_EQ(runtime.message, "RuntimeFailedConfig");
  ASSERT_NE(runtime.find("time"), nullptr);
  EXPECT_EQ(runtime.find("time")->value.as_string(), "RuntimeFailedConfig");
  EXPECT_EQ(runtime.objective("time"), std::nullopt);
  EXPECT_TRUE(runtime.runtimes_ms.empty());
  EXPECT_EQ(runtime.timestamp, "");

  for (const char* name : {"InvalidConfig", "ErrorConfig", "TimeoutConfig", "VerificationFailedConfig", "Whatever"}) {
    const ResultsFile g = parse(edited("\"__error__\": \"CompilationFailedConfig\"", fmt::format("\"__error__\": \"{}\"", name)));
    EXPECT_EQ(g.records[1].message, name);
    EXPECT_EQ(g.records[1].status, status_from_kernel_tuner_error(name).value_or(Status::runtime_failed)) << name;
  }
  // The legacy string in a time field sets the status too.
  const ResultsFile g = parse(edited("\"compile_time\": 7.5", "\"compile_time\": \"InvalidConfig\""));
  EXPECT_EQ(g.records[1].status, Status::compile_failed);  // "__error__" wins
  const ResultsFile h = parse(edited("\"compile_time\": 3.5", "\"compile_time\": \"InvalidConfig\""));
  EXPECT_EQ(h.records[2].status, Status::runtime_failed);  // the first error string wins
  EXPECT_EQ(h.records[2].compile_ms, 0);
}

TEST(KernelTunerCache, NonFiniteNumbers) {
  const ResultsFile f = parse(kCache);
  const EvaluationRecord& r = f.records[3];
  EXPECT_TRUE(std::isnan(r.find("time")->value.as_float()));
  EXPECT_EQ(r.find("GB/s")->value.as_float(), INFINITY);
  ASSERT_EQ(r.runtimes_ms.size(), 2u);
  EXPECT_TRUE(std::isnan(r.runtimes_ms[0]));
  EXPECT_EQ(r.runtimes_ms[1], -INFINITY);
  // A NaN time is no measurement: the entry is a failed one, saying why and which (issue 33 item 3).
  EXPECT_EQ(r.status, Status::runtime_failed);
  EXPECT_EQ(r.message, "cache[\"256,a,1,True,test\"]: 'time' is NaN, which is no run time: read as a failed measurement");
  EXPECT_EQ(r.objective("time"), std::nullopt);  // NaN is no objective value
}

// Issue 33 item 3: -5, NaN, null or a string that is no Kernel Tuner error name in "time" (or in "times" without a
// "time") made "ok" records (`best time = -5 ms`); they are failed records naming the entry's key.
TEST(KernelTunerCache, ATimeThatIsNoRunTimeMarksTheEntryFailed) {
  const std::string ok_entry = "\"time\": 0.5, \"times\": [0.25, 0.75]";
  const std::pair<std::string, std::string> cases[] = {
      {"\"time\": -5, \"times\": [0.25, 0.75]", "'time' is negative (-5)"},
      {"\"time\": NaN, \"times\": [0.25, 0.75]", "'time' is NaN"},
      {"\"time\": Infinity, \"times\": [0.25, 0.75]", "'time' is infinite"},
      {"\"time\": null, \"times\": [0.25, 0.75]", "'time' is None, not a number"},
      {"\"time\": \"fast\", \"times\": [0.25, 0.75]", "'time' is 'fast', not a number"},
      {"\"time\": true, \"times\": [0.25, 0.75]", "'time' is True, not a number"},
      {"\"times\": [0.25, -1]", "'times' holds a value that is negative (-1)"},
      {"\"times\": [NaN]", "'times' holds a value that is NaN"}};
  for (const auto& [entry, why] : cases) {
    const ResultsFile f = parse(edited(ok_entry, entry));
    const EvaluationRecord& r = f.records[0];
    EXPECT_EQ(r.status, Status::runtime_failed) << entry;
    EXPECT_EQ(r.message, "cache[\"128,a,1,True,2.45\"]: " + why + ", which is no run time: read as a failed measurement")
        << entry;
    EXPECT_EQ(r.objective("time"), std::nullopt) << entry;
  }
  // A legacy error name stays what it was, and 0 is a (short) run time.
  EXPECT_EQ(parse(edited(ok_entry, "\"time\": \"RuntimeFailedConfig\"")).records[0].message, "RuntimeFailedConfig");
  EXPECT_EQ(parse(edited(ok_entry, "\"time\": 0, \"times\": [0, 0]")).records[0].status, Status::ok);
}

TEST(KernelTunerCache, SuccessWithoutTimesGetsTheBenchmarkTime) {
  const ResultsFile f = parse(kCache);
  const EvaluationRecord& r = f.records[4];
  EXPECT_EQ(r.runtimes_ms, std::vector<double>{2291309.4415632077});
  EXPECT_EQ(r.objective("score"), -0.5);
  EXPECT_EQ(r.find("scores")->value.repr(), "[-0.5]");
  // Counted, so that "time" is not taken from it (issue 33 item 3); an entry with a "time" is not counted.
  EXPECT_EQ(f.time_stand_ins, 1u);
  EXPECT_EQ(f.first_time_stand_in, "128,b,False,test");
  const ResultsFile g = parse(edited("\"score\": -0.5,", "\"time\": 3.5, \"score\": -0.5,"));
  EXPECT_EQ(g.time_stand_ins, 0u);
  EXPECT_EQ(g.records[4].objective("time"), 3.5);
}

TEST(KernelTunerCache, ObjectiveAsStringListOrAbsent) {
  EXPECT_EQ(parse(edited("\"objective\": \"time\"", "\"objective\": [\"time\", \"energy\"]")).objectives,
            (std::vector<std::string>{"time", "energy"}));
  EXPECT_TRUE(parse(edited("\"objective\": \"time\",", "")).objectives.empty());
  EXPECT_CONTAINS(cache_error(edited("\"objective\": \"time\"", "\"objective\": 3")), "bad.json: objective: expected a string or a list");
}

TEST(KernelTunerCache, ValuesComparePythonEquallyWhenNotIdentical) {
  // 1.0 in an entry for a declared 1, and 128.0 for 128: the declared (int) values are used.
  const ResultsFile f = parse(edited("\"block_size_x\": 256, \"alg\": \"b\", \"flag\": false, \"mixed\": 1,",
                                     "\"block_size_x\": 256.0, \"alg\": \"b\", \"flag\": false, \"mixed\": 1.0,"));
  EXPECT_TRUE(f.records[1].config[0].is_int());
  EXPECT_TRUE(f.records[1].config[3].is_int());  // 1.0 == 1 (same_value finds none; python_equal picks 1, not True)
}

TEST(KernelTunerCache, MissingParameterFieldsComeFromTheKey) {
  const ResultsFile f = parse(edited("\"block_size_x\": 256, \"alg\": \"b\", \"flag\": false, \"mixed\": 1, ", ""));
  EXPECT_EQ(kernel_tuner_key(f.records[1].config), "256,b,False,1");
  EXPECT_TRUE(f.records[1].config[2].is_bool());
  EXPECT_TRUE(f.records[1].config[3].is_int());
  // A key that cannot be split into one value per parameter ("a,1" has a comma) is an error when it is needed.
  EXPECT_CONTAINS(cache_error(edited("{\"block_size_x\": 128, \"alg\": \"a,1\", ", "{\"block_size_x\": 128, ")),
                  "bad.json: cache[\"128,a,1,True,2.45\"]: parameter 'alg' is missing, and the key has 5 values for 4 parameters");
  EXPECT_CONTAINS(cache_error(edited("\"256,b,False,1\": {\"block_size_x\": 256, ", "\"512,b,False,1\": {")),
                  "cache[\"512,b,False,1\"]: parameter 'block_size_x' is missing, and its value '512' in the key is not in tune_params");
}

TEST(KernelTunerCache, ValuesNotInTuneParamsAreErrorsNamingTheEntry) {
  EXPECT_CONTAINS(cache_error(edited("{\"block_size_x\": 256, \"alg\": \"b\"", "{\"block_size_x\": 512, \"alg\": \"b\"")),
                  "bad.json: cache[\"256,b,False,1\"]: parameter 'block_size_x': value 512 is not in tune_params");
  EXPECT_CONTAINS(cache_error(edited("\"alg\": \"b\", \"flag\": false, \"mixed\": 1,", "\"alg\": \"c\", \"flag\": false, \"mixed\": 1,")),
                  "parameter 'alg': value 'c' is not in tune_params");
  EXPECT_CONTAINS(cache_error(edited("\"flag\": false, \"mixed\": 1,", "\"flag\": 0, \"mixed\": [1],")),
                  "parameter 'mixed': value [1] is not in tune_params");
  EXPECT_CONTAINS(cache_error(edited("\"mixed\": 1,", "\"mixed\": {\"x\": 1},")),
                  "cache[\"256,b,False,1\"]: field 'mixed': a JSON object is not supported here");
}

TEST(KernelTunerCache, WrongFieldTypesAreErrorsNamingTheEntry) {
  const std::string entry = "bad.json: cache[\"128,a,1,True,2.45\"]: ";
  EXPECT_CONTAINS(cache_error(edited("\"times\": [0.25, 0.75]", "\"times\": 0.25")), entry + "field 'times': expected a list of numbers");
  EXPECT_CONTAINS(cache_error(edited("\"times\": [0.25, 0.75]", "\"times\": [0.25, \"x\"]")), entry + "field 'times': expected a list of numbers");
  EXPECT_CONTAINS(cache_error(edited("\"compile_time\": 440.5", "\"compile_time\": \"slow\"")), entry + "field 'compile_time': expected a number, got \"slow\"");
  EXPECT_CONTAINS(cache_error(edited("\"compile_time\": 440.5", "\"compile_time\": [1]")), entry + "field 'compile_time': expected a number");
  EXPECT_CONTAINS(cache_error(edited("\"timestamp\": \"2022", "\"timestamp\": 5, \"x\": \"2022")), entry + "field 'timestamp': expected a string");
  EXPECT_CONTAINS(cache_error(edited("\"__error__\": \"CompilationFailedConfig\"", "\"__error__\": 1")),
                  "cache[\"256,b,False,1\"]: field '__error__': expected a string");
  EXPECT_CONTAINS(cache_error(edited("\"note\": \"ok\"", "\"note\": {\"a\": 1}")), entry + "field 'note': a JSON object is not supported");
  EXPECT_CONTAINS(cache_error(edited("\"128,b,True,True\": {", "\"128,b,True,True\": [], \"x\": {")),
                  "bad.json: cache[\"128,b,True,True\"]: expected an object");
  EXPECT_CONTAINS(cache_error(edited("\"cache\": {", "\"cache\": [], \"x\": {")), "bad.json: cache: expected an object of entries");
  // null times are unknown (NaN), not errors
  const ResultsFile f = parse(edited("\"compile_time\": 440.5", "\"compile_time\": null"));
  EXPECT_TRUE(std::isnan(f.records[0].compile_ms));
}

TEST(KernelTunerCache, MalformedFilesAreErrorsNotCrashes) {
  EXPECT_CONTAINS(cache_error(""), "bad.json: the file is empty");
  EXPECT_CONTAINS(cache_error("hello"), "bad.json: invalid JSON at byte 1 (line 1, column 1): expected a JSON object");
  EXPECT_CONTAINS(cache_error("[1, 2]"), "bad.json: expected a JSON object at the top level, got an array");
  EXPECT_CONTAINS(cache_error(R"({"kernel_name": "k", "cache": {}})"), "bad.json: tune_params: missing");
  EXPECT_CONTAINS(cache_error(R"({"tune_params": [1], "cache": {}})"), "bad.json: tune_params: expected an object");
  EXPECT_CONTAINS(cache_error(R"({"tune_params_keys": ["a", "b"], "tune_params": {"a": [1]}, "cache": {}})"),
                  "tune_params_keys[1]: parameter 'b' is not in tune_params");
  EXPECT_CONTAINS(cache_error(R"({"tune_params_keys": ["a"], "tune_params": {"a": [1]}, "kernel_name": 5})"),
                  "bad.json: kernel_name: expected a string");
  EXPECT_CONTAINS(cache_error(edited("\"framework_time\": 0.8,", "\"framework_time\": 0.8 ")),
                  "bad.json: invalid JSON at byte");
  EXPECT_CONTAINS(cache_error(edited("\"framework_time\": 0.8,", "\"framework_time\": 0.8 ")), "(line 35, column 304)");
  EXPECT_CONTAINS(cache_error(kCache + "x"), "unexpected text after the JSON document");
  // An entry whose parameter fields are not those of tune_params_keys: an unknown field is a measurement, so the
  // missing parameter comes from the key ("128,b,True,True" supplies block_size_x).
  const ResultsFile f = parse(edited("{\"block_size_x\": 128, \"alg\": \"b\", \"flag\": true, \"mixed\": true,",
                                     "{\"block_size\": 128, \"alg\": \"b\", \"flag\": true, \"mixed\": true,"));
  EXPECT_NE(f.records[2].find("block_size"), nullptr);
}

TEST(KernelTunerCache, HeaderAfterTheEntriesOrWithoutTuneParamsKeys) {
  // Without tune_params_keys the file's order of tune_params counts, and the entries may come first.
  const std::string text = R"({"cache": {"2,x": {"z": 2, "a": "x", "time": 1.5}, "1,y": {"time": 2.5}},
    "tune_params": {"z": [1, 2], "a": ["x", "y"]}, "kernel_name": "k", "objective": ["time"]})";
  const ResultsFile f = parse(text);
  ASSERT_EQ(f.problem.parameters.size(), 2u);
  EXPECT_EQ(f.problem.parameters[0].name, "z");
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_EQ(kernel_tuner_key(f.records[0].config), "2,x");
  EXPECT_EQ(kernel_tuner_key(f.records[1].config), "1,y");
  EXPECT_EQ(f.objectives, std::vector<std::string>{"time"});
  EXPECT_EQ(f.kernel_name, "k");
  // No "cache" at all: a header without records.
  const ResultsFile empty = parse(R"({"tune_params": {"a": [1]}})");
  EXPECT_TRUE(empty.records.empty());
  EXPECT_TRUE(empty.problem_size.is_null());
}

// ---- Truncated files ----

// Complete entries in a prefix of a cache file whose entries are flat objects: one '}' each, then the closing
// braces of "cache" and of the file.
std::size_t complete_entries(const std::string& prefix, std::size_t entries) {
  const std::size_t braces = static_cast<std::size_t>(
      std::count(prefix.begin() + static_cast<std::ptrdiff_t>(prefix.find("\"cache\": {") + 10), prefix.end(), '}'));
  return std::min(braces, entries);
}

void expect_prefix_of(const ResultsFile& cut, const ResultsFile& full, std::size_t expected_records) {
  EXPECT_TRUE(cut.truncated);
  ASSERT_EQ(cut.records.size(), expected_records);
  for (std::size_t i = 0; i < cut.records.size(); ++i) EXPECT_SAME_RECORD(cut.records[i], full.records[i]);
  EXPECT_EQ(cut.problem.parameters.size(), full.problem.parameters.size());
  EXPECT_EQ(cut.objectives, full.objectives);
}

TEST(KernelTunerCache, InterruptedRunsKeepEveryCompleteEntry) {
  // pnpoly on the RTX 3090: 4092 entries, 318 of them failures.
  const std::string path = shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz");
  const std::string text = read_file_text(path);
  const ResultsFile full = parse(text, path);
  ASSERT_EQ(full.records.size(), 4092u);
  const std::size_t cache_begin = text.find("\"cache\": {") + 10;

  std::vector<std::size_t> cuts = {cache_begin, cache_begin + 1, text.size() - 1, text.size() - 2, text.size() - 3};
  // Kernel Tuner's own interrupted state: the last entry followed by its comma.
  const std::size_t comma = text.find("},\n", text.size() / 3) + 2;
  cuts.push_back(comma);
  cuts.push_back(comma + 1);  // and the newline of the next entry
  // Inside numbers: after the first digit of a runtime, after a decimal point, inside an exponent.
  const std::size_t number = text.find("\"times\": [", text.size() / 2) + 10;
  cuts.push_back(number + 1);
  cuts.push_back(text.find('.', number) + 1);
  // In the middle of a key, a string value, true/false, an error name.
  cuts.push_back(text.find("\n\"", text.size() / 4) + 4);
  cuts.push_back(text.find("\"timestamp\": \"", text.size() / 5) + 20);
  cuts.push_back(text.find("RuntimeFailedConfig") + 7);
  for (std::size_t k = 1; k < 16; ++k) cuts.push_back(cache_begin + (text.size() - cache_begin) * k / 16 + k);

  for (const std::size_t cut : cuts) {
    SCOPED_TRACE(fmt::format("cut at byte {} of {}", cut, text.size()));
    const std::string prefix = text.substr(0, cut);
    expect_prefix_of(parse(prefix, path), full, complete_entries(prefix, full.records.size()));
  }
  // A properly closed file is not truncated; one without the final brace is, with all its entries.
  EXPECT_FALSE(full.truncated);
  expect_prefix_of(parse(text.substr(0, text.rfind('}')), path), full, 4092);
}

TEST(KernelTunerCache, FileCutInsideTheHeaderIsAnError) {
  const std::string path = shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz");
  const std::string text = read_file_text(path);
  const std::size_t cache_begin = text.find("\"cache\": {");
  for (std::size_t cut : {std::size_t{1}, std::size_t{30}, text.find("tune_params\"") + 5, cache_begin - 5,
                          cache_begin + 5}) {
    SCOPED_TRACE(cut);
    const std::string e = error_of<InputError>([&] { (void)parse(text.substr(0, cut), "cut.json"); });
    EXPECT_CONTAINS(e, fmt::format("cut.json: the file ends at byte {} inside its header", cut));
  }
}

TEST(KernelTunerCache, LayoutLocatesTheEntries) {
  CacheLayout layout;
  const std::string text = kCache.substr(0, kCache.find("\"128,b,True,True\""));
  const ResultsFile f = parse_kernel_tuner_cache(text, "c.json", layout);
  EXPECT_EQ(f.records.size(), 2u);
  EXPECT_EQ(text.substr(layout.entries_begin, 2), "\n\"");
  EXPECT_EQ(text.substr(layout.entries_end - 4, 5), "t2\"},");
}

// ---- Real files ----

TEST(KernelTunerCache, KernelTunerTestFiles) {
  struct Expected {
    const char* file;
    std::size_t entries, parameters, runtimes;
    std::vector<std::string> objectives;
  };
  const Expected expected[] = {{"strategies_test_cache_file.json", 15, 5, 7, {}},
                               {"strategies_test_cache_time_energy.json", 15, 2, 32, {"time"}},
                               {"synthetic_fp32_cache_NVIDIA_RTX_A4000.json", 10, 4, 10, {}},
                               {"test_cache_file.json", 15, 1, 7, {}}};
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.file);
    const ResultsFile f = read_results_file(shared_path(std::string("data/kernel_tuner/") + e.file));
    EXPECT_EQ(f.format, ResultsFormat::KernelTunerCache);
    EXPECT_EQ(f.records.size(), e.entries);
    EXPECT_EQ(f.problem.parameters.size(), e.parameters);
    EXPECT_EQ(f.objectives, e.objectives);
    EXPECT_FALSE(f.truncated);
    for (const EvaluationRecord& r : f.records) {
      EXPECT_EQ(r.status, Status::ok);
      EXPECT_EQ(r.runtimes_ms.size(), e.runtimes);
      EXPECT_TRUE(r.objective("time").has_value());
    }
  }
  // Mixed parameter types: str, int, bool and a mixed list ["test", 1, True, 2.45].
  const ResultsFile f = read_results_file(shared_path("data/kernel_tuner/strategies_test_cache_file.json"));
  const EvaluationRecord& r = f.records[0];
  EXPECT_EQ(kernel_tuner_key(r.config), "128,alg_2,15,True,2.45");
  EXPECT_TRUE(r.config[1].is_string() && r.config[3].is_bool() && r.config[4].is_float());
  EXPECT_EQ(r.find("time")->value.as_float(), 0.04073600071881499);
  EXPECT_EQ(r.compile_ms, 440.9545585513115);
  EXPECT_TRUE(f.problem_size.is_null());
  const ResultsFile energy = read_results_file(shared_path("data/kernel_tuner/strategies_test_cache_time_energy.json"));
  EXPECT_EQ(energy.problem_size, 80000000);
  EXPECT_EQ(energy.records[0].find("GFLOPS/W")->value.as_float(), 0.3375457970575376);
}

TEST(KernelTunerCache, BenchmarkHubGemmAndPnpoly) {
  struct Expected {
    const char* file;
    std::size_t entries, runtime_failures;
  };
  for (const Expected& e : {Expected{"gemm_clblast/RTX_3090.json.gz", 17956, 0},
                            Expected{"gemm_clblast/RTX_Titan.json.gz", 17956, 0},
                            Expected{"pnpoly/RTX_3090.json.gz", 4092, 318}, Expected{"pnpoly/RTX_Titan.json.gz", 4092, 342}}) {
    SCOPED_TRACE(e.file);
    const ResultsFile f = read_results_file(shared_path(std::string("data/benchmark_hub/cachefiles/") + e.file));
    EXPECT_EQ(f.records.size(), e.entries);
    const auto failures = std::count_if(f.records.begin(), f.records.end(),
                                        [](const EvaluationRecord& r) { return r.status != Status::ok; });
    const auto runtime = std::count_if(f.records.begin(), f.records.end(), [](const EvaluationRecord& r) {
      return r.status == Status::runtime_failed && r.find("time") && r.find("time")->value.as_string() == "RuntimeFailedConfig";
    });
    EXPECT_EQ(static_cast<std::size_t>(failures), e.runtime_failures);
    EXPECT_EQ(static_cast<std::size_t>(runtime), e.runtime_failures);
    EXPECT_EQ(f.objectives, std::vector<std::string>{"time"});
  }
}

TEST(KernelTunerCache, ConvolutionA100Failures) {
  const ResultsFile f = read_results_file(shared_path("data/benchmark_hub/cachefiles/convolution_milo/A100.json.gz"));
  ASSERT_EQ(f.records.size(), 4362u);
  std::size_t runtime = 0, compile = 0;
  for (const EvaluationRecord& r : f.records) {
    runtime += r.status == Status::runtime_failed;
    compile += r.status == Status::compile_failed;
    if (r.status == Status::ok) {
      EXPECT_EQ(r.runtimes_ms.size(), 32u);
    }
  }
  EXPECT_EQ(runtime, 155u);
  EXPECT_EQ(compile, 6u);
  EXPECT_EQ(f.device_name, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(f.problem_size, nlohmann::json::parse("[4096, 4096]"));
  // The first entry, as in the file.
  const EvaluationRecord& r = f.records[0];
  EXPECT_EQ(kernel_tuner_key(r.config), "16,1,1,1,0,0,0,1,15,15");
  EXPECT_EQ(r.compile_ms, 918.5990339610726);
  EXPECT_EQ(r.runtimes_ms[0], 3.976191997528076);
}

// ---- Damaged gzip files ----

TEST(KernelTunerCache, CorruptGzipIsAnErrorNamingTheFile) {
  std::ifstream in(shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz"), std::ios::binary);
  const std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string flipped = gz;
  for (std::size_t i = gz.size() / 2; i < gz.size() / 2 + 16; ++i) flipped[i] = static_cast<char>(~flipped[i]);
  const std::string flipped_path = write_temp("flipped.json.gz", flipped);
  EXPECT_CONTAINS(error_of<InputError>([&] { (void)read_results_file(flipped_path); }), flipped_path + ": ");
  for (std::size_t cut : {gz.size() / 2, gz.size() - 4, std::size_t{20}}) {
    const std::string cut_path = write_temp("cut.json.gz", gz.substr(0, cut));
    EXPECT_CONTAINS(error_of<InputError>([&] { (void)read_results_file(cut_path); }), cut_path + ": ");
  }
}

// Issue 33 item 14: a gzip bomb gave std::bad_alloc with no file name. The text read is bounded (here at 16 MiB, by
// default half the memory) and the refusal names the file.
TEST(KernelTunerCache, AGzipBombIsRefusedNamingTheFile) {
  const std::string bomb = (ktune::testing::temp_dir() / "bomb.json.gz").string();
  {
    gzFile out = gzopen(bomb.c_str(), "wb9");
    ASSERT_NE(out, nullptr);
    const std::string spaces(1 << 20, ' ');
    for (int i = 0; i < 64; ++i) ASSERT_EQ(gzwrite(out, spaces.data(), static_cast<unsigned>(spaces.size())), 1 << 20);
    gzclose(out);
  }
  set_max_input_bytes_for_testing(std::size_t{16} << 20);
  const std::string error = error_of<InputError>([&] { (void)read_results_file(bomb); });
  set_max_input_bytes_for_testing(std::nullopt);
  EXPECT_CONTAINS(error, bomb + ": cannot read file: its text exceeds 16 MiB (a gzip bomb?)");
  EXPECT_GE(max_input_bytes(), std::size_t{256} << 20);  // the default leaves real files alone
}

TEST(ResultsFile, DetectsTheFormatFromTheContent) {
  const std::string cache = write_temp("a_cache.data", kCache);
  EXPECT_EQ(read_results_file(cache).format, ResultsFormat::KernelTunerCache);
  const std::string t4 = write_temp("a_t4.data", R"({"schema_version": "1.0.0", "results": []})");
  EXPECT_EQ(read_results_file(t4).format, ResultsFormat::T4);
  EXPECT_CONTAINS(error_of<InputError>([&] { (void)read_results_file(write_temp("x.json", R"({"a": {"b": [1]}})")); }),
                  "x.json: neither a Kernel Tuner cache file");
  EXPECT_CONTAINS(error_of<InputError>([&] { (void)read_results_file(write_temp("e.json", "  \n")); }), "e.json: the file is empty");
  EXPECT_CONTAINS(error_of<InputError>([&] { (void)read_results_file(write_temp("c.json", R"({"device_name": "x)")); }),
                  "c.json: the file ends at byte");
  EXPECT_CONTAINS(error_of<InputError>([&] { (void)read_results_file(write_temp("s.json", R"({"a": 1 "cache": {}})")); }),
                  "s.json: invalid JSON at byte 9");
  EXPECT_CONTAINS(error_of<InputError>([&] { (void)read_results_file("/nonexistent/file.json"); }), "/nonexistent/file.json");
}

}  // namespace
}  // namespace ktune::io
