#pragma once
// A listener that requests a stop after `after` evaluations, as Ctrl-C does (tests of interrupted runs).
#include <cstddef>

#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/interruption.hpp"

namespace ktune::testing {

class StopAfter final : public TuningListener {
 public:
  explicit StopAfter(std::size_t after) : after_(after) {}
  void on_evaluation(const CostFunction& cost, std::size_t) override {
    if (cost.evaluations() >= after_) request_stop();
  }

 private:
  std::size_t after_;
};

}  // namespace ktune::testing
