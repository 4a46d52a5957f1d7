#pragma once
// A Backend whose "kernels" are C++ lambdas chosen by kernel name, to test the live evaluator's handling of every
// outcome without a compiler: "correct" (out = 2*in), "wrong" (out = 2*in + 1), "compile_error", "launch_error",
// "hang" (never returns), "segfault" (kills the process with SIGSEGV), "trivial" (does nothing, for overhead).
// Arguments: in (float32), out (float32, write-only), n (int32 scalar). Launch times come from `durations`, cycled
// per compiled kernel (the warm-up takes the first), so statistics are known exactly.
#include <chrono>
#include <csignal>
#include <cstring>
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ktune/live/backend.hpp"
#include "ktune/live/kernel_specification.hpp"

namespace ktune::testing {

struct FakeBackendOptions {
  std::vector<double> durations{1.0};
  // Durations of the kernels named here instead (e.g. "trivial" slower than "correct").
  std::map<std::string, std::vector<double>> durations_of;
  std::uint64_t max_threads = 0;
  std::function<void()> on_launch;  // runs at every launch, where the backend lives (e.g. to drive a fake counter)
};

class FakeBackend final : public live::Backend {
 public:
  explicit FakeBackend(FakeBackendOptions options) : options_(std::move(options)) {}
  std::string name() const override { return "fake"; }
  live::DeviceInfo device_info() const override {
    live::DeviceInfo info;
    info.name = "fake device";
    info.platform = "fake";
    info.max_threads = options_.max_threads;
    return info;
  }
  void set_arguments(std::span<const live::KernelArgument> arguments) override {
    initial_.assign(arguments.begin(), arguments.end());
    current_ = initial_;
  }
  void reset_argument(std::size_t i) override { current_.at(i).bytes = initial_.at(i).bytes; }
  void read_argument(std::size_t i, std::span<std::byte> out) override {
    const auto& b = current_.at(i).bytes;
    if (out.size() != b.size()) throw std::logic_error("read_argument: wrong size");
    std::memcpy(out.data(), b.data(), b.size());
  }

  struct Kernel final : live::CompiledKernel {
    std::string name;
    std::size_t launches = 0;
  };
  std::unique_ptr<live::CompiledKernel> compile(const live::KernelSource& source, const live::Defines&) override {
    if (source.name == "compile_error")
      throw live::CompileError("compilation of compile_error failed", "fake.cpp:3:1: error: expected ';'");
    static const char* known[] = {"correct", "wrong", "launch_error", "hang", "segfault", "trivial"};
    if (std::find(std::begin(known), std::end(known), source.name) == std::end(known))
      throw live::CompileError("unknown fake kernel " + source.name, "");
    auto k = std::make_unique<Kernel>();
    k->name = source.name;
    return k;
  }
  double launch(live::CompiledKernel& compiled, const live::LaunchGeometry&) override {
    auto& k = static_cast<Kernel&>(compiled);
    const auto own = options_.durations_of.find(k.name);
    const auto& durations = own != options_.durations_of.end() ? own->second : options_.durations;
    const double duration = durations[k.launches++ % durations.size()];
    if (options_.on_launch) options_.on_launch();
    if (k.name == "trivial") return duration;
    if (k.name == "launch_error") throw live::LaunchError("fake launch failure: out of resources");
    if (k.name == "hang")
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    if (k.name == "segfault") std::raise(SIGSEGV);
    const auto& in = current_.at(0).bytes;
    auto& out = current_.at(1).bytes;
    const std::size_t n = in.size() / sizeof(float);
    for (std::size_t i = 0; i < n; ++i) {
      float x;
      std::memcpy(&x, in.data() + i * sizeof x, sizeof x);
      x = 2 * x + (k.name == "wrong" ? 1.0f : 0.0f);
      std::memcpy(out.data() + i * sizeof x, &x, sizeof x);
    }
    return duration;
  }

 private:
  FakeBackendOptions options_;
  std::vector<live::KernelArgument> initial_, current_;
};

inline std::function<std::unique_ptr<live::Backend>()> fake_factory(FakeBackendOptions options = {}) {
  return [options] { return std::make_unique<FakeBackend>(options); };
}

inline live::ArgumentSpecification vector_argument(std::string name, live::ElementType type, live::Access access,
                                                  std::string size, live::Fill fill, std::uint64_t seed = 0) {
  live::ArgumentSpecification a;
  a.name = std::move(name);
  a.type = type;
  a.access = access;
  a.size = std::move(size);
  a.fill = fill;
  a.seed = seed;
  return a;
}

inline live::ArgumentSpecification scalar_argument(std::string name, live::ElementType type, double value) {
  live::ArgumentSpecification a;
  a.name = std::move(name);
  a.type = type;
  a.scalar = true;
  a.access = live::Access::read_only;
  a.fill = live::Fill::constant;
  a.fill_value = value;
  return a;
}

// The arguments of the cpp test kernels' vector_add(a, b, c, n): a and b random (seeds 1, 2), c written, n a scalar.
inline std::vector<live::ArgumentSpecification> vector_add_arguments(double n) {
  using live::Access, live::ElementType, live::Fill;
  return {vector_argument("a", ElementType::float32, Access::read_only, "n", Fill::random, 1),
          vector_argument("b", ElementType::float32, Access::read_only, "n", Fill::random, 2),
          vector_argument("c", ElementType::float32, Access::write_only, "n", Fill::zeros),
          scalar_argument("n", ElementType::int32, n)};
}

inline FakeBackendOptions fake_options(std::vector<double> durations, std::uint64_t max_threads = 0) {
  FakeBackendOptions o;
  o.durations = std::move(durations);
  o.max_threads = max_threads;
  return o;
}

// A kernel specification the fake backend runs: arguments in/out/n of `n` elements, kernel chosen by the
// parameter `kernel` (its value is the kernel name).
inline live::KernelSpecification fake_specification(int n = 64) {
  live::KernelSpecification spec;
  spec.backend = "cpp";
  spec.kernel_name = "kernel";
  spec.kernel_code = "// fake: the kernels are lambdas in FakeBackend";
  spec.problem_size = {std::to_string(n), "1", "1"};
  auto in = vector_argument("in", live::ElementType::float32, live::Access::read_only, std::to_string(n),
                            live::Fill::random, 7);
  auto out = vector_argument("out", live::ElementType::float32, live::Access::write_only, std::to_string(n),
                             live::Fill::zeros);
  auto count = scalar_argument("n", live::ElementType::int32, n);
  spec.arguments = {in, out, count};
  spec.repetition = ktune::RepetitionPolicy{.adaptive = false, .runs = 5};
  spec.timeout_s = 5;
  return spec;
}

// Whether the real cpp backend works here (a C compiler): the tests that use it are skipped otherwise.
inline bool cpp_backend_available() {
  try {
    (void)live::make_backend("cpp");
    return true;
  } catch (const live::BackendUnavailable&) {
    return false;
  }
}

}  // namespace ktune::testing
