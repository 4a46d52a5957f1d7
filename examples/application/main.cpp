// An application with two tunable kernels, one OpenCL (saxpy, run by PoCL on a CPU or by any OpenCL device) and
// one C kernel for the host (smooth), that uses tuned configurations through ktune's runtime. README.md beside
// this file has the whole loop: run with capture, tune the captured calls, run again with the wisdom.
//
//   ktune_application [SIZE...]       runs both kernels at each problem size, verifies, prints what ran
// Environment: KTUNE_WISDOM (the wisdom file), KTUNE_CAPTURE (kernels to capture), KTUNE_LOG=debug.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <ktune/runtime.hpp>

namespace rt = ktune::runtime;

namespace {

std::string here(const char* argv0, const char* file) {
  std::string dir = argv0;
  const auto slash = dir.rfind('/');
  dir = slash == std::string::npos ? "." : dir.substr(0, slash);
  const char* sources = std::getenv("KTUNE_APPLICATION_SOURCES");
  return std::string(sources && *sources ? sources : dir) + "/" + file;
}

// Both kernels' tunable parameters, defaults and geometry: what capture writes into a tuning problem.
rt::KernelDefinition saxpy_definition(const std::string& file) {
  return rt::KernelDefinition("saxpy", file)
      .tune("block_size_x", {16, 32, 64, 128, 256}, 64)
      .tune("tile", {1, 2, 4, 8}, 1)
      .restrict("block_size_x * tile <= 1024")
      .grid_divisors({"block_size_x", "tile"})
      .argument_names({"y", "x", "alpha", "n"})
      .tolerance(0, 0);
}

rt::KernelDefinition smooth_definition(const std::string& file) {
  return rt::KernelDefinition("smooth", file)
      .tune("threads", {1, 2}, 1)
      .tune("unroll", {1, 2, 4, 8}, 1)
      .argument_names({"out", "in", "n"})
      .tolerance(0, 0);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {1 << 20};

  try {
    auto wisdom = rt::wisdom_from_environment();
    rt::Kernel saxpy(saxpy_definition(here(argv[0], "saxpy.cl")), rt::opencl_device(), wisdom);
    rt::Kernel smooth(smooth_definition(here(argv[0], "smooth.c")), rt::cpp_device(), wisdom);

    int failures = 0;
    for (const int n : sizes) {
      std::vector<float> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n)), expected(y.size());
      for (int i = 0; i < n; ++i) {
        x[static_cast<std::size_t>(i)] = static_cast<float>(i % 1000) * 0.001f;
        y[static_cast<std::size_t>(i)] = 1.0f + static_cast<float>(i % 17);
      }
      const float alpha = 2.5f;
      for (std::size_t i = 0; i < y.size(); ++i) expected[i] = alpha * x[i] + y[i];
      saxpy.launch({n}, rt::inout(y), rt::in(x), rt::scalar(alpha), rt::scalar(n));
      bool ok = true;
      for (std::size_t i = 0; i < y.size(); ++i) ok = ok && std::fabs(y[i] - expected[i]) <= 1e-5f * std::fabs(expected[i]);
      std::printf("saxpy  n=%d %s: %s\n", n, ok ? "verified" : "WRONG", saxpy.choose(std::vector<std::int64_t>{n}).description.c_str());
      failures += !ok;

      std::vector<float> smoothed(y.size());
      smooth.launch({n}, rt::out(smoothed), rt::in(y), rt::scalar(n));
      ok = true;
      for (int i = 0; i < n; ++i) {
        const auto at = [&](int j) { return y[static_cast<std::size_t>(j < 0 ? 0 : (j >= n ? n - 1 : j))]; };
        const float e = (at(i - 1) + 2.0f * at(i) + at(i + 1)) * 0.25f;
        ok = ok && smoothed[static_cast<std::size_t>(i)] == e;
      }
      std::printf("smooth n=%d %s: %s\n", n, ok ? "verified" : "WRONG", smooth.choose(std::vector<std::int64_t>{n}).description.c_str());
      failures += !ok;
    }
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ktune_application: %s\n", e.what());
    return 2;
  }
}
