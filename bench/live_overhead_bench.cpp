// Framework overhead of live tuning per evaluation: everything except compiling and running the kernel. The backend
// here compiles and launches nothing (its kernel copies 4 KB for verification), so one iteration is: plan the launch
// (defines, geometry), the worker round trips (isolated) or direct calls (in process), comparing the outputs with
// the reference, metrics, the EvaluationRecord, and appending it to a Kernel Tuner cache file (flushed).
// Kernel Tuner records 2-105 ms of framework time per evaluation; the target here is < 1 ms.
#include <benchmark/benchmark.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/search_space.hpp"

namespace {

using namespace ktune;

// Compile and launch cost nothing; the "kernel" writes out = in so verification has real bytes to compare.
class TrivialBackend final : public live::Backend {
 public:
  std::string name() const override { return "trivial"; }
  live::DeviceInfo device_info() const override { return {"trivial device", "none", 0, 0, 1, {}}; }
  void set_arguments(std::span<const live::KernelArgument> arguments) override {
    initial_.assign(arguments.begin(), arguments.end());
    current_ = initial_;
  }
  void reset_argument(std::size_t i) override { current_[i].bytes = initial_[i].bytes; }
  void read_argument(std::size_t i, std::span<std::byte> out) override {
    std::memcpy(out.data(), current_[i].bytes.data(), out.size());
  }
  std::unique_ptr<live::CompiledKernel> compile(const live::KernelSource&, const live::Defines&) override {
    return std::make_unique<live::CompiledKernel>();
  }
  double launch(live::CompiledKernel&, const live::LaunchGeometry&) override {
    std::memcpy(current_[1].bytes.data(), current_[0].bytes.data(), current_[0].bytes.size());
    return 0.001;
  }

 private:
  std::vector<live::KernelArgument> initial_, current_;
};

live::KernelSpecification trivial_spec(bool verify) {
  live::KernelSpecification spec;
  spec.kernel_name = "copy";
  spec.kernel_code = "// nothing to compile";
  spec.problem_size = {"1024", "1", "1"};
  live::ArgumentSpecification in, out;
  in.name = "in";
  in.access = live::Access::read_only;
  in.size = "1024";
  in.fill = live::Fill::random;
  out.name = "out";
  out.access = live::Access::write_only;
  out.size = "1024";
  spec.arguments = {in, out};
  spec.repetition = ktune::RepetitionPolicy{.adaptive = false, .runs = 7};
  spec.metrics = {{"GB/s", "2*4*1024/(time/1e3)/1e9", "GB/s"}};
  if (verify) {
    spec.verification.kind = live::Verification::Kind::configuration;
    spec.verification.configuration = {{"block_size_x", Value(32)}, {"tile", Value(1)}};
  }
  return spec;
}

void BM_LiveOverhead(benchmark::State& state, bool isolate, bool verify) {
  const Problem problem = ProblemBuilder("overhead")
                              .parameter("block_size_x", {32, 64, 128, 256, 512, 1024})
                              .parameter("tile", {1, 2, 4, 8, 16, 32, 64, 128})
                              .build();
  const SearchSpace space = SearchSpace::build(problem);
  live::LiveEvaluator evaluator(problem, space, trivial_spec(verify),
                                {.objectives = {}, .isolate = isolate,
                                 .backend_factory = [] { return std::make_unique<TrivialBackend>(); }});
  const auto path = std::filesystem::temp_directory_path() / "ktune_live_overhead_cache.json";
  std::filesystem::remove(path);
  io::CacheHeader header{evaluator.device_name(), evaluator.kernel_name(), nullptr, problem, {"time"}, nullptr};
  io::KernelTunerCacheWriter cache(path.string(), header);
  std::size_t index = 0;
  double framework_ms = 0;
  std::int64_t evaluations = 0;
  for (auto _ : state) {
    const auto outcome = evaluator.evaluate(index);
    if (outcome.status != Status::ok) state.SkipWithError("evaluation failed");
    EvaluationRecord record = evaluator.record(index);
    framework_ms += record.framework_ms;
    cache.append(record);
    index = (index + 1) % space.size();
    ++evaluations;
  }
  cache.close();
  std::filesystem::remove(path);
  state.SetItemsProcessed(evaluations);
  state.counters["recorded_framework_ms"] = evaluations ? framework_ms / static_cast<double>(evaluations) : 0;
}

BENCHMARK_CAPTURE(BM_LiveOverhead, isolated/verify, true, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LiveOverhead, isolated/no_verify, true, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LiveOverhead, in_process/verify, false, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_LiveOverhead, in_process/no_verify, false, false)->Unit(benchmark::kMicrosecond);

}  // namespace
