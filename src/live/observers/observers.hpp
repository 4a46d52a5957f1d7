#pragma once
#include <memory>
#include <string>

#include "ktune/live/observer.hpp"

namespace ktune::live::detail {

std::unique_ptr<Observer> make_powercap_observer(const std::string& root, std::string& why_not);
// `library`: the NVML library to open ("": $KTUNE_NVML_LIBRARY, else the driver's libnvidia-ml.so.1).
std::unique_ptr<Observer> make_nvml_observer(int device, const std::string& library, std::string& why_not);

}  // namespace ktune::live::detail
