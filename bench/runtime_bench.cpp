// The runtime's warm path (docs/integration.md). Targets from the issue: selection after the first call < 1 µs;
// launch overhead within 5 % of a plain OpenCL launch on PoCL.
//   Runtime_WisdomSelect          Wisdom::select of a remembered (kernel, device, size), 200 kernels x 20 sizes
//   Runtime_WisdomSelectFirst     the first call per size: the rules over 20 entries
//   Runtime_OpenCLPlainLaunch     clSetKernelArg x4 + clEnqueueNDRangeKernel + clFinish of a tiny kernel
//   Runtime_OpenCLKernelLaunch    the same kernel and buffers through Kernel::launch (selection, cached compile)
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "ktune/runtime.hpp"
#include "ktune/runtime/opencl.hpp"

namespace {

namespace rt = ktune::runtime;

std::shared_ptr<rt::Wisdom> large_wisdom() {
  auto w = std::make_shared<rt::Wisdom>();
  const std::vector<std::string> parameters{"block_size_x", "tile", "unroll"};
  for (int k = 0; k < 200; ++k) {
    const std::string kernel = "kernel_" + std::to_string(k);
    w->declare(kernel, parameters);
    for (int s = 0; s < 20; ++s) {
      rt::WisdomEntry e;
      e.device = s % 2 ? "NVIDIA A100-PCIE-40GB" : "AMD Instinct MI250X";
      e.problem_size = {std::int64_t{1} << (s % 10 + 10), 64};
      e.values = {"128", "2", std::to_string(s)};
      w->add(kernel, std::move(e));
    }
  }
  return w;
}

void Runtime_WisdomSelect(benchmark::State& state) {
  const auto w = large_wisdom();
  const std::vector<std::int64_t> size{300000, 64};
  (void)w->select("kernel_117", "NVIDIA A100-PCIE-40GB", size);
  for (auto _ : state) benchmark::DoNotOptimize(w->select("kernel_117", "NVIDIA A100-PCIE-40GB", size));
}
BENCHMARK(Runtime_WisdomSelect);

void Runtime_WisdomSelectFirst(benchmark::State& state) {
  const auto w = large_wisdom();
  std::int64_t n = 1;
  for (auto _ : state) {
    const std::vector<std::int64_t> size{++n, 64};
    benchmark::DoNotOptimize(w->select("kernel_117", "NVIDIA GeForce RTX 3090", size));
  }
}
BENCHMARK(Runtime_WisdomSelectFirst);

constexpr const char* kSource = R"(
__kernel void scale(__global float* y, __global const float* x, const float alpha, const int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] = alpha * x[i];
})";
constexpr int kElements = 1024;

struct OpenCL {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_mem x = nullptr, y = nullptr;
  bool ok = false;
  OpenCL() {
    if (clGetPlatformIDs(1, &platform, nullptr) != CL_SUCCESS) return;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS) return;
    cl_int e = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &e);
    queue = clCreateCommandQueue(context, device, 0, &e);
    x = clCreateBuffer(context, CL_MEM_READ_WRITE, kElements * sizeof(float), nullptr, &e);
    y = clCreateBuffer(context, CL_MEM_READ_WRITE, kElements * sizeof(float), nullptr, &e);
    ok = e == CL_SUCCESS;
  }
  ~OpenCL() {
    if (x) clReleaseMemObject(x);
    if (y) clReleaseMemObject(y);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
};

void Runtime_OpenCLPlainLaunch(benchmark::State& state) {
  OpenCL cl;
  if (!cl.ok) return state.SkipWithError("no OpenCL device");
  const std::string source = "#define block_size_x 64\n" + std::string(kSource);
  const char* text = source.c_str();
  cl_int e = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(cl.context, 1, &text, nullptr, &e);
  clBuildProgram(program, 1, &cl.device, "", nullptr, nullptr);
  cl_kernel kernel = clCreateKernel(program, "scale", &e);
  const float alpha = 2;
  const int n = kElements;
  const std::size_t global = kElements, local = 64;
  for (auto _ : state) {
    clSetKernelArg(kernel, 0, sizeof(cl_mem), &cl.y);
    clSetKernelArg(kernel, 1, sizeof(cl_mem), &cl.x);
    clSetKernelArg(kernel, 2, sizeof alpha, &alpha);
    clSetKernelArg(kernel, 3, sizeof n, &n);
    clEnqueueNDRangeKernel(cl.queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    clFinish(cl.queue);
  }
  clReleaseKernel(kernel);
  clReleaseProgram(program);
}
BENCHMARK(Runtime_OpenCLPlainLaunch)->UseRealTime();

void Runtime_OpenCLKernelLaunch(benchmark::State& state) {
  OpenCL cl;
  if (!cl.ok) return state.SkipWithError("no OpenCL device");
  auto device = rt::opencl_device(cl.context, cl.device, cl.queue);
  auto wisdom = std::make_shared<rt::Wisdom>();
  wisdom->declare("scale", std::vector<std::string>{"block_size_x"});
  rt::WisdomEntry e;
  e.device = device->name();
  e.problem_size = {kElements};
  e.values = {"64"};
  wisdom->add("scale", e);
  rt::Kernel kernel(rt::KernelDefinition("scale", "scale.cl").source_code(kSource).tune("block_size_x", {32, 64}, 32),
                    device, wisdom);
  const float alpha = 2;
  const int n = kElements;
  const std::vector<std::int64_t> size{kElements};
  kernel.launch(size, rt::buffer<float>(cl.y, kElements), rt::buffer<float>(cl.x, kElements), rt::scalar(alpha),
                rt::scalar(n));  // compiles
  for (auto _ : state)
    kernel.launch(size, rt::buffer<float>(cl.y, kElements), rt::buffer<float>(cl.x, kElements), rt::scalar(alpha),
                  rt::scalar(n));
}
BENCHMARK(Runtime_OpenCLKernelLaunch)->UseRealTime();

}  // namespace
