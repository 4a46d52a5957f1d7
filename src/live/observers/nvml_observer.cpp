// An NVIDIA GPU's energy, temperature and clocks from the driver's NVML library, opened at run time (like libcuda)
// so ktune starts on machines without the driver. nvmlDeviceGetTotalEnergyConsumption counts millijoules since the
// driver loaded (Volta and newer); the difference over the timed launches is the kernel's energy. Temperature and
// clocks are sampled while the launches run (Kernel Tuner's NVMLObserver samples them during each launch and
// averages): a thread reads them every millisecond from start() to stop(), once at each end at least.
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "observers.hpp"

namespace ktune::live::detail {
namespace {

// The few NVML declarations used (nvml.h is not part of every toolkit install): an int status, 0 = success.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr int kTemperatureGpu = 0;                   // NVML_TEMPERATURE_GPU
constexpr int kClockGraphics = 0, kClockMemory = 2;  // NVML_CLOCK_GRAPHICS, NVML_CLOCK_MEM

struct Nvml {
  void* library = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  NvmlReturn (*handle_by_index)(unsigned, NvmlDevice*) = nullptr;
  NvmlReturn (*total_energy)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;  // optional: each reading is, where supported
  NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;

  std::string error(NvmlReturn r) const { return error_string ? error_string(r) : fmt::format("NVML error {}", r); }
};

template <class F>
bool load(void* library, const char* symbol, F& f) {
  f = reinterpret_cast<F>(dlsym(library, symbol));
  return f != nullptr;
}

// A reading sampled while the launches run: its name, unit and how it is read.
struct Sampled {
  const char* name;
  const char* unit;
  NvmlReturn (*Nvml::*function)(NvmlDevice, int, unsigned*);
  int which;
};
constexpr Sampled kSampled[] = {{"temperature", "C", &Nvml::temperature, kTemperatureGpu},
                                {"core_freq", "MHz", &Nvml::clock, kClockGraphics},
                                {"mem_freq", "MHz", &Nvml::clock, kClockMemory}};
constexpr std::size_t kReadings = std::size(kSampled);

class NvmlObserver final : public Observer {
 public:
  // `sampled[i]`: whether reading kSampled[i] answered when the observer was made (it is reported only then).
  NvmlObserver(Nvml nvml, NvmlDevice device, std::array<bool, kReadings> sampled)
      : nvml_(nvml), device_(device), sampled_(sampled) {}
  ~NvmlObserver() override {
    end_sampling();
    nvml_.shutdown();
    dlclose(nvml_.library);
  }
  NvmlObserver(const NvmlObserver&) = delete;
  NvmlObserver& operator=(const NvmlObserver&) = delete;

  std::vector<std::string> measurement_names() const override {
    std::vector<std::string> names{"nvml_energy", "nvml_power"};
    for (std::size_t i = 0; i < kReadings; ++i)
      if (sampled_[i]) names.emplace_back(kSampled[i].name);
    return names;
  }

  void start() override {
    end_sampling();  // a start() without its stop() (the configuration failed in between)
    sums_ = {};
    counts_ = {};
    sample_error_.clear();
    sample();
    start_mj_ = read_energy();
    if (std::none_of(sampled_.begin(), sampled_.end(), [](bool b) { return b; })) return;
    stopping_ = false;
    sampler_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      while (!stopping_) {
        wake_.wait_for(lock, std::chrono::milliseconds(1));
        if (!stopping_) sample();
      }
    });
  }

  std::vector<Observation> stop(std::size_t launches, double elapsed_ms) override {
    const double joules = static_cast<double>(read_energy() - start_mj_) * 1e-3;
    end_sampling();
    sample();
    if (!sample_error_.empty()) throw std::runtime_error(sample_error_);
    const double per_launch = launches ? joules / static_cast<double>(launches) : joules;
    const double watts = elapsed_ms > 0 ? joules / (elapsed_ms * 1e-3) : 0.0;
    std::vector<Observation> out{{"nvml_energy", per_launch, "J"}, {"nvml_power", watts, "W"}};
    for (std::size_t i = 0; i < kReadings; ++i)
      if (sampled_[i]) out.push_back({kSampled[i].name, sums_[i] / static_cast<double>(counts_[i]), kSampled[i].unit});
    return out;
  }

 private:
  unsigned long long read_energy() const {
    unsigned long long mj = 0;
    if (const NvmlReturn r = nvml_.total_energy(device_, &mj); r != 0)
      throw std::runtime_error("nvml observer: nvmlDeviceGetTotalEnergyConsumption: " + nvml_.error(r));
    return mj;
  }

  // One reading of each sampled quantity (under mutex_ while the sampler runs); the first failure is kept for stop().
  void sample() {
    for (std::size_t i = 0; i < kReadings; ++i) {
      if (!sampled_[i]) continue;
      unsigned value = 0;
      if (const NvmlReturn r = (nvml_.*kSampled[i].function)(device_, kSampled[i].which, &value); r != 0) {
        if (sample_error_.empty())
          sample_error_ = fmt::format("nvml observer: reading {}: {}", kSampled[i].name, nvml_.error(r));
        continue;
      }
      sums_[i] += value;
      ++counts_[i];
    }
  }

  void end_sampling() {
    if (!sampler_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    sampler_.join();
  }

  Nvml nvml_;
  NvmlDevice device_;
  std::array<bool, kReadings> sampled_;
  unsigned long long start_mj_ = 0;
  std::array<double, kReadings> sums_{};
  std::array<std::size_t, kReadings> counts_{};
  std::string sample_error_;
  std::thread sampler_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace

std::unique_ptr<Observer> make_nvml_observer(int device, const std::string& library, std::string& why_not) {
  Nvml nvml;
  const char* from_environment = std::getenv("KTUNE_NVML_LIBRARY");
  const std::string path = !library.empty()                          ? library
                           : from_environment && *from_environment ? from_environment
                                                                   : "libnvidia-ml.so.1";
  nvml.library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!nvml.library) {
    why_not = path == "libnvidia-ml.so.1" ? "no NVIDIA driver (libnvidia-ml.so.1 cannot be opened)"
                                          : fmt::format("the NVML library {} cannot be opened", path);
    return nullptr;
  }
  load(nvml.library, "nvmlErrorString", nvml.error_string);
  load(nvml.library, "nvmlDeviceGetTemperature", nvml.temperature);
  load(nvml.library, "nvmlDeviceGetClockInfo", nvml.clock);
  if (!load(nvml.library, "nvmlInit_v2", nvml.init) || !load(nvml.library, "nvmlShutdown", nvml.shutdown) ||
      !load(nvml.library, "nvmlDeviceGetHandleByIndex_v2", nvml.handle_by_index) ||
      !load(nvml.library, "nvmlDeviceGetTotalEnergyConsumption", nvml.total_energy)) {
    why_not = path + " lacks the energy functions (driver too old)";
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
  // Temperature and clocks are reported where this device answers them (not every GPU has every sensor).
  std::array<bool, kReadings> sampled{};
  for (std::size_t i = 0; i < kReadings; ++i) {
    const auto function = nvml.*kSampled[i].function;
    unsigned value = 0;
    sampled[i] = function && function(handle, kSampled[i].which, &value) == 0;
  }
  return std::make_unique<NvmlObserver>(nvml, handle, sampled);
}

}  // namespace ktune::live::detail
