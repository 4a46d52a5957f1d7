#include <stdexcept>

#include "ktune/live/observer.hpp"
#include "observers.hpp"

namespace ktune::live {

std::vector<std::string> observer_names() { return {"powercap", "nvml"}; }

std::unique_ptr<Observer> make_observer(const std::string& name, const ObserverOptions& options, std::string& why_not) {
  why_not.clear();
  if (name == "powercap") return detail::make_powercap_observer(options.powercap_root, why_not);
  if (name == "nvml") return detail::make_nvml_observer(options.device, options.nvml_library, why_not);
  throw std::invalid_argument("unknown observer '" + name + "' (known: powercap, nvml)");
}

}  // namespace ktune::live
