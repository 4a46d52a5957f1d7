// Atomic outputs (io/output_file.hpp): the previous file survives a write that fails half-way, links are written
// through with the target's permissions kept, and paths are checked before any work.
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "ktune/io/input_error.hpp"
#include "ktune/io/output_file.hpp"
#include "temp_files.hpp"

namespace ktune::io {
namespace {

using ktune::testing::error_of;
using ktune::testing::temp_dir;


TEST(OutputFile, AWriteCutByAFileSizeLimitKeepsThePreviousFile) {
  const std::string path = (temp_dir() / "kept.json").string();
  write_file_atomically(path, std::string("previous, good\n"));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write_file_atomically(path, std::string(100000, 'x'));
    } catch (const InputError&) {
      ::_exit(7);  // refused, as it must be
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
  EXPECT_EQ(ktune::testing::read_text(path), "previous, good\n");
  for (const auto& entry : std::filesystem::directory_iterator(temp_dir()))
    EXPECT_EQ(entry.path().filename().string().find(".kept.json.ktune-"), std::string::npos)
        << "the temporary file was left behind";
}

TEST(OutputFile, ALinkIsWrittenThroughAndPermissionsAreKept) {
  const std::string target = (temp_dir() / "target.csv").string(), link = (temp_dir() / "link.csv").string();
  std::filesystem::remove(link);
  write_file_atomically(target, std::string("a\n"));
  ::chmod(target.c_str(), 0604);
  std::filesystem::create_symlink(target, link);
  write_file_atomically(link, [](std::ostream& out) { out << "b\n"; });
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(ktune::testing::read_text(target), "b\n");
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0604u);
}

TEST(OutputFile, PathsAreCheckedAndFoldersMade) {
  const std::string nested = (temp_dir() / "a" / "b" / "out.json").string();
  check_output_path(nested, "--output");
  EXPECT_TRUE(std::filesystem::is_directory(temp_dir() / "a" / "b"));
  const std::string file = ktune::testing::write_temp("a_file", "x");
  EXPECT_CONTAINS(error_of<InputError>([&] { check_output_path(file + "/out.json", "--csv"); }),
                  "--csv: " + file + " is not a folder");
  EXPECT_CONTAINS(error_of<InputError>([&] { check_output_path(temp_dir().string(), "--output"); }),
                  "--output names a folder, not a file");
}

// A full file system (a tmpfs filled up, in a private mount namespace) is refused before any work.
TEST(OutputFile, AFullFileSystemIsRefusedAtOnce) {
  if (std::system("unshare -m true >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no private mount namespace here (unshare -m needs root)";
  const std::string disk = ktune::testing::fresh_temp_path("full_disk_check");
  std::filesystem::create_directories(disk);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount("tmpfs", disk.c_str(), "tmpfs", 0, "size=64k") != 0)
      ::_exit(2);
    {
      std::ofstream fill(disk + "/fill", std::ios::binary);
      const std::string block(4096, 'x');
      for (int i = 0; i < 64 && fill; ++i) fill << block;
    }
    try {
      check_output_path(disk + "/out.json", "--output");
    } catch (const InputError& e) {
      ::_exit(std::string(e.what()).find("is full") != std::string::npos ? 7 : 3);
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7) << "2: no tmpfs; 0: not refused; 3: refused for another reason";
}

TEST(OutputFile, OutputsOverInputsOrEachOtherAreRefused) {
  const std::string input = ktune::testing::write_temp("input.json", "{}");
  const std::string alias = (temp_dir() / "." / "input.json").string();
  EXPECT_TRUE(same_file(input, alias));
  EXPECT_CONTAINS(error_of<InputError>([&] {
                    refuse_overlapping_paths({{"--simulate", input}}, {{"--output", alias}});
                  }),
                  "--output would overwrite the --simulate file");
  const std::string fresh = (temp_dir() / "not_yet.csv").string();
  EXPECT_CONTAINS(error_of<InputError>([&] {
                    refuse_overlapping_paths({}, {{"--output", fresh}, {"--csv", fresh}});
                  }),
                  "--output and --csv name the same file");
  EXPECT_NO_THROW(refuse_overlapping_paths({{"--simulate", input}}, {{"--output", fresh}, {"--csv", ""}}));
}

}  // namespace
}  // namespace ktune::io
