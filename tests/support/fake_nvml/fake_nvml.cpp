// A stand-in for the NVIDIA driver's libnvidia-ml (the few functions ktune's NVML observer calls), for the tests of
// that observer on machines without a GPU: KTUNE_NVML_LIBRARY (or ObserverOptions::nvml_library) names this file.
// One device, index 0, drawing 100 W since nvmlInit; its temperature cycles through 60, 61, 62, 63, 64 C reading by
// reading, the graphics clock reads 1410 MHz and the memory clock 1215 MHz. FAKE_NVML_NO_TEMPERATURE=1 makes the
// temperature unsupported, FAKE_NVML_TEMPERATURE_FAILS_AFTER=N fails every temperature reading after the Nth.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>

namespace {

constexpr int kSuccess = 0, kInvalidArgument = 2, kNotSupported = 3, kUnknown = 999;
using Clock = std::chrono::steady_clock;
Clock::time_point g_started;
std::atomic<unsigned long> g_temperature_readings{0};
int g_device;  // its address is the handle

long environment(const char* name, long otherwise) {
  const char* text = std::getenv(name);
  return text && *text ? std::strtol(text, nullptr, 10) : otherwise;
}

}  // namespace

extern "C" {

int nvmlInit_v2() {
  g_started = Clock::now();
  g_temperature_readings = 0;
  return kSuccess;
}

int nvmlShutdown() { return kSuccess; }

const char* nvmlErrorString(int result) {
  switch (result) {
    case kSuccess: return "Success";
    case kInvalidArgument: return "Invalid Argument";
    case kNotSupported: return "Not Supported";
    default: return "Unknown Error";
  }
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (index != 0 || !device) return kInvalidArgument;
  *device = &g_device;
  return kSuccess;
}

int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* millijoules) {
  if (device != &g_device || !millijoules) return kInvalidArgument;
  const double seconds = std::chrono::duration<double>(Clock::now() - g_started).count();
  *millijoules = static_cast<unsigned long long>(seconds * 100.0 * 1000.0);
  return kSuccess;
}

int nvmlDeviceGetTemperature(void* device, int sensor, unsigned* celsius) {
  if (device != &g_device || sensor != 0 || !celsius) return kInvalidArgument;
  if (environment("FAKE_NVML_NO_TEMPERATURE", 0)) return kNotSupported;
  const unsigned long reading = g_temperature_readings++;
  if (reading >= static_cast<unsigned long>(environment("FAKE_NVML_TEMPERATURE_FAILS_AFTER", -1))) return kUnknown;
  *celsius = 60 + static_cast<unsigned>(reading % 5);
  return kSuccess;
}

int nvmlDeviceGetClockInfo(void* device, int type, unsigned* megahertz) {
  if (device != &g_device || !megahertz) return kInvalidArgument;
  if (type == 0) *megahertz = 1410;  // NVML_CLOCK_GRAPHICS
  else if (type == 2) *megahertz = 1215;  // NVML_CLOCK_MEM
  else return kNotSupported;
  return kSuccess;
}

}  // extern "C"
