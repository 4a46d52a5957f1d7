#pragma once
// Observers measure something besides time over the timed launches of a configuration: energy and power where the
// machine exposes them. They live where the kernel runs (the worker process when isolated), are started after the
// warm-up launch and stopped after the last timed launch; what they report becomes measurements of the
// configuration (results, cache, metrics, objectives) under the names measurement_names() announces.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "ktune/live/backend.hpp"

namespace ktune::live {

struct Observation {
  std::string name;
  double value = 0;
  std::string unit;
};

class Observer {
 public:
  virtual ~Observer() = default;
  // The names stop() reports, every time.
  virtual std::vector<std::string> measurement_names() const = 0;
  // Throws std::runtime_error when the counters cannot be read (the configuration then fails, not the run).
  virtual void start() = 0;
  // Over the `launches` timed launches since start(), which took `elapsed_ms` of wall time.
  virtual std::vector<Observation> stop(std::size_t launches, double elapsed_ms) = 0;
};

// "powercap": Linux powercap (Intel/AMD RAPL) energy counters under `powercap_root`: CPU packages and their DRAM,
// for the cpp and opencl (PoCL) backends. Reports powercap_energy (J per launch) and powercap_power (W).
// "nvml": the NVIDIA driver's counters of the CUDA device `options.device` (libnvidia-ml, opened at run time).
// Reports nvml_energy (J per launch) and nvml_power (W), and where the device answers them, as Kernel Tuner's
// NVMLObserver does, temperature (C), core_freq and mem_freq (MHz): the means of readings taken every millisecond
// while the timed launches run.
struct ObserverOptions {
  std::string powercap_root = "/sys/class/powercap";
  int device = 0;
  std::string nvml_library;  // "": $KTUNE_NVML_LIBRARY, else the driver's libnvidia-ml.so.1
};

// The observer, or nullptr with `why_not` saying why it cannot observe on this machine (no counters, no permission,
// no driver). Throws std::invalid_argument for an unknown name.
std::unique_ptr<Observer> make_observer(const std::string& name, const ObserverOptions& options, std::string& why_not);
std::vector<std::string> observer_names();
// Every name an observer above may report (metrics may use them: KernelSpecification::validate checks names).
inline const std::vector<std::string>& observer_measurement_names() {
  static const std::vector<std::string> names{"powercap_energy", "powercap_power", "nvml_energy", "nvml_power",
                                              "temperature",     "core_freq",      "mem_freq"};
  return names;
}

}  // namespace ktune::live
