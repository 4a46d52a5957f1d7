// Energy from the Linux powercap framework (RAPL on Intel and AMD CPUs): each zone has a monotonic microjoule
// counter that wraps at max_energy_range_uj. ktune sums the CPU packages and their DRAM subzones (the core/uncore
// subzones are part of the package, psys would count the packages twice, the mmio mirrors too).
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "observers.hpp"

namespace ktune::live::detail {
namespace {

namespace fs = std::filesystem;

struct Zone {
  fs::path energy;       // .../energy_uj
  std::uint64_t range;   // the counter wraps to 0 after this many microjoules
  std::uint64_t start = 0;
};

// The first line of a sysfs file, or an error naming it (a permission error is the usual reason).
bool read_line(const fs::path& path, std::string& line, std::string& error) {
  std::ifstream in(path);
  if (!in || !std::getline(in, line)) {
    error = fmt::format("cannot read {}: {}", path.string(), errno ? std::strerror(errno) : "empty");
    return false;
  }
  return true;
}

bool read_counter(const fs::path& path, std::uint64_t& value, std::string& error) {
  std::string line;
  if (!read_line(path, line, error)) return false;
  try {
    std::size_t used = 0;
    value = std::stoull(line, &used);
    if (used == 0) throw std::invalid_argument(line);
  } catch (const std::exception&) {
    error = fmt::format("{} does not hold a counter: '{}'", path.string(), line);
    return false;
  }
  return true;
}

class PowercapObserver final : public Observer {
 public:
  explicit PowercapObserver(std::vector<Zone> zones) : zones_(std::move(zones)) {}

  std::vector<std::string> measurement_names() const override { return {"powercap_energy", "powercap_power"}; }

  void start() override {
    for (auto& z : zones_) z.start = read(z);
  }

  std::vector<Observation> stop(std::size_t launches, double elapsed_ms) override {
    double joules = 0;
    for (auto& z : zones_) {
      const std::uint64_t now = read(z);
      // One wrap at most: a counter range is hundreds of kJ, far more than one benchmark draws.
      const std::uint64_t used = now >= z.start ? now - z.start : z.range - z.start + now;
      joules += static_cast<double>(used) * 1e-6;
    }
    const double per_launch = launches ? joules / static_cast<double>(launches) : joules;
    const double watts = elapsed_ms > 0 ? joules / (elapsed_ms * 1e-3) : 0.0;
    return {{"powercap_energy", per_launch, "J"}, {"powercap_power", watts, "W"}};
  }

 private:
  static std::uint64_t read(const Zone& z) {
    std::uint64_t value = 0;
    std::string error;
    if (!read_counter(z.energy, value, error)) throw std::runtime_error("powercap observer: " + error);
    return value;
  }

  std::vector<Zone> zones_;
};

}  // namespace

std::unique_ptr<Observer> make_powercap_observer(const std::string& root, std::string& why_not) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    why_not = fmt::format("no {} (this machine does not expose Linux powercap/RAPL energy counters)", root);
    return nullptr;
  }
  std::vector<Zone> zones;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string dir = entry.path().filename().string();
    // Zones are "<control type>:<n>" and subzones "<control type>:<n>:<m>"; mmio zones mirror the packages.
    const auto colons = std::count(dir.begin(), dir.end(), ':');
    if (colons == 0 || dir.find("mmio") != std::string::npos) continue;
    std::string name, error;
    if (!read_line(entry.path() / "name", name, error)) continue;
    const bool wanted = (colons == 1 && name.starts_with("package")) || (colons == 2 && name == "dram");
    if (!wanted) continue;
    Zone z{entry.path() / "energy_uj", 0};
    std::uint64_t probe = 0;
    if (!read_counter(z.energy, probe, error) || !read_counter(entry.path() / "max_energy_range_uj", z.range, error)) {
      why_not = error + " (reading energy counters usually needs root since Linux 5.10)";
      return nullptr;
    }
    zones.push_back(std::move(z));
  }
  if (zones.empty()) {
    why_not = fmt::format("no package or dram energy zone under {}", root);
    return nullptr;
  }
  return std::make_unique<PowercapObserver>(std::move(zones));
}

}  // namespace ktune::live::detail
