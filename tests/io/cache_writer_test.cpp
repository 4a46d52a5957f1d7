// KernelTunerCacheWriter: Kernel Tuner's layout, entries flushed as they come, resuming interrupted files.
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <zlib.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/results_file.hpp"
#include "results_expectations.hpp"
#include "temp_files.hpp"

namespace ktune::io {
namespace {
namespace cache_writer_test {

using ktune::testing::error_of;
using ktune::testing::shared_path;
using ktune::testing::temp_dir;

std::string fresh_path(const std::string& name) { return ktune::testing::fresh_temp_path(name); }
std::string file_text(const std::string& path) { return ktune::testing::read_text(path); }

CacheHeader small_header() {
  CacheHeader h;
  h.device_name = "GPU";
  h.kernel_name = "k";
  h.problem_size = nlohmann::json::array({100, 2});
  h.problem = ProblemBuilder("k").parameter("bx", {32, 64}).parameter("alg", {"a", "b"}).parameter("f", {true, 2.5}).build();
  h.objectives = {"time"};
  return h;
}

EvaluationRecord record(const Problem& problem, std::size_t bx, std::size_t alg, std::size_t f) {
  EvaluationRecord r;
  r.config = {problem.parameters[0].values[bx], problem.parameters[1].values[alg], problem.parameters[2].values[f]};
  return r;
}

// A mix of successes and failures with awkward numbers.
std::vector<EvaluationRecord> sample_records(const Problem& problem) {
  std::vector<EvaluationRecord> records;
  EvaluationRecord ok = record(problem, 0, 1, 0);
  ok.measurements = {{"time", 1.25, ""}, {"GFLOP/s", std::int64_t{12}, ""}};
  ok.runtimes_ms = {1.0, 1.5, NAN};
  ok.compile_ms = 0.1;
  ok.benchmark_ms = 12;
  ok.framework_ms = 1e22;
  ok.timestamp = "2024";
  records.push_back(ok);

  EvaluationRecord legacy = record(problem, 1, 0, 1);  // a legacy failure: the error name in "time"
  legacy.status = Status::runtime_failed;
  legacy.message = "RuntimeFailedConfig";
  legacy.measurements = {{"time", "RuntimeFailedConfig", ""}};
  legacy.compile_ms = 3.5;
  legacy.framework_ms = 2.25;
  records.push_back(legacy);

  EvaluationRecord compile = record(problem, 1, 1, 1);
  compile.status = Status::compile_failed;
  compile.message = "CompilationFailedConfig";
  compile.compile_ms = 1.0 / 3.0;
  compile.timestamp = "2024-02";
  records.push_back(compile);

  EvaluationRecord odd = record(problem, 0, 0, 1);
  odd.measurements = {{"energy", -INFINITY, ""}, {"readings", Value::List{1.5, std::int64_t{2}, "x"}, ""},
                      {"flag", true, ""}, {"nothing", Value(), ""}};
  odd.runtimes_ms = {5e-324, 1e-300, 0.1 + 0.2, 123456789.123456789};
  odd.strategy_ms = -0.0;
  odd.verification_ms = 1e16;
  records.push_back(odd);

  EvaluationRecord empty_times = record(problem, 1, 1, 0);  // a success without runtimes keeps them empty
  records.push_back(empty_times);
  return records;
}

// nlohmann::json::parse after replacing Python's non-finite numbers.
nlohmann::json parse_strict(std::string text) {
  for (const std::string token : {"-Infinity", "Infinity", "NaN"})
    for (auto at = text.find(token); at != std::string::npos; at = text.find(token)) text.replace(at, token.size(), "null");
  return nlohmann::json::parse(text);
}

TEST(CacheWriter, WritesKernelTunersLayout) {
  const std::string path = fresh_path("layout.json");
  const CacheHeader header = small_header();
  {
    KernelTunerCacheWriter writer(path, header);
    EXPECT_TRUE(writer.existing().empty());
    EXPECT_EQ(writer.path(), path);
    // Python: json.dumps(header, indent="")[:-3]
    const std::string python_header =
        "{\n\"device_name\": \"GPU\",\n\"kernel_name\": \"k\",\n\"problem_size\": [\n100,\n2\n],\n\"tune_params_keys\": "
        "[\n\"bx\",\n\"alg\",\n\"f\"\n],\n\"tune_params\": {\n\"bx\": [\n32,\n64\n],\n\"alg\": [\n\"a\",\n\"b\"\n],\n"
        "\"f\": [\ntrue,\n2.5\n]\n},\n\"objective\": [\n\"time\"\n],\n\"cache\": {";
    EXPECT_EQ(file_text(path), python_header);  // flushed at once

    EvaluationRecord r = record(header.problem, 0, 1, 0);
    r.measurements = {{"time", 1.25, ""}, {"GFLOP/s", std::int64_t{12}, ""}};
    r.runtimes_ms = {1.0, 1.5, NAN};
    r.compile_ms = 0.1;
    r.benchmark_ms = 12;
    r.framework_ms = 1e22;
    r.timestamp = "2024";
    writer.append(r);
    // Python: "\n" + json.dumps({key: entry})[1:-1] + ","
    const std::string python_entry =
        "\n\"32,b,True\": {\"bx\": 32, \"alg\": \"b\", \"f\": true, \"time\": 1.25, \"GFLOP/s\": 12, \"times\": [1.0, "
        "1.5, NaN], \"compile_time\": 0.1, \"verification_time\": 0.0, \"benchmark_time\": 12.0, \"strategy_time\": "
        "0.0, \"framework_time\": 1e+22, \"timestamp\": \"2024\"},";
    EXPECT_EQ(file_text(path), python_header + python_entry);

    EvaluationRecord failed = record(header.problem, 1, 0, 1);
    failed.status = Status::invalid;
    writer.append(failed);
    EXPECT_CONTAINS(file_text(path), "\"framework_time\": 0.0, \"__error__\": \"InvalidConfig\"},");
    writer.close();
    // Kernel Tuner's close_cache: the trailing comma becomes "}\n}".
    EXPECT_TRUE(file_text(path).ends_with("\"__error__\": \"InvalidConfig\"}}\n}"));
    writer.close();  // idempotent
    EXPECT_THROW(writer.append(r), std::logic_error);
  }
  const nlohmann::json doc = parse_strict(file_text(path));
  EXPECT_EQ(doc["cache"].size(), 2u);
  EXPECT_EQ(doc["tune_params_keys"], nlohmann::json::parse(R"(["bx", "alg", "f"])"));
}

TEST(CacheWriter, EmptyCacheAndNullProblemSize) {
  const std::string path = fresh_path("empty.json");
  CacheHeader header = small_header();
  header.problem_size = nullptr;
  header.objectives = {};
  KernelTunerCacheWriter(path, header).close();
  const nlohmann::json doc = nlohmann::json::parse(file_text(path));
  EXPECT_EQ(doc["problem_size"], nlohmann::json::array());
  EXPECT_EQ(doc["cache"], nlohmann::json::object());
  EXPECT_TRUE(file_text(path).ends_with("\"cache\": {}\n}"));
  const ResultsFile f = read_results_file(path);
  EXPECT_TRUE(f.records.empty());
  EXPECT_FALSE(f.truncated);
}

TEST(CacheWriter, RoundTripIsExact) {
  const std::string path = fresh_path("round_trip.json");
  const CacheHeader header = small_header();
  const auto records = sample_records(header.problem);
  {
    KernelTunerCacheWriter writer(path, header);
    for (const auto& r : records) writer.append(r);
  }  // the destructor closes
  const ResultsFile f = read_results_file(path);
  EXPECT_FALSE(f.truncated);
  ASSERT_EQ(f.records.size(), records.size());
  for (std::size_t i = 0; i < records.size(); ++i) EXPECT_SAME_RECORD(f.records[i], records[i]);
  EXPECT_EQ(f.device_name, "GPU");
  EXPECT_EQ(f.kernel_name, "k");
  EXPECT_EQ(f.problem_size, header.problem_size);
  EXPECT_EQ(f.objectives, header.objectives);
  EXPECT_NO_THROW(parse_strict(file_text(path)));
}

TEST(CacheWriter, InterruptedFileReadsAndResumes) {
  const std::string path = fresh_path("live.json");
  const std::string killed = fresh_path("killed.json");
  const CacheHeader header = small_header();
  const auto records = sample_records(header.problem);
  {
    KernelTunerCacheWriter writer(path, header);
    for (std::size_t i = 0; i < 3; ++i) writer.append(records[i]);
    // Each entry is flushed: this copy is what a killed run leaves behind.
    std::filesystem::copy_file(path, killed);
  }
  const std::string killed_text = file_text(killed);
  EXPECT_TRUE(killed_text.ends_with("},"));
  const ResultsFile cut = read_results_file(killed);
  EXPECT_TRUE(cut.truncated);
  ASSERT_EQ(cut.records.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_SAME_RECORD(cut.records[i], records[i]);

  // Resume: the entries are there, more are appended, and close() leaves valid JSON.
  {
    KernelTunerCacheWriter writer(killed, header);
    ASSERT_EQ(writer.existing().size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_SAME_RECORD(writer.existing()[i], records[i]);
    for (std::size_t i = 3; i < records.size(); ++i) writer.append(records[i]);
    writer.close();
  }
  EXPECT_NO_THROW(parse_strict(file_text(killed)));
  const ResultsFile all = read_results_file(killed);
  EXPECT_FALSE(all.truncated);
  ASSERT_EQ(all.records.size(), records.size());
  for (std::size_t i = 0; i < records.size(); ++i) EXPECT_SAME_RECORD(all.records[i], records[i]);
  // The same as a file written in one go, byte for byte.
  EXPECT_EQ(file_text(killed), [&] {
    const std::string once = fresh_path("once.json");
    KernelTunerCacheWriter writer(once, header);
    for (const auto& r : records) writer.append(r);
    writer.close();
    return file_text(once);
  }());
}

TEST(CacheWriter, ResumesFilesCutInsideAnEntryOrClosed) {
  const CacheHeader header = small_header();
  const auto records = sample_records(header.problem);
  const std::string path = fresh_path("complete.json");
  {
    KernelTunerCacheWriter writer(path, header);
    for (std::size_t i = 0; i < 3; ++i) writer.append(records[i]);
  }
  const std::string complete = file_text(path);
  // Cut inside the third entry: two survive.
  const std::string cut_path = ktune::testing::write_temp("cut_entry.json", complete.substr(0, complete.rfind("\"compile_time\"")));
  {
    KernelTunerCacheWriter writer(cut_path, header);
    EXPECT_EQ(writer.existing().size(), 2u);
    writer.append(records[4]);
  }
  const ResultsFile f = read_results_file(cut_path);
  ASSERT_EQ(f.records.size(), 3u);
  EXPECT_SAME_RECORD(f.records[2], records[4]);
  EXPECT_NO_THROW(parse_strict(file_text(cut_path)));
  // A closed file is reopened for appending.
  {
    KernelTunerCacheWriter writer(path, header);
    EXPECT_EQ(writer.existing().size(), 3u);
    writer.append(records[3]);
  }
  EXPECT_EQ(read_results_file(path).records.size(), 4u);
  // Resuming without appending leaves the file as it was.
  { KernelTunerCacheWriter writer(path, header); }
  EXPECT_EQ(read_results_file(path).records.size(), 4u);
  // A file holding only the header (killed before the first result).
  const std::string header_only = fresh_path("header_only.json");
  {
    KernelTunerCacheWriter writer(header_only, header);
    std::filesystem::copy_file(header_only, header_only + ".copy");
  }
  {
    KernelTunerCacheWriter writer(header_only + ".copy", header);
    EXPECT_TRUE(writer.existing().empty());
    writer.append(records[0]);
  }
  EXPECT_EQ(read_results_file(header_only + ".copy").records.size(), 1u);
}

TEST(CacheWriter, ResumeChecksTheHeader) {
  const CacheHeader header = small_header();
  const std::string path = fresh_path("checked.json");
  { KernelTunerCacheWriter writer(path, header); }
  CacheHeader other_kernel = header;
  other_kernel.kernel_name = "other";
  EXPECT_CONTAINS(error_of<InputError>([&] { KernelTunerCacheWriter w(path, other_kernel); }),
                  path + ": kernel_name: the file is for kernel 'k', not 'other'");
  CacheHeader reordered = header;
  std::swap(reordered.problem.parameters[0], reordered.problem.parameters[1]);
  EXPECT_CONTAINS(error_of<InputError>([&] { KernelTunerCacheWriter w(path, reordered); }),
                  path + ": tune_params_keys: the file has the parameters [bx, alg, f], this run has [alg, bx, f]");
  CacheHeader fewer = header;
  fewer.problem.parameters.pop_back();
  EXPECT_CONTAINS(error_of<InputError>([&] { KernelTunerCacheWriter w(path, fewer); }), "this run has [bx, alg]");
  // The failed attempts left the file alone.
  EXPECT_NO_THROW(nlohmann::json::parse(file_text(path)));
  // Not a cache file / damaged.
  const std::string junk = ktune::testing::write_temp("junk.json", "{\"a\": ");
  EXPECT_CONTAINS(error_of<InputError>([&] { KernelTunerCacheWriter w(junk, header); }), junk + ": ");
  // gzip data is not appended to.
  const std::string gz = fresh_path("cache.json.gz");
  {
    gzFile out = gzopen(gz.c_str(), "wb");
    gzputs(out, "{\"tune_params\": {\"bx\": [32]}, \"cache\": {}}");
    gzclose(out);
  }
  EXPECT_CONTAINS(error_of<InputError>([&] { KernelTunerCacheWriter w(gz, header); }), "gzip");
}

TEST(CacheWriter, ResumeWithOtherValuesKeepsEveryEntryReadable) {
  const CacheHeader header = small_header();
  const auto records = sample_records(header.problem);
  const std::string path = fresh_path("values.json");
  {
    KernelTunerCacheWriter writer(path, header);
    writer.append(records[0]);  // bx = 32
  }
  // The new run tunes bx over 64 and 128 only; Kernel Tuner allows other values on resume.
  CacheHeader extended = header;
  extended.problem.parameters[0].values = {64, 128};
  {
    KernelTunerCacheWriter writer(path, extended);
    ASSERT_EQ(writer.existing().size(), 1u);
    EvaluationRecord r = record(extended.problem, 1, 0, 0);  // bx = 128
    writer.append(r);
  }
  const ResultsFile f = read_results_file(path);
  ASSERT_EQ(f.records.size(), 2u);
  EXPECT_EQ(Value(f.problem.parameters[0].values).repr(), "[64, 128, 32]");
  EXPECT_EQ(kernel_tuner_key(f.records[0].config), "32,b,True");
  EXPECT_EQ(kernel_tuner_key(f.records[1].config), "128,a,True");
}

TEST(CacheWriter, RejectsRecordsThatDoNotFit) {
  const CacheHeader header = small_header();
  KernelTunerCacheWriter writer(fresh_path("reject.json"), header);
  EvaluationRecord r = record(header.problem, 0, 0, 0);
  r.config[0] = 48;
  EXPECT_THROW(writer.append(r), std::invalid_argument);
  r.config.pop_back();
  EXPECT_THROW(writer.append(r), std::invalid_argument);
  EvaluationRecord clash = record(header.problem, 0, 0, 0);
  clash.measurements = {{"compile_time", 1.0, ""}};
  EXPECT_THROW(writer.append(clash), std::invalid_argument);
  clash.measurements = {{"bx", 1.0, ""}};
  EXPECT_THROW(writer.append(clash), std::invalid_argument);
  CacheHeader none = header;
  none.problem.parameters.clear();
  EXPECT_THROW(KernelTunerCacheWriter(fresh_path("none.json"), none), std::invalid_argument);
}

TEST(CacheWriter, UnwritablePathIsAnInputError) {
  EXPECT_CONTAINS(error_of<InputError>([&] { KernelTunerCacheWriter w("/nonexistent/dir/c.json", small_header()); }),
                  "/nonexistent/dir/c.json: cannot open the file: No such file or directory");
  EXPECT_CONTAINS(error_of<InputError>([&] { KernelTunerCacheWriter w(temp_dir().string(), small_header()); }),
                  temp_dir().string() + ": cannot open the file");
}

TEST(CacheWriter, RewritesARealCacheFile) {
  // pnpoly on the Titan RTX: 4092 entries, 342 with the legacy error string in "time"; written back entry by entry.
  const ResultsFile original = read_results_file(shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_Titan.json.gz"));
  CacheHeader header{original.device_name, original.kernel_name, original.problem_size, original.problem, original.objectives, nullptr};
  const std::string path = fresh_path("convolution.json");
  {
    KernelTunerCacheWriter writer(path, header);
    for (const auto& r : original.records) writer.append(r);
  }
  const ResultsFile copy = read_results_file(path);
  ASSERT_EQ(copy.records.size(), original.records.size());
  for (std::size_t i = 0; i < copy.records.size(); ++i) EXPECT_SAME_RECORD(copy.records[i], original.records[i]);
  EXPECT_EQ(copy.problem_size, original.problem_size);
  EXPECT_EQ(parse_strict(file_text(path))["cache"].size(), 4092u);
}

}  // namespace cache_writer_test
}  // namespace
}  // namespace ktune::io
