#include "ktune/io/kernel_tuner_cache.hpp"

#include <cctype>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "temp_files.hpp"

namespace ktune::io {
namespace {

using ktune::testing::error_of;
using ktune::testing::shared_path;
using ktune::testing::write_temp;

// Every Kernel Tuner cache file of the shared data (the *_T4 files next to them are results files).
std::vector<std::string> cache_files() {
  std::vector<std::string> files;
  for (const char* dir : {"data/benchmark_hub/cachefiles", "data/benchmark_hub/hyperparametertuning/cachefiles",
                          "data/kernel_tuner"}) {
    for (const auto& f : std::filesystem::recursive_directory_iterator(shared_path(dir))) {
      const std::string name = f.path().filename().string();
      if (!f.is_regular_file() || name.find("_T4") != std::string::npos || name.find("T1_input") != std::string::npos)
        continue;
      if (name.ends_with(".json") || name.ends_with(".json.gz")) files.push_back(f.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The header of a cache file (everything before "cache"), parsed on its own: an independent view of tune_params
// that avoids building the (large) entries.
nlohmann::json cache_header(const std::string& path) {
  const std::string text = read_file_text(path);
  std::string head = text.substr(0, text.find("\"cache\""));
  while (!head.empty() && (std::isspace(static_cast<unsigned char>(head.back())) || head.back() == ',')) head.pop_back();
  return nlohmann::json::parse(head + "}");
}

TEST(CacheReader, RealCacheFilesGiveTheirParameters) {
  const auto files = cache_files();
  std::size_t gz = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    gz += path.ends_with(".gz");
    const Problem p = problem_from_cache_file(path);
    const nlohmann::json doc = cache_header(path);
    const auto& keys = doc.at("tune_params_keys");
    ASSERT_EQ(p.parameters.size(), keys.size());
    std::uint64_t cartesian = 1;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const std::string name = keys[i].get<std::string>();
      EXPECT_EQ(p.parameters[i].name, name);
      const auto& values = doc.at("tune_params").at(name);
      ASSERT_EQ(p.parameters[i].values.size(), values.size()) << name;
      for (std::size_t k = 0; k < values.size(); ++k) {
        const Value& v = p.parameters[i].values[k];
        if (values[k].is_number_float()) { EXPECT_TRUE(v.is_float() && v.as_float() == values[k].get<double>()) << name; }
        if (values[k].is_number_integer()) { EXPECT_TRUE(v.is_int() && v.as_int() == values[k].get<std::int64_t>()) << name; }
        if (values[k].is_boolean()) { EXPECT_TRUE(v.is_bool() && v.as_bool() == values[k].get<bool>()) << name; }
        if (values[k].is_string()) { EXPECT_TRUE(v.is_string() && v.as_string() == values[k].get<std::string>()) << name; }
      }
      cartesian *= values.size();
    }
    EXPECT_EQ(p.cartesian_size(), cartesian);
    EXPECT_EQ(p.name, doc.at("kernel_name").get<std::string>());
    EXPECT_TRUE(p.constraints.empty());  // Kernel Tuner does not store restrictions
  }
  EXPECT_GE(gz, 10u);  // the shared data may grow
  EXPECT_GE(files.size(), 10u + 6u + 4u);
}

TEST(CacheReader, OrderFromTheFileWithoutTuneParamsKeys) {
  // nlohmann::json sorts object keys; the reader must keep the file's order ("z" before "a").
  const std::string path = write_temp("nokeys.json", R"({"kernel_name": "k", "tune_params": {"z": [1, 2], "a": [0.5], "m": ["x", "y"]},
                                                        "cache": {"1,0.5,x": {"z": 1, "a": 0.5, "m": "x", "time": 1.0}}})");
  const Problem p = problem_from_cache_file(path);
  ASSERT_EQ(p.parameters.size(), 3u);
  EXPECT_EQ(p.parameters[0].name, "z");
  EXPECT_EQ(p.parameters[1].name, "a");
  EXPECT_EQ(p.parameters[2].name, "m");
  EXPECT_TRUE(p.parameters[1].values[0].is_float());
}

TEST(CacheReader, RestrictionsAreRead) {
  const std::string path = write_temp("restricted.json", R"({"kernel_name": "", "tune_params_keys": ["block_size_x", "t"],
      "tune_params": {"block_size_x": [32, 64], "t": [1, 2]}, "restrictions": ["block_size_x * t <= 64", "t > 0"], "cache": {}})");
  const Problem p = problem_from_cache_file(path);
  EXPECT_EQ(p.name, "restricted");  // empty kernel_name: the file stem
  EXPECT_EQ(p.constraints, (std::vector<std::string>{"block_size_x * t <= 64", "t > 0"}));
  const std::string single = write_temp("single.json", R"({"tune_params": {"t": [1, 2]}, "restrictions": "t > 1"})");
  EXPECT_EQ(problem_from_cache_file(single).constraints, std::vector<std::string>{"t > 1"});
}

TEST(CacheReader, Errors) {
  const auto error = [](const std::string& name, const std::string& text) {
    const std::string path = write_temp(name, text);
    const std::string message = error_of<InputError>([&] { problem_from_cache_file(path); });
    EXPECT_CONTAINS(message, path);
    return message;
  };
  EXPECT_CONTAINS(error("no_tp.json", R"({"cache": {}})"), "tune_params: missing");
  EXPECT_CONTAINS(error("t4.json", R"({"results": [], "schema_version": "1.0.0"})"), "T4");
  EXPECT_CONTAINS(error("keys.json", R"({"tune_params_keys": ["a", "b"], "tune_params": {"a": [1]}})"),
                  "tune_params_keys[1]: parameter 'b' is not in tune_params");
  EXPECT_CONTAINS(error("keys2.json", R"({"tune_params_keys": ["a"], "tune_params": {"a": [1], "b": [2]}})"),
                  "parameter 'b' of tune_params is missing");
  EXPECT_CONTAINS(error("notlist.json", R"({"tune_params": {"a": 4}})"), "tune_params.a");
  EXPECT_CONTAINS(error("dup.json", R"({"tune_params": {"a": [1, 2, 1]}})"), "parameter 'a' has duplicate value");
  EXPECT_CONTAINS(error("restr.json", R"({"tune_params": {"a": [1]}, "restrictions": ["a >"]})"), "restrictions[0]");
  EXPECT_CONTAINS(error("trunc.json", R"({"tune_params": {"a": [1]}, "cache": {"1": {"a": 1, )"), "invalid JSON at byte");
}

TEST(CacheReader, SkippedEntriesAreStillChecked) {
  // Syntax errors inside and after the skipped "cache" value give the same message (byte, line, column) as a full
  // parse of the file.
  const char* broken[] = {
      "{\"tune_params\": {\"a\": [1]},\n \"cache\": {\"1\": {\"a\": 1,, \"t\": 2}}}",
      "{\"tune_params\": {\"a\": [1]},\n \"cache\": {\"1\": {\"a\": 1, \"t\": 2.5}},\n \"x\": tru}",
      "{\"tune_params\": {\"a\": [1]}, \"cache\": {\"1\": {\"a\": 1, \"t\": \"unterminated}}}",
      "{\"cache\": {\"1\": {\"a\": 1, \"t\": 01}}, \"tune_params\": {\"a\": [1]}}",
      "{\"cache\": {\"1\": [1, 2,]}, \"tune_params\": {\"a\": [1]}}",
  };
  int n = 0;
  for (const char* text : broken) {
    const std::string path = write_temp("broken" + std::to_string(n++) + ".json", text);
    const std::string full = error_of<InputError>([&] { load_json_file(path); });
    EXPECT_CONTAINS(full, "invalid JSON at byte");
    EXPECT_EQ(error_of<InputError>([&] { problem_from_cache_file(path); }), full) << text;
  }
  // Python's json writes NaN and Infinity for non-finite floats; inside the entries they do not stop problem reading.
  const std::string nan = write_temp("nan.json", R"({"cache": {"1": {"a": 1, "t": NaN, "u": -Infinity}}, "tune_params": {"a": [1]}})");
  EXPECT_EQ(problem_from_cache_file(nan).parameters.at(0).name, "a");
}

TEST(JsonFile, FileStem) {
  EXPECT_EQ(file_stem("/a/b/A100.json.gz"), "A100");
  EXPECT_EQ(file_stem("x/hotspot.json"), "hotspot");
  EXPECT_EQ(file_stem("plain"), "plain");
}

}  // namespace
}  // namespace ktune::io
