#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "ktune/live/backend.hpp"

namespace ktune::live {
namespace {

TEST(BackendFactory, ListsTheBuiltInBackends) {
  const auto names = available_backends();
  EXPECT_NE(std::find(names.begin(), names.end(), "cpp"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "opencl"), names.end());
}

TEST(BackendFactory, UnknownNameIsInvalidArgumentListingTheKnownOnes) {
  try {
    make_backend("vulkan");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("vulkan"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("opencl"), std::string::npos);
  }
}

TEST(BackendFactory, MakesTheCppBackend) {
  const auto backend = make_backend("cpp");
  EXPECT_EQ(backend->name(), "cpp");
}

TEST(BackendFactory, BrokenCompilerMakesCppUnavailable) {
  BackendOptions options;
  options.compiler = "/nonexistent/ktune-no-such-compiler";
  try {
    make_backend("cpp", options);
    FAIL() << "expected BackendUnavailable";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("ktune-no-such-compiler"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ktune::live
