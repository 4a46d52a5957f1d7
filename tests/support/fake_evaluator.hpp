#pragma once
// A deterministic evaluator for tests of the tuning core: objective and time are functions of the configuration
// index given by the test; chosen indices fail.
#include <cmath>
#include <functional>
#include <set>
#include <vector>

#include "ktune/search_space.hpp"
#include "ktune/tuning/evaluator.hpp"

namespace ktune::testing {

class FakeEvaluator final : public Evaluator {
 public:
  FakeEvaluator(const SearchSpace& space, std::function<double(std::size_t)> value,
                std::function<double(std::size_t)> time_ms, std::vector<Objective> objectives = {{"time", false}})
      : space_(space), value_(std::move(value)), time_ms_(std::move(time_ms)), objectives_(std::move(objectives)) {}

  std::set<std::size_t> failing;
  std::vector<std::size_t> calls;  // every evaluate() call, in order

  const std::vector<Objective>& objectives() const override { return objectives_; }
  bool simulated() const override { return true; }
  EvaluationOutcome evaluate(std::size_t index) override {
    calls.push_back(index);
    buffer_.assign(objectives_.size(), value_(index));
    if (failing.count(index)) {
      buffer_.assign(objectives_.size(), std::nan(""));
      return {Status::runtime_failed, buffer_, time_ms_(index)};
    }
    return {Status::ok, buffer_, time_ms_(index)};
  }
  EvaluationRecord record(std::size_t index) const override {
    EvaluationRecord r;
    r.config = space_.values_at(index);
    r.measurements.push_back({objectives_.front().name, Value(value_(index)), ""});
    r.compile_ms = time_ms_(index);
    r.status = failing.count(index) ? Status::runtime_failed : Status::ok;
    return r;
  }

 private:
  const SearchSpace& space_;
  std::function<double(std::size_t)> value_, time_ms_;
  std::vector<Objective> objectives_;
  std::vector<double> buffer_;
};

}  // namespace ktune::testing
