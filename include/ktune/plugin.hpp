#pragma once
// Writing a strategy plug-in: a shared library (or a single .cpp file that ktune compiles itself) built against
// ktune's public headers, usable wherever a strategy name is (`ktune tune --strategy my_strategy.so`, compare,
// hypertune, the library's make_strategy).
//
//   #include <ktune/plugin.hpp>
//   class MyStrategy final : public ktune::Strategy { ... run(space, cost, rng) ... };
//   ktune::StrategyInfo describe() {
//     return {"my_strategy", "one line on what it does", {/* hyperparameters, as built-in strategies declare them */},
//             [](const ktune::Hyperparameters& h) { return std::make_unique<MyStrategy>(...); }};
//   }
//   KTUNE_STRATEGY_PLUGIN(describe)
//
//   c++ -std=c++20 -O2 -fPIC -shared $(pkg-config --cflags ktune) my_strategy.cpp -o my_strategy.so
//
// The plug-in calls into the ktune that loads it (SearchSpace, CostFunction, Rng, the strategy toolkit, the uniform
// sample stream: a plug-in that opens with it opens with random_sample's draws under compare's seeds), so it must
// be built against the same ktune version and plug-in ABI; a plug-in built against another one is refused with a
// message that says so. Registered under the path it was named by; its own name is shown by `ktune strategies
// --plugin FILE`.
#include <cstdint>

#include "ktune/rng.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/cost_function.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/uniform_sample_stream.hpp"
#include "ktune/version.hpp"

namespace ktune {

// Raised whenever a type a plug-in shares with ktune (Strategy, StrategyInfo, SearchSpace, CostFunction, Rng,
// Hyperparameters, Value) changes its layout or meaning.
inline constexpr std::uint32_t kPluginAbiVersion = 1;

// What a plug-in exports (through KTUNE_STRATEGY_PLUGIN). The first three fields are read before anything else is
// trusted; keep them first and plain.
struct StrategyPluginDescriptor {
  std::uint32_t abi_version;   // kPluginAbiVersion of the headers it was built with
  const char* ktune_version;   // kVersionString of those headers
  std::uint32_t cxx11_abi;     // libstdc++'s _GLIBCXX_USE_CXX11_ABI (std::string's layout)
  StrategyInfo (*describe)();  // name, description, hyperparameters and factory
};

namespace detail {
#ifdef _GLIBCXX_USE_CXX11_ABI
inline constexpr std::uint32_t kCxx11Abi = _GLIBCXX_USE_CXX11_ABI;
#else
inline constexpr std::uint32_t kCxx11Abi = 0;
#endif
}  // namespace detail

}  // namespace ktune

// The entry point ktune looks up in a plug-in: `describe` is a function returning the strategy's StrategyInfo.
#define KTUNE_STRATEGY_PLUGIN(describe)                                                                         \
  extern "C" __attribute__((visibility("default"))) const ::ktune::StrategyPluginDescriptor*                    \
  ktune_strategy_plugin() {                                                                                     \
    static const ::ktune::StrategyPluginDescriptor descriptor{::ktune::kPluginAbiVersion, ::ktune::kVersionString, \
                                                              ::ktune::detail::kCxx11Abi, &describe};            \
    return &descriptor;                                                                                         \
  }
