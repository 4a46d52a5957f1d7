// Issue 33 item 14: `hypertune` that scored nothing exited 0 with no reason. nothing_scored() says why, naming the
// first failure; a run that scored something, or was interrupted, is not refused.
#include <gtest/gtest.h>

#include <cmath>

#include "ktune/jobs/hypertuning.hpp"
#include "ktune/tuning/trace.hpp"

namespace ktune {
namespace {

ScoredSettingRow failed_row(std::string label, std::string message) {
  ScoredSettingRow row;
  row.label = std::move(label);
  row.status = Status::runtime_failed;
  row.score = std::nan("");
  row.message = std::move(message);
  return row;
}

TEST(HypertuneNothingScored, SaysWhyNamingTheFirstFailure) {
  HypertuneOutcome out{TuningResult{Trace({Objective{"score", true}})}};
  EXPECT_EQ(nothing_scored(out), "no setting was scored (nothing was run)");
  out.rows = {failed_row("ga:popsize=2", ""), failed_row("ga:popsize=4", "the strategy threw: bad popsize")};
  EXPECT_EQ(nothing_scored(out),
            "none of the 2 settings tried could be scored: ga:popsize=4 (runtime-failed): the strategy threw: bad popsize");
  out.interrupted = true;  // an interrupted run says so itself
  EXPECT_EQ(nothing_scored(out), std::nullopt);
  out.interrupted = false;
  out.scored = 1;
  EXPECT_EQ(nothing_scored(out), std::nullopt);
}

}  // namespace
}  // namespace ktune
