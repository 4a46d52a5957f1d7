// ExportJob (jobs/export_job.hpp) over a Kernel Tuner cache, a T4 file, a results store and a Kernel Tuner results
// file: each (kernel, device, problem size)'s wisdom entry is the brute-force best of its records, the header's
// targets select it, the wisdom merges (newer wins), and bad input is refused naming the file.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ktune/io/kernel_tuner_results_file.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/jobs/export_job.hpp"
#include "ktune/live/launch_planner.hpp"
#include "ktune/runtime/wisdom.hpp"
#include "ktune/store/store_transfer.hpp"
#include "temp_files.hpp"

namespace {

using ktune::ExportRequest;
using ktune::JobError;
using ktune::testing::error_of;
using ktune::testing::fresh_temp_path;

std::string cache_of(const std::string& kernel, const std::string& device) {
  const std::string path =
      ktune::testing::shared_path("data/benchmark_hub/cachefiles/" + kernel + "_milo/" + device + ".json.gz");
  return path;
}

bool have_shared_data() { return std::filesystem::exists(cache_of("convolution", "A100")); }

// The best successful record of a file by "time", found by a plain loop: its value and its values as C literals.
struct Best {
  double value = 0;
  std::vector<std::string> values;
  std::size_t records = 0;
};
Best brute_force_best(const std::string& path) {
  const auto file = ktune::io::read_results_file(path);
  Best best;
  const ktune::EvaluationRecord* winner = nullptr;
  for (const auto& r : file.records) {
    ++best.records;
    if (r.status != ktune::Status::ok) continue;
    const auto t = r.objective("time");
    if (t && (!winner || *t < best.value)) {
      best.value = *t;
      winner = &r;
    }
  }
  for (const auto& v : winner->config) best.values.push_back(ktune::live::LaunchPlanner::c_literal(v));
  return best;
}

const ktune::runtime::WisdomEntry* entry_of(const ktune::runtime::Wisdom& w, const std::string& kernel,
                                            const std::string& device) {
  const auto* k = w.find(kernel);
  if (!k) return nullptr;
  for (const auto& e : k->entries)
    if (e.device == device) return &e;
  return nullptr;
}

TEST(ExportJob, WisdomHoldsTheBruteForceBestOfCachesT4FilesAndStores) {
  if (!have_shared_data()) GTEST_SKIP() << "no shared data";
  // A store holding the dedispersion kernel on the A4000.
  const std::string store_path = fresh_temp_path("export.ktune");
  {
    ktune::store::ResultsStore store(store_path);
    ktune::store::import_results_file(store, cache_of("dedispersion", "A4000"));
  }
  const std::string wisdom_path = fresh_temp_path("export.wisdom");
  ExportRequest request;
  request.results_paths = {cache_of("convolution", "A100"), cache_of("convolution", "MI250X"), store_path};
  request.wisdom_path = wisdom_path;
  EXPECT_CONTAINS(error_of<JobError>([&] { ktune::run_export(request); }),
                  "MI250X.json.gz: the results carry no device name: give --device NAME");
  request.device_name = "AMD Instinct MI250X";  // for the MI250X cache only: the others name their device
  const auto result = ktune::run_export(request);
  EXPECT_EQ(result.kernels, (std::vector<std::string>{"convolution_kernel", "dedispersion_kernel"}));
  EXPECT_EQ(result.entries.size(), 3u);
  EXPECT_EQ(result.wisdom_entries, 3u);
  EXPECT_EQ(result.problem_sizes, (std::vector<std::string>{"25000x2048x1", "4096x4096"}));

  const auto wisdom = ktune::runtime::Wisdom::load(wisdom_path);
  const struct {
    std::string kernel, device, file;
  } expected[] = {{"convolution_kernel", "NVIDIA A100-PCIE-40GB", cache_of("convolution", "A100")},
                  {"convolution_kernel", "AMD Instinct MI250X", cache_of("convolution", "MI250X")},
                  {"dedispersion_kernel", "NVIDIA RTX A4000", cache_of("dedispersion", "A4000")}};
  for (const auto& x : expected) {
    SCOPED_TRACE(x.device);
    const Best best = brute_force_best(x.file);
    const auto* e = entry_of(wisdom, x.kernel, x.device);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->values, best.values);
    EXPECT_DOUBLE_EQ(e->value, best.value);
    EXPECT_EQ(e->objective, "time");
    EXPECT_FALSE(e->higher_is_better);
    EXPECT_EQ(e->provenance.at("evaluations"), std::to_string(best.records));
    EXPECT_TRUE(e->provenance.contains("source"));
    EXPECT_TRUE(e->provenance.contains("format"));
  }
  EXPECT_EQ(entry_of(wisdom, "dedispersion_kernel", "NVIDIA RTX A4000")->problem_size,
            (ktune::runtime::ProblemSize{25000, 2048, 1}));
  EXPECT_EQ(entry_of(wisdom, "dedispersion_kernel", "NVIDIA RTX A4000")->provenance.at("format"),
            "ktune results store (Kernel Tuner cache)");
  EXPECT_EQ(entry_of(wisdom, "convolution_kernel", "AMD Instinct MI250X")->provenance.at("format"),
            "Kernel Tuner cache");

  // A T4 file carries no kernel, device or size: they come from the request. Merged into the wisdom: the A100's
  // entry is replaced (newer wins), the others stay.
  ExportRequest t4;
  t4.results_paths = {ktune::testing::shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000_T4.json.gz")};
  EXPECT_CONTAINS(error_of<JobError>([&] {
                    ktune::run_export([&] {
                      auto r = t4;
                      r.wisdom_path = wisdom_path;
                      return r;
                    }());
                  }),
                  "carry no kernel name: give --kernel NAME");
  t4.wisdom_path = wisdom_path;
  t4.kernel_name = "convolution_kernel";
  t4.device_name = "NVIDIA A100-PCIE-40GB";  // as if it were measured there, to see the replacement
  t4.problem_size = "4096x4096";
  const auto merged = ktune::run_export(t4);
  EXPECT_EQ(merged.wisdom_entries, 3u);
  EXPECT_EQ(merged.wisdom_replaced, 1u);
  const auto after = ktune::runtime::Wisdom::load(wisdom_path);
  const Best t4_best = brute_force_best(t4.results_paths[0]);
  EXPECT_EQ(entry_of(after, "convolution_kernel", "NVIDIA A100-PCIE-40GB")->values, t4_best.values);
  EXPECT_EQ(entry_of(after, "convolution_kernel", "NVIDIA A100-PCIE-40GB")->provenance.at("format"), "T4");
  EXPECT_EQ(entry_of(after, "convolution_kernel", "AMD Instinct MI250X")->values,
            brute_force_best(cache_of("convolution", "MI250X")).values);
  ASSERT_NE(entry_of(after, "dedispersion_kernel", "NVIDIA RTX A4000"), nullptr);
}

TEST(ExportJob, HeaderTargetsAreEachDevicesBestAndDefaultsAreDeclared) {
  if (!have_shared_data()) GTEST_SKIP() << "no shared data";
  const std::string header_path = fresh_temp_path("convolution.h"), wisdom_path = fresh_temp_path("conv.wisdom");
  ExportRequest request;
  request.results_paths = {cache_of("convolution", "A100"), cache_of("convolution", "MI250X"),
                           cache_of("dedispersion", "A4000")};
  request.header_path = header_path;
  request.device_name = "AMD Instinct MI250X";  // the MI250X cache names no device
  EXPECT_CONTAINS(error_of<JobError>([&] { ktune::run_export(request); }), "a header is for one kernel");
  request.kernel_name = "convolution_kernel";
  request.wisdom_path = wisdom_path;
  const std::string defaults[] = {"block_size_x=16",  "block_size_y=1", "tile_size_x=1", "tile_size_y=1",
                                  "read_only=0",      "use_padding=0",  "use_shmem=0",   "use_cmem=1",
                                  "filter_height=15", "filter_width=15"};
  request.defaults.assign(std::begin(defaults), std::end(defaults));
  const auto result = ktune::run_export(request);
  EXPECT_EQ(result.header_targets, 2u);
  EXPECT_EQ(result.kernels, (std::vector<std::string>{"convolution_kernel"}));
  const std::string header = ktune::testing::read_text(header_path);
  // One problem size per device: each target is the device's best.
  for (const auto& [device, file] : {std::pair{"AMD_Instinct_MI250X", cache_of("convolution", "MI250X")},
                                     std::pair{"NVIDIA_A100_PCIE_40GB", cache_of("convolution", "A100")}}) {
    const Best best = brute_force_best(file);
    const auto parameters = ktune::io::read_results_file(file).problem.parameters;
    std::string defines;
    for (std::size_t p = 0; p < parameters.size(); ++p)
      defines += "#define " + parameters[p].name + " " + best.values[p] + "\n";
    EXPECT_CONTAINS(header, std::string("TARGET_") + device + "\n" + defines);
  }
  EXPECT_CONTAINS(header, "#ifdef TARGET_AMD_Instinct_MI250X\n");  // sorted: AMD before NVIDIA
  EXPECT_CONTAINS(header, "#else /* default configuration */\n#define block_size_x 16\n#define block_size_y 1\n");
  const auto wisdom = ktune::runtime::Wisdom::load(wisdom_path);
  ASSERT_NE(wisdom.find("convolution_kernel"), nullptr);
  EXPECT_EQ(wisdom.find("convolution_kernel")->default_values[0], "16");
  EXPECT_EQ(wisdom.find("dedispersion_kernel"), nullptr);  // not chosen
}

TEST(ExportJob, AKernelTunerResultsFileIsAnInput) {
  // Written by store_results: the best entry of each device becomes its wisdom entry.
  ktune::io::StoreResultsRequest r;
  r.kernel_name = "vector_add";
  r.parameters = {"block_size_x"};
  r.problem_size = "100000";
  r.device_name = "My GPU";
  r.results = ktune::io::kernel_tuner_results_of(
      nlohmann::ordered_json::parse(R"([{"block_size_x": 64, "time": 1.02}, {"block_size_x": 128, "time": 1.0},
                                        {"block_size_x": 256, "time": 1.01}])"),
      "time", r.parameters);
  const std::string results_path = fresh_temp_path("results.json");
  ktune::io::store_results_file(results_path, r);
  ExportRequest request;
  request.results_paths = {results_path};
  request.wisdom_path = fresh_temp_path("from_results.wisdom");
  request.header_path = fresh_temp_path("from_results.h");
  const auto result = ktune::run_export(request);
  ASSERT_EQ(result.entries.size(), 1u);
  EXPECT_EQ(result.entries[0].device, "My_GPU");
  EXPECT_EQ(result.entries[0].values, (std::vector<std::string>{"128"}));
  EXPECT_EQ(result.entries[0].records, 3u);
  EXPECT_EQ(result.entries[0].problem_size, "100000");
  EXPECT_CONTAINS(ktune::testing::read_text(request.header_path), "#ifdef TARGET_My_GPU\n#define block_size_x 128\n");
  const auto json = ktune::export_report_json(result);
  EXPECT_EQ(json["entries"][0]["configuration"]["block_size_x"], "128");
  EXPECT_EQ(json["wisdom"]["entries"], 1);
  EXPECT_EQ(json["header"]["targets"], 1);
  // Another objective than the file's is refused.
  request.objective = "GFLOP/s";
  EXPECT_CONTAINS(error_of<JobError>([&] { ktune::run_export(request); }), "a results file of objective 'time'");
}

TEST(ExportJob, RefusesBadRequestsAndBadInputNamingTheFile) {
  const auto kind_of = [](const ExportRequest& request) {
    try {
      ktune::run_export(request);
    } catch (const JobError& e) {
      return std::optional<JobError::Kind>(e.kind());
    }
    return std::optional<JobError::Kind>();
  };
  ExportRequest request;
  request.results_paths = {"/nonexistent/results.json"};
  EXPECT_EQ(kind_of(request), JobError::Kind::request);  // no output
  EXPECT_CONTAINS(error_of<JobError>([&] { ktune::run_export(request); }), "nothing to write");
  request.wisdom_path = fresh_temp_path("bad.wisdom");
  EXPECT_EQ(kind_of(request), JobError::Kind::input);
  EXPECT_CONTAINS(error_of<JobError>([&] { ktune::run_export(request); }), "/nonexistent/results.json");

  const std::string broken = ktune::testing::write_temp(
      "broken_results.json", R"({"version_number": "1.0", "kernel_name": "k", "objective": "time",
        "tunable_parameters": ["a"], "data": [{"device_name": "D", "problem_size": "1",
        "tunable_parameters": {"a": 1}, "time": 1}, {"device_name": "D", "problem_size": "1x0",
        "tunable_parameters": {"a": 2}, "time": 2}]})");
  request.results_paths = {broken};
  const std::string message = error_of<JobError>([&] { ktune::run_export(request); });
  EXPECT_CONTAINS(message, "broken_results.json: entry 2");
  EXPECT_CONTAINS(message, "problem size");

  const std::string t4 = ktune::testing::write_temp("tiny_t4.json", R"({"schema_version": "1.0.0",
    "metadata": {"timeunit": "milliseconds"}, "results": [{"timestamp": "2024-01-01 00:00:00+00:00",
    "configuration": {"a": 1}, "times": {"runtimes": [2.0]}, "objectives": ["time"], "invalidity": "correct",
    "correctness": 1, "measurements": [{"name": "time", "value": 2.0, "unit": "ms"}]}]})");
  request.results_paths = {t4};
  request.kernel_name = "k";
  EXPECT_CONTAINS(error_of<JobError>([&] { ktune::run_export(request); }), "carry no device name: give --device");
  request.device_name = "D";
  EXPECT_CONTAINS(error_of<JobError>([&] { ktune::run_export(request); }), "no problem size: give --problem-size");
  request.problem_size = "10x10";
  request.defaults = {"b=1"};
  EXPECT_CONTAINS(error_of<JobError>([&] { ktune::run_export(request); }), "'b' is not a parameter of kernel 'k'");
  request.defaults = {"a"};
  EXPECT_EQ(kind_of(request), JobError::Kind::request);
  request.defaults = {"a=4"};
  const auto result = ktune::run_export(request);
  ASSERT_EQ(result.entries.size(), 1u);
  EXPECT_EQ(result.entries[0].values, (std::vector<std::string>{"1"}));
  EXPECT_DOUBLE_EQ(result.entries[0].value, 2.0);
  // A wisdom file that is not one is refused, and left as it was.
  const std::string not_wisdom = ktune::testing::write_temp("not.wisdom", "this is not wisdom\n");
  request.wisdom_path = not_wisdom;
  EXPECT_EQ(kind_of(request), JobError::Kind::input);
  EXPECT_EQ(ktune::testing::read_text(not_wisdom), "this is not wisdom\n");
}

}  // namespace
