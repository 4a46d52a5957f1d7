#pragma once
// Running the built `ktune` executable (KTUNE_BINARY) from CLI tests, with files in a per-process temp directory.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "temp_files.hpp"

namespace ktune::testing {

inline std::filesystem::path cli_temp_dir() { return temp_dir(); }
inline std::string cli_write_temp(const std::string& name, const std::string& content) {
  return write_temp(name, content);
}


struct KtuneRun {
  int exit_code = -1;
  std::string out, err;
};

// Runs `ktune <args>` (args already shell-quoted where needed).
inline KtuneRun run_ktune(const std::string& args) {
  const std::string out = (cli_temp_dir() / "stdout.txt").string(), err = (cli_temp_dir() / "stderr.txt").string();
  const std::string command = "'" + std::string(KTUNE_BINARY) + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  KtuneRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_text(out);
  run.err = read_text(err);
  return run;
}

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace ktune::testing
