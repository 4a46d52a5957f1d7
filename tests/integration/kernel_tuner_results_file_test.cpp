// Kernel Tuner's results file (io/kernel_tuner_results_file.hpp): the text Kernel Tuner 1.4 writes, store_results'
// rules (top percent, replacing a device's entries, mismatches), get_best_config's rules and the header, checked
// against values worked out by hand from Kernel Tuner's own test scenario.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ktune/io/input_error.hpp"
#include "ktune/io/kernel_tuner_results_file.hpp"
#include "temp_files.hpp"

namespace {

using ktune::io::KernelTunerResult;
using ktune::io::KernelTunerResultsFile;
using ktune::io::StoreResultsRequest;
using ktune::testing::error_of;
using ordered_json = nlohmann::ordered_json;

// Kernel Tuner's test scenario: a in {1, 2, 4}, b in {4, 5, 6}, time 100 + i in that order.
std::vector<ordered_json> fake_results() {
  std::vector<ordered_json> out;
  int i = 0;
  for (int a : {1, 2, 4})
    for (int b : {4, 5, 6}) out.push_back({{"a", a}, {"b", b}, {"time", 100.0 + i++}, {"compile_time", 20.0}});
  return out;
}

StoreResultsRequest request_for(const std::vector<ordered_json>& results, const std::string& device,
                                const std::string& size, double top = 3) {
  StoreResultsRequest r;
  r.kernel_name = "fake_kernel";
  r.kernel_string = "fake_string";
  r.parameters = {"a", "b"};
  r.problem_size = size;
  r.device_name = device;
  r.top = top;
  ordered_json list = ordered_json::array();
  for (const auto& item : results) list.push_back(item);
  r.results = ktune::io::kernel_tuner_results_of(list, "time", r.parameters);
  return r;
}

std::size_t count(const KernelTunerResultsFile& f, const std::string& device, const std::string& size) {
  std::size_t n = 0;
  for (const auto& e : f.entries) n += e.device_name == device && e.problem_size == size;
  return n;
}

TEST(KernelTunerResultsFile, WritesKernelTunersTextByteForByte) {
  KernelTunerResultsFile f;
  f.kernel_name = "fake_kernel";
  f.kernel_string = "fake_string";
  f.parameters = {"a", "b"};
  for (int b : {4, 5}) {
    ktune::io::KernelTunerResultsEntry e;
    e.json = {{"device_name", "My_GPU"},
              {"problem_size", "100"},
              {"tunable_parameters", {{"a", 1}, {"b", b}}},
              {"time", 96.0 + b}};
    f.entries.push_back(e);
  }
  // What Python's json.dumps(meta, indent="") gives for the same content.
  const std::string expected =
      "{\n\"version_number\": \"1.0\",\n\"kernel_name\": \"fake_kernel\",\n\"kernel_string\": \"fake_string\",\n"
      "\"objective\": \"time\",\n\"objective_higher_is_better\": false,\n\"tunable_parameters\": [\n\"a\",\n\"b\"\n],"
      "\n\"data\": [\n{\n\"device_name\": \"My_GPU\",\n\"problem_size\": \"100\",\n\"tunable_parameters\": {\n\"a\": "
      "1,\n\"b\": 4\n},\n\"time\": 100.0\n},\n{\n\"device_name\": \"My_GPU\",\n\"problem_size\": \"100\",\n"
      "\"tunable_parameters\": {\n\"a\": 1,\n\"b\": 5\n},\n\"time\": 101.0\n}\n]\n}";
  EXPECT_EQ(ktune::io::kernel_tuner_results_text(f), expected);
  // Non-ASCII text is escaped as Python escapes it.
  f.kernel_string = "caf\xc3\xa9";
  EXPECT_CONTAINS(ktune::io::kernel_tuner_results_text(f), "\"kernel_string\": \"caf\\u00e9\"");
}

TEST(KernelTunerResultsFile, RoundTripsThroughTheReader) {
  const auto stored = ktune::io::store_results(nullptr, request_for(fake_results(), "My GPU", "100"));
  const std::string text = ktune::io::kernel_tuner_results_text(stored);
  const auto path = ktune::testing::write_temp("round_trip.json", text);
  const auto read = ktune::io::read_kernel_tuner_results_file(path);
  EXPECT_EQ(read.kernel_name, "fake_kernel");
  EXPECT_EQ(read.kernel_string, "fake_string");
  EXPECT_EQ(read.parameters, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(read.entries.size(), 3u);
  EXPECT_EQ(read.entries[2].value, 102.0);
  EXPECT_EQ(read.entries[2].parameters().dump(), R"({"a":1,"b":6})");
  EXPECT_EQ(ktune::io::kernel_tuner_results_text(read), text);
}

TEST(KernelTunerResultsFile, StoreResultsKeepsTheTopPercentAndReplacesADevicesEntries) {
  auto results = fake_results();
  auto file = ktune::io::store_results(nullptr, request_for(results, "My GPU", "100"));
  // 3 %: 100, 101 and 102 are below 103; 103 is not.
  EXPECT_EQ(count(file, "My_GPU", "100"), 3u);
  file = ktune::io::store_results(&file, request_for(results, "My GPU", "1000"));
  EXPECT_EQ(count(file, "My_GPU", "100"), 3u);
  EXPECT_EQ(count(file, "My_GPU", "1000"), 3u);
  file = ktune::io::store_results(&file, request_for(results, "Another GPU", "100"));
  EXPECT_EQ(count(file, "Another_GPU", "100"), 3u);
  for (std::size_t i = 0; i < results.size(); ++i) results[i]["time"] = 50.0 + static_cast<double>(i);
  file = ktune::io::store_results(&file, request_for(results, "My GPU", "100", 0.1));
  ASSERT_EQ(count(file, "My_GPU", "100"), 1u);
  EXPECT_EQ(count(file, "My_GPU", "1000"), 3u);
  EXPECT_EQ(count(file, "Another_GPU", "100"), 3u);
  for (const auto& e : file.entries)
    if (e.device_name == "My_GPU" && e.problem_size == "100") {
      EXPECT_EQ(e.value, 50.0);
    }
  // A top of 50 % keeps 50..74 (below 75).
  file = ktune::io::store_results(&file, request_for(results, "My GPU", "100", 50));
  EXPECT_EQ(count(file, "My_GPU", "100"), 9u);
  // A best of 0 keeps itself (Kernel Tuner's 0 < 0 * 1.03 would keep nothing).
  for (auto& r : results) r["time"] = r["a"].get<int>() == 2 ? 0.0 : 1.0;
  file = ktune::io::store_results(&file, request_for(results, "My GPU", "100"));
  EXPECT_EQ(count(file, "My_GPU", "100"), 3u);
}

TEST(KernelTunerResultsFile, AConfigurationListedTwiceIsStoredOnce) {
  // tune_kernel's results list a revisited configuration again (as Kernel Tuner's do).
  auto results = fake_results();
  results.insert(results.begin() + 1, results.front());
  results.push_back(results.front());
  const auto file = ktune::io::store_results(nullptr, request_for(results, "My GPU", "100"));
  ASSERT_EQ(count(file, "My_GPU", "100"), 3u);
  EXPECT_EQ(file.entries[0].parameters().dump(), R"({"a":1,"b":4})");
  EXPECT_EQ(file.entries[1].parameters().dump(), R"({"a":1,"b":5})");
  EXPECT_EQ(file.entries[2].parameters().dump(), R"({"a":1,"b":6})");
}

TEST(KernelTunerResultsFile, MaximisesAHigherIsBetterObjective) {
  auto results = fake_results();
  ordered_json list = ordered_json::array();
  for (auto& r : results) {
    r["GFLOP/s"] = 1e5 / r["time"].get<double>();
    list.push_back(r);
  }
  StoreResultsRequest request = request_for(results, "My GPU", "100");
  request.objective = "GFLOP/s";
  request.results = ktune::io::kernel_tuner_results_of(list, "GFLOP/s", request.parameters);
  const auto file = ktune::io::store_results(nullptr, request);
  EXPECT_TRUE(file.higher_is_better);
  EXPECT_EQ(file.objective, "GFLOP/s");
  // 1000, 990.1 and 980.4 are above 970 (1000 * 0.97); 970.87 is too; 961.5 is not.
  EXPECT_EQ(file.entries.size(), 4u);
  EXPECT_EQ(ktune::io::best_configuration(file, "My GPU", "100").dump(), R"({"a":1,"b":4})");
}

TEST(KernelTunerResultsFile, RefusesMismatchesAsKernelTunerDoes) {
  const auto file = ktune::io::store_results(nullptr, request_for(fake_results(), "My GPU", "100"));
  auto other = request_for(fake_results(), "My GPU", "100");
  other.kernel_name = "another_kernel";
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { ktune::io::store_results(&file, other); }),
                  "Mismatch between given kernel_name 'another_kernel' and results file ('fake_kernel')");
  other = request_for(fake_results(), "My GPU", "100");
  other.parameters = {"a"};
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { ktune::io::store_results(&file, other); }),
                  "Mismatch between tunable_parameters in results file (a, b) and tune_params (a)");
  other = request_for(fake_results(), "My GPU", "100");
  other.objective = "energy";
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { ktune::io::store_results(&file, other); }),
                  "Mismatch between given objective 'energy' and results file ('time')");
  other = request_for(fake_results(), "My GPU", "100");
  other.results.clear();
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { ktune::io::store_results(&file, other); }),
                  "no result has the objective 'time'");
  EXPECT_CONTAINS(error_of<std::invalid_argument>([] { ktune::io::kernel_tuner_objective("score", std::nullopt); }),
                  "Please specify objective_higher_is_better for objective score");
  ordered_json lacking = ordered_json::array({{{"a", 1}, {"time", 1.0}}});
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] {
                    ktune::io::kernel_tuner_results_of(lacking, "time", {"a", "b"});
                  }),
                  "result 1 has no value for tunable parameter 'b'");
  // Failed configurations (no number for the objective) take no part.
  ordered_json failed = ordered_json::array(
      {{{"a", 1}, {"b", 2}, {"time", "CompilationFailedConfig"}}, {{"a", 1}, {"b", 3}, {"time", 4.0}}});
  EXPECT_EQ(ktune::io::kernel_tuner_results_of(failed, "time", {"a", "b"}).size(), 1u);
}

// Kernel Tuner's test_setup_device_targets, step by step.
TEST(KernelTunerResultsFile, BestConfigurationFollowsKernelTunersRules) {
  auto results = fake_results();
  auto file = ktune::io::store_results(nullptr, request_for(results, "My GPU", "100"));
  EXPECT_EQ(ktune::io::best_configuration(file, "My_GPU").dump(), R"({"a":1,"b":4})");
  // Another problem size where (1, 4) is slow: the most common configurations are (1, 5) and (1, 6), and (1, 5) has
  // the lower total.
  for (auto& r : results)
    if (r["a"] == 1 && r["b"] == 4) r["time"] = r["time"].get<double>() + 100;
  file = ktune::io::store_results(&file, request_for(results, "My GPU", "1000"));
  EXPECT_EQ(ktune::io::best_configuration(file, "My GPU").dump(), R"({"a":1,"b":5})");
  // At a problem size in the file: that size's best.
  EXPECT_EQ(ktune::io::best_configuration(file, "My GPU", "100").dump(), R"({"a":1,"b":4})");
  // A problem size not in the file: the device's most common.
  EXPECT_EQ(ktune::io::best_configuration(file, "My GPU", "5").dump(), R"({"a":1,"b":5})");
  for (auto& r : results)
    if (r["a"] == 1 && r["b"] == 6) r["time"] = r["time"].get<double>() - 3;
  file = ktune::io::store_results(&file, request_for(results, "My GPU", "1000"));
  EXPECT_EQ(ktune::io::best_configuration(file, "My GPU").dump(), R"({"a":1,"b":6})");
  for (auto& r : results)
    if (r["a"] == 1 && r["b"] == 6) r["time"] = r["time"].get<double>() + 3.1;
  file = ktune::io::store_results(&file, request_for(results, "My_GPU2", "1000"));
  EXPECT_EQ(ktune::io::best_configuration(file, "My GPU").dump(), R"({"a":1,"b":6})");
  EXPECT_EQ(ktune::io::best_configuration(file, "My_GPU2").dump(), R"({"a":1,"b":5})");
  // An unknown device, and the default: over all entries.
  EXPECT_EQ(ktune::io::best_configuration(file).dump(), R"({"a":1,"b":5})");
  EXPECT_EQ(ktune::io::best_configuration(file, "Unknown GPU").dump(), R"({"a":1,"b":5})");

  const std::string header = ktune::io::device_targets_header(file);
  EXPECT_CONTAINS(header, "\n#ifdef TARGET_My_GPU\n#define a 1\n#define b 6\n");
  EXPECT_CONTAINS(header, "\n#elif TARGET_My_GPU2\n#define a 1\n#define b 5\n");
  EXPECT_CONTAINS(header, "#else /* default configuration */\n#define a 1\n#define b 5\n#endif /* GPU TARGETS */");
  EXPECT_CONTAINS(header, "#ifndef kernel_tuner /* only use these when not tuning */");
  // --default replaces the #else branch.
  EXPECT_CONTAINS(ktune::io::device_targets_header(file, {{"a", "2"}, {"b", "4"}}),
                  "#else /* default configuration */\n#define a 2\n#define b 4\n");
  KernelTunerResultsFile empty;
  EXPECT_CONTAINS(error_of<std::invalid_argument>([&] { ktune::io::device_targets_header(empty); }), "empty");
}

TEST(KernelTunerResultsFile, HeaderTargetsAreSortedAndValuesAreCLiterals) {
  auto results = fake_results();
  for (auto& r : results) r["a"] = r["a"].get<int>() == 1;  // a bool: 1/0, not Python's True/False
  auto request = request_for(results, "Zeta 9", "100");
  auto file = ktune::io::store_results(nullptr, request);
  request.device_name = "Alpha-1";
  file = ktune::io::store_results(&file, request);
  const std::string header = ktune::io::device_targets_header(file);
  const auto alpha = header.find("#ifdef TARGET_Alpha_1"), zeta = header.find("#elif TARGET_Zeta_9");
  ASSERT_NE(alpha, std::string::npos);
  ASSERT_NE(zeta, std::string::npos);
  EXPECT_LT(alpha, zeta);
  EXPECT_CONTAINS(header, "#define a 1\n");
  EXPECT_EQ(header.find("True"), std::string::npos);
}

TEST(KernelTunerResultsFile, DeviceNamesAndProblemSizesAreSpelledAsKernelTunerSpellsThem) {
  EXPECT_EQ(ktune::io::kernel_tuner_device_name("NVIDIA A100-PCIE-40GB"), "NVIDIA_A100_PCIE_40GB");
  EXPECT_EQ(ktune::io::kernel_tuner_device_name("  My  GPU \n"), "My_GPU");
  EXPECT_EQ(ktune::io::kernel_tuner_device_name("a__-b (x)"), "a_b_x_");
  EXPECT_EQ(ktune::io::kernel_tuner_problem_size(nlohmann::json::array({4096, 2048})), "4096x2048");
  EXPECT_EQ(ktune::io::kernel_tuner_problem_size(100), "100");
  EXPECT_EQ(ktune::io::kernel_tuner_problem_size("1x2"), "1x2");
  EXPECT_THROW(ktune::io::kernel_tuner_problem_size(nlohmann::json::object()), std::invalid_argument);
  EXPECT_TRUE(ktune::io::looks_like_a_filename("vector_add.cu"));
  EXPECT_TRUE(ktune::io::looks_like_a_filename("kernel.cl"));
  EXPECT_FALSE(ktune::io::looks_like_a_filename("__global__ void f() {}"));
  EXPECT_FALSE(ktune::io::looks_like_a_filename("fake_string"));
}

TEST(KernelTunerResultsFile, KernelStringThatNamesAFileKeepsTheFilesText) {
  const auto source = ktune::testing::write_temp("kernel_source.cu", "__global__ void k() {}\n");
  auto request = request_for(fake_results(), "My GPU", "100");
  request.kernel_string = source;
  EXPECT_EQ(ktune::io::store_results(nullptr, request).kernel_string, "__global__ void k() {}\n");
}

TEST(KernelTunerResultsFile, BadFilesAreRefusedNamingTheFileAndTheEntry) {
  const auto read = [](const std::string& name, const std::string& text) {
    return error_of<ktune::io::InputError>(
        [&] { ktune::io::read_kernel_tuner_results_file(ktune::testing::write_temp(name, text)); });
  };
  const std::string head =
      R"({"version_number": "1.0", "kernel_name": "k", "objective": "time", "tunable_parameters": ["a"], "data": [)";
  const std::string good = R"({"device_name": "D", "problem_size": "1", "tunable_parameters": {"a": 1}, "time": 1})";
  EXPECT_CONTAINS(read("no_version.json", R"({"kernel_name": "k"})"), "no 'version_number'");
  EXPECT_CONTAINS(read("v2.json", R"({"version_number": "2.0"})"), "unknown results file version_number \"2.0\"");
  EXPECT_CONTAINS(read("no_name.json", R"({"version_number": "1.0", "objective": "time"})"), "needs 'kernel_name'");
  EXPECT_CONTAINS(read("no_data.json", R"({"version_number": "1.0", "kernel_name": "k", "objective": "time",
                                           "tunable_parameters": []})"),
                  "needs 'data'");
  const std::string e2 = read("no_device.json", head + good + R"(, {"problem_size": "1"}]})");
  EXPECT_CONTAINS(e2, "no_device.json");
  EXPECT_CONTAINS(e2, "entry 2: missing key 'device_name'");
  EXPECT_CONTAINS(read("no_param.json", head + good + R"(, {"device_name": "D", "problem_size": "7",
                  "tunable_parameters": {"b": 1}, "time": 1}]})"),
                  "entry 2 (device 'D', problem size '7'): missing tunable parameter 'a'");
  EXPECT_CONTAINS(read("no_objective.json", head + R"({"device_name": "D", "problem_size": "1",
                  "tunable_parameters": {"a": 1}}]})"),
                  "entry 1 (device 'D', problem size '1'): missing key 'time' (the objective)");
  EXPECT_CONTAINS(read("text_objective.json", head + R"({"device_name": "D", "problem_size": "1",
                  "tunable_parameters": {"a": 1}, "time": "fast"}]})"),
                  "the objective 'time' is \"fast\", not a number");
  EXPECT_CONTAINS(read("broken.json", head), "invalid JSON at byte");
  EXPECT_CONTAINS(read("deep.json", std::string(100000, '[')), "nesting");
  EXPECT_CONTAINS(read("huge_number.json", R"({"version_number": 1e400})"), "1e400");
  EXPECT_CONTAINS(
      error_of<ktune::io::InputError>([] { ktune::io::read_kernel_tuner_results_file("/nonexistent.json"); }),
      "/nonexistent.json: cannot open file");
}

}  // namespace
