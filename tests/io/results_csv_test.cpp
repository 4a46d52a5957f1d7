// write_results_csv: one RFC 4180 row per record.
#include <cmath>
#include <sstream>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ktune::io
