#pragma once
// An observer on the tuner's side of the worker process (Kernel Tuner's BenchmarkObserver, written in Python): told
// when each timed launch of a configuration is about to start, has started and has finished, and polled while it
// runs, as Kernel Tuner's benchmark loop calls its observers; asked for its measurements once per configuration.
// The worker waits for before_start() to return before it launches, so what the observer reads there (a power
// sensor's state, a clock) is taken before the kernel runs. Observers that need the device's own counters in the
// worker's process are Observer (observer.hpp).
#include <span>
#include <vector>

#include "ktune/live/backend.hpp"
#include "ktune/live/observer.hpp"
#include "ktune/value.hpp"

namespace ktune::live {

class LaunchObserver {
 public:
  virtual ~LaunchObserver() = default;
  // Once the backend is up (and again after a worker restart): the device the kernels run on.
  virtual void register_device(const DeviceInfo& device) { (void)device; }
  // Before the timed launches of a configuration: its values, in the order of the problem's parameters.
  virtual void register_configuration(std::span<const Value> config) { (void)config; }
  virtual void before_start() {}
  virtual void after_start() {}
  // While a launch runs, about once a millisecond.
  virtual void during() {}
  virtual void after_finish() {}
  // The measurements over the configuration's timed launches (Kernel Tuner's get_results), once after them.
  virtual std::vector<Observation> results() = 0;
};

}  // namespace ktune::live
