// Loading brute-forced results files: Dedispersion on the A100 (11130 configurations, 32 runtimes each), as a
// Kernel Tuner cache (3 MB gzip, 12 MB JSON) and as T4 (3 MB gzip, 19 MB JSON). Target: < 0.3 s per file including
// gunzip. Reported as the best of several single loads (the machine is shared and noisy).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "ktune/io/json_file.hpp"
#include "ktune/io/t4_results.hpp"
#include "ktune/io/results_file.hpp"

namespace {

std::string hub_file(const std::string& name) {
  return std::string(KTUNE_SHARED_DIR) + "/data/benchmark_hub/cachefiles/dedispersion_milo/" + name;
}

double best(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// read_results_file: gunzip, format detection, parsing, records.
void BM_ReadResultsFile(benchmark::State& state, const std::string& name) {
  const std::string path = hub_file(name);
  std::size_t records = 0;
  for (auto _ : state) {
    const auto file = ktune::io::read_results_file(path);
    records = file.records.size();
    benchmark::DoNotOptimize(records);
  }
  state.counters["records"] = static_cast<double>(records);
}

// The gunzip alone, the floor of the above.
void BM_Gunzip(benchmark::State& state, const std::string& name) {
  const std::string path = hub_file(name);
  for (auto _ : state) {
    const std::string text = ktune::io::read_file_text(path);
    benchmark::DoNotOptimize(text.data());
  }
}

// Writing the records back as T4 (to memory).
void BM_WriteT4(benchmark::State& state) {
  const auto file = ktune::io::read_results_file(hub_file("A100.json.gz"));
  for (auto _ : state) {
    std::ostringstream out;
    ktune::io::write_t4_results(out, file.problem, file.records, file.objectives);
    benchmark::DoNotOptimize(out.tellp());
  }
}

template <class... Args>
void register_best_of(const char* name, Args&&... args) {
  benchmark::RegisterBenchmark(name, std::forward<Args>(args)...)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->Repetitions(7)
      ->ReportAggregatesOnly(true)
      ->ComputeStatistics("min", best);
}

const bool registered = [] {
  register_best_of("results_io/read/dedispersion_A100_cache", BM_ReadResultsFile, std::string("A100.json.gz"));
  register_best_of("results_io/read/dedispersion_A100_T4", BM_ReadResultsFile, std::string("A100_T4.json.gz"));
  register_best_of("results_io/gunzip/dedispersion_A100_cache", BM_Gunzip, std::string("A100.json.gz"));
  register_best_of("results_io/gunzip/dedispersion_A100_T4", BM_Gunzip, std::string("A100_T4.json.gz"));
  register_best_of("results_io/write_t4/dedispersion_A100", BM_WriteT4);
  return true;
}();

}  // namespace
