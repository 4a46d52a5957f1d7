#pragma once
#include <memory>
#include <string>

#include "ktune/live/observer.hpp"

namespace ktune::live::detail {

std::unique_ptr<Observer> make_powercap_observer(const std::string& root, std::string& why_not);
std::unique_ptr<Observer> make_nvml_observer(int device, std::string& why_not);

}  // namespace ktune::live::detail
