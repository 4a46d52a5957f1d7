#include "ktune/io/t1_reader.hpp"

#include <zlib.h>

#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/problem_file.hpp"
#include "temp_files.hpp"

namespace ktune::io {
namespace {

using ktune::testing::error_of;
using ktune::testing::shared_path;
using ktune::testing::write_temp;

// A T1 document with the given TuningParameters and Conditions (JSON text).
std::string t1_text(const std::string& parameters, const std::string& conditions = "[]") {
  return R"({"General": {"BenchmarkName": "unit", "OutputFormat": "JSON"},
             "ConfigurationSpace": {"TuningParameters": )" +
         parameters + R"(, "Conditions": )" + conditions + "}}";
}

std::string one_param(const std::string& type, const std::string& values) {
  return t1_text(R"([{"Name": "p", "Type": ")" + type + R"(", "Values": )" + nlohmann::json(values).dump() + "}]");
}

std::vector<Value> values_of(const std::string& type, const std::string& expression) {
  const Problem p = read_t1_file(write_temp("values.json", one_param(type, expression)));
  return p.parameters.at(0).values;
}

void expect_values(const std::vector<Value>& actual, const std::vector<Value>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_TRUE(same_value(actual[i], expected[i])) << i << ": " << actual[i].repr() << " vs " << expected[i].repr();
}

std::string read_error(const std::string& file_name, const std::string& text) {
  const std::string path = write_temp(file_name, text);
  const std::string message = error_of<InputError>([&] { read_t1_file(path); });
  EXPECT_CONTAINS(message, path);  // every error names the file
  return message;
}

// --- the real data -----------------------------------------------------------------------------------------------

TEST(T1Reader, SearchSpaceSetsHaveTheIndexedCartesianSizes) {
  const nlohmann::json index = load_json_file(shared_path("data/searchspaces/index.json"));
  std::size_t realworld = 0, synthetic = 0;
  for (const char* group : {"realworld", "synthetic"}) {
    for (const auto& entry : index.at(group)) {
      const std::string path = shared_path("data/searchspaces/" + entry.at("file").get<std::string>());
      SCOPED_TRACE(path);
      const Problem p = read_t1_file(path);
      EXPECT_EQ(p.cartesian_size(), entry.at("cartesian_size").get<std::uint64_t>());
      EXPECT_FALSE(p.constraints.empty());
      EXPECT_EQ(p.max_threads, std::optional<std::int64_t>(1024));
      if (entry.contains("dimensions")) { EXPECT_EQ(p.parameters.size(), entry.at("dimensions").get<std::size_t>()); }
      if (entry.contains("constraints")) { EXPECT_EQ(p.constraints.size(), entry.at("constraints").get<std::size_t>()); }
      ++(std::string(group) == "realworld" ? realworld : synthetic);
    }
  }
  EXPECT_EQ(realworld, 8u);
  EXPECT_EQ(synthetic, 112u);
  // Every realworld file in the folder is in the index.
  std::size_t files = 0;
  for (const auto& f : std::filesystem::directory_iterator(shared_path("data/searchspaces/realworld")))
    files += f.path().extension() == ".json";
  EXPECT_EQ(files, realworld);
}

TEST(T1Reader, HotspotDetails) {
  const Problem p = read_t1_file(shared_path("data/searchspaces/realworld/hotspot.json"));
  EXPECT_EQ(p.name, "hotspot");
  ASSERT_EQ(p.parameters.size(), 11u);
  EXPECT_EQ(p.parameters[2].name, "block_size_x");
  EXPECT_EQ(p.parameters[2].values.size(), 37u);
  EXPECT_TRUE(same_value(p.parameters[2].values.back(), Value(1024)));
  EXPECT_EQ(p.constraints.front(), "block_size_x*block_size_y >= 32");
  EXPECT_EQ(p.implicit_constraint(), "block_size_x * block_size_y <= 1024");
}

TEST(T1Reader, KernelTunerTestInput) {
  {
    const Problem p = read_t1_file(shared_path("data/kernel_tuner/test_T1_input.json"));
    EXPECT_EQ(p.name, "convolution");
    ASSERT_EQ(p.parameters.size(), 8u);
    std::vector<Value> odd;
    for (int i = 3; i < 35; i += 2) odd.emplace_back(i);
    expect_values(p.parameters[0].values, odd);                                  // [i for i in range(3,35,2)]
    expect_values(p.parameters[2].values, {16, 32, 48, 64, 80, 96, 112, 128});  // [16*i for i in range(1,9)]
    expect_values(p.parameters[3].values, {1, 2, 4, 8, 16, 32});                 // [2**i for i in range(6)]
    EXPECT_EQ(p.cartesian_size(), 16u * 16 * 8 * 6 * 8 * 8 * 2 * 2);
    EXPECT_EQ(p.constraints, std::vector<std::string>{"use_padding==0 or (block_size_x % 32 != 0)"});
  }
}

TEST(T1Reader, BenchmarkHubFilesParse) {
  std::size_t t1_files = 0;
  for (const auto& dir : {"data/benchmark_hub/t1", "data/benchmark_hub/hyperparametertuning/algorithms"}) {
    for (const auto& f : std::filesystem::directory_iterator(shared_path(dir))) {
      SCOPED_TRACE(f.path().string());
      const nlohmann::json doc = load_json_file(f.path().string());
      // The t1 folder also holds Kernel Tuner cache files; those are read as such.
      // Two files of the set are defective and must be reported, not papered over: one lists "popsize" twice,
      // the other declares Type "int" for float values.
      if (f.path().filename() == "metatuning_pso.json") {
        EXPECT_CONTAINS(error_of<InputError>([&] { read_problem_file(f.path().string()); }),
                        "duplicate parameter 'popsize'");
        continue;
      }
      if (f.path().filename() == "metatuning_simulated_annealing.json") {
        EXPECT_CONTAINS(error_of<InputError>([&] { read_problem_file(f.path().string()); }),
                        "TuningParameters[0].Values: parameter 'T': Type 'int' needs integral numbers, got float 0.5");
        continue;
      }
      const ProblemFile file = read_problem_file(f.path().string());
      if (doc.contains("ConfigurationSpace")) {
        ++t1_files;
        EXPECT_EQ(file.format, ProblemFormat::T1);
        EXPECT_EQ(file.problem.parameters.size(), doc["ConfigurationSpace"]["TuningParameters"].size());
        EXPECT_EQ(file.problem.constraints.size(), doc["ConfigurationSpace"]["Conditions"].size());
        EXPECT_EQ(file.problem.name, doc["General"]["BenchmarkName"].get<std::string>());
      } else {
        EXPECT_EQ(file.format, ProblemFormat::KernelTunerCache);
      }
    }
  }
  EXPECT_EQ(t1_files, 4u + 4u);
  const Problem gemm = read_t1_file(shared_path("data/benchmark_hub/t1/gemm_milo.json"));
  EXPECT_EQ(gemm.parameters.size(), 17u);
  const Problem diff_evo =
      read_t1_file(shared_path("data/benchmark_hub/hyperparametertuning/algorithms/metatuning_diff_evo.json"));
  ASSERT_TRUE(diff_evo.parameters[0].values[0].is_string());
  EXPECT_EQ(diff_evo.parameters[0].values[0].as_string(), "best1bin");
}

// --- value expressions and Type coercion ----------------------------------------------------------------------

TEST(T1Reader, ValueExpressions) {
  expect_values(values_of("int", "[2**i for i in range(0, 6)]"), {1, 2, 4, 8, 16, 32});
  expect_values(values_of("int", "list(range(1, 10, 3))"), {1, 4, 7});
  expect_values(values_of("int", "[1, 2] + [8, 16]"), {1, 2, 8, 16});
  expect_values(values_of("int", "[i for i in range(10) if i % 4 == 0]"), {0, 4, 8});
  expect_values(values_of("float", "[0.25 * i for i in range(3)]"), {0.0, 0.25, 0.5});
  expect_values(values_of("float", "[1, 2, 0.5]"), {1.0, 2.0, 0.5});  // float makes ints floats
  expect_values(values_of("int", "[2.0, 4.0]"), {2, 4});              // integral floats become ints
  expect_values(values_of("uint", "[0, 3]"), {0, 3});
  expect_values(values_of("bool", "[True, False]"), {true, false});
  expect_values(values_of("bool", "[0, 1]"), {false, true});
  expect_values(values_of("string", "['naive', 'tiled']"), {"naive", "tiled"});
  expect_values(values_of("float", "[-500.0, -1e-05, 2.5e3]"), {-500.0, -1e-05, 2500.0});
}

TEST(T1Reader, ValuesMayBeAJsonArray) {
  const Problem p = read_t1_file(write_temp("array.json", t1_text(R"([{"Name": "p", "Type": "float", "Values": [1, 2.5]}])")));
  expect_values(p.parameters[0].values, {1.0, 2.5});
}

TEST(T1Reader, NameFallsBackToFileStem) {
  const std::string text = R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "p", "Type": "int", "Values": "[1]"}]}})";
  EXPECT_EQ(read_t1_file(write_temp("my_kernel.json", text)).name, "my_kernel");
}

TEST(T1Reader, ReadsGzipFiles) {
  const std::string path = (ktune::testing::temp_dir() / "packed.json.gz").string();
  const std::string text = one_param("int", "[1, 2, 3]");
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(gz);
  EXPECT_EQ(read_t1_file(path).cartesian_size(), 3u);

  // A truncated gzip stream is an error naming the file, not a silent partial read.
  std::string packed = read_file_text(path);  // (gunzipped) sanity check
  EXPECT_EQ(packed, text);
  std::ifstream in(path, std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = write_temp("cut.json.gz", raw.substr(0, raw.size() / 2));
  EXPECT_CONTAINS(error_of<InputError>([&] { read_t1_file(cut); }), cut);
}

// --- errors -----------------------------------------------------------------------------------------------------

TEST(T1ReaderErrors, UnreadableFile) {
  const std::string missing = (ktune::testing::temp_dir() / "does_not_exist.json").string();
  const std::string message = error_of<InputError>([&] { read_t1_file(missing); });
  EXPECT_CONTAINS(message, missing);
  EXPECT_CONTAINS(message, "cannot open");
  const std::string dir = ktune::testing::temp_dir().string();
  EXPECT_CONTAINS(error_of<InputError>([&] { read_t1_file(dir); }), "directory");
}

TEST(T1ReaderErrors, NotJsonGivesThePosition) {
  const std::string message = read_error("broken.json", "{\n  \"ConfigurationSpace\": {\n    \"TuningParameters\": [,]\n}");
  EXPECT_CONTAINS(message, "invalid JSON at byte 54");
  EXPECT_CONTAINS(message, "line 3, column 26");
  EXPECT_CONTAINS(read_error("empty.json", ""), "invalid JSON at byte 1");
}

TEST(T1ReaderErrors, MissingFields) {
  EXPECT_CONTAINS(read_error("m1.json", R"({"General": {}})"), "ConfigurationSpace: missing");
  EXPECT_CONTAINS(read_error("m2.json", R"({"ConfigurationSpace": {"Conditions": []}})"),
                  "ConfigurationSpace.TuningParameters: missing");
  EXPECT_CONTAINS(read_error("m3.json", t1_text(R"([{"Type": "int", "Values": "[1]"}])")),
                  "ConfigurationSpace.TuningParameters[0].Name: missing");
  EXPECT_CONTAINS(read_error("m4.json", t1_text(R"([{"Name": "a", "Type": "int", "Values": "[1]"}, {"Name": "b", "Type": "int"}])")),
                  "ConfigurationSpace.TuningParameters[1].Values: missing");
  EXPECT_CONTAINS(read_error("m5.json", t1_text(R"([{"Name": "a", "Values": "[1]"}])")),
                  "ConfigurationSpace.TuningParameters[0].Type: missing");
  EXPECT_CONTAINS(read_error("m6.json", t1_text(R"([{"Name": "a", "Type": "int", "Values": "[1]"}])", R"([{"Parameters": ["a"]}])")),
                  "ConfigurationSpace.Conditions[0].Expression: missing");
  EXPECT_CONTAINS(read_error("m7.json", "[1, 2]"), "expected a JSON object");
}

TEST(T1ReaderErrors, BadType) {
  const std::string message = read_error("type.json", one_param("double", "[1.5]"));
  EXPECT_CONTAINS(message, "TuningParameters[0].Type");
  EXPECT_CONTAINS(message, "parameter 'p'");
  EXPECT_CONTAINS(message, "'double'");
}

TEST(T1ReaderErrors, ValuesNotAList) {
  const std::string message = read_error("scalar.json", one_param("int", "5"));
  EXPECT_CONTAINS(message, "TuningParameters[0].Values");
  EXPECT_CONTAINS(message, "parameter 'p'");
  EXPECT_CONTAINS(message, "not a list");
  EXPECT_CONTAINS(read_error("number.json", t1_text(R"([{"Name": "p", "Type": "int", "Values": 5}])")), "parameter 'p'");
}

TEST(T1ReaderErrors, ExpressionErrorShowsTheCaret) {
  const std::string message = read_error("syntax.json", one_param("int", "[1, 2"));
  EXPECT_CONTAINS(message, "TuningParameters[0].Values");
  EXPECT_CONTAINS(message, "parameter 'p'");
  EXPECT_CONTAINS(message, "[1, 2");
  EXPECT_CONTAINS(message, "^");
  EXPECT_CONTAINS(read_error("unknown.json", one_param("int", "[x for i in range(3)]")), "^");
}

TEST(T1ReaderErrors, IntTypeRejectsFractions) {
  const std::string message = read_error("fraction.json", one_param("int", "[1, 1.5]"));
  EXPECT_CONTAINS(message, "parameter 'p'");
  EXPECT_CONTAINS(message, "1.5");
  EXPECT_CONTAINS(read_error("uint.json", one_param("uint", "[-1, 2]")), "non-negative");
  EXPECT_CONTAINS(read_error("str.json", one_param("float", "['a']")), "parameter 'p'");
  EXPECT_CONTAINS(read_error("strtype.json", one_param("string", "[1]")), "needs strings");
  EXPECT_CONTAINS(read_error("booltype.json", one_param("bool", "[2]")), "parameter 'p'");
}

TEST(T1ReaderErrors, ConditionSyntaxErrorShowsTheCaret) {
  const std::string message = read_error(
      "condition.json", t1_text(R"([{"Name": "a", "Type": "int", "Values": "[1, 2]"}])",
                                R"([{"Expression": "a > 1", "Parameters": ["a"]}, {"Expression": "a >> * 2", "Parameters": ["a"]}])"));
  EXPECT_CONTAINS(message, "ConfigurationSpace.Conditions[1].Expression");
  EXPECT_CONTAINS(message, "a >> * 2");
  EXPECT_CONTAINS(message, "^");
}

TEST(T1ReaderErrors, ProblemValidationNamesFileAndParameter) {
  EXPECT_CONTAINS(read_error("empty_list.json", one_param("int", "[]")), "parameter 'p' has an empty value list");
  EXPECT_CONTAINS(read_error("dup_value.json", one_param("float", "[1, 1.0]")), "parameter 'p' has duplicate value 1.0");
  EXPECT_CONTAINS(read_error("dup_int.json", one_param("int", "[1, True]")), "parameter 'p' has duplicate value 1");
  EXPECT_CONTAINS(read_error("dup_param.json", t1_text(R"([{"Name": "a", "Type": "int", "Values": "[1]"},
                                                          {"Name": "a", "Type": "int", "Values": "[2]"}])")),
                  "duplicate parameter 'a'");
  EXPECT_CONTAINS(read_error("bad_name.json", t1_text(R"([{"Name": "block size", "Type": "int", "Values": "[1]"}])")),
                  "'block size'");
}

TEST(ProblemFile, DetectsFormatsAndReportsUnknownOnes) {
  const Problem native = ProblemBuilder("native").parameter("x", {1, 2}).constraint("x > 1").build();
  const ProblemFile read = read_problem_file(write_temp("native.json", native.to_json().dump()));
  EXPECT_EQ(read.format, ProblemFormat::Native);
  EXPECT_EQ(read.problem.name, "native");
  EXPECT_EQ(read.problem.constraints, native.constraints);

  const std::string bad_native = write_temp("bad_native.json", R"({"parameters": [{"name": "x", "values": []}]})");
  const std::string message = error_of<InputError>([&] { read_problem_file(bad_native); });
  EXPECT_CONTAINS(message, bad_native);
  EXPECT_CONTAINS(message, "parameter 'x' has an empty value list");

  const std::string other = write_temp("other.json", R"({"foo": 1})");
  EXPECT_CONTAINS(error_of<InputError>([&] { read_problem_file(other); }), "not a problem file");
  const std::string t4 = shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz");
  EXPECT_EQ(read_problem_file(t4).format, ProblemFormat::KernelTunerCache);
  const std::string t4_results = shared_path("data/benchmark_hub/hyperparametertuning/cachefiles/"
                                             "hyperparamtuning_paper_bruteforce_pso_T4.json");
  EXPECT_CONTAINS(error_of<InputError>([&] { read_problem_file(t4_results); }), "T4");
}

}  // namespace
}  // namespace ktune::io
