#pragma once
// Temporary files for tests: one directory per test process, removed at exit; and small assertion helpers.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "shared_data.hpp"

namespace ktune::testing {

inline std::filesystem::path temp_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("ktune_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  static const struct Cleanup {
    ~Cleanup() { std::error_code ec; std::filesystem::remove_all(dir, ec); }
  } cleanup;
  return dir;
}

// One folder for ktune's precompiled plug-in headers shared by every test process (unless the environment names
// one): they are built from ktune's headers alone (~5 s, ~100 MB), and a test building its own cost more than its
// candidates' compiles saved.
inline void share_precompiled_plugin_headers() {
  ::setenv("KTUNE_PLUGIN_HEADERS_CACHE",
           (std::filesystem::temp_directory_path() / "ktune-test-plugin-headers").c_str(), 0);
}

// A path in the temp directory with nothing there (a file or folder of that name from an earlier test is removed).
inline std::string fresh_temp_path(const std::string& name) {
  const auto path = temp_dir() / name;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  return path.string();
}

// The whole content of a file ("" if it cannot be read). libstdc++ throws when a read fails after the open, as
// reading /proc/PID/stat does when the process ends in between: that too is "cannot be read".
inline std::string read_text(const std::string& path) {
  try {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  } catch (const std::exception&) {
    return {};
  }
}

inline std::string write_temp(const std::string& name, const std::string& content) {
  const auto path = temp_dir() / name;
  std::ofstream out(path, std::ios::binary);
  out << content;
  return path.string();
}


// Runs f, expects an exception of type E and returns its what() ("" and a test failure if none is thrown).
template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception type: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no exception thrown";
  return {};
}

inline ::testing::AssertionResult AssertContains(const char* haystack_expr, const char* needle_expr,
                                                const std::string& haystack, const std::string& needle) {
  if (haystack.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << haystack_expr << " does not contain " << needle_expr << "\n  text:   "
                                       << haystack << "\n  wanted: " << needle;
}

}  // namespace ktune::testing

#define EXPECT_CONTAINS(haystack, needle) EXPECT_PRED_FORMAT2(::ktune::testing::AssertContains, haystack, needle)
