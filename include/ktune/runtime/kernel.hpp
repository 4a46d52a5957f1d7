#pragma once
// A tunable kernel in an application: each launch selects the configuration for its problem size from the wisdom
// (once per size), compiles it once per configuration, and runs it with the right geometry. With
// KTUNE_CAPTURE=name[,name...] (globs: vector_*, *) a launch of a matching kernel is first written out as a tuning
// problem (ktune/runtime/capture.hpp); KTUNE_LOG=debug (or set_log) says what was chosen and why.
//
//   ktune::runtime::Kernel kernel(definition, ktune::runtime::opencl_device(), wisdom);
//   kernel.launch({n}, out(c), in(a), in(b), scalar(n));
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "ktune/runtime/argument.hpp"
#include "ktune/runtime/device.hpp"
#include "ktune/runtime/kernel_definition.hpp"
#include "ktune/runtime/wisdom.hpp"

namespace ktune::runtime {

// What a problem size gets: the configuration, how it was chosen, and what is needed to launch it.
struct Choice {
  ProblemSize problem_size;
  SelectionRule rule = SelectionRule::none;
  std::vector<std::string> values;  // in the definition's parameter order, as C literals
  std::string description;          // Selection::describe() and the values
  Defines defines;
  LaunchGeometry geometry;
  CompiledKernel* compiled = nullptr;  // owned by the Kernel; compiled at the first launch
};

class Kernel {
 public:
  // Without wisdom (null), every launch uses the definition's default configuration. Throws std::invalid_argument
  // for a definition the device cannot run (another language, a geometry name that is neither a parameter nor an
  // integer).
  Kernel(KernelDefinition definition, std::shared_ptr<Device> device, std::shared_ptr<const Wisdom> wisdom = {});
  ~Kernel();
  Kernel(Kernel&&) noexcept;
  Kernel& operator=(Kernel&&) noexcept;

  // Selects, compiles (once per configuration), captures if asked, runs once and waits. The arguments are
  // in(), out(), inout(), scalar() (ktune/runtime/argument.hpp) or device buffers (ktune/runtime/opencl.hpp), in
  // the kernel's order.
  template <class... A>
  void launch(std::span<const std::int64_t> problem_size, const A&... arguments) {
    const Argument erased[] = {arguments.erased..., Argument{}};
    const std::tuple<const A&...> typed(arguments...);
    const auto invoke = [](const void* self, void* function, std::span<void* const> substitutes) {
      const auto& args = *static_cast<const std::tuple<const A&...>*>(self);
      call_with(args, function, substitutes, std::index_sequence_for<A...>{});
    };
    launch_erased(problem_size, std::span(erased, sizeof...(A)), CppCall{invoke, &typed});
  }
  template <class... A>
  void launch(std::initializer_list<std::int64_t> problem_size, const A&... arguments) {
    launch(std::span<const std::int64_t>(problem_size.begin(), problem_size.size()), arguments...);
  }

  // The configuration a problem size gets (remembered per size; compiles nothing).
  const Choice& choose(std::span<const std::int64_t> problem_size);

  const KernelDefinition& definition() const;
  Device& device() const;
  // Where debug lines go (default: stderr when KTUNE_LOG is "debug" or "1", else nowhere).
  void set_log(std::function<void(std::string_view)> log);
  // Capture this kernel's launches into `directory` regardless of KTUNE_CAPTURE ("" stops it).
  void capture_into(std::string directory);
  // How many configurations were compiled so far.
  std::size_t compilations() const;

 private:
  template <class Tuple, std::size_t... I>
  static void call_with(const Tuple& args, void* function, std::span<void* const> substitutes,
                        std::index_sequence<I...>) {
    using F = void (*)(typename std::remove_cvref_t<std::tuple_element_t<I, Tuple>>::c_type...);
    reinterpret_cast<F>(function)(std::get<I>(args).c_value(substitutes.empty() ? nullptr : substitutes[I])...);
  }
  void launch_erased(std::span<const std::int64_t> problem_size, std::span<const Argument> arguments,
                     const CppCall& call);

  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ktune::runtime
