// Runs the built `ktune` executable (KTUNE_BINARY) on small problem files written here and checks its output,
// files and exit codes against results computed by hand / by plain loops in this test.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"

namespace {

namespace fs = std::filesystem;
using ktune::testing::contains;
using ktune::testing::quoted;
using ktune::testing::read_text;
using Result = ktune::testing::KtuneRun;

fs::path temp_dir() { return ktune::testing::cli_temp_dir(); }
std::string write_temp(const std::string& name, const std::string& content) {
  return ktune::testing::cli_write_temp(name, content);
}
Result ktune(const std::string& args) { return ktune::testing::run_ktune(args); }

// The tiny problem: 4 * 2 * 3 = 24 combinations, one condition, block-size parameters.
const char* kTinyT1 = R"json({"General": {"BenchmarkName": "tiny", "OutputFormat": "JSON"},
 "ConfigurationSpace": {
  "TuningParameters": [
   {"Name": "block_size_x", "Type": "int", "Values": "[16, 32, 64, 1024]"},
   {"Name": "block_size_y", "Type": "int", "Values": "[2**i for i in range(2)]"},
   {"Name": "tile", "Type": "int", "Values": "list(range(1, 4))"}],
  "Conditions": [{"Expression": "tile * block_size_y <= 4", "Parameters": ["tile", "block_size_y"]}]}})json";

// The valid configurations of the tiny problem, by plain loops.
std::set<std::vector<long>> tiny_expected(long max_threads) {
  std::set<std::vector<long>> valid;
  for (long x : {16, 32, 64, 1024})
    for (long y : {1, 2})
      for (long t : {1, 2, 3})
        if (t * y <= 4 && (max_threads <= 0 || x * y <= max_threads)) valid.insert({x, y, t});
  return valid;
}

TEST(SpaceCommand, JsonSummaryOfATinyProblem) {
  const std::string file = write_temp("tiny.json", kTinyT1);
  const Result run = ktune("space " + quoted(file) + " --json --max-threads 64");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);  // exactly one JSON object on stdout
  EXPECT_EQ(j.at("name"), "tiny");
  EXPECT_EQ(j.at("cartesian_size"), 24);
  // By hand: tile*y <= 4 leaves 5 (y, tile) pairs; x*y <= 64 keeps both y for x=16 and 32, y=1 for x=64 (3 pairs),
  // nothing for x=1024: 5 + 5 + 3 = 13.
  EXPECT_EQ(j.at("valid_configs"), 13);
  EXPECT_EQ(tiny_expected(64).size(), 13u);
  EXPECT_DOUBLE_EQ(j.at("density").get<double>(), 13.0 / 24.0);
  EXPECT_EQ(j.at("implicit_constraint"), "block_size_x * block_size_y <= 64");
  EXPECT_EQ(j.at("max_threads"), 64);
  EXPECT_EQ(j.at("constraints"), nlohmann::json::array({"tile * block_size_y <= 4"}));
  EXPECT_EQ(j.at("evaluation_errors"), 0);
  EXPECT_TRUE(j.at("evaluation_error_messages").empty());
  ASSERT_TRUE(j.at("construction_seconds").is_number());
  EXPECT_GE(j.at("construction_seconds").get<double>(), 0.0);
  ASSERT_EQ(j.at("parameters").size(), 3u);
  EXPECT_EQ(j["parameters"][0].at("name"), "block_size_x");
  EXPECT_EQ(j["parameters"][0].at("values"), nlohmann::json::array({16, 32, 64, 1024}));
  EXPECT_EQ(j["parameters"][1].at("values"), nlohmann::json::array({1, 2}));
  EXPECT_EQ(j["parameters"][2].at("values"), nlohmann::json::array({1, 2, 3}));
  ASSERT_TRUE(j.at("solved_constraints").is_array());
  for (const auto& c : j["solved_constraints"]) {
    EXPECT_TRUE(c.at("expression").is_string());
    EXPECT_TRUE(c.at("kind").is_string());
  }
}

TEST(SpaceCommand, ImplicitConstraintOptions) {
  const std::string file = write_temp("tiny.json", kTinyT1);
  const nlohmann::json by_default = nlohmann::json::parse(ktune("space " + quoted(file) + " --json").out);
  EXPECT_EQ(by_default.at("valid_configs"), tiny_expected(1024).size());  // 18: only x=1024, y=2 is cut
  EXPECT_EQ(by_default.at("valid_configs"), 18);
  EXPECT_EQ(by_default.at("implicit_constraint"), "block_size_x * block_size_y <= 1024");
  EXPECT_DOUBLE_EQ(by_default.at("density").get<double>(), 0.75);

  const nlohmann::json off = nlohmann::json::parse(ktune("space " + quoted(file) + " --json --no-implicit-block-constraint").out);
  EXPECT_EQ(off.at("valid_configs"), 20);
  EXPECT_TRUE(off.at("implicit_constraint").is_null());
  EXPECT_TRUE(off.at("max_threads").is_null());

  const Result both = ktune("space " + quoted(file) + " --max-threads 64 --no-implicit-block-constraint");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_FALSE(both.err.empty());
}

TEST(SpaceCommand, HumanSummary) {
  const std::string file = write_temp("tiny.json", kTinyT1);
  const Result run = ktune("space " + quoted(file));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* expected : {"tiny", "block_size_x", "4 values", "16, 32, 64, 1024", "tile * block_size_y <= 4",
                               "block_size_x * block_size_y <= 1024", "cartesian    24", "valid        18",
                               "density      75%", "construction"})
    EXPECT_TRUE(contains(run.out, expected)) << "missing '" << expected << "' in\n" << run.out;
  EXPECT_TRUE(run.err.empty()) << run.err;
}

TEST(SpaceCommand, ExportCsv) {
  const std::string file = write_temp("tiny.json", kTinyT1);
  const std::string csv = (temp_dir() / "configs.csv").string();
  const Result run = ktune("space " + quoted(file) + " --max-threads 64 --export " + quoted(csv));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream in(read_text(csv));
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "block_size_x,block_size_y,tile");
  std::set<std::vector<long>> rows;
  std::size_t count = 0;
  while (std::getline(in, line)) {
    std::vector<long> row;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) row.push_back(std::stol(field));
    rows.insert(row);
    ++count;
  }
  EXPECT_EQ(count, 13u);
  EXPECT_EQ(rows, tiny_expected(64));
}

TEST(SpaceCommand, ExportJson) {
  const std::string file = write_temp("tiny.json", kTinyT1);
  const std::string out = (temp_dir() / "configs.json").string();
  const Result run = ktune("space " + quoted(file) + " --no-implicit-block-constraint --json --export " + quoted(out));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out).at("export").at("path"), out);
  const nlohmann::json j = nlohmann::json::parse(read_text(out));
  ASSERT_EQ(j.at("parameters").size(), 3u);
  EXPECT_EQ(j["parameters"][2].at("name"), "tile");
  std::set<std::vector<long>> rows;
  for (const auto& config : j.at("configurations")) rows.insert(config.get<std::vector<long>>());
  EXPECT_EQ(j["configurations"].size(), 20u);
  EXPECT_EQ(rows, tiny_expected(0));
}

TEST(SpaceCommand, ExportNeedsAKnownExtension) {
  const std::string file = write_temp("tiny.json", kTinyT1);
  const std::string out = (temp_dir() / "configs.txt").string();
  const Result run = ktune("space " + quoted(file) + " --export " + quoted(out));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(contains(run.err, "configs.txt")) << run.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(SpaceCommand, VerifyBruteForce) {
  const std::string file = write_temp("tiny.json", kTinyT1);
  const Result run = ktune("space " + quoted(file) + " --json --verify-brute-force");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("brute_force").at("ok"), true);
  EXPECT_EQ(j["brute_force"].at("brute_force_valid"), 18);
  EXPECT_EQ(j["brute_force"].at("missing"), 0);
  EXPECT_EQ(j["brute_force"].at("extra"), 0);
  const Result too_big = ktune("space " + quoted(file) + " --verify-brute-force --brute-force-limit 10");
  EXPECT_EQ(too_big.exit_code, 2);
  EXPECT_TRUE(contains(too_big.err, "brute-force limit")) << too_big.err;
}

TEST(SpaceCommand, NativeProblemJson) {
  const std::string file = write_temp("native.json", R"({"name": "native", "parameters": [
      {"name": "block_size_x", "values": [16, 32, 64, 1024]}, {"name": "block_size_y", "values": [1, 2]},
      {"name": "tile", "values": [1, 2, 3]}], "constraints": ["tile * block_size_y <= 4"], "max_threads": 64})");
  const Result run = ktune("space " + quoted(file) + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("format"), "ktune");
  EXPECT_EQ(j.at("valid_configs"), 13);
}

TEST(SpaceCommand, EvaluationErrorsAreReported) {
  std::string text = kTinyT1;
  text.replace(text.find("tile * block_size_y <= 4"), 24, "block_size_x / (tile - 1) <= 16");
  const std::string file = write_temp("zero.json", text);
  const Result run = ktune("space " + quoted(file) + " --json --no-implicit-block-constraint");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  // tile == 1 divides by zero: those configurations are invalid, never a crash. Valid: x/(t-1) <= 16.
  std::size_t expected = 0;
  for (long x : {16, 32, 64, 1024})
    for (long t : {2, 3}) expected += 2 * (static_cast<double>(x) / static_cast<double>(t - 1) <= 16.0);
  EXPECT_EQ(j.at("valid_configs"), expected);
  EXPECT_GT(j.at("evaluation_errors").get<std::uint64_t>(), 0u);
  ASSERT_FALSE(j.at("evaluation_error_messages").empty());
  EXPECT_TRUE(contains(j["evaluation_error_messages"][0].get<std::string>(), "ZeroDivisionError"));
}

// --- errors --------------------------------------------------------------------------------------------------

TEST(SpaceCommandErrors, MissingFile) {
  const std::string file = (temp_dir() / "no_such_problem.json").string();
  const Result run = ktune("space " + quoted(file));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, file)) << run.err;
  EXPECT_TRUE(run.out.empty());
}

TEST(SpaceCommandErrors, InvalidJsonNamesThePosition) {
  const std::string file = write_temp("broken.json", "{\"ConfigurationSpace\": [1,\n 2,, 3]}");
  const Result run = ktune("space " + quoted(file) + " --json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, file)) << run.err;
  EXPECT_TRUE(contains(run.err, "byte 31 (line 2, column 4)")) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(SpaceCommandErrors, ConditionSyntaxErrorShowsACaret) {
  std::string text = kTinyT1;
  text.replace(text.find("tile * block_size_y <= 4"), 24, "tile * * block_size_y <= 4");
  const std::string file = write_temp("syntax.json", text);
  const Result run = ktune("space " + quoted(file));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, file)) << run.err;
  EXPECT_TRUE(contains(run.err, "Conditions[0]")) << run.err;
  EXPECT_TRUE(contains(run.err, "tile * * block_size_y <= 4")) << run.err;
  // The caret sits under the second '*' (column 7 of the expression).
  const auto source_line = run.err.find("tile * * block_size_y");
  const auto line_start = run.err.rfind('\n', source_line) + 1;
  const auto caret = run.err.find('^', source_line);
  ASSERT_NE(caret, std::string::npos) << run.err;
  const auto caret_line_start = run.err.rfind('\n', caret) + 1;
  EXPECT_EQ(caret - caret_line_start, source_line - line_start + 7) << run.err;
}

TEST(SpaceCommandErrors, UnknownNameInACondition) {
  std::string text = kTinyT1;
  text.replace(text.find("tile * block_size_y <= 4"), 24, "tile * blok_size_y <= 4");
  const std::string file = write_temp("unknown.json", text);
  const Result run = ktune("space " + quoted(file));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, file)) << run.err;
  EXPECT_TRUE(contains(run.err, "blok_size_y")) << run.err;
  EXPECT_TRUE(contains(run.err, "^")) << run.err;
}

TEST(SpaceCommandErrors, BadParameterValues) {
  std::string text = kTinyT1;
  text.replace(text.find("list(range(1, 4))"), 17, "[1, 1.5]");
  const std::string file = write_temp("fraction.json", text);
  const Result run = ktune("space " + quoted(file));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, file)) << run.err;
  EXPECT_TRUE(contains(run.err, "parameter 'tile'")) << run.err;
}

TEST(SpaceCommandErrors, Usage) {
  EXPECT_EQ(ktune("space").exit_code, 2);
  EXPECT_EQ(ktune("").exit_code, 2);
  const Result unknown = ktune("spcae x.json");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(contains(unknown.err, "spcae")) << unknown.err;
  EXPECT_EQ(ktune("space x.json --no-such-option").exit_code, 2);
  EXPECT_EQ(ktune("space x.json --max-threads -5").exit_code, 2);
}

TEST(Cli, VersionAndHelp) {
  const Result version = ktune("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(contains(version.out, "ktune ")) << version.out;
  const Result help = ktune("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(contains(help.out, "space")) << help.out;
  const Result space_help = ktune("space --help");
  EXPECT_EQ(space_help.exit_code, 0);
  EXPECT_TRUE(contains(space_help.out, "--verify-brute-force")) << space_help.out;
}

// The `make run` job: the Hotspot space matches the reference counts of the search-space set.
TEST(SpaceCommand, HotspotMatchesTheReference) {
  const std::string file = std::string(KTUNE_SHARED_DIR) + "/data/searchspaces/realworld/hotspot.json";
  const Result run = ktune("space " + quoted(file) + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  const nlohmann::json index = nlohmann::json::parse(read_text(std::string(KTUNE_SHARED_DIR) + "/data/searchspaces/index.json"));
  for (const auto& entry : index.at("realworld")) {
    if (entry.at("file") != "realworld/hotspot.json") continue;
    EXPECT_EQ(j.at("cartesian_size"), entry.at("cartesian_size"));
    EXPECT_EQ(j.at("valid_configs"), entry.at("valid_configs"));
  }
  EXPECT_EQ(j.at("valid_configs"), 349853);
}

// A space of millions of configurations in one group is listed bit-packed: the JSON and the text say so, and it
// holds a few bytes per configuration (plain rows and a hash index: about 14).
TEST(SpaceCommand, MillionsOfConfigurationsAreListedBitPacked) {
  const std::string file = write_temp("sum.json", R"json({"General": {"BenchmarkName": "sum", "OutputFormat": "JSON"},
 "ConfigurationSpace": {
  "TuningParameters": [
   {"Name": "a", "Type": "int", "Values": "list(range(1, 17))"},
   {"Name": "b", "Type": "int", "Values": "list(range(1, 17))"},
   {"Name": "c", "Type": "int", "Values": "list(range(1, 17))"},
   {"Name": "d", "Type": "int", "Values": "list(range(1, 17))"},
   {"Name": "e", "Type": "int", "Values": "list(range(1, 17))"},
   {"Name": "f", "Type": "int", "Values": "list(range(1, 17))"}],
  "Conditions": [{"Expression": "a + b + c + d + e + f <= 52", "Parameters": ["a", "b", "c", "d", "e", "f"]}]}})json");
  const Result run = ktune("space " + quoted(file) + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("form"), "materialised");
  EXPECT_EQ(j.at("packed"), true);
  EXPECT_EQ(j.at("valid_configs"), 9253168);  // 6-tuples of 1..16 summing to at most 52 (counted by a convolution)
  EXPECT_LT(j.at("memory_bytes").get<double>() / 9253168.0, 6.0);
  const Result text = ktune("space " + quoted(file));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "every valid configuration listed, bit-packed")) << text.out;
}

// A space too large to list: lazy by default, its groups named; the materialised form is refused with a reason.
TEST(SpaceCommand, SpaceOfTrillionsIsHeldLazily) {
  const std::string file = std::string(KTUNE_SHARED_DIR) + "/data/searchspaces/big/gpu_like_14x8.json";
  const Result run = ktune("space " + quoted(file) + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("form"), "lazy");
  EXPECT_EQ(j.at("valid_configs"), 335816740864u);  // 319 * 139 * 43 * 43 * 8^4
  EXPECT_EQ(j.at("group_sizes"), nlohmann::json({319, 139, 43, 43, 8, 8, 8, 8}));
  EXPECT_LT(j.at("memory_bytes").get<double>(), 1e6);
  const Result text = ktune("space " + quoted(file));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "form         lazy: the product of 8 groups")) << text.out;
  const Result listed = ktune("space " + quoted(file) + " --form materialised");
  EXPECT_EQ(listed.exit_code, 1);
  EXPECT_TRUE(contains(listed.err, "more than 2^32-2 cannot be listed")) << listed.err;
  EXPECT_TRUE(contains(listed.err, "8 independent groups")) << listed.err;
  const Result exported = ktune("space " + quoted(file) + " --export " +
                                 quoted((ktune::testing::cli_temp_dir() / "all.csv").string()));
  EXPECT_EQ(exported.exit_code, 2);
  EXPECT_TRUE(contains(exported.err, "335,816,740,864 valid configurations")) << exported.err;
  // A small space can be made lazy on request and counts the same.
  const std::string hotspot = std::string(KTUNE_SHARED_DIR) + "/data/searchspaces/realworld/dedispersion.json";
  const Result lazy = ktune("space " + quoted(hotspot) + " --form lazy --json");
  const Result plain = ktune("space " + quoted(hotspot) + " --json");
  ASSERT_EQ(lazy.exit_code, 0) << lazy.err;
  EXPECT_EQ(nlohmann::json::parse(lazy.out).at("valid_configs"), nlohmann::json::parse(plain.out).at("valid_configs"));
  EXPECT_EQ(ktune("space " + quoted(hotspot) + " --form eager").exit_code, 2);
}

}  // namespace
