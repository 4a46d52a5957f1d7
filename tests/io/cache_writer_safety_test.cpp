// KernelTunerCacheWriter under the things a real user's machine does: caches from another device or problem size,
// two writers on one file, a file replaced behind the writer's back, symbolic links, a full disk or a file-size
// limit in the middle of an entry, and a file cut at any byte.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/results_file.hpp"
#include "temp_files.hpp"

namespace ktune::io {
namespace {

using ktune::testing::error_of;
using ktune::testing::temp_dir;

std::string fresh_path(const std::string& name) { return ktune::testing::fresh_temp_path(name); }
std::string file_text(const std::string& path) { return ktune::testing::read_text(path); }

CacheHeader header_for(const std::string& device, nlohmann::json problem_size) {
  CacheHeader h;
  h.device_name = device;
  h.kernel_name = "vector_add";
  h.problem_size = std::move(problem_size);
  h.problem = ProblemBuilder("vector_add").parameter("block_size_x", {32, 64, 128, 256, 512, 1024}).build();
  h.objectives = {"time"};
  return h;
}

EvaluationRecord record_of(const Problem& problem, std::size_t value, double time) {
  EvaluationRecord r;
  r.config = {problem.parameters[0].values[value]};
  r.measurements = {{"time", time, ""}};
  r.runtimes_ms = {time, time};
  r.timestamp = "2026-11-26 12:00:00";
  return r;
}

void write_cache(const std::string& path, const CacheHeader& header, std::size_t entries) {
  KernelTunerCacheWriter writer(path, header);
  for (std::size_t i = 0; i < entries; ++i) writer.append(record_of(header.problem, i, 1.0 + static_cast<double>(i)));
}

TEST(CacheWriterSafety, RefusesAnotherDeviceOrProblemSizeNamingBothValues) {
  const std::string path = fresh_path("device.json");
  write_cache(path, header_for("NVIDIA A100-PCIE-40GB", 1000000), 2);
  const std::string before = file_text(path);
  EXPECT_CONTAINS(
      error_of<InputError>([&] { KernelTunerCacheWriter w(path, header_for("NVIDIA RTX A4000", 1000000)); }),
      path + ": device_name: the file holds results of device 'NVIDIA A100-PCIE-40GB', this run is on 'NVIDIA RTX "
             "A4000'");
  EXPECT_CONTAINS(
      error_of<InputError>([&] { KernelTunerCacheWriter w(path, header_for("NVIDIA A100-PCIE-40GB", 8000000)); }),
      path + ": problem_size: the file holds results for problem size 1000000, this run is for 8000000");
  EXPECT_EQ(file_text(path), before);  // refused attempts leave the file alone
  // Kernel Tuner's forms of one size are one size.
  KernelTunerCacheWriter same(path, header_for("NVIDIA A100-PCIE-40GB", nlohmann::json::array({1000000, 1, 1})));
  EXPECT_EQ(same.existing().size(), 2u);
}

TEST(CacheWriterSafety, ReuseOptionTakesAnotherOriginsResults) {
  const std::string path = fresh_path("reuse.json");
  write_cache(path, header_for("A100", 100), 3);
  KernelTunerCacheWriter writer(path, header_for("A4000", 200), CacheWriterOptions{true});
  EXPECT_EQ(writer.existing().size(), 3u);
  writer.close();
  EXPECT_EQ(read_results_file(path).device_name, "A4000");
}

TEST(CacheWriterSafety, ProblemSizeFormsAsKernelTunerComparesThem) {
  using nlohmann::json;
  EXPECT_TRUE(same_problem_size(1000, json::array({1000})));
  EXPECT_TRUE(same_problem_size(json::array({"100000", "1", "1"}), 100000));  // what ktune's Python module wrote
  EXPECT_TRUE(same_problem_size(json::array({48, 64}), json::array({48, 64, 1})));
  EXPECT_TRUE(same_problem_size(nullptr, 5));  // unknown is not different
  EXPECT_FALSE(same_problem_size(json::array({48, 64}), json::array({64, 48})));
  EXPECT_FALSE(same_problem_size(1000, 1001));
  EXPECT_FALSE(same_problem_size("n", 1000));
}

TEST(CacheWriterSafety, ProvenanceRecordedAndCheckedWhereBothHaveIt) {
  const std::string path = fresh_path("provenance.json");
  CacheHeader h = header_for("cpu", 100);
  h.provenance = {{"backend", "cpp"}, {"kernel_source_hash", "fnv1a64:0001"}, {"compiler", "g++"}};
  write_cache(path, h, 1);
  EXPECT_EQ(read_results_file(path).provenance, h.provenance);
  CacheHeader edited = h;
  edited.provenance["kernel_source_hash"] = "fnv1a64:0002";
  EXPECT_CONTAINS(error_of<InputError>([&] { KernelTunerCacheWriter w(path, edited); }),
                  "ktune_provenance.kernel_source_hash: the file's results were measured with kernel_source_hash = "
                  "\"fnv1a64:0001\", this run has \"fnv1a64:0002\"");
  // A Kernel Tuner cache has no provenance: only Kernel Tuner's own checks apply.
  const std::string kt = fresh_path("kernel_tuner.json");
  write_cache(kt, header_for("cpu", 100), 1);
  EXPECT_NO_THROW(KernelTunerCacheWriter(kt, edited));
}

TEST(CacheWriterSafety, ASecondWriterIsRefusedWhileTheFirstIsOpen) {
  const std::string path = fresh_path("locked.json");
  const CacheHeader h = header_for("cpu", 100);
  {
    KernelTunerCacheWriter first(path, h);
    first.append(record_of(h.problem, 0, 1.0));
    EXPECT_CONTAINS(error_of<InputError>([&] { KernelTunerCacheWriter second(path, h); }),
                    "another process is writing this cache file");
    first.append(record_of(h.problem, 1, 2.0));
  }
  // Once the first is closed, the file resumes whole.
  KernelTunerCacheWriter again(path, h);
  EXPECT_EQ(again.existing().size(), 2u);
  // ... and the resumed file (a new inode renamed over the path) is locked too.
  EXPECT_CONTAINS(error_of<InputError>([&] { KernelTunerCacheWriter third(path, h); }), "another process");
}

TEST(CacheWriterSafety, NeverAppendsToAFileNoLongerAtItsPath) {
  const std::string path = fresh_path("replaced.json");
  const CacheHeader h = header_for("cpu", 100);
  KernelTunerCacheWriter writer(path, h);
  writer.append(record_of(h.problem, 0, 1.0));
  std::filesystem::rename(path, path + ".moved");
  EXPECT_CONTAINS(error_of<InputError>([&] { writer.append(record_of(h.problem, 1, 2.0)); }),
                  "replaced or removed by another program");
  EXPECT_TRUE(writer.failed());
}

TEST(CacheWriterSafety, ASymlinkStaysASymlinkAndTheTargetKeepsItsPermissions) {
  const std::string target = fresh_path("target.json");
  const std::string link = fresh_path("link.json");
  const CacheHeader h = header_for("cpu", 100);
  write_cache(target, h, 1);
  ::chmod(target.c_str(), 0640);
  std::filesystem::create_symlink(target, link);
  {
    KernelTunerCacheWriter writer(link, h);  // resumes through the link
    EXPECT_EQ(writer.existing().size(), 1u);
    writer.append(record_of(h.problem, 1, 2.0));
  }
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(read_results_file(target).records.size(), 2u);
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

// A cache cut at any byte after its header (a kill, a crash, a copy cut short) resumes with the entries that
// were complete, and takes new ones.
TEST(CacheWriterSafety, ACacheCutAtAnyByteResumes) {
  const std::string whole_path = fresh_path("whole.json");
  const CacheHeader h = header_for("cpu", 100);
  write_cache(whole_path, h, 4);
  const std::string whole = file_text(whole_path);
  const std::size_t header_end = whole.find("\"cache\": {") + std::string("\"cache\": {").size();
  std::size_t previous = 0;
  // Every byte of the first entry and its neighbours, then every 7th (each resume syncs the disk, which takes time).
  const std::size_t first_entry_end = whole.find("},", header_end) + 4;
  std::vector<std::size_t> cuts;
  for (std::size_t cut = header_end; cut < whole.size(); cut += cut < first_entry_end ? 1 : 7) cuts.push_back(cut);
  cuts.push_back(whole.size());  // closed
  for (const std::size_t cut : cuts) {
    const std::string path = ktune::testing::write_temp("cut.json", whole.substr(0, cut));
    std::size_t complete = 0;
    {
      KernelTunerCacheWriter writer(path, h);
      complete = writer.existing().size();
      writer.append(record_of(h.problem, 5, 9.0));
    }
    EXPECT_GE(complete, previous) << "cut at byte " << cut;
    previous = complete;
    const ResultsFile f = read_results_file(path);
    ASSERT_EQ(f.records.size(), complete + 1) << "cut at byte " << cut;
    EXPECT_FALSE(f.truncated) << "cut at byte " << cut;
  }
  EXPECT_EQ(previous, 4u);
}

// A file-size limit (SIGXFSZ ignored, so writes fail with EFBIG, as they fail with ENOSPC on a full disk) in the
// middle of an entry: the partial entry is cut off, append() throws, close() leaves a file that resumes, with every
// entry written before the failure.
TEST(CacheWriterSafety, AWriteFailureMidEntryLeavesAResumableFile) {
  const CacheHeader h = header_for("cpu", 100);
  for (const rlim_t limit : {600, 700, 750, 820, 900}) {
    const std::string path = fresh_path("limited.json");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::signal(SIGXFSZ, SIG_IGN);
      const rlimit r{limit, limit};
      ::setrlimit(RLIMIT_FSIZE, &r);
      int appended = 0;
      try {
        KernelTunerCacheWriter writer(path, h);
        for (std::size_t i = 0; i < 6; ++i) {
          writer.append(record_of(h.problem, i, 1.0 + static_cast<double>(i)));
          ++appended;
        }
      } catch (const InputError&) {
      }
      ::_exit(appended);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    const int appended = WEXITSTATUS(status);
    EXPECT_LT(appended, 6) << "limit " << limit << " did not cut the run";
    KernelTunerCacheWriter resumed(path, h);
    EXPECT_EQ(resumed.existing().size(), static_cast<std::size_t>(appended)) << "limit " << limit;
  }
}

}  // namespace
}  // namespace ktune::io
