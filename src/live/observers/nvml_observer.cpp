// Energy of an NVIDIA GPU from the driver's NVML library, opened at run time (like libcuda) so ktune starts on
// machines without the driver. nvmlDeviceGetTotalEnergyConsumption counts millijoules since the driver loaded
// (Volta and newer); the difference over the timed launches is the kernel's energy.
#include <dlfcn.h>

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "observers.hpp"

namespace ktune::live::detail {
namespace {

// The few NVML declarations used (nvml.h is not part of every toolkit install): an int status, 0 = success.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;

struct Nvml {
  void* library = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*handle_by_index)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*total_energy)(NvmlDevice, unsigned long long*) = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;

  std::string error(NvmlReturn r) const { return error_string ? error_string(r) : fmt::format("NVML error {}", r); }
};

template <class F>
bool load(void* library, const char* symbol, F& f) {
  f = reinterpret_cast<F>(dlsym(library, symbol));
  return f != nullptr;
}

class NvmlObserver final : public Observer {
 public:
  NvmlObserver(Nvml nvml, NvmlDevice device) : nvml_(nvml), device_(device) {}
  ~NvmlObserver() override {
    nvml_.shutdown();
    dlclose(nvml_.library);
  }
  NvmlObserver(const NvmlObserver&) = delete;
  NvmlObserver& operator=(const NvmlObserver&) = delete;

  std::vector<std::string> measurement_names() const override { return {"nvml_energy", "nvml_power"}; }

  void start() override { start_mj_ = read(); }

  std::vector<Observation> stop(std::size_t launches, double elapsed_ms) override {
    const double joules = static_cast<double>(read() - start_mj_) * 1e-3;
    const double per_launch = launches ? joules / static_cast<double>(launches) : joules;
    const double watts = elapsed_ms > 0 ? joules / (elapsed_ms * 1e-3) : 0.0;
    return {{"nvml_energy", per_launch, "J"}, {"nvml_power", watts, "W"}};
  }

 private:
  unsigned long long read() const {
    unsigned long long mj = 0;
    if (const NvmlReturn r = nvml_.total_energy(device_, &mj); r != 0)
      throw std::runtime_error("nvml observer: nvmlDeviceGetTotalEnergyConsumption: " + nvml_.error(r));
    return mj;
  }

  Nvml nvml_;
  NvmlDevice device_;
  unsigned long long start_mj_ = 0;
};

}  // namespace

std::unique_ptr<Observer> make_nvml_observer(int device, std::string& why_not) {
  Nvml nvml;
  nvml.library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!nvml.library) {
    why_not = "no NVIDIA driver (libnvidia-ml.so.1 cannot be opened)";
    return nullptr;
  }
  load(nvml.library, "nvmlErrorString", nvml.error_string);
  if (!load(nvml.library, "nvmlInit_v2", nvml.init) || !load(nvml.library, "nvmlShutdown", nvml.shutdown) ||
      !load(nvml.library, "nvmlDeviceGetHandleByIndex_v2", nvml.handle_by_index) ||
      !load(nvml.library, "nvmlDeviceGetTotalEnergyConsumption", nvml.total_energy)) {
    why_not = "libnvidia-ml.so.1 lacks the energy functions (driver too old)";
    dlclose(nvml.library);
    return nullptr;
  }
  if (const NvmlReturn r = nvml.init(); r != 0) {
    why_not = "nvmlInit: " + nvml.error(r);
    dlclose(nvml.library);
    return nullptr;
  }
  NvmlDevice handle = nullptr;
  unsigned long long probe = 0;
  NvmlReturn r = nvml.handle_by_index(static_cast<unsigned>(device), &handle);
  if (r == 0) r = nvml.total_energy(handle, &probe);
  if (r != 0) {
    why_not = fmt::format("NVML device {}: {}", device, nvml.error(r));
    nvml.shutdown();
    dlclose(nvml.library);
    return nullptr;
  }
  return std::make_unique<NvmlObserver>(nvml, handle);
}

}  // namespace ktune::live::detail
