// The results store (docs/store.md). Targets from the issue: `best` over 10^6 records answers in < 0.1 s; importing
// the largest benchmark_hub cache (CLBlast GEMM on the Titan RTX, 17956 entries, 4 MB gzip) takes < 1 s.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ktune/store/store_reports.hpp"
#include "ktune/store/store_transfer.hpp"

namespace {

namespace fs = std::filesystem;

std::string bench_path(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("ktune_store_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

// A store of one million records over four spaces (two devices, two problem sizes), built once.
const std::string& million_record_store() {
  static const std::string path = [] {
    const std::string p = bench_path("million.ktune");
    ktune::store::ResultsStore store(p);
    std::vector<ktune::Value> values;
    for (int i = 0; i < 1000; ++i) values.emplace_back(i);
    for (int space = 0; space < 4; ++space) {
      ktune::store::SpaceOrigin origin;
      origin.kernel_name = "gemm";
      origin.device_name = space % 2 ? "GPU B" : "GPU A";
      origin.problem_size = space / 2 ? 4096 : 2048;
      origin.problem = ktune::ProblemBuilder("gemm").parameter("x", values).parameter("y", values).build();
      origin.objectives = {"time"};
      const auto session = store.begin_session(store.space_of(origin), {});
      std::vector<ktune::EvaluationRecord> records;
      for (int i = 0; i < 250000; ++i) {
        ktune::EvaluationRecord r;
        r.config = {values[static_cast<std::size_t>(i % 1000)], values[static_cast<std::size_t>(i / 1000 % 1000)]};
        const double t = 1.0 + static_cast<double>((i * 7919L + space * 104729L) % 1000003) * 1e-4;
        r.measurements = {{"time", t, "ms"}};
        r.runtimes_ms = {t, t * 1.01, t * 0.99};
        r.timestamp = std::to_string(i);
        records.push_back(std::move(r));
      }
      store.add_all(session, records);
    }
    return p;
  }();
  return path;
}

// `ktune store best`: open the store, the best configuration of each kernel/device/problem size.
void BM_BestOverAMillionRecords(benchmark::State& state) {
  const std::string& path = million_record_store();
  std::size_t groups = 0;
  for (auto _ : state) {
    const ktune::store::ResultsStore store(path, ktune::store::OpenMode::existing);
    const auto best = ktune::store::best_per_group(store, {std::nullopt, std::nullopt, 10});
    groups = best.size();
    benchmark::DoNotOptimize(best.data());
  }
  state.counters["groups"] = static_cast<double>(groups);
  state.counters["records"] = 1e6;
}

// `ktune store import` of the largest benchmark_hub cache into a fresh store (gunzip, parse, one transaction).
void BM_ImportLargestHubCache(benchmark::State& state) {
  const std::string cache = std::string(KTUNE_SHARED_DIR) + "/data/benchmark_hub/cachefiles/gemm_clblast/RTX_Titan.json.gz";
  std::size_t added = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const std::string path = bench_path("import.ktune");
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
    state.ResumeTiming();
    ktune::store::ResultsStore store(path);
    added = ktune::store::import_results_file(store, cache).added;
    benchmark::DoNotOptimize(added);
  }
  state.counters["records"] = static_cast<double>(added);
}

BENCHMARK(BM_BestOverAMillionRecords)->Unit(benchmark::kMillisecond)->Iterations(20);
BENCHMARK(BM_ImportLargestHubCache)->Unit(benchmark::kMillisecond)->Iterations(5)->Repetitions(3)
    ->ReportAggregatesOnly(false);

// The bench's temporary stores go with the process.
const struct Cleanup {
  ~Cleanup() {
    std::error_code ec;
    fs::remove_all(fs::temp_directory_path() / ("ktune_store_bench_" + std::to_string(::getpid())), ec);
  }
} cleanup;

}  // namespace
