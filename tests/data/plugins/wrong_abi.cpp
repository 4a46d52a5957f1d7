// A plug-in built for another plug-in ABI (as a newer or older ktune would build it): refused before it is used.
#include <cstdint>

extern "C" const void* ktune_strategy_plugin() {
  struct Descriptor {
    std::uint32_t abi_version;
    const char* ktune_version;
  };
  static const Descriptor descriptor{999, "9.9.9"};
  return &descriptor;
}
