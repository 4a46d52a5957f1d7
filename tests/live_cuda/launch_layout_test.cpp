// Arguments and geometry as cuLaunchKernel takes them (host logic, no GPU).
#ifdef KTUNE_HAVE_CUDA
#include <gtest/gtest.h>

#include <vector>

#include "live/backends/cuda_launch_layout.hpp"

namespace ktune::live::cuda {
namespace {

KernelArgument vector_of(const char* name, std::size_t bytes) {
  KernelArgument a;
  a.name = name;
  a.bytes.resize(bytes);
  return a;
}

TEST(CudaLaunchLayout, LocalMemoryBecomesDynamicSharedMemory) {
  std::vector<KernelArgument> arguments{vector_of("out", 400), vector_of("tile", 1024), vector_of("in", 400),
                                        vector_of("scratch", 512), vector_of("n", 4)};
  arguments[1].local_memory = true;
  arguments[3].local_memory = true;
  arguments[4].scalar = true;
  LaunchLayout layout = launch_layout(arguments);
  EXPECT_EQ(layout.parameters, (std::vector<std::size_t>{0, 2, 4}));
  EXPECT_EQ(layout.dynamic_shared_bytes, 1536u);
}

TEST(CudaLaunchLayout, NoArguments) {
  LaunchLayout layout = launch_layout({});
  EXPECT_TRUE(layout.parameters.empty());
  EXPECT_EQ(layout.dynamic_shared_bytes, 0u);
}

TEST(CudaLaunchLayout, DimensionsChecked) {
  EXPECT_EQ(launch_dimensions({4096, 2, 1}, "grid"), (std::array<unsigned int, 3>{4096, 2, 1}));
  EXPECT_THROW(launch_dimensions({0, 1, 1}, "block"), LaunchError);
  try {
    launch_dimensions({1, 1ull << 32, 1}, "grid");
    FAIL() << "expected LaunchError";
  } catch (const LaunchError& error) {
    EXPECT_NE(std::string(error.what()).find("grid"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace ktune::live::cuda
#endif
