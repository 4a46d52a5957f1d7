// Pipelined live evaluation (LiveEvaluatorOptions::compile_workers): the speed-up of a live brute force with one
// compile worker over the sequential run, as a function of the ratio of compile time to measuring time, against the
// ideal (c + m) / max(c, m). The kernel (cpp backend) busy-waits run_ms per launch; compiling it takes what the system
// compiler takes (~40 ms here). Each benchmark runs both modes on the same 8 configurations and reports:
//   compile_ms, measure_ms   per configuration, from the sequential run's records (measure: everything but compiling)
//   ideal, speedup           (c + m) / max(c, m), and sequential wall time / pipelined wall time
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "ktune/live/live_evaluator.hpp"
#include "ktune/problem.hpp"
#include "ktune/search_space.hpp"
#include "ktune/tuning/strategy.hpp"
#include "ktune/tuning/tune.hpp"

namespace {

using namespace ktune;

constexpr const char* kKernel = R"(
#include <time.h>
static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
void busy(float* out, int n) {
  long long start = now_ns();
  for (int i = 0; i < n; ++i) out[i] = (float)(i * variant);
  while (now_ns() - start < RUN_MS * 1000000LL) {}
}
)";

live::KernelSpecification spec(int run_ms) {
  live::KernelSpecification s;
  s.backend = "cpp";
  s.kernel_name = "busy";
  s.kernel_code = kKernel;
  s.compiler_options = {"-DRUN_MS=" + std::to_string(run_ms)};
  s.problem_size = {"n", "1", "1"};
  live::ArgumentSpecification out;
  out.name = "out";
  out.type = live::ElementType::float32;
  out.access = live::Access::write_only;
  out.size = "n";
  out.fill = live::Fill::zeros;
  live::ArgumentSpecification n;
  n.name = "n";
  n.type = live::ElementType::int32;
  n.scalar = true;
  n.fill_value = 64;
  s.arguments = {out, n};
  s.repetition = ktune::RepetitionPolicy{.adaptive = false, .runs = 1};
  s.warmup = false;
  return s;
}

struct Timed {
  double wall_s = 0, compile_ms = 0, measure_ms = 0;
};

Timed brute_force(int run_ms, std::size_t compile_workers) {
  const Problem problem = ProblemBuilder("busy").parameter("variant", {1, 2, 3, 4, 5, 6, 7, 8}).constant("n", 64).build();
  const SearchSpace space = SearchSpace::build(problem);
  live::LiveEvaluatorOptions options;
  options.compile_workers = compile_workers;
  live::LiveEvaluator evaluator(problem, space, spec(run_ms), options);
  auto strategy = make_strategy("brute_force", {});
  const auto start = std::chrono::steady_clock::now();
  const TuningResult result = tune(space, evaluator, *strategy, {});
  Timed t;
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& e : result.trace.entries()) {
    const EvaluationRecord r = evaluator.record(e.index);
    t.compile_ms += r.compile_ms / static_cast<double>(result.trace.size());
    t.measure_ms += (r.benchmark_ms + r.verification_ms + r.framework_ms) / static_cast<double>(result.trace.size());
  }
  return t;
}

void BM_PipelinedBruteForce(benchmark::State& state) {
  const int run_ms = static_cast<int>(state.range(0));
  Timed sequential, pipelined;
  for (auto _ : state) {
    sequential = brute_force(run_ms, 0);
    pipelined = brute_force(run_ms, 1);
  }
  // Per configuration, the sequential run also spends the tuning loop's and the worker round trip's time.
  const double per_config_ms = sequential.wall_s * 1000 / 8;
  const double measure = per_config_ms - sequential.compile_ms;
  state.counters["compile_ms"] = sequential.compile_ms;
  state.counters["measure_ms"] = measure;
  state.counters["ideal"] = per_config_ms / std::max(sequential.compile_ms, measure);
  state.counters["speedup"] = sequential.wall_s / pipelined.wall_s;
}
BENCHMARK(BM_PipelinedBruteForce)->Arg(5)->Arg(20)->Arg(40)->Arg(80)->Arg(160)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
