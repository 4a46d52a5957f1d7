// Search-space construction and neighbour queries on the 8 real-world spaces of the construction paper.
// Prints, besides Google Benchmark's table, the total construction time and the peak memory per configuration.
#include <benchmark/benchmark.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ktune/io/t1_reader.hpp"
#include "ktune/search_space.hpp"

namespace {

const char* const kSpaces[] = {"dedispersion", "expdist", "hotspot", "gemm", "microhh", "atf_prl_2x2", "atf_prl_4x4", "atf_prl_8x8"};

std::string space_path(const std::string& name) {
  return std::string(KTUNE_SHARED_DIR) + "/data/searchspaces/realworld/" + name + ".json";
}

void BM_Construct(benchmark::State& state, const std::string& name, unsigned threads) {
  const auto problem = ktune::io::read_t1_file(space_path(name));
  std::size_t size = 0;
  for (auto _ : state) {
    auto space = ktune::SearchSpace::build(problem, {.threads = threads});
    size = space.size();
    benchmark::DoNotOptimize(size);
  }
  state.counters["valid_configs"] = static_cast<double>(size);
}

// Uncached neighbour queries: every iteration asks about a different configuration, cycling through a random
// permutation of the whole space with a fresh space per cycle so no query is answered from the cache.
void BM_Neighbours(benchmark::State& state, ktune::NeighbourMethod method) {
  const auto problem = ktune::io::read_t1_file(space_path("hotspot"));
  auto space = std::make_unique<ktune::SearchSpace>(ktune::SearchSpace::build(problem));
  ktune::Rng rng(42);
  auto order = space->random_sample(space->size(), rng);
  std::size_t i = 0, found = 0;
  for (auto _ : state) {
    if (i == order.size()) {
      state.PauseTiming();
      space = std::make_unique<ktune::SearchSpace>(ktune::SearchSpace::build(problem));
      i = 0;
      state.ResumeTiming();
    }
    const auto n = space->neighbours(order[i++], method);
    found += n.size();
    benchmark::DoNotOptimize(n.data());
  }
  state.counters["neighbours_per_query"] = static_cast<double>(found) / static_cast<double>(state.iterations());
}

// Reads a "VmRSS:" / "VmHWM:" line of /proc/self/status, in kB.
long proc_status_kb(const char* key) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long value = -1;
  const std::size_t len = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, len) == 0) value = std::strtol(line + len, nullptr, 10);
  std::fclose(f);
  return value;
}

// Peak resident memory of building one space, measured in a child process: the peak (VmHWM) is reset through
// /proc/self/clear_refs, so it is the high-water mark of this construction above the resident baseline.
// Peak RSS increase (kB) of building `problem` in a forked child, and the number of configurations.
std::pair<long, std::size_t> child_peak_kb(const ktune::Problem& problem) {
  int fds[2];
  if (pipe(fds) != 0) return {-1, 0};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
      std::fputs("5", f);
      std::fclose(f);
    }
    const long before = proc_status_kb("VmRSS:");
    auto space = ktune::SearchSpace::build(problem);
    const long peak = proc_status_kb("VmHWM:");
    char buf[128];
    const int len = std::snprintf(buf, sizeof buf, "%zu %ld", space.size(), peak - before);
    if (write(fds[1], buf, static_cast<std::size_t>(len)) < 0) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  char buf[128] = {0};
  const auto got = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  if (got <= 0) return {-1, 0};
  std::size_t size = 0;
  long delta = 0;
  std::sscanf(buf, "%zu %ld", &size, &delta);
  return {delta, size};
}

void report_peak_memory() {
  // The constant: what building a two-configuration space costs (threads, first-touch of code and heap).
  const auto [constant_kb, unused] = child_peak_kb(ktune::ProblemBuilder("tiny").parameter("x", {1, 2}).build());
  (void)unused;
  std::printf("\nPeak memory of construction (forked child, peak RSS minus RSS before; constant = %.2f MiB, the\n"
              "peak of building a 2-configuration space):\n", static_cast<double>(constant_kb) / 1024.0);
  for (const char* name : kSpaces) {
    const auto [kb, size] = child_peak_kb(ktune::io::read_t1_file(space_path(name)));
    if (kb < 0) continue;
    const double bytes = static_cast<double>(kb) * 1024.0;
    const double above = static_cast<double>(kb - constant_kb) * 1024.0;
    std::printf("  %-14s %9zu configs  peak +%7.2f MiB = %7.1f B/config; above the constant %5.1f B/config\n", name,
                size, bytes / 1048576.0, size ? bytes / static_cast<double>(size) : 0.0,
                size ? above / static_cast<double>(size) : 0.0);
  }
}

// Median and 90th percentile of single uncached neighbour queries on Hotspot (random valid configurations).
void report_neighbour_medians() {
  const auto space = ktune::SearchSpace::build(ktune::io::read_t1_file(space_path("hotspot")));
  ktune::Rng rng(7);
  const auto queries = space.random_sample(4000, rng);
  std::printf("\nUncached neighbour queries on hotspot (%zu configs), %zu random valid queries each:\n", space.size(),
              queries.size());
  for (auto m : {ktune::NeighbourMethod::Hamming, ktune::NeighbourMethod::Adjacent,
                 ktune::NeighbourMethod::StrictlyAdjacent, ktune::NeighbourMethod::HammingAdjacent,
                 ktune::NeighbourMethod::ClosestParamIndices}) {
    std::vector<double> us;
    std::size_t found = 0;
    for (auto q : queries) {
      const auto config = space.config_at(q);
      const auto t0 = std::chrono::steady_clock::now();
      const auto n = space.neighbours_uncached(config, m);
      us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      found += n.size();
    }
    std::sort(us.begin(), us.end());
    std::printf("  %-22s median %6.2f us  p90 %6.2f us  (%.1f neighbours on average)\n", ktune::to_string(m),
                us[us.size() / 2], us[us.size() * 9 / 10], static_cast<double>(found) / static_cast<double>(us.size()));
  }
}

void report_total_construction() {
  double total = 0;
  std::printf("\nConstruction time per real-world space (best of 11, threads=2):\n");
  for (const char* name : kSpaces) {
    const auto problem = ktune::io::read_t1_file(space_path(name));
    double best = 1e9;
    std::size_t size = 0;
    for (int r = 0; r < 11; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      auto space = ktune::SearchSpace::build(problem);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      size = space.size();
    }
    total += best;
    std::printf("  %-14s %9zu configs  %8.2f ms\n", name, size, best * 1e3);
  }
  std::printf("  %-14s %9s          %8.2f ms  (target < 100 ms)\n", "TOTAL", "", total * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  // First, while this process has built nothing yet: forked children then start from a clean heap.
  report_peak_memory();
  for (const char* name : kSpaces) {
    benchmark::RegisterBenchmark((std::string("construct/") + name).c_str(), BM_Construct, std::string(name), 2u)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("construct_1thread/hotspot", BM_Construct, std::string("hotspot"), 1u)
      ->Unit(benchmark::kMillisecond);
  for (auto m : {ktune::NeighbourMethod::Hamming, ktune::NeighbourMethod::Adjacent,
                 ktune::NeighbourMethod::StrictlyAdjacent, ktune::NeighbourMethod::HammingAdjacent,
                 ktune::NeighbourMethod::ClosestParamIndices}) {
    benchmark::RegisterBenchmark((std::string("neighbours/hotspot/") + ktune::to_string(m)).c_str(), BM_Neighbours, m)
        ->Unit(benchmark::kMicrosecond)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true)
        ->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  report_total_construction();
  report_neighbour_medians();
  return 0;
}
