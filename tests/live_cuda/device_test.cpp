// The cuda backend on a real GPU. Without a driver or a device every test here is skipped with the backend's own
// reason (BackendUnavailable), never failed.
#ifdef KTUNE_HAVE_CUDA
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ktune/live/backend.hpp"
#include "live/backends/backend_factories.hpp"

namespace ktune::live {
namespace {

template <class T>
KernelArgument vector_argument(const std::string& name, const std::vector<T>& values, ElementType type,
                               Access access) {
  KernelArgument a;
  a.name = name;
  a.type = type;
  a.access = access;
  a.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

KernelArgument int_scalar(const std::string& name, int value) {
  KernelArgument a;
  a.name = name;
  a.type = ElementType::int32;
  a.scalar = true;
  a.access = Access::read_only;
  a.bytes.resize(sizeof(int));
  std::memcpy(a.bytes.data(), &value, sizeof(int));
  return a;
}

template <class T>
std::vector<T> read_back(Backend& backend, std::size_t i, std::size_t count) {
  std::vector<T> out(count);
  backend.read_argument(i, std::as_writable_bytes(std::span<T>(out)));
  return out;
}

class CudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      backend_ = make_cuda_backend({});
    } catch (const BackendUnavailable& unavailable) {
      GTEST_SKIP() << unavailable.what();
    }
  }
  std::unique_ptr<Backend> backend_;
};

const char* const vector_add_code = R"(
extern "C" __global__ void vector_add(float* c, const float* a, const float* b, int n) {
  int i = blockIdx.x * block_size_x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

constexpr int n = 100000;

std::vector<KernelArgument> vector_add_arguments(std::vector<float>& a, std::vector<float>& b) {
  a.resize(n);
  b.resize(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 977) * 0.5f;
    b[i] = static_cast<float>(i % 31) - 7.0f;
  }
  return {vector_argument("c", std::vector<float>(n, 0.0f), ElementType::float32, Access::write_only),
          vector_argument("a", a, ElementType::float32, Access::read_only),
          vector_argument("b", b, ElementType::float32, Access::read_only), int_scalar("n", n)};
}

TEST_F(CudaDevice, DeviceInfo) {
  DeviceInfo info = backend_->device_info();
  EXPECT_EQ(backend_->name(), "cuda");
  EXPECT_FALSE(info.name.empty());
  EXPECT_TRUE(info.platform.starts_with("CUDA ")) << info.platform;
  EXPECT_GE(info.max_threads, 64u);
  EXPECT_GE(info.max_local_memory, 16u * 1024u);
  bool has_capability = false, has_units = false;
  for (const auto& [key, value] : info.properties) {
    has_capability = has_capability || (key == "compute_capability" && value.find('.') != std::string::npos);
    has_units = has_units || (key == "multiprocessors" && std::stoi(value) > 0);
  }
  EXPECT_TRUE(has_capability);
  EXPECT_TRUE(has_units);
}

TEST_F(CudaDevice, VectorAddComputesTimesAndResets) {
  std::vector<float> a, b;
  backend_->set_arguments(vector_add_arguments(a, b));
  auto kernel = backend_->compile({vector_add_code, "vector_add", "", {}}, {{"block_size_x", "256"}});
  LaunchGeometry geometry;
  geometry.grid = {(n + 255) / 256, 1, 1};
  geometry.block = {256, 1, 1};
  double ms = backend_->launch(*kernel, geometry);
  EXPECT_GT(ms, 0.0);
  EXPECT_LT(ms, 1000.0);
  std::vector<float> c = read_back<float>(*backend_, 0, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "index " << i;

  backend_->reset_argument(0);
  c = read_back<float>(*backend_, 0, n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], 0.0f) << "index " << i;
  // Scalars read back as they were passed.
  EXPECT_EQ(read_back<int>(*backend_, 3, 1).front(), n);
}

TEST_F(CudaDevice, TemplatedKernelByNameExpression) {
  const std::string code = R"(
template <typename T> __global__ void scale(T* x, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
})";
  std::vector<double> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i);
  KernelArgument factor;
  factor.name = "factor";
  factor.type = ElementType::float64;
  factor.scalar = true;
  factor.bytes.resize(sizeof(double));
  const double three = 3.0;
  std::memcpy(factor.bytes.data(), &three, sizeof(double));
  std::vector<KernelArgument> arguments{vector_argument("x", x, ElementType::float64, Access::read_write), factor,
                                        int_scalar("n", 1000)};
  backend_->set_arguments(arguments);
  auto kernel = backend_->compile({code, "scale<double>", "", {}}, {});
  backend_->launch(*kernel, {{8, 1, 1}, {128, 1, 1}});
  std::vector<double> out = read_back<double>(*backend_, 0, x.size());
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(out[i], 3.0 * x[i]);
}

// Kernel Tuner's cmem_args on the device: the __constant__ variable holds what was given when the kernel runs.
TEST_F(CudaDevice, ConstantMemoryHoldsTheGivenContents) {
  const std::string code = R"(
__constant__ float weights[4];
extern "C" __global__ void weigh(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= weights[i % 4];
})";
  std::vector<float> x(1000, 2.0f);
  backend_->set_arguments(std::vector<KernelArgument>{vector_argument("x", x, ElementType::float32, Access::read_write),
                                                      int_scalar("n", 1000)});
  const std::vector<float> weights{0.5f, 1.0f, 1.5f, 2.0f};
  const auto bytes = std::as_bytes(std::span<const float>(weights));
  KernelSource source{code, "weigh", "", {}};
  source.constant_memory = {{"weights", std::vector<std::byte>(bytes.begin(), bytes.end())}};
  auto kernel = backend_->compile(source, {});
  backend_->launch(*kernel, {{8, 1, 1}, {128, 1, 1}});
  const std::vector<float> out = read_back<float>(*backend_, 0, x.size());
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(out[i], 2.0f * weights[i % 4]) << "index " << i;
}

TEST_F(CudaDevice, LocalMemoryArgumentIsDynamicSharedMemory) {
  // Each block reverses its slice through the dynamic shared buffer.
  const std::string code = R"(
extern "C" __global__ void reverse_blocks(int* x) {
  extern __shared__ int tile[];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tile[t] = x[base + t];
  __syncthreads();
  x[base + t] = tile[blockDim.x - 1 - t];
})";
  constexpr int block = 128, blocks = 4;
  std::vector<int> x(block * blocks);
  for (int i = 0; i < block * blocks; ++i) x[i] = i;
  KernelArgument tile;
  tile.name = "tile";
  tile.type = ElementType::int32;
  tile.local_memory = true;
  tile.bytes.resize(block * sizeof(int));
  backend_->set_arguments(std::vector<KernelArgument>{vector_argument("x", x, ElementType::int32, Access::read_write),
                                                      tile});
  auto kernel = backend_->compile({code, "reverse_blocks", "", {}}, {});
  backend_->launch(*kernel, {{blocks, 1, 1}, {block, 1, 1}});
  std::vector<int> out = read_back<int>(*backend_, 0, x.size());
  for (int i = 0; i < block * blocks; ++i) {
    ASSERT_EQ(out[i], (i / block) * block + (block - 1 - i % block)) << "index " << i;
  }
}

TEST_F(CudaDevice, TooManyThreadsPerBlockIsLaunchError) {
  std::vector<float> a, b;
  backend_->set_arguments(vector_add_arguments(a, b));
  auto kernel = backend_->compile({vector_add_code, "vector_add", "", {}}, {{"block_size_x", "4096"}});
  try {
    backend_->launch(*kernel, {{(n + 4095) / 4096, 1, 1}, {4096, 1, 1}});
    FAIL() << "expected LaunchError";
  } catch (const LaunchError& error) {
    EXPECT_NE(std::string(error.what()).find("CUDA_ERROR_INVALID_VALUE"), std::string::npos) << error.what();
  }
  // The context survives a rejected launch: a valid one still works.
  auto good = backend_->compile({vector_add_code, "vector_add", "", {}}, {{"block_size_x", "128"}});
  EXPECT_GT(backend_->launch(*good, {{(n + 127) / 128, 1, 1}, {128, 1, 1}}), 0.0);
}

TEST_F(CudaDevice, CompileErrorCarriesLog) {
  try {
    backend_->compile({"__global__ void k(float* x) { x[0] = nope; }", "k", "kernels/k.cu", {}}, {});
    FAIL() << "expected CompileError";
  } catch (const CompileError& error) {
    EXPECT_NE(error.log().find("nope"), std::string::npos) << error.log();
    EXPECT_NE(error.log().find("k.cu"), std::string::npos) << error.log();
  }
}

}  // namespace
}  // namespace ktune::live
#endif
