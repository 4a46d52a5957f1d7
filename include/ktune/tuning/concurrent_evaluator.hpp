#pragma once
// Several devices measuring at once for one strategy: one evaluator per device (a live evaluator on GPU 0, one on
// GPU 1, or a proxy for an MPI rank), each driven by its own thread, so that every device measures one configuration
// at a time and never two (a device's measurements stay undisturbed by its own work).
//
// The strategy still asks one configuration at a time and gets the results in the order it asked. What makes the
// devices work together is its batches: the configurations a strategy announces (Evaluator::prepare, a population,
// a swarm, the next brute-force block) are queued, and every idle device takes the next one, so a batch of N runs
// on N devices at once. The result of a configuration does not depend on which device measured it nor on when, so
// a run gives the results of a single-device run with the same seed (timings aside): asking order, not finishing
// order, decides everything. What was measured ahead but never asked (the budget ended first) is dropped.
//
// A device whose evaluator throws DeviceLost (an MPI rank that died, a GPU that fell off the bus) is retired: the
// configuration it had in flight goes back to the front of the queue for the remaining devices. Only when every
// device is lost does evaluate() fail.
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ktune/tuning/evaluator.hpp"

namespace ktune {

// Thrown by a device's evaluator when that device can no longer evaluate anything; what it had in flight is not
// lost, it is evaluated elsewhere.
class DeviceLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ConcurrentEvaluator final : public Evaluator {
 public:
  // `devices`: at least one, with the same objectives. Their device names are compared by the caller (pooling
  // results of different device models is the caller's decision). The devices' threads start here. `on_lost` hears
  // of each lost device (its position in `devices`, why), on the thread that calls evaluate().
  explicit ConcurrentEvaluator(std::vector<std::unique_ptr<Evaluator>> devices,
                               std::function<void(std::size_t device, const std::string& why)> on_lost = {});
  // Waits for the measurements in flight to end (they are dropped) and stops the devices' threads.
  ~ConcurrentEvaluator() override;
  ConcurrentEvaluator(const ConcurrentEvaluator&) = delete;
  ConcurrentEvaluator& operator=(const ConcurrentEvaluator&) = delete;

  const std::vector<Objective>& objectives() const override;
  bool simulated() const override;
  // Waits for `index` (measured ahead, in flight, or started now on the next idle device). Throws Interrupted when
  // a stop was requested, the device's own error for a device that failed otherwise, and std::runtime_error when
  // every device is lost.
  EvaluationOutcome evaluate(std::size_t index) override;
  // Queues `upcoming` (replacing the previous queue) for the idle devices.
  void prepare(std::span<const std::size_t> upcoming) override;
  bool wants_prepare() const override { return true; }
  EvaluationRecord record(std::size_t index) const override;
  std::string device_name() const override;
  std::string kernel_name() const override;

  std::size_t device_count() const;
  // The evaluations each device delivered (asked or not), and which devices were lost and why ("" when not).
  std::vector<std::size_t> evaluations_per_device() const;
  std::vector<std::string> lost_devices() const;
  // Configurations measured ahead that no one asked for (so far): the cost of measuring ahead.
  std::size_t unused_evaluations() const;
  // The evaluator of device i (for its details: device information, workers started).
  Evaluator& device(std::size_t i) const;

 private:
  struct Shared;
  std::unique_ptr<Shared> shared_;
  std::vector<double> values_;  // of the last evaluate()
};

}  // namespace ktune
