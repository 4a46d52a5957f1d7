// What the sandbox adds to a worker: starting a sandboxed process that ends at once (namespaces, view, filters,
// limits), against a plain fork and wait.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include <benchmark/benchmark.h>

#include "ktune/sandbox/sandbox.hpp"

namespace {

void BM_PlainFork(benchmark::State& state) {
  for (auto _ : state) {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
}
BENCHMARK(BM_PlainFork)->Unit(benchmark::kMillisecond);

// state.range(0): 1 with every layer this machine gives, 0 with every one turned off (limits and environment only).
void BM_SandboxedProcess(benchmark::State& state) {
  const std::string scratch = (std::filesystem::temp_directory_path() / "ktune-bench-sandbox").string();
  std::filesystem::create_directories(scratch);
  ktune::sandbox::Options options;
  options.scratch = scratch;
  options.allow_processes = false;
  if (state.range(0) == 0) options.disabled = {true, true, true, true, true, true, true};
  for (auto _ : state) {
    ktune::sandbox::Process process = ktune::sandbox::spawn(options, [] { ::_exit(0); });
    benchmark::DoNotOptimize(process.wait());
  }
  state.SetLabel(state.range(0) ? "all layers: " + (ktune::sandbox::available_layers().missing().empty()
                                                        ? std::string("complete")
                                                        : "missing " + ktune::sandbox::available_layers().missing())
                                : "no layer");
  std::filesystem::remove_all(scratch);
}
BENCHMARK(BM_SandboxedProcess)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

}  // namespace
