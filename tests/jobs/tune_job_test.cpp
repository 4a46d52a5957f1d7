// The rules of a tuning run, through the library (no binary spawned): objectives and their directions, refusals,
// the implicit block-size limit, resuming from and appending to a cache, records, the Pareto front and the report.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <span>
#include <string>

#include <gtest/gtest.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/jobs/tune_job.hpp"
#include "ktune/live/backend.hpp"
#include "ktune/tuning/interruption.hpp"
#include "shared_data.hpp"
#include "slow_scale_problem.hpp"
#include "temp_files.hpp"

namespace {

using namespace ktune;

bool same(const std::vector<Value>& a, const std::vector<Value>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), same_value);
}
using ktune::testing::shared_path;
using ktune::testing::temp_dir;

const std::string kConvolution = shared_path("data/benchmark_hub/cachefiles/convolution_milo/MI250X_T4.json.gz");
const std::string kDedispersionT1 = shared_path("data/searchspaces/realworld/dedispersion.json");
const std::string kDedispersion = shared_path("data/benchmark_hub/cachefiles/dedispersion_milo/A4000_T4.json.gz");

TuneRequest simulated(const std::string& strategy = "random_sample", std::uint64_t evaluations = 40) {
  TuneRequest r;
  r.simulate_path = kConvolution;
  r.strategy = strategy;
  r.budget.max_evaluations = evaluations;
  r.seed = 7;
  return r;
}

JobError::Kind refusal(TuneRequest request) {
  try {
    TuneJob job(std::move(request));
  } catch (const JobError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "the job was not refused";
  return JobError::Kind::request;
}

TEST(TuneJob, ObjectivesComeFromTheRequestElseTheFileElseTime) {
  TuneJob by_default(simulated());
  ASSERT_EQ(by_default.objectives().size(), 1u);
  EXPECT_EQ(by_default.objectives()[0].name, "time");
  EXPECT_FALSE(by_default.objectives()[0].higher_is_better);

  TuneRequest two = simulated();
  two.objectives = {"time,threads:max"};
  two.derived = {"threads=block_size_x*block_size_y"};
  TuneJob job(std::move(two));
  ASSERT_EQ(job.objectives().size(), 2u);
  EXPECT_EQ(job.objectives()[1].name, "threads");
  EXPECT_TRUE(job.objectives()[1].higher_is_better);

  // --maximize: the direction of every objective given without one.
  TuneRequest maximise = simulated();
  maximise.objectives = {"time"};
  maximise.maximize = true;
  EXPECT_TRUE(TuneJob(std::move(maximise)).objectives()[0].higher_is_better);
}

TEST(TuneJob, RefusesBadRequestsAndBadInputWithTheirKind) {
  TuneRequest unknown = simulated("no_such_strategy");
  EXPECT_EQ(refusal(std::move(unknown)), JobError::Kind::request);
  TuneRequest bad_setting = simulated();
  bad_setting.settings = {"fraction=2"};
  EXPECT_EQ(refusal(std::move(bad_setting)), JobError::Kind::request);
  TuneRequest missing = simulated();
  missing.simulate_path = "/nonexistent/results.json";
  EXPECT_EQ(refusal(std::move(missing)), JobError::Kind::input);
  TuneRequest live_without_file;
  EXPECT_EQ(refusal(std::move(live_without_file)), JobError::Kind::request);
  TuneRequest derive_live;
  derive_live.problem_path = kDedispersionT1;  // no KernelSpecification: nothing to run live
  EXPECT_EQ(refusal(std::move(derive_live)), JobError::Kind::request);
  TuneRequest unrecorded = simulated();  // an objective the file does not record: the request names it
  unrecorded.objectives = {"temperature"};
  EXPECT_EQ(refusal(std::move(unrecorded)), JobError::Kind::request);
  TuneRequest bad_derive = simulated();
  bad_derive.derived = {"x=no_such_parameter*2"};
  EXPECT_EQ(refusal(std::move(bad_derive)), JobError::Kind::input);
}

TEST(TuneJob, TheBlockSizeLimitIsTheRequestsOrNone) {
  TuneRequest limited;
  limited.problem_path = kDedispersionT1;
  limited.simulate_path = kDedispersion;
  limited.max_threads = 256;
  TuneJob job(std::move(limited));
  EXPECT_EQ(job.space().problem().max_threads, 256);
  TuneRequest unlimited;
  unlimited.problem_path = kDedispersionT1;
  unlimited.simulate_path = kDedispersion;
  unlimited.implicit_block_constraint = false;
  TuneJob all(std::move(unlimited));
  EXPECT_FALSE(all.space().problem().max_threads);
  EXPECT_GT(all.space().size(), job.space().size());
}

TEST(TuneJob, RecordsBestAndReportFollowTheTrace) {
  TuneJob job(simulated("genetic_algorithm", 50));
  const TuneOutcome outcome = job.run();
  const Trace& trace = outcome.result.trace;
  ASSERT_EQ(outcome.records.size(), trace.size());
  EXPECT_EQ(outcome.result.evaluations, 50u);
  ASSERT_TRUE(outcome.best);
  for (std::size_t i = 0; i < trace.size(); ++i) {
    EXPECT_EQ(outcome.records[i].clock_ms, trace[i].clock_ms);
    EXPECT_TRUE(same(outcome.records[i].config, job.space().values_at(trace[i].index)));
    if (trace[i].status == Status::ok) {
      EXPECT_LE(trace.values(*outcome.best)[0], trace.values(i)[0]);
    }
  }
  const nlohmann::json report = tune_report_json(job, outcome, true);
  EXPECT_EQ(report.at("evaluations"), 50);
  EXPECT_EQ(report.at("best").at("evaluation"), *outcome.best + 1);
  EXPECT_EQ(report.at("trace").size(), trace.size());
  EXPECT_EQ(report.at("strategy"), "genetic_algorithm");
  EXPECT_TRUE(report.at("hyperparameters").contains("popsize"));
  // The same request, the same run.
  TuneJob again(simulated("genetic_algorithm", 50));
  const TuneOutcome second = again.run();
  ASSERT_EQ(second.result.trace.size(), trace.size());
  for (std::size_t i = 0; i < trace.size(); ++i) EXPECT_EQ(second.result.trace[i].index, trace[i].index);
  EXPECT_THROW(job.run(), std::logic_error);  // once per job
}

TEST(TuneJob, SeveralObjectivesGiveTheParetoFrontOfTheTrace) {
  TuneRequest r = simulated("nsga2", 80);
  r.objectives = {"time", "threads:max"};
  r.derived = {"threads=block_size_x*block_size_y"};
  TuneJob job(std::move(r));
  const TuneOutcome outcome = job.run();
  ASSERT_FALSE(outcome.pareto_front.empty());
  const Trace& trace = outcome.result.trace;
  for (std::size_t a : outcome.pareto_front)
    for (std::size_t i = 0; i < trace.size(); ++i) {
      if (trace[i].status != Status::ok) continue;
      const bool dominates = trace.values(i)[0] <= trace.values(a)[0] && trace.values(i)[1] >= trace.values(a)[1] &&
                             (trace.values(i)[0] < trace.values(a)[0] || trace.values(i)[1] > trace.values(a)[1]);
      EXPECT_FALSE(dominates) << "evaluation " << i + 1 << " dominates front point " << a + 1;
    }
  EXPECT_EQ(tune_report_json(job, outcome, false).at("pareto_front").size(), outcome.pareto_front.size());
}

TEST(TuneJob, ACacheIsResumedAndAppendedTo) {
  const std::string cache = (temp_dir() / "tune_job_cache.json").string();
  std::filesystem::remove(cache);
  TuneRequest first = simulated("random_sample", 15);
  first.cache_path = cache;
  TuneJob job(std::move(first));
  const TuneOutcome outcome = job.run();
  EXPECT_EQ(outcome.resumed, 0u);
  EXPECT_EQ(io::read_results_file(cache).records.size(), 15u);

  // The run again with a budget of 25: the 15 known results are not measured again, count toward the budget (as
  // Kernel Tuner counts cached configurations), and keep their records.
  TuneRequest second = simulated("random_sample", 25);
  second.cache_path = cache;
  TuneJob resumed(std::move(second));
  const TuneOutcome more = resumed.run();
  EXPECT_EQ(more.resumed, 15u);
  EXPECT_EQ(more.result.evaluations, 10u);
  std::set<std::size_t> first_indices;
  for (const auto& e : outcome.result.trace.entries()) first_indices.insert(e.index);
  std::size_t resumed_entries = 0;
  for (std::size_t i = 0; i < more.result.trace.size(); ++i) {
    const TraceEntry& e = more.result.trace[i];
    if (!e.resumed) continue;
    ++resumed_entries;
    EXPECT_TRUE(first_indices.count(e.index));
    EXPECT_TRUE(same(more.records[i].config, resumed.space().values_at(e.index)));
  }
  EXPECT_EQ(resumed_entries, 15u);
  EXPECT_EQ(more.records.size(), 25u);
  EXPECT_EQ(io::read_results_file(cache).records.size(), 25u);
}

TEST(TuneJob, RerunningAFinishedRunMeasuresNothing) {
  const std::string cache = (temp_dir() / "tune_job_rerun.json").string();
  std::filesystem::remove(cache);
  const auto run = [&](std::uint64_t evaluations, bool counts_resumed) {
    TuneRequest r = simulated("pso", evaluations);
    r.cache_path = cache;
    r.budget_counts_resumed = counts_resumed;
    TuneJob job(std::move(r));
    return job.run();
  };
  EXPECT_EQ(run(30, true).result.evaluations, 30u);
  const TuneOutcome again = run(30, true);
  EXPECT_EQ(again.result.evaluations, 0u);
  EXPECT_EQ(again.resumed, 30u);
  EXPECT_EQ(again.result.stop_reason, StopReason::max_evaluations);
  EXPECT_EQ(io::read_results_file(cache).records.size(), 30u);
  // The old rule, on request: the budget is for new measurements.
  EXPECT_EQ(run(30, false).result.evaluations, 30u);
  EXPECT_EQ(io::read_results_file(cache).records.size(), 60u);
}

TEST(TuneJob, ACacheOfAnotherDeviceIsRefusedUnlessReused) {
  const std::string cache = (temp_dir() / "tune_job_other_device.json").string();
  std::filesystem::remove(cache);
  TuneRequest a100 = simulated("random_sample", 5);
  a100.simulate_path = shared_path("data/benchmark_hub/cachefiles/convolution_milo/A100.json.gz");
  a100.cache_path = cache;
  TuneJob(a100).run();
  TuneRequest a4000 = a100;
  a4000.simulate_path = shared_path("data/benchmark_hub/cachefiles/convolution_milo/A4000.json.gz");
  try {
    TuneJob job(a4000);
    ADD_FAILURE() << "resumed a cache of another device";
  } catch (const JobError& e) {
    EXPECT_EQ(e.kind(), JobError::Kind::input);
    EXPECT_CONTAINS(std::string(e.what()), "the file holds results of device 'NVIDIA A100-PCIE-40GB', this run is on "
                                           "'NVIDIA RTX A4000'");
  }
  a4000.reuse_cache = true;
  EXPECT_EQ(TuneJob(a4000).run().resumed, 5u);
}

TEST(TuneJob, OutputsAreCheckedBeforeAnythingIsMeasured) {
  const std::string file = ktune::testing::write_temp("not_a_folder", "x");
  TuneRequest under_a_file = simulated();
  under_a_file.output_path = file + "/results.json";
  EXPECT_EQ(refusal(under_a_file), JobError::Kind::input);
  TuneRequest over_input = simulated();
  over_input.csv_path = kConvolution;
  EXPECT_EQ(refusal(over_input), JobError::Kind::input);
  TuneRequest over_cache = simulated();
  over_cache.cache_path = (temp_dir() / "same.json").string();
  over_cache.output_path = over_cache.cache_path;
  EXPECT_EQ(refusal(over_cache), JobError::Kind::input);
  // Missing folders are made.
  TuneRequest nested = simulated("random_sample", 3);
  nested.output_path = (temp_dir() / "made" / "for" / "it.t4.json").string();
  TuneJob job(nested);
  EXPECT_TRUE(std::filesystem::is_directory(temp_dir() / "made" / "for"));
  EXPECT_TRUE(job.write_outputs(job.run()).empty());
  EXPECT_EQ(io::read_results_file(nested.output_path).records.size(), 3u);
}

TEST(TuneJob, AFailingOutputDoesNotKeepTheOthersFromBeingWritten) {
  TuneRequest r = simulated("random_sample", 4);
  r.csv_path = (temp_dir() / "becomes_a_folder.csv").string();
  r.output_path = (temp_dir() / "still_written.t4.json").string();
  std::filesystem::remove_all(r.csv_path);
  std::filesystem::remove(r.output_path);
  TuneJob job(r);
  const TuneOutcome outcome = job.run();
  std::filesystem::create_directories(r.csv_path);  // the place went away while the run measured
  const auto failures = job.write_outputs(outcome);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_CONTAINS(failures[0], r.csv_path);
  EXPECT_EQ(io::read_results_file(r.output_path).records.size(), 4u);
}

TEST(TuneJob, ARequestedStopEndsTheRunWithWhatWasMeasured) {
  struct StopAfter final : TuningListener {
    void on_evaluation(const CostFunction&, std::size_t position) override {
      if (position == 9) request_stop();
    }
  } stop;
  TuneJob job(simulated("random_sample", 100));
  const TuneOutcome outcome = job.run({&stop});
  clear_stop_request();
  EXPECT_EQ(outcome.result.stop_reason, StopReason::interrupted);
  EXPECT_EQ(outcome.records.size(), outcome.result.trace.size());
  EXPECT_GE(outcome.result.trace.size(), 10u);
  EXPECT_LT(outcome.result.trace.size(), 100u);
}

TEST(TuneJob, WritesT4AndCsvOfEveryEvaluation) {
  TuneJob job(simulated("random_sample", 12));
  const TuneOutcome outcome = job.run();
  const std::string t4 = (temp_dir() / "tune_job.json").string(), csv = (temp_dir() / "tune_job.csv").string();
  job.write_t4(t4, outcome);
  job.write_csv(csv, outcome);
  const io::ResultsFile back = io::read_results_file(t4);
  ASSERT_EQ(back.records.size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) EXPECT_TRUE(same(back.records[i].config, outcome.records[i].config));
  EXPECT_TRUE(std::filesystem::file_size(csv) > 0);
  EXPECT_THROW(job.write_t4("/nonexistent/dir/out.json", outcome), io::InputError);
}

}  // namespace

TEST(TuneJob, RestrictionsNarrowASimulationToTheRecordedConfigurationsThatSatisfyThem) {
  TuneRequest whole = simulated("brute_force");
  whole.budget.max_evaluations.reset();
  TuneJob all(std::move(whole));
  TuneRequest narrowed = simulated("brute_force");
  narrowed.budget.max_evaluations.reset();
  narrowed.restrictions = {"block_size_x == 32", "tile_size_y <= 2"};
  TuneJob job(std::move(narrowed));
  const SearchSpace& space = job.space();
  const std::size_t bx = *space.problem().parameter_index("block_size_x");
  const std::size_t ty = *space.problem().parameter_index("tile_size_y");
  std::size_t expected = 0;
  for (std::size_t i = 0; i < all.space().size(); ++i) {
    const auto values = all.space().values_at(i);
    expected += values[bx].to_double() == 32 && values[ty].to_double() <= 2;
  }
  ASSERT_GT(expected, 0u);
  ASSERT_LT(expected, all.space().size());
  EXPECT_EQ(space.size(), expected);
  const TuneOutcome outcome = job.run();
  EXPECT_EQ(outcome.records.size(), expected);
  for (const auto& record : outcome.records) {
    EXPECT_EQ(record.config[bx].to_double(), 32);
    EXPECT_LE(record.config[ty].to_double(), 2);
  }
}

TEST(TuneJob, ABadRestrictionIsRefusedAsInputNamingTheFile) {
  TuneRequest request = simulated();
  request.restrictions = {"block_size_x == "};
  EXPECT_EQ(refusal(request), JobError::Kind::input);
  request.restrictions = {"no_such_parameter > 1"};
  try {
    TuneJob job(std::move(request));
    ADD_FAILURE() << "not refused";
  } catch (const JobError& e) {
    EXPECT_NE(std::string(e.what()).find("MI250X_T4.json.gz"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no_such_parameter"), std::string::npos) << e.what();
  }
}

TEST(TuneJob, ARestrictionAsCodeKeepsOnlyTheConfigurationsItAccepts) {
  TuneRequest request = simulated("brute_force");
  request.budget.max_evaluations.reset();
  request.restrictions = {"tile_size_y <= 2"};
  std::size_t asked = 0;
  std::size_t bx = 0;
  request.keep = [&](const Problem& problem, const std::vector<Value>& values) {
    ++asked;
    EXPECT_EQ(problem.parameters[bx].name, "block_size_x");
    return values[bx].to_double() == 32;
  };
  TuneRequest plain = simulated("brute_force");
  plain.budget.max_evaluations.reset();
  plain.restrictions = {"tile_size_y <= 2"};
  TuneJob without(std::move(plain));
  bx = *without.space().problem().parameter_index("block_size_x");
  TuneJob job(std::move(request));
  EXPECT_EQ(asked, without.space().size());  // once per configuration the expressions allow
  std::size_t expected = 0;
  for (std::size_t i = 0; i < without.space().size(); ++i) expected += without.space().values_at(i)[bx].to_double() == 32;
  EXPECT_EQ(job.space().size(), expected);
  const TuneOutcome outcome = job.run();
  EXPECT_EQ(outcome.records.size(), expected);

  TuneRequest throwing = simulated();
  throwing.keep = [](const Problem&, const std::vector<Value>&) -> bool {
    throw std::runtime_error("the callable raised");
  };
  try {
    TuneJob refused(std::move(throwing));
    ADD_FAILURE() << "not refused";
  } catch (const JobError& e) {
    EXPECT_EQ(e.kind(), JobError::Kind::input);
    EXPECT_NE(std::string(e.what()).find("the callable raised"), std::string::npos) << e.what();
  }
}

live::ArgumentSpecification argument(std::string name, live::ElementType type, bool scalar, live::Access access) {
  live::ArgumentSpecification a;
  a.name = std::move(name);
  a.type = type;
  a.scalar = scalar;
  a.access = access;
  return a;
}

// Ctrl-C while a live run starts (the device probed, the reference computed): the run ends as an interrupted one,
// with its outputs written empty, and the cache neither labelled nor touched.
TEST(TuneJob, AStopWhileALiveRunStartsStillEndsWithItsOutputs) {
  try {
    (void)live::make_backend("cpp");
  } catch (const live::BackendUnavailable& e) {
    GTEST_SKIP() << "the cpp backend is not available here: " << e.what();
  }
  const std::string kernel = ktune::testing::write_temp("stopped_scale.c", ktune::testing::kSlowScaleKernel);
  TuneRequest request;
  request.problem_path = ktune::testing::write_temp("stopped_scale_T1.json", ktune::testing::scale_t1(kernel));
  request.output_path = (temp_dir() / "stopped.t4.json").string();
  request.csv_path = (temp_dir() / "stopped.csv").string();
  request.cache_path = (temp_dir() / "stopped_cache.json").string();
  std::filesystem::remove(request.output_path);
  std::filesystem::remove(request.cache_path);
  request_stop();
  TuneJob job(request);
  const TuneOutcome outcome = job.run();
  clear_stop_request();
  EXPECT_EQ(outcome.result.stop_reason, StopReason::interrupted);
  EXPECT_EQ(outcome.result.evaluations, 0u);
  EXPECT_TRUE(job.write_outputs(outcome).empty());
  EXPECT_TRUE(io::read_results_file(request.output_path).records.empty());
  std::ifstream csv(request.csv_path);
  std::string header, row;
  EXPECT_TRUE(std::getline(csv, header));  // the parameters' names, no row
  EXPECT_FALSE(std::getline(csv, row));
  EXPECT_FALSE(std::filesystem::exists(request.cache_path) && std::filesystem::file_size(request.cache_path) > 0);
  EXPECT_EQ(tune_report_json(job, outcome, false).at("evaluations"), 0);
}

// A live run from memory: the problem, the kernel's code and its input data given by the caller, no file at all.
TEST(TuneJob, ALiveRunFromMemoryTunesTheGivenKernelOnTheGivenData) {
  try {
    (void)live::make_backend("cpp");
  } catch (const live::BackendUnavailable& e) {
    GTEST_SKIP() << "the cpp backend is not available here: " << e.what();
  }
  constexpr int n = 1000;
  auto bytes_of = [](const std::vector<float>& v) {
    const auto* p = reinterpret_cast<const std::byte*>(v.data());
    return std::make_shared<const std::vector<std::byte>>(p, p + v.size() * sizeof(float));
  };
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * static_cast<float>(i);
    b[i] = 1000.0f - static_cast<float>(i);
  }
  TuneRequest request;
  request.problem = ProblemBuilder("vector_add").parameter("block_size_x", {1, 2, 4}).build();
  live::KernelSpecification& kernel = request.kernel.emplace();
  kernel.backend = "cpp";
  kernel.kernel_name = "vector_add";
  kernel.kernel_code = R"(
void vector_add(float* c, const float* a, const float* b, int n) {
  for (int i = 0; i < n; i += block_size_x)
    for (int j = i; j < i + block_size_x && j < n; ++j) c[j] = a[j] + b[j] + (block_size_x == 4 && j == 7);
})";
  kernel.problem_size = {std::to_string(n), "1", "1"};
  using live::Access, live::ElementType, live::Fill;
  live::ArgumentSpecification c = argument("c", ElementType::float32, false, Access::write_only);
  c.size = std::to_string(n);
  live::ArgumentSpecification in_a = argument("a", ElementType::float32, false, Access::read_only);
  in_a.size = std::to_string(n);
  live::share_data(in_a, bytes_of(a));
  live::ArgumentSpecification in_b = in_a;
  in_b.name = "b";
  live::share_data(in_b, bytes_of(b));
  live::ArgumentSpecification count = argument("n", ElementType::int32, true, Access::read_only);
  count.fill_value = n;
  kernel.arguments = {c, in_a, in_b, count};
  kernel.repetition = ktune::RepetitionPolicy{.adaptive = false, .runs = 2};
  kernel.verification.kind = live::Verification::Kind::callback;
  kernel.verification.callback = [&](std::span<const live::KernelArgument> after) -> std::string {
    const auto* out = reinterpret_cast<const float*>(after[0].bytes.data());
    for (int i = 0; i < n; ++i)
      if (out[i] != a[i] + b[i]) return "c[" + std::to_string(i) + "] is wrong";
    return "";
  };
  request.strategy = "brute_force";
  TuneJob job(std::move(request));
  EXPECT_TRUE(job.live());
  const TuneOutcome outcome = job.run();
  ASSERT_EQ(outcome.records.size(), 3u);
  for (const auto& record : outcome.records) {
    if (record.config[0].as_int() == 4) {  // wrong in c[7]: caught by the caller's check against its own data
      EXPECT_EQ(record.status, Status::verification_failed);
      EXPECT_NE(record.message.find("c[7] is wrong"), std::string::npos) << record.message;
    } else {
      EXPECT_EQ(record.status, Status::ok) << record.message;
      EXPECT_GT(record.runtimes_ms.size(), 0u);
    }
  }
  ASSERT_TRUE(outcome.best);
}

TEST(TuneJob, InMemoryInputsAreCheckedAsFilesAre) {
  TuneRequest no_problem;
  no_problem.kernel.emplace();
  EXPECT_EQ(refusal(no_problem), JobError::Kind::request);
  TuneRequest both = simulated();
  both.problem = ProblemBuilder("p").parameter("x", {1, 2}).build();
  both.problem_path = kDedispersionT1;
  EXPECT_EQ(refusal(both), JobError::Kind::request);
  TuneRequest bad_kernel;
  bad_kernel.problem = ProblemBuilder("p").parameter("x", {1, 2}).build();
  bad_kernel.kernel.emplace().kernel_name = "k";  // no source
  try {
    TuneJob job(std::move(bad_kernel));
    ADD_FAILURE() << "not refused";
  } catch (const JobError& e) {
    EXPECT_EQ(e.kind(), JobError::Kind::input);
    EXPECT_NE(std::string(e.what()).find("problem 'p'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no kernel source"), std::string::npos) << e.what();
  }
  live::ArgumentSpecification missing = argument("a", live::ElementType::float32, false, live::Access::read_only);
  missing.fill = live::Fill::data;
  TuneRequest no_data;
  no_data.problem = ProblemBuilder("p").parameter("x", {1, 2}).build();
  no_data.kernel.emplace().kernel_name = "k";
  no_data.kernel->kernel_code = "void k(float* a) {}";
  no_data.kernel->arguments = {missing};
  EXPECT_EQ(refusal(no_data), JobError::Kind::input);
}

namespace {
// Evaluates the first `n` configurations in order: a caller's own strategy object.
class FirstN final : public Strategy {
 public:
  explicit FirstN(std::size_t n) : n_(n) {}
  void run(const SearchSpace& space, CostFunction& cost, Rng&) override {
    ++runs;
    for (std::size_t i = 0; i < n_ && i < space.size(); ++i) cost(i);
  }
  int runs = 0;

 private:
  std::size_t n_;
};
}  // namespace

TEST(TuneJob, AStrategyObjectOfTheCallersRunsInsteadOfARegisteredOne) {
  auto strategy = std::make_shared<FirstN>(5);
  TuneRequest request = simulated("my_strategy", 100);
  request.strategy_object = strategy;
  TuneJob job(std::move(request));
  const TuneOutcome outcome = job.run();
  EXPECT_EQ(strategy->runs, 1);
  ASSERT_EQ(outcome.records.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_TRUE(same(outcome.records[i].config, job.space().values_at(i)));
  EXPECT_EQ(outcome.result.stop_reason, StopReason::strategy_finished);
  EXPECT_TRUE(job.hyperparameters().empty());
  EXPECT_EQ(tune_report_json(job, outcome, false)["strategy"], "my_strategy");

  TuneRequest with_settings = simulated("my_strategy");
  with_settings.strategy_object = strategy;
  with_settings.settings = {"popsize=3"};
  EXPECT_EQ(refusal(std::move(with_settings)), JobError::Kind::request);
  TuneRequest isolated = simulated("my_strategy");
  isolated.strategy_object = strategy;
  isolated.isolate_strategy = true;
  EXPECT_EQ(refusal(std::move(isolated)), JobError::Kind::request);
}

TEST(TuneJob, WithoutAStrategyABudgetedRunUsesAutoAndAnUnlimitedOneBruteForce) {
  TuneRequest budgeted = simulated("", 30);
  TuneJob job(std::move(budgeted));
  EXPECT_EQ(job.request().strategy, "auto");
  const TuneOutcome outcome = job.run();
  EXPECT_EQ(outcome.records.size(), 30u);
  // auto is the recommended strategy itself: the same run as naming it
  TuneRequest named = simulated("auto", 30);
  TuneJob pso(std::move(named));
  const TuneOutcome pso_outcome = pso.run();
  ASSERT_EQ(pso_outcome.records.size(), outcome.records.size());
  for (std::size_t i = 0; i < outcome.records.size(); ++i)
    EXPECT_TRUE(same(outcome.records[i].config, pso_outcome.records[i].config));

  TuneRequest unlimited;
  unlimited.simulate_path = kConvolution;
  TuneJob all(std::move(unlimited));
  EXPECT_EQ(all.request().strategy, "brute_force");
  Budget timed;
  timed.time_limit_seconds = 1.0;
  EXPECT_EQ(default_strategy(timed), "auto");
  Budget target;
  target.target = 1.0;
  EXPECT_EQ(default_strategy(target), "brute_force");  // a target alone does not limit the run
}

namespace {

// Kernel Tuner's x0: the configurations the request starts from are evaluated first, in order, by name or in the
// problem's order, and the strategy then runs within the same budget.
TEST(TuneJob, StartConfigurationsAreEvaluatedFirst) {
  const io::ResultsFile file = io::read_results_file(kConvolution);
  const std::vector<Value> a = file.records[17].config, b = file.records[401].config;
  TuneRequest r = simulated("pso", 12);
  r.start.push_back({{}, a});
  std::vector<std::string> names;
  for (const auto& p : file.problem.parameters) names.push_back(p.name);
  std::vector<std::string> reversed_names(names.rbegin(), names.rend());
  r.start.push_back({reversed_names, std::vector<Value>(b.rbegin(), b.rend())});
  TuneJob job(std::move(r));
  const TuneOutcome out = job.run();
  ASSERT_EQ(out.records.size(), 12u);
  EXPECT_TRUE(same(out.records[0].config, a));
  EXPECT_TRUE(same(out.records[1].config, b));
}

TEST(TuneJob, AStartConfigurationOutsideTheSpaceIsRefusedNamingIt) {
  const io::ResultsFile file = io::read_results_file(kConvolution);
  auto refused = [&](TuneRequest::StartConfiguration start, const std::string& expected) {
    TuneRequest r = simulated("pso", 12);
    r.start.push_back(std::move(start));
    try {
      TuneJob job(std::move(r));
      ADD_FAILURE() << "not refused: " << expected;
    } catch (const JobError& e) {
      EXPECT_EQ(e.kind(), JobError::Kind::request);
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  std::vector<Value> values = file.records[0].config;
  refused({{}, std::vector<Value>(values.begin(), values.end() - 1)}, "9 values for the 10 parameters");
  values[0] = Value(7);
  refused({{}, values}, "7 is not a value of parameter 'block_size_x'");
  values = file.records[0].config;
  std::vector<std::string> names;
  for (const auto& p : file.problem.parameters) names.push_back(p.name);
  names[1] = names[0];
  refused({names, values}, "no value of parameter '" + file.problem.parameters[1].name + "'");
  TuneRequest r = simulated("pso", 12);
  r.restrictions = {"block_size_x != " + values[0].repr()};
  r.start.push_back({{}, values});
  try {
    TuneJob job(std::move(r));
    ADD_FAILURE() << "a configuration the restrictions leave out was taken";
  } catch (const JobError& e) {
    EXPECT_NE(std::string(e.what()).find("is not in the search space"), std::string::npos) << e.what();
  }
}

}  // namespace
