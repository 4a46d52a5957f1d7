// write_results_csv: one RFC 4180 row per record; parse_results_csv reads it back, so that writing what was read
// gives the same text.
#include <cmath>
#include <sstream>

#include <gtest/gtest.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/results_csv.hpp"

namespace ktune::io {
namespace {

TEST(ResultsCsv, ColumnsQuotingAndEmptyCells) {
  const Problem problem = ProblemBuilder("p").parameter("bx", {32, 64}).parameter("alg", {"a,b", "plain"}).build();
  std::vector<EvaluationRecord> records(3);
  records[0].config = {32, "a,b"};
  records[0].measurements = {{"time", 1.5, "ms"}, {"GFLOP/s", std::int64_t{12}, ""}, {"note", "text", ""}};
  records[0].runtimes_ms = {1.0, 2.0};
  records[0].compile_ms = 0.1;
  records[0].benchmark_ms = 4;
  records[0].clock_ms = 1500;
  records[0].timestamp = "2024-01-01 00:00:00+00:00";
  records[1].config = {64, "plain"};
  records[1].status = Status::compile_failed;
  records[1].message = "error: \"x\" undeclared\nline 2";
  records[1].measurements = {{"time", "CompilationFailedConfig", ""}};
  records[1].compile_ms = NAN;
  records[2].config = {64, "a,b"};
  records[2].measurements = {{"energy", 0.25, "J"}, {"GFLOP/s", 1e-05, ""}};
  records[2].runtimes_ms = {3.0};  // "time" from the runtimes
  std::ostringstream out;
  write_results_csv(out, problem, records, {"time"});
  EXPECT_EQ(out.str(),
            "bx,alg,status,time,GFLOP/s,energy,compile_ms,benchmark_ms,verification_ms,framework_ms,strategy_ms,clock_s,"
            "timestamp,message\r\n"
            "32,\"a,b\",ok,1.5,12,,0.1,4,0,0,0,1.5,2024-01-01 00:00:00+00:00,\r\n"
            "64,plain,compile-failed,,,,,0,0,0,0,,,\"error: \"\"x\"\" undeclared\nline 2\"\r\n"
            "64,\"a,b\",ok,3,1e-05,0.25,0,0,0,0,0,,,\r\n");
  records[0].config.pop_back();
  EXPECT_THROW(write_results_csv(out, problem, records, {"time"}), std::invalid_argument);
}

TEST(ResultsCsv, NoRecordsGiveTheHeader) {
  const Problem problem = ProblemBuilder("p").parameter("x", {1}).build();
  std::ostringstream out;
  write_results_csv(out, problem, {}, {"time", "energy"});
  EXPECT_EQ(out.str(), "x,status,time,energy,compile_ms,benchmark_ms,verification_ms,framework_ms,strategy_ms,clock_s,"
                       "timestamp,message\r\n");
}

const char* kWritten =
    "bx,alg,status,time,GFLOP/s,energy,compile_ms,benchmark_ms,verification_ms,framework_ms,strategy_ms,clock_s,"
    "timestamp,message\r\n"
    "32,\"a,b\",ok,1.5,12,,0.1,4,0,0,0,1.5,2024-01-01 00:00:00+00:00,\r\n"
    "64,plain,compile-failed,,,,,0,0,0,0,,,\"error: \"\"x\"\" undeclared\nline 2\"\r\n"
    "64,\"a,b\",ok,3,1e-05,0.25,0,0,0,0,0,0.30000000000000004,,\r\n";

std::string rewritten(const ResultsFile& file) {
  std::ostringstream out;
  write_results_csv(out, file.problem, file.records, file.objectives);
  return out.str();
}

TEST(ResultsCsv, ReadsWhatItWritesAndWritesTheSameText) {
  const ResultsFile file = parse_results_csv(kWritten, "r.csv");
  EXPECT_EQ(file.format, ResultsFormat::Csv);
  ASSERT_EQ(file.problem.parameters.size(), 2u);
  EXPECT_EQ(file.problem.parameters[0].values.size(), 2u);  // 32, 64: ascending
  EXPECT_EQ(file.problem.parameters[0].values[0].as_int(), 32);
  EXPECT_EQ(file.problem.parameters[1].values[0].as_string(), "a,b");
  EXPECT_EQ(file.objectives, std::vector<std::string>{"time"});
  ASSERT_EQ(file.records.size(), 3u);
  EXPECT_EQ(file.records[1].status, Status::compile_failed);
  EXPECT_EQ(file.records[1].message, "error: \"x\" undeclared\nline 2");
  EXPECT_TRUE(std::isnan(file.records[1].compile_ms));
  EXPECT_EQ(*file.records[0].objective("time"), 1.5);
  EXPECT_EQ(file.records[0].clock_ms, 1500);
  EXPECT_EQ(rewritten(file), kWritten);
}

TEST(ResultsCsv, LineFeedsAndBlankLinesAreRead) {
  const ResultsFile file = parse_results_csv("x,status,time\n1,ok,2.5\n\n2,timeout,\n", "lf.csv");
  ASSERT_EQ(file.records.size(), 2u);
  EXPECT_EQ(file.records[1].status, Status::timeout);
  EXPECT_FALSE(file.records[1].objective("time"));
}

TEST(ResultsCsv, BadInputNamesTheFileLineAndColumn) {
  const auto error = [](const std::string& text) {
    try {
      (void)parse_results_csv(text, "bad.csv");
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "bad.csv");
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("").find("empty"), std::string::npos);
  EXPECT_NE(error("x,time\n1,2\n").find("no 'status' column"), std::string::npos);
  EXPECT_NE(error("status,time\nok,1\n").find("no parameter columns"), std::string::npos);
  EXPECT_NE(error("x,status,time\n1,ok\n").find("line 2"), std::string::npos);
  const std::string status = error("x,status,time\n1,ok,1\n2,exploded,1\n");
  EXPECT_NE(status.find("line 3, column 'status'"), std::string::npos) << status;
  EXPECT_NE(status.find("'exploded'"), std::string::npos) << status;
  EXPECT_NE(error("x,status,compile_ms\n1,ok,fast\n").find("column 'compile_ms'"), std::string::npos);
  EXPECT_NE(error("x,status\n\"1,ok\n").find("not closed"), std::string::npos);
  EXPECT_NE(error("x,status\n1\"2,ok\n").find("quote inside"), std::string::npos);
  EXPECT_NE(error("x,status\n1,ok\n1.0,ok\n").find("no error"), std::string::npos);  // 1 and 1.0: one value
}

}  // namespace
}  // namespace ktune::io
