// The report's costs: what the live view adds to a tuning loop (a simulated brute force of the A100 dedispersion
// cache, 11,130 evaluations: the cheapest evaluations there are, so the largest share the view can take), with a
// browser asking every 100 ms (ten times what a page asks), and summarizing a run of 10^5 records into a page.
#include <benchmark/benchmark.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "ktune/report/html_page.hpp"
#include "ktune/report/live_run.hpp"
#include "ktune/report/report_server.hpp"
#include "ktune/tuning/tune.hpp"

#include "dedispersion_simulation.hpp"

namespace {

using ktune::bench::dedispersion;
using ktune::bench::Simulation;

// One GET of /data.json.
void ask(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) {
    const char request[] = "GET /data.json HTTP/1.1\r\n\r\n";
    (void)!::write(fd, request, sizeof request - 1);
    char buffer[65536];
    while (::read(fd, buffer, sizeof buffer) > 0) {
    }
  }
  ::close(fd);
}

// view 0: none; 1: the live view, nobody looking; 2: the live view and a browser asking every 100 ms (the run takes
// about 10 ms, so it is asked once or twice).
void BM_BruteForceWithLiveView(benchmark::State& state) {
  const Simulation& sim = dedispersion();
  auto strategy = ktune::make_strategy("brute_force");
  std::uint64_t evaluations = 0;
  for (auto _ : state) {
    ktune::TuningOptions options;
    std::optional<ktune::report::LiveRun> run;
    std::optional<ktune::report::LiveRunRecorder> recorder;
    std::optional<ktune::report::ReportServer> server;
    std::atomic<bool> done{false};
    std::thread browser;
    if (state.range(0) >= 1) {
      ktune::report::ReportRun base;
      base.problem = sim.space.problem();
      run.emplace(base, ktune::report::SummaryOptions{});
      recorder.emplace(*run);
      options.listeners.push_back(&*recorder);
      server.emplace(0, [&run] { return run->data(); });
    }
    if (state.range(0) == 2)
      browser = std::thread([&] {
        while (!done) {
          ask(server->port());
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      });
    const auto start = std::chrono::steady_clock::now();
    const auto result = ktune::tune(sim.space, *sim.evaluator, *strategy, options);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    done = true;
    if (browser.joinable()) browser.join();
    evaluations += result.evaluations;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(evaluations));
}
// The time of the tuning loop alone (the browser's last wait is not the loop's).
BENCHMARK(BM_BruteForceWithLiveView)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseManualTime();

// A run of 10^5 records (the dedispersion cache's 11,130, nine times over) summarized into a page.
void BM_ReportOf100000Records(benchmark::State& state) {
  const Simulation& sim = dedispersion();
  ktune::report::ReportRun run;
  run.problem = sim.results->problem;
  while (run.records.size() < 100000)
    for (const auto& r : sim.results->records)
      if (run.records.size() < 100000) run.records.push_back(r);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto data = ktune::report::page_data({ktune::report::summarize_run(run)}, "bench");
    bytes = ktune::report::html_page(data).size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["page_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ReportOf100000Records)->Unit(benchmark::kMillisecond);

}  // namespace
