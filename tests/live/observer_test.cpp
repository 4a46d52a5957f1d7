// Observers: the powercap observer on a fake sysfs tree (zone selection, counter wrap, per-launch energy and power,
// unreadable counters), the NVML observer's absence, and on the stand-in NVML library of tests/support/fake_nvml its
// energy, temperature and clocks, and energy measured through the live evaluator in the worker.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "fake_backend.hpp"
#include "ktune/live/live_evaluator.hpp"
#include "ktune/live/observer.hpp"
#include "ktune/search_space.hpp"
#include "temp_files.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using live::make_observer;
using live::ObserverOptions;

void write_file(const fs::path& path, const std::string& content) {
  std::ofstream out(path);
  out << content << "\n";
}

std::uint64_t read_counter(const fs::path& path) {
  std::ifstream in(path);
  std::uint64_t v = 0;
  in >> v;
  return v;
}

// A powercap tree: package 0 with a core subzone and a dram subzone, package 1, psys and an mmio mirror.
fs::path fake_powercap(const std::string& name) {
  const fs::path root = testing::temp_dir() / name;
  auto zone = [&](const std::string& dir, const std::string& zone_name, std::uint64_t energy, std::uint64_t range) {
    fs::create_directories(root / dir);
    write_file(root / dir / "name", zone_name);
    write_file(root / dir / "energy_uj", std::to_string(energy));
    write_file(root / dir / "max_energy_range_uj", std::to_string(range));
  };
  zone("intel-rapl:0", "package-0", 1'000'000, 262'143'328'850);
  zone("intel-rapl:0:0", "core", 500'000, 262'143'328'850);
  zone("intel-rapl:0:1", "dram", 2'000'000, 65'712'999'613);
  zone("intel-rapl:1", "package-1", 262'143'000'000, 262'143'328'850);  // about to wrap
  zone("intel-rapl:2", "psys", 7'000'000, 262'143'328'850);
  zone("intel-rapl-mmio:0", "package-0", 9'000'000, 262'143'328'850);
  return root;
}

TEST(PowercapObserver, SumsPackagesAndDramAcrossAWrap) {
  const fs::path root = fake_powercap("powercap_sum");
  std::string why_not;
  auto observer = make_observer("powercap", ObserverOptions{root.string(), 0, {}}, why_not);
  ASSERT_NE(observer, nullptr) << why_not;
  EXPECT_EQ(observer->measurement_names(), (std::vector<std::string>{"powercap_energy", "powercap_power"}));
  observer->start();
  write_file(root / "intel-rapl:0" / "energy_uj", "3000000");          // +2 J
  write_file(root / "intel-rapl:0:1" / "energy_uj", "2500000");        // +0.5 J
  write_file(root / "intel-rapl:1" / "energy_uj", "671150");           // wrapped: +328850 + 671150 = +1 J
  write_file(root / "intel-rapl:0:0" / "energy_uj", "99000000");       // core: part of the package, not added
  write_file(root / "intel-rapl:2" / "energy_uj", "99000000");         // psys: would count the packages twice
  write_file(root / "intel-rapl-mmio:0" / "energy_uj", "99000000");    // a mirror
  const auto observed = observer->stop(7, 500.0);
  ASSERT_EQ(observed.size(), 2u);
  EXPECT_EQ(observed[0].name, "powercap_energy");
  EXPECT_EQ(observed[0].unit, "J");
  EXPECT_NEAR(observed[0].value, 3.5 / 7, 1e-12);
  EXPECT_EQ(observed[1].name, "powercap_power");
  EXPECT_EQ(observed[1].unit, "W");
  EXPECT_NEAR(observed[1].value, 3.5 / 0.5, 1e-9);
}

TEST(PowercapObserver, UnavailableWithAReason) {
  std::string why_not;
  const std::string missing = (testing::temp_dir() / "no_such_powercap").string();
  EXPECT_EQ(make_observer("powercap", ObserverOptions{missing, 0, {}}, why_not), nullptr);
  EXPECT_NE(why_not.find(missing), std::string::npos) << why_not;

  const fs::path empty = testing::temp_dir() / "powercap_empty";
  fs::create_directories(empty / "intel-rapl:0");
  write_file(empty / "intel-rapl:0" / "name", "psys");
  EXPECT_EQ(make_observer("powercap", ObserverOptions{empty.string(), 0, {}}, why_not), nullptr);
  EXPECT_NE(why_not.find("no package or dram"), std::string::npos) << why_not;

  const fs::path garbled = fake_powercap("powercap_garbled");
  write_file(garbled / "intel-rapl:0" / "energy_uj", "n/a");
  EXPECT_EQ(make_observer("powercap", ObserverOptions{garbled.string(), 0, {}}, why_not), nullptr);
  EXPECT_NE(why_not.find("energy_uj"), std::string::npos) << why_not;
}

TEST(Observers, NamesAndUnknownName) {
  EXPECT_EQ(live::observer_names(), (std::vector<std::string>{"powercap", "nvml"}));
  std::string why_not;
  EXPECT_THROW(make_observer("joulemeter", {}, why_not), std::invalid_argument);
}

TEST(NvmlObserver, ObservesOnlyWithAnNvidiaDriver) {
  std::string why_not;
  auto observer = make_observer("nvml", {}, why_not);
  if (observer) GTEST_SKIP() << "an NVIDIA driver is present: nothing to check about its absence";
  EXPECT_FALSE(why_not.empty());
  EXPECT_NE(why_not.find("NV"), std::string::npos) << why_not;
}

// The stand-in NVML (tests/support/fake_nvml): 100 W, temperature cycling 60..64 C reading by reading, graphics clock
// 1410 MHz, memory clock 1215 MHz.
ObserverOptions fake_nvml() {
  ObserverOptions o;
  o.nvml_library = KTUNE_FAKE_NVML;
  return o;
}

// Sets an environment variable of the stand-in for the scope.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedVariable() { ::unsetenv(name_); }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
};

std::map<std::string, double> by_name(const std::vector<live::Observation>& observations) {
  std::map<std::string, double> out;
  for (const auto& o : observations) out[o.name] = o.value;
  return out;
}

TEST(NvmlObserver, SamplesTemperatureAndClocksWhileTheLaunchesRun) {
  std::string why_not;
  auto observer = make_observer("nvml", fake_nvml(), why_not);
  ASSERT_NE(observer, nullptr) << why_not;
  EXPECT_EQ(observer->measurement_names(),
            (std::vector<std::string>{"nvml_energy", "nvml_power", "temperature", "core_freq", "mem_freq"}));
  for (int series = 0; series < 2; ++series) {  // each start() begins its own means
    observer->start();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto got = by_name(observer->stop(10, 100.0));
    // Read at the two ends only, the cycle's mean would be 60.5; sampled every millisecond it is close to 62.
    EXPECT_GE(got.at("temperature"), 61.4) << series;
    EXPECT_LE(got.at("temperature"), 62.5) << series;
    EXPECT_EQ(got.at("core_freq"), 1410.0);
    EXPECT_EQ(got.at("mem_freq"), 1215.0);
    EXPECT_GT(got.at("nvml_energy"), 0.9);  // 100 W for at least 0.1 s over 10 launches: at least 1 J each
    EXPECT_GT(got.at("nvml_power"), 90.0);
  }
}

TEST(NvmlObserver, ReportsOnlyWhatTheDeviceAnswers) {
  const ScopedVariable no_temperature("FAKE_NVML_NO_TEMPERATURE", "1");
  std::string why_not;
  auto observer = make_observer("nvml", fake_nvml(), why_not);
  ASSERT_NE(observer, nullptr) << why_not;
  EXPECT_EQ(observer->measurement_names(),
            (std::vector<std::string>{"nvml_energy", "nvml_power", "core_freq", "mem_freq"}));
  observer->start();
  const auto got = by_name(observer->stop(1, 1.0));
  EXPECT_EQ(got.count("temperature"), 0u);
  EXPECT_EQ(got.at("core_freq"), 1410.0);
}

TEST(NvmlObserver, AReadingThatFailsFailsTheConfigurationNamingIt) {
  const ScopedVariable fails("FAKE_NVML_TEMPERATURE_FAILS_AFTER", "3");  // the probe, then two good readings
  std::string why_not;
  auto observer = make_observer("nvml", fake_nvml(), why_not);
  ASSERT_NE(observer, nullptr) << why_not;
  observer->start();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string error = testing::error_of<std::runtime_error>([&] { observer->stop(1, 20.0); });
  EXPECT_NE(error.find("temperature"), std::string::npos) << error;
  EXPECT_NE(error.find("Unknown Error"), std::string::npos) << error;
}

TEST(NvmlObserver, ALibraryThatCannotBeOpenedIsNamed) {
  ObserverOptions o;
  o.nvml_library = (testing::temp_dir() / "no-such-libnvidia-ml.so").string();
  std::string why_not;
  EXPECT_EQ(make_observer("nvml", o, why_not), nullptr);
  EXPECT_NE(why_not.find("no-such-libnvidia-ml.so"), std::string::npos) << why_not;
}

// In the worker, as tuning runs it: the temperature and clocks are measurements of each configuration.
TEST(LiveEvaluatorObservers, TemperatureAndClocksFromTheWorker) {
  const Problem problem = ProblemBuilder("fake").parameter("kernel", {Value("correct")}).constant("n_elements", 64).build();
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = testing::fake_specification();
  spec.metrics = {{"mhz_per_joule", "core_freq / nvml_energy", ""}};
  live::LiveEvaluatorOptions o;
  o.objectives = {{"nvml_energy", false}};
  o.backend_factory = testing::fake_factory(testing::fake_options({2.0}));
  o.observers = {"nvml"};
  o.observer_options = fake_nvml();
  live::LiveEvaluator evaluator(problem, space, spec, std::move(o));
  EXPECT_EQ(evaluator.observers(), (std::vector<std::string>{"nvml"}));
  ASSERT_EQ(evaluator.evaluate(0).status, Status::ok);
  const EvaluationRecord r = evaluator.record(0);
  for (const char* name : {"temperature", "core_freq", "mem_freq", "nvml_power", "mhz_per_joule"})
    ASSERT_NE(r.find(name), nullptr) << name;
  EXPECT_GE(r.find("temperature")->value.to_double(), 60.0);
  EXPECT_LE(r.find("temperature")->value.to_double(), 64.0);
  EXPECT_EQ(r.find("core_freq")->value.to_double(), 1410.0);
  EXPECT_EQ(r.find("mem_freq")->value.to_double(), 1215.0);
}

// Every launch of the fake kernel draws 1 J from package 0: the timed launches (not the warm-up or the check run)
// are what the worker's observer reports, per launch, and energy can be an objective and feed a metric.
TEST(LiveEvaluatorObservers, EnergyPerLaunchFromTheWorker) {
  const fs::path root = fake_powercap("powercap_live");
  const fs::path counter = root / "intel-rapl:0" / "energy_uj";
  testing::FakeBackendOptions options = testing::fake_options({2.0});
  options.on_launch = [counter] { write_file(counter, std::to_string(read_counter(counter) + 1'000'000)); };
  const Problem problem = ProblemBuilder("fake").parameter("kernel", {Value("correct")}).constant("n_elements", 64).build();
  const SearchSpace space = SearchSpace::build(problem);
  auto spec = testing::fake_specification();
  spec.metrics = {{"launches_per_joule", "1/powercap_energy", ""}};
  live::LiveEvaluatorOptions o;
  o.objectives = {{"powercap_energy", false}};
  o.backend_factory = testing::fake_factory(options);
  o.observers = {"powercap", "nvml"};
  o.observer_options.powercap_root = root.string();
  live::LiveEvaluator evaluator(problem, space, spec, std::move(o));
  EXPECT_EQ(evaluator.observers(), (std::vector<std::string>{"powercap"}));
  const EvaluationOutcome outcome = evaluator.evaluate(0);
  ASSERT_EQ(outcome.status, Status::ok);
  EXPECT_NEAR(outcome.objectives[0], 1.0, 1e-9);
  const EvaluationRecord r = evaluator.record(0);
  ASSERT_NE(r.find("powercap_power"), nullptr);
  EXPECT_GT(r.find("powercap_power")->value.to_double(), 0.0);
  ASSERT_NE(r.find("launches_per_joule"), nullptr);
  EXPECT_NEAR(r.find("launches_per_joule")->value.to_double(), 1.0, 1e-9);
}

TEST(LiveEvaluatorObservers, ObjectiveOfAnUnavailableObserverNamesWhy) {
  const Problem problem = ProblemBuilder("fake").parameter("kernel", {Value("correct")}).constant("n_elements", 64).build();
  const SearchSpace space = SearchSpace::build(problem);
  live::LiveEvaluatorOptions o;
  o.objectives = {{"powercap_energy", false}};
  o.backend_factory = testing::fake_factory();
  o.observers = {"powercap"};
  o.observer_options.powercap_root = (testing::temp_dir() / "absent").string();
  const std::string error = testing::error_of<std::invalid_argument>(
      [&] { live::LiveEvaluator evaluator(problem, space, testing::fake_specification(), std::move(o)); });
  EXPECT_NE(error.find("powercap_energy"), std::string::npos) << error;
  EXPECT_NE(error.find("not observing: powercap"), std::string::npos) << error;
}

}  // namespace
}  // namespace ktune
