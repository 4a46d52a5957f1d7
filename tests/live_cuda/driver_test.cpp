// The driver is opened at run time: without it the backend reports why, and nothing needs libcuda to start.
#include <gtest/gtest.h>

#ifdef KTUNE_HAVE_CUDA
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "live/backends/backend_factories.hpp"
#include "live/backends/cuda_driver_probe.hpp"

namespace ktune::live::cuda {
namespace {

bool real_driver_present() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

TEST(CudaDriver, TestBinaryDoesNotNeedLibcudaToStart) {
  std::error_code error;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", error).string();
  ASSERT_FALSE(error) << error.message();
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(("ldd '" + self + "' 2>&1").c_str(), "r"), pclose);
  ASSERT_NE(pipe, nullptr);
  std::string output;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe.get()) != nullptr) output += buffer.data();
  ASSERT_NE(output.find("libc.so"), std::string::npos) << output;  // ldd really listed the dependencies
  EXPECT_EQ(output.find("libcuda.so"), std::string::npos) << output;
  EXPECT_NE(output.find("libnvrtc"), std::string::npos) << output;  // NVRTC is linked (host-only, no driver needed)
}

TEST(CudaDriver, MissingLibraryIsBackendUnavailable) {
  try {
    probe_driver("libktune-no-such-cuda-driver.so.1");
    FAIL() << "expected BackendUnavailable";
  } catch (const BackendUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("no CUDA driver (libktune-no-such-cuda-driver.so.1) on this machine"),
              std::string::npos)
        << error.what();
  }
}

TEST(CudaDriver, WithoutDriverMakeBackendSaysSo) {
  if (real_driver_present()) GTEST_SKIP() << "this machine has a CUDA driver";
  try {
    make_cuda_backend({});
    FAIL() << "expected BackendUnavailable";
  } catch (const BackendUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("no CUDA driver (libcuda.so.1) on this machine"), std::string::npos)
        << error.what();
  }
  // The same through the public factory, which lists cuda in this build.
  const std::vector<std::string> names = available_backends();
  EXPECT_NE(std::find(names.begin(), names.end(), "cuda"), names.end());
  try {
    make_backend("cuda");
    FAIL() << "expected BackendUnavailable";
  } catch (const BackendUnavailable& error) {
    EXPECT_NE(std::string(error.what()).find("no CUDA driver (libcuda.so.1)"), std::string::npos) << error.what();
  }
}

// The toolkit's stub libcuda exports every driver entry point but fails cuInit: loading it checks that all the
// (versioned) symbols the backend resolves exist in the driver ABI, and that a failing cuInit is reported clearly.
TEST(CudaDriver, StubDriverResolvesEverySymbolThenFailsCuInit) {
  // Settle the process-wide driver first: the stub has the real driver's soname, so once loaded it would be what a
  // later dlopen("libcuda.so.1") finds.
  try {
    make_cuda_backend({});
  } catch (const BackendUnavailable&) {
  }
  std::vector<std::filesystem::path> roots;
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* home = std::getenv(variable); home != nullptr && *home != '\0') roots.emplace_back(home);
  }
  roots.emplace_back("/usr/local/cuda");
  std::string stub;
  for (const auto& root : roots) {
    for (const char* relative : {"lib64/stubs/libcuda.so", "targets/x86_64-linux/lib/stubs/libcuda.so"}) {
      if (std::filesystem::exists(root / relative)) {
        stub = (root / relative).string();
        break;
      }
    }
    if (!stub.empty()) break;
  }
  if (stub.empty()) GTEST_SKIP() << "no stub libcuda.so in the CUDA toolkit";
  try {
    probe_driver(stub.c_str());
    FAIL() << "the stub driver cannot initialise";
  } catch (const BackendUnavailable& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("cuInit failed"), std::string::npos) << what;  // not a missing symbol
    EXPECT_EQ(what.find("lacks"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace ktune::live::cuda

#else
TEST(CudaDriver, BuiltWithoutCudaToolkit) { GTEST_SKIP() << "ktune was built without the CUDA toolkit"; }
#endif
