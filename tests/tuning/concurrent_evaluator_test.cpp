// ConcurrentEvaluator: several devices measuring at once give the run one device gives (same seed: the same
// configurations in the same order with the same results, for batch strategies and one-at-a-time ones), a device
// never measures two configurations at once while different devices do overlap, a lost device loses only its
// in-flight configuration, and a stop ends the run with what was asked.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ktune/search_space.hpp"
#include "ktune/tuning/concurrent_evaluator.hpp"
#include "ktune/tuning/interruption.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"
#include "stop_after.hpp"

namespace ktune {
namespace {

using testing::StopAfter;

using Clock = std::chrono::steady_clock;

struct Interval {
  std::size_t device;
  Clock::time_point start, end;
};

// What every device logs (shared between the devices' threads).
struct LaunchLog {
  std::mutex mutex;
  std::vector<Interval> intervals;
  std::vector<std::size_t> order;  // configurations in the order their measurements started
};

// A deterministic device: the "time" of a configuration is a function of its index alone (every 7th fails), a
// measurement takes `sleep`; it throws DeviceLost at its `lose_at`-th evaluation.
class FakeDevice final : public Evaluator {
 public:
  FakeDevice(const SearchSpace& space, std::size_t id, LaunchLog* log, std::chrono::microseconds sleep = {},
             std::size_t lose_at = 0)
      : space_(space), id_(id), log_(log), sleep_(sleep), lose_at_(lose_at) {}
  const std::vector<Objective>& objectives() const override { return objectives_; }
  bool simulated() const override { return false; }
  EvaluationOutcome evaluate(std::size_t index) override {
    if (++evaluations_ == lose_at_) throw DeviceLost("fake device " + std::to_string(id_) + " fell off the bus");
    const auto start = Clock::now();
    if (sleep_.count() > 0) std::this_thread::sleep_for(sleep_);
    if (log_) {
      std::lock_guard lock(log_->mutex);
      log_->intervals.push_back({id_, start, Clock::now()});
      log_->order.push_back(index);
    }
    EvaluationRecord r;
    r.config = space_.values_at(index);
    r.status = index % 7 == 3 ? Status::runtime_failed : Status::ok;
    value_ = {r.status == Status::ok ? 1.0 + std::fmod(static_cast<double>(index) * 0.618034, 1.0) * 10.0 : std::nan("")};
    if (r.status == Status::ok) r.measurements.push_back({"time", Value(value_[0]), "ms"});
    r.runtimes_ms = {value_[0]};
    records_[index] = r;
    return {r.status, value_, 1.0};
  }
  EvaluationRecord record(std::size_t index) const override { return records_.at(index); }
  std::string device_name() const override { return "fake device"; }

 private:
  const SearchSpace& space_;
  std::size_t id_;
  LaunchLog* log_;
  std::chrono::microseconds sleep_;
  std::size_t lose_at_;
  std::size_t evaluations_ = 0;
  std::vector<Objective> objectives_{{"time", false}};
  std::vector<double> value_;
  std::map<std::size_t, EvaluationRecord> records_;
};

const SearchSpace& test_space() {
  static const SearchSpace space = SearchSpace::build(ProblemBuilder("concurrent")
                                                          .parameter("a", {1, 2, 4, 8, 16, 32})
                                                          .parameter("b", {1, 2, 3, 4, 5})
                                                          .parameter("c", {0, 1, 2, 3})
                                                          .constraint("a * b <= 64")
                                                          .build());
  return space;
}

struct TracedRun {
  std::vector<std::size_t> order;
  std::vector<Status> statuses;
  std::vector<double> values;
  std::vector<std::string> configs;
  StopReason stop = StopReason::strategy_finished;
};

TracedRun run(Evaluator& evaluator, const std::string& strategy_name, std::uint64_t max_evaluations,
        std::vector<TuningListener*> listeners = {}, std::size_t pending = 0) {
  auto strategy = make_strategy(strategy_name, {});
  TuningOptions options;
  options.pending_evaluations = pending;
  options.budget.max_evaluations = max_evaluations;
  options.seed = 11;
  options.listeners = std::move(listeners);
  const TuningResult result = tune(test_space(), evaluator, *strategy, options);
  TracedRun r;
  r.stop = result.stop_reason;
  for (std::size_t p = 0; p < result.trace.size(); ++p) {
    const auto& e = result.trace[p];
    r.order.push_back(e.index);
    r.statuses.push_back(e.status);
    r.values.push_back(result.trace.values(p)[0]);
    std::string text;
    for (const Value& v : evaluator.record(e.index).config) text += v.repr() + ",";
    r.configs.push_back(text);
  }
  return r;
}

std::unique_ptr<ConcurrentEvaluator> devices(std::size_t n, LaunchLog* log, std::chrono::microseconds sleep = {},
                                             std::vector<std::size_t> lose_at = {},
                                             std::function<void(std::size_t, const std::string&)> on_lost = {}) {
  std::vector<std::unique_ptr<Evaluator>> d;
  for (std::size_t i = 0; i < n; ++i)
    d.push_back(std::make_unique<FakeDevice>(test_space(), i, log, sleep, i < lose_at.size() ? lose_at[i] : 0));
  return std::make_unique<ConcurrentEvaluator>(std::move(d), std::move(on_lost));
}

void expect_same(const TracedRun& a, const TracedRun& b) {
  ASSERT_EQ(a.order, b.order);
  EXPECT_EQ(a.statuses, b.statuses);
  EXPECT_EQ(a.configs, b.configs);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    if (!std::isnan(a.values[i]) || !std::isnan(b.values[i])) {
      EXPECT_EQ(a.values[i], b.values[i]) << i;
    }
  }
  EXPECT_EQ(a.stop, b.stop);
}

TEST(ConcurrentEvaluator, SeveralDevicesGiveTheRunOfOne) {
  // Batch strategies (brute force, GA, DE, PSO, random, firefly) and one-at-a-time ones alike.
  for (const char* strategy : {"brute_force", "genetic_algorithm", "diff_evo", "pso", "random_sample",
                               "firefly_algorithm", "simulated_annealing", "hybrid_vndx"}) {
    SCOPED_TRACE(strategy);
    FakeDevice one(test_space(), 0, nullptr);
    const TracedRun sequential = run(one, strategy, 60);
    auto three = devices(3, nullptr, std::chrono::microseconds(200));
    const TracedRun concurrent = run(*three, strategy, 60);
    expect_same(sequential, concurrent);
    EXPECT_EQ(sequential.order.size(), 60u);
  }
}

TEST(ConcurrentEvaluator, ADeviceMeasuresOneAtATimeAndDevicesOverlap) {
  LaunchLog log;
  auto three = devices(3, &log, std::chrono::microseconds(3000));
  const TracedRun r = run(*three, "brute_force", 1000);
  EXPECT_EQ(r.order.size(), test_space().size());
  const auto delivered = three->evaluations_per_device();
  std::size_t total = 0;
  for (std::size_t d = 0; d < 3; ++d) {
    EXPECT_GT(delivered[d], 0u) << "device " << d << " measured nothing";
    total += delivered[d];
  }
  EXPECT_EQ(total, test_space().size());
  std::size_t overlapping = 0;
  for (std::size_t i = 0; i < log.intervals.size(); ++i)
    for (std::size_t j = i + 1; j < log.intervals.size(); ++j) {
      const Interval& a = log.intervals[i];
      const Interval& b = log.intervals[j];
      const bool overlap = a.start < b.end && b.start < a.end;
      if (a.device == b.device) {
        EXPECT_FALSE(overlap) << "device " << a.device << " measured two at once";
      } else if (overlap) {
        ++overlapping;
      }
    }
  EXPECT_GT(overlapping, test_space().size() / 4) << "the devices did not measure side by side";
}

TEST(ConcurrentEvaluator, ALostDeviceLosesOnlyItsInFlightConfiguration) {
  for (const char* strategy : {"brute_force", "genetic_algorithm"}) {
    SCOPED_TRACE(strategy);
    FakeDevice single(test_space(), 0, nullptr);
    const TracedRun expected = run(single, strategy, 80);
    std::vector<std::pair<std::size_t, std::string>> told;
    const auto caller = std::this_thread::get_id();
    auto three = devices(3, nullptr, std::chrono::microseconds(300), {0, 5, 0},
                         [&](std::size_t d, const std::string& why) {
                           EXPECT_EQ(std::this_thread::get_id(), caller) << "told on a device's thread";
                           told.emplace_back(d, why);
                         });
    const TracedRun concurrent = run(*three, strategy, 80);
    expect_same(expected, concurrent);
    ASSERT_EQ(told.size(), 1u);  // once, on the caller's thread
    EXPECT_EQ(told[0].first, 1u);
    EXPECT_NE(told[0].second.find("fell off the bus"), std::string::npos);
    const auto lost = three->lost_devices();
    EXPECT_EQ(lost[0], "");
    EXPECT_NE(lost[1].find("fell off the bus"), std::string::npos) << lost[1];
    EXPECT_EQ(three->evaluations_per_device()[1], 4u);  // its fifth was measured elsewhere
  }
}

TEST(ConcurrentEvaluator, EveryDeviceLostEndsTheRunWithAnError) {
  auto two = devices(2, nullptr, {}, {3, 2});
  try {
    run(*two, "brute_force", 100);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("every device was lost"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fake device 1 fell off the bus"), std::string::npos) << e.what();
  }
}

TEST(ConcurrentEvaluator, AStopKeepsWhatWasAskedAndDropsWhatWasMeasuredAhead) {
  auto three = devices(3, nullptr, std::chrono::microseconds(1000));
  StopAfter stop(7);
  const TracedRun r = run(*three, "brute_force", 1000, {&stop});
  clear_stop_request();
  EXPECT_EQ(r.stop, StopReason::interrupted);
  EXPECT_EQ(r.order.size(), 7u);
  FakeDevice one(test_space(), 0, nullptr);
  const TracedRun sequential = run(one, "brute_force", 7);
  EXPECT_EQ(r.order, sequential.order);
  EXPECT_EQ(r.statuses, sequential.statuses);
}

std::size_t overlaps(const LaunchLog& log) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < log.intervals.size(); ++i)
    for (std::size_t j = i + 1; j < log.intervals.size(); ++j) {
      const Interval& a = log.intervals[i];
      const Interval& b = log.intervals[j];
      n += a.start < b.end && b.start < a.end;
    }
  return n;
}

// Firefly moves one firefly at a time, but announces its (constraint-aware) starting swarm: the devices measure it
// side by side.
TEST(ConcurrentEvaluator, FireflysStartingSwarmRunsOnSeveralDevices) {
  LaunchLog log;
  auto three = devices(3, &log, std::chrono::microseconds(1500));
  run(*three, "firefly_algorithm", 30);
  // The swarm is 9 here (a tenth of the space): three rounds of three. Without the announcement: none.
  EXPECT_GE(overlaps(log), 4u);
}

// One-at-a-time strategies keep one device busy; with a constant liar (pending evaluations) they keep several busy,
// and the run depends on the number of pending evaluations, never on the devices or on timing.
TEST(ConcurrentEvaluator, AConstantLiarKeepsSeveralDevicesBusyReproducibly) {
  for (const char* strategy : {"simulated_annealing", "greedy_mls", "basinhopping"}) {
    SCOPED_TRACE(strategy);
    LaunchLog alone_log;
    auto alone = devices(3, &alone_log, std::chrono::microseconds(1500));
    const TracedRun without_liar = run(*alone, strategy, 40);
    EXPECT_EQ(overlaps(alone_log), 0u) << "a one-at-a-time strategy measured two at once without a liar";

    FakeDevice sequential(test_space(), 0, nullptr);
    const TracedRun one = run(sequential, strategy, 40, {}, 2);
    LaunchLog log;
    auto three = devices(3, &log, std::chrono::microseconds(1500));
    const TracedRun concurrent = run(*three, strategy, 40, {}, 2);
    expect_same(one, concurrent);
    EXPECT_EQ(concurrent.order.size(), 40u);
    EXPECT_GT(overlaps(log), 5u) << "the pending evaluations did not run side by side";
    // What the trace records are measurements, never the lies.
    for (std::size_t i = 0; i < concurrent.order.size(); ++i) {
      if (concurrent.statuses[i] != Status::ok) continue;
      const double expected = 1.0 + std::fmod(static_cast<double>(concurrent.order[i]) * 0.618034, 1.0) * 10.0;
      EXPECT_EQ(concurrent.values[i], expected);
    }
  }
  // Batch strategies measure their batches as they are: the liar changes nothing for them.
  FakeDevice a(test_space(), 0, nullptr), b(test_space(), 0, nullptr);
  expect_same(run(a, "genetic_algorithm", 50), run(b, "genetic_algorithm", 50, {}, 3));
}

TEST(ConcurrentEvaluator, RefusesNoDevices) {
  EXPECT_THROW(ConcurrentEvaluator(std::vector<std::unique_ptr<Evaluator>>{}), std::invalid_argument);
}

}  // namespace
}  // namespace ktune
