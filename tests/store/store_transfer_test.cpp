// import -> export is exact for every shared cache and T4 file; merge copies once; CSV in and out.
#include <filesystem>

#include <gtest/gtest.h>

#include "../io/results_expectations.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/results_file.hpp"
#include "ktune/store/store_transfer.hpp"
#include "sanitizers.hpp"
#include "temp_files.hpp"

namespace ktune::store {
namespace {

using ktune::testing::error_of;
using ktune::testing::fresh_temp_path;
using ktune::testing::shared_path;

std::vector<std::string> every_results_file() {
  std::vector<std::string> files;
  for (const std::string& dir : {shared_path("data/benchmark_hub/cachefiles"), std::string(KTUNE_SOURCE_DIR) + "/bench/spaces/cachefiles"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
      if (entry.is_regular_file() && entry.path().string().ends_with(".json.gz")) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

void expect_same_file(const io::ResultsFile& copy, const io::ResultsFile& original, const std::string& name) {
  SCOPED_TRACE(name);
  EXPECT_EQ(copy.format, original.format);
  EXPECT_EQ(copy.device_name, original.device_name);
  EXPECT_EQ(copy.kernel_name, original.kernel_name);
  EXPECT_EQ(copy.problem_size, original.problem_size);
  EXPECT_EQ(copy.provenance, original.provenance);
  EXPECT_EQ(copy.objectives, original.objectives);
  EXPECT_EQ(copy.time_stand_ins, original.time_stand_ins);
  ASSERT_EQ(copy.problem.parameters.size(), original.problem.parameters.size());
  for (std::size_t i = 0; i < copy.problem.parameters.size(); ++i) {
    const auto& a = copy.problem.parameters[i];
    const auto& b = original.problem.parameters[i];
    EXPECT_EQ(a.name, b.name);
    ASSERT_EQ(a.values.size(), b.values.size()) << a.name;
    for (std::size_t v = 0; v < a.values.size(); ++v) EXPECT_TRUE(same_value(a.values[v], b.values[v])) << a.name;
  }
  ASSERT_EQ(copy.records.size(), original.records.size());
  for (std::size_t i = 0; i < copy.records.size(); ++i) EXPECT_SAME_RECORD(copy.records[i], original.records[i]);
}

TEST(StoreTransfer, ImportThenExportIsExactForEverySharedFile) {
  auto files = every_results_file();
  ASSERT_GE(files.size(), 30u);
  if (ktune::testing::kUnderSanitizers) {  // every third file (both formats, every kernel folder) is enough there
    std::vector<std::string> some;
    for (std::size_t i = 0; i < files.size(); i += 3) some.push_back(files[i]);
    files = some;
  }
  ResultsStore store(fresh_temp_path("every.ktune"));
  for (const auto& file : files) {
    const io::ResultsFile original = io::read_results_file(file);
    const ImportSummary imported = import_results_file(store, file);
    EXPECT_EQ(imported.read, original.records.size());
    EXPECT_EQ(imported.added, original.records.size()) << file;
    const auto space = store.space(imported.space);
    const std::string out = fresh_temp_path("export.json");
    const ExportFormat format = default_export_format(space, out);
    EXPECT_EQ(format, original.format == io::ResultsFormat::T4 ? ExportFormat::t4 : ExportFormat::cache);
    const ExportSummary exported = export_space(store, imported.space, out, format);
    EXPECT_EQ(exported.written, original.records.size());
    expect_same_file(io::read_results_file(out), original, file);
  }
  // Imported again: nothing new, the same spaces.
  const auto again = import_results_file(store, files.front());
  EXPECT_EQ(again.added, 0u);
  EXPECT_EQ(store.spaces().size(), files.size());
}

TEST(StoreTransfer, MergeCopiesEverythingOnce) {
  const std::string a = fresh_temp_path("a.ktune"), b = fresh_temp_path("b.ktune");
  const std::string pnpoly = shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_Titan.json.gz");
  const std::string t4 = shared_path("data/benchmark_hub/cachefiles/convolution_milo/A100_T4.json.gz");
  {
    ResultsStore sa(a);
    import_results_file(sa, pnpoly);
  }
  ResultsStore sb(b);
  import_results_file(sb, t4);
  const MergeSummary merged = merge_store(sb, a);
  EXPECT_EQ(merged.spaces, 1u);
  EXPECT_EQ(merged.added, 4092u);
  EXPECT_EQ(merge_store(sb, a).added, 0u);  // twice: nothing new, no new session
  EXPECT_EQ(sb.spaces().size(), 2u);
  for (const auto& space : sb.spaces()) EXPECT_EQ(sb.sessions(space.id).size(), 1u);
  const std::string out = fresh_temp_path("merged.json");
  export_space(sb, sb.spaces()[1].id, out, ExportFormat::cache);
  expect_same_file(io::read_results_file(out), io::read_results_file(pnpoly), "merged pnpoly");
  EXPECT_CONTAINS(error_of<io::InputError>([&] { merge_store(sb, b); }), "is the store merged into");
}

TEST(StoreTransfer, ExportsCsvAndRefusesBadInput) {
  ResultsStore store(fresh_temp_path("csv.ktune"));
  const auto imported = import_results_file(store, shared_path("data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz"));
  const std::string csv = fresh_temp_path("out.csv");
  EXPECT_EQ(default_export_format(store.space(imported.space), csv), ExportFormat::csv);
  EXPECT_EQ(export_space(store, imported.space, csv, ExportFormat::csv).written, 4092u);
  const std::string text = ktune::testing::read_text(csv);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4093);
  const std::string bad = ktune::testing::write_temp("bad.json", "{\"cache\": ");
  EXPECT_CONTAINS(error_of<io::InputError>([&] { import_results_file(store, bad); }), bad);
  EXPECT_EQ(store.spaces().size(), 1u);  // nothing half-imported

  // The CSV imports, and exports back to the same text (a CSV space exports as CSV by default).
  ResultsStore again(fresh_temp_path("csv_in.ktune"));
  const auto from_csv = import_results_file(again, csv);
  EXPECT_EQ(from_csv.format, "CSV");
  EXPECT_EQ(from_csv.added, 4092u);
  const std::string round = fresh_temp_path("round.csv.out");
  EXPECT_EQ(default_export_format(again.space(from_csv.space), round), ExportFormat::csv);
  export_space(again, from_csv.space, round, default_export_format(again.space(from_csv.space), round));
  EXPECT_EQ(ktune::testing::read_text(round), text);
}

}  // namespace
}  // namespace ktune::store
