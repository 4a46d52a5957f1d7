// Issue 19 items 3, 8 and 9 end to end: integer overflow counted the same way by the solver and by
// --verify-brute-force; unknown names and constant errors in every kind of expression (conditions, value lists,
// Metrics of a T1 KernelSpecification, --derive) refused when the input is loaded, with a caret; and error positions
// 1-based in every reader's messages.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "run_ktune.hpp"
#include "shared_data.hpp"

namespace {

using namespace ktune::testing;

// The problem file with one condition (and block_size_x values 1..256).
std::string problem_with(const std::string& name, const std::string& condition) {
  nlohmann::json doc;
  doc["General"] = {{"BenchmarkName", name}};
  doc["ConfigurationSpace"]["TuningParameters"] = nlohmann::json::array(
      {{{"Name", "block_size_x"}, {"Type", "int"}, {"Values", "[2**i for i in range(9)]"}},
       {{"Name", "tile"}, {"Type", "int"}, {"Values", "[1, 2, 3]"}}});
  doc["ConfigurationSpace"]["Conditions"] = nlohmann::json::array({{{"Expression", condition}}});
  return cli_write_temp(name + ".json", doc.dump(1));
}

// The column of the caret under `source` in a message, 0-based relative to the source's first character.
long caret_offset(const std::string& message, const std::string& source) {
  const auto source_at = message.find(source);
  if (source_at == std::string::npos) return -1;
  const auto line_start = message.rfind('\n', source_at) + 1;
  const auto caret = message.find('^', source_at);
  if (caret == std::string::npos) return -1;
  const auto caret_line_start = message.rfind('\n', caret) + 1;
  return static_cast<long>(caret - caret_line_start) - static_cast<long>(source_at - line_start);
}

TEST(ExpressionErrorsCli, OverflowAgreesWithBruteForce) {
  // Was: 9 valid configurations from the solver, 0 from --verify-brute-force (exit 3).
  const std::string file = problem_with("overflow", "block_size_x * 2**62 // 2**62 == block_size_x");
  const KtuneRun run = run_ktune("space " + quoted(file) + " --verify-brute-force --json");
  ASSERT_EQ(run.exit_code, 0) << run.err << run.out;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("valid_configs"), 3);  // block_size_x == 1, any tile
  EXPECT_EQ(j.at("brute_force").at("ok"), true);
  EXPECT_EQ(j.at("evaluation_errors"), 8);  // block sizes 2..256 overflow
  ASSERT_EQ(j.at("evaluation_error_messages").size(), 1u);
  EXPECT_TRUE(contains(j.at("evaluation_error_messages")[0].get<std::string>(), "OverflowError"));
}

TEST(ExpressionErrorsCli, ConstantErrorsInConditionsAreLoadErrorsWithACaret) {
  for (const auto& [condition, column, message] :
       {std::tuple<std::string, long, std::string>{"2**63 > 0", 1, "OverflowError"},
        {"tile % 0 == 1", 5, "ZeroDivisionError"},
        {"tile * len(4) > 2", 11, "type mismatch: len() argument 1"},  // the type checker's words, at the argument
        {"block_size_x <= max([]) and tile > 1", 16, "always raises ValueError"}}) {
    SCOPED_TRACE(condition);
    const std::string file = problem_with("constant_error", condition);
    const KtuneRun run = run_ktune("space " + quoted(file) + " --json");
    EXPECT_EQ(run.exit_code, 1) << run.out;
    EXPECT_TRUE(run.out.empty()) << run.out;
    EXPECT_TRUE(contains(run.err, message)) << run.err;
    EXPECT_TRUE(contains(run.err, "constraint 1")) << run.err;
    EXPECT_TRUE(contains(run.err, "(column " + std::to_string(column + 1) + ")")) << run.err;
    EXPECT_EQ(caret_offset(run.err, condition), column) << run.err;
  }
}

// The C++ vector_add example with its Metrics replaced.
std::string vector_add_with_metrics(const std::string& name, const nlohmann::json& metrics) {
  const std::string example = std::string(KTUNE_SOURCE_DIR) + "/examples/vector_add/vector_add_cpp.json";
  auto doc = nlohmann::ordered_json::parse(read_text(example));
  doc["KernelSpecification"]["KernelFile"] = std::string(KTUNE_SOURCE_DIR) + "/examples/vector_add/vector_add.c";
  doc["KernelSpecification"]["Metrics"] = nlohmann::ordered_json::parse(metrics.dump());
  return cli_write_temp(name + ".json", doc.dump(1));
}

TEST(ExpressionErrorsCli, MetricWithATypoIsALoadErrorNotNaN) {
  // Was: every configuration measured, GB/s NaN, exit 0.
  const std::string metric = "3*4*1048576/(tme/1e3)/1e9";
  const std::string file = vector_add_with_metrics("typo_metric", {{"GB/s", metric}});
  const KtuneRun run = run_ktune("tune " + quoted(file) + " --max-fevals 2 --quiet");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_TRUE(contains(run.err, "metric 'GB/s'")) << run.err;
  EXPECT_TRUE(contains(run.err, "unknown name 'tme' (column 14)")) << run.err;
  EXPECT_EQ(caret_offset(run.err, metric), 13) << run.err;

  const std::string divide = "time % 0";
  const std::string file2 = vector_add_with_metrics("zero_metric", {{"x", divide}});
  const KtuneRun run2 = run_ktune("tune " + quoted(file2) + " --max-fevals 2 --quiet");
  EXPECT_EQ(run2.exit_code, 1) << run2.out << run2.err;
  EXPECT_TRUE(contains(run2.err, "ZeroDivisionError")) << run2.err;
  EXPECT_EQ(caret_offset(run2.err, divide), 5) << run2.err;
}

TEST(ExpressionErrorsCli, DerivedMeasurementNamesAreCheckedBeforeAnyRecord) {
  const std::string cache = shared_path("data/kernel_tuner/test_cache_file.json");
  KtuneRun run = run_ktune("tune --simulate " + quoted(cache) + " --derive 'x=block_size_x*tme' --max-fevals 3");
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_TRUE(contains(run.err, "derived measurement 'x': unknown name 'tme' (column 14)")) << run.err;
  EXPECT_FALSE(contains(run.err, "for configuration")) << run.err;  // not found while evaluating a record
  EXPECT_EQ(caret_offset(run.err, "block_size_x*tme"), 13) << run.err;
  run = run_ktune("tune --simulate " + quoted(cache) + " --derive 'x=time // 0' --max-fevals 3");
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_TRUE(contains(run.err, "ZeroDivisionError")) << run.err;
  EXPECT_EQ(caret_offset(run.err, "time // 0"), 5) << run.err;
  // Names the records do have are fine: parameters, measurements, the step times.
  run = run_ktune("tune --simulate " + quoted(cache) + " --derive 'x=block_size_x*time+compile_time' --max-fevals 3");
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(ExpressionErrorsCli, PositionsAreOneBasedInEveryReader) {
  // JSON syntax: byte, line and column of the same character all count from 1.
  const std::string broken = cli_write_temp("broken_positions.json", "{\"ConfigurationSpace\": [1,\n 2,, 3]}");
  KtuneRun run = run_ktune("space " + quoted(broken));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "at byte 31 (line 2, column 4)")) << run.err;
  // An expression: the column of the caret, counted from 1.
  const std::string condition = "tile * blok_size_y <= 4";
  run = run_ktune("space " + quoted(problem_with("unknown_name", condition)));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "unknown name 'blok_size_y' (column 8)")) << run.err;
  EXPECT_EQ(caret_offset(run.err, condition), 7) << run.err;
  // A value list: the position of the value, counted from 1.
  nlohmann::json doc;
  doc["ConfigurationSpace"]["TuningParameters"] =
      nlohmann::json::array({{{"Name", "x"}, {"Type", "int"}, {"Values", "[1, 2, 2.5]"}}});
  run = run_ktune("space " + quoted(cli_write_temp("value_position.json", doc.dump())));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "got float 2.5 at position 3")) << run.err;
  // A value-list expression that raises: the caret under the operation.
  doc["ConfigurationSpace"]["TuningParameters"][0]["Values"] = "[1, 2, 3 // 0]";
  run = run_ktune("space " + quoted(cli_write_temp("value_error.json", doc.dump())));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(contains(run.err, "ZeroDivisionError: integer division or modulo by zero (column 10)")) << run.err;
  EXPECT_EQ(caret_offset(run.err, "[1, 2, 3 // 0]"), 9) << run.err;
}

}  // namespace
