// An OpenCL device for the runtime: programs built from source with the configuration's defines first (as ktune's
// opencl backend builds them for tuning), launched on an in-order queue and waited for.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "ktune/runtime/kernel_definition.hpp"
#include "ktune/runtime/opencl.hpp"

namespace ktune::runtime {
namespace {

std::string error_text(const char* what, cl_int code) { return std::string(what) + " failed (OpenCL error " + std::to_string(code) + ")"; }

void check(cl_int code, const char* what) {
  if (code != CL_SUCCESS) throw std::runtime_error("opencl device: " + error_text(what, code));
}

std::string device_string(cl_device_id device, cl_device_info info) {
  std::size_t size = 0;
  if (clGetDeviceInfo(device, info, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  clGetDeviceInfo(device, info, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

std::string platform_string(cl_platform_id platform, cl_platform_info info) {
  std::size_t size = 0;
  if (clGetPlatformInfo(platform, info, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  clGetPlatformInfo(platform, info, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

std::vector<cl_platform_id> platforms() {
  cl_uint count = 0;
  if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) return {};
  std::vector<cl_platform_id> list(count);
  clGetPlatformIDs(count, list.data(), nullptr);
  return list;
}

std::vector<cl_device_id> devices_of(cl_platform_id platform) {
  cl_uint count = 0;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count == 0) return {};
  std::vector<cl_device_id> list(count);
  clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, list.data(), nullptr);
  return list;
}

int environment_index(const char* variable) {
  const char* value = std::getenv(variable);
  if (!value || !*value) return 0;
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  if (*end != '\0' || n < 0) throw std::runtime_error(std::string("opencl device: $") + variable + "='" + value + "' is not an index");
  return static_cast<int>(n);
}

std::string json_quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

class OpenCLKernel final : public CompiledKernel {
 public:
  OpenCLKernel(cl_program program, cl_kernel kernel) : program_(program), kernel_(kernel) {}
  ~OpenCLKernel() override {
    clReleaseKernel(kernel_);
    clReleaseProgram(program_);
  }
  cl_kernel kernel() const { return kernel_; }

 private:
  cl_program program_;
  cl_kernel kernel_;
};

class OpenCLDevice final : public Device {
 public:
  OpenCLDevice(cl_context context, cl_device_id device, cl_command_queue queue, bool retain)
      : context_(context), device_(device), queue_(queue) {
    if (retain) {
      check(clRetainContext(context_), "clRetainContext");
      check(clRetainCommandQueue(queue_), "clRetainCommandQueue");
    }
    name_ = device_string(device_, CL_DEVICE_NAME);
    // Where the device is among the platforms, so that a capture is tuned on it.
    const auto list = platforms();
    for (std::size_t p = 0; p < list.size() && platform_index_ < 0; ++p) {
      const auto devices = devices_of(list[p]);
      for (std::size_t d = 0; d < devices.size(); ++d)
        if (devices[d] == device_) {
          platform_index_ = static_cast<int>(p);
          device_index_ = static_cast<int>(d);
        }
    }
  }
  ~OpenCLDevice() override {
    clReleaseCommandQueue(queue_);
    clReleaseContext(context_);
  }

  std::string name() const override { return name_; }
  std::string backend() const override { return "opencl"; }
  std::string t1_device_members() const override {
    if (platform_index_ < 0) return "\"Name\": " + json_quoted(name_);
    return "\"PlatformId\": " + std::to_string(platform_index_) + ", \"DeviceId\": " + std::to_string(device_index_) +
           ", \"Name\": " + json_quoted(name_);
  }

  std::unique_ptr<CompiledKernel> compile(const KernelDefinition& def, const std::string& source,
                                          const Defines& defines) override {
    std::string text;
    for (const auto& [name, value] : defines) text += "#define " + name + " " + value + "\n";
    text += "#line 1\n" + source;
    const char* code = text.c_str();
    const std::size_t length = text.size();
    cl_int error = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context_, 1, &code, &length, &error);
    check(error, "clCreateProgramWithSource");
    std::string options;
    for (const auto& o : def.compiler_options()) options += (options.empty() ? "" : " ") + o;
    if (clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
      std::size_t size = 0;
      clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      clReleaseProgram(program);
      throw std::runtime_error("opencl device: building kernel '" + def.name() + "' failed:\n" + log);
    }
    cl_kernel kernel = clCreateKernel(program, def.function_name().c_str(), &error);
    if (error != CL_SUCCESS) {
      clReleaseProgram(program);
      throw std::runtime_error("opencl device: the program has no kernel '" + def.function_name() + "' (" +
                               error_text("clCreateKernel", error) + ")");
    }
    return std::make_unique<OpenCLKernel>(program, kernel);
  }

  void launch(CompiledKernel& compiled, const LaunchGeometry& geometry, std::span<const Argument> arguments,
              const CppCall&, std::span<void* const> substitutes) override {
    const cl_kernel kernel = static_cast<OpenCLKernel&>(compiled).kernel();
    // Host arrays travel through buffers made for this launch and read back after it.
    struct Staged {
      cl_mem memory;
      void* host;
      std::size_t bytes;
      bool read_back;
    };
    std::vector<Staged> staged;
    const auto release = [&] {
      for (const Staged& s : staged) clReleaseMemObject(s.memory);
    };
    try {
      for (std::size_t i = 0; i < arguments.size(); ++i) {
        const Argument& a = arguments[i];
        const cl_uint index = static_cast<cl_uint>(i);
        void* substitute = i < substitutes.size() ? substitutes[i] : nullptr;
        if (a.kind == Argument::Kind::scalar) {
          check(clSetKernelArg(kernel, index, element_size(a.type), a.value), "clSetKernelArg");
        } else if (a.kind == Argument::Kind::device_buffer && !substitute) {
          cl_mem memory = static_cast<cl_mem>(a.device);
          check(clSetKernelArg(kernel, index, sizeof(cl_mem), &memory), "clSetKernelArg");
        } else {
          void* host = substitute ? substitute : a.host;
          cl_int error = CL_SUCCESS;
          const std::size_t bytes = std::max<std::size_t>(a.bytes(), 1);
          cl_mem memory = clCreateBuffer(context_, CL_MEM_READ_WRITE | (a.bytes() ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                                         a.bytes() ? host : nullptr, &error);
          check(error, "clCreateBuffer");
          staged.push_back({memory, host, a.bytes(), a.access != Access::read_only && a.bytes() > 0});
          check(clSetKernelArg(kernel, index, sizeof(cl_mem), &memory), "clSetKernelArg");
        }
      }
      std::size_t global[3], local[3];
      for (int d = 0; d < 3; ++d) {
        local[d] = static_cast<std::size_t>(geometry.block[static_cast<std::size_t>(d)]);
        global[d] = static_cast<std::size_t>(geometry.grid[static_cast<std::size_t>(d)]) * local[d];
      }
      check(clEnqueueNDRangeKernel(queue_, kernel, 3, nullptr, global, local, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
      for (const Staged& s : staged)
        if (s.read_back)
          check(clEnqueueReadBuffer(queue_, s.memory, CL_FALSE, 0, s.bytes, s.host, 0, nullptr, nullptr),
                "clEnqueueReadBuffer");
      check(clFinish(queue_), "clFinish");
    } catch (...) {
      clFinish(queue_);
      release();
      throw;
    }
    release();
  }

  void read_buffer(const Argument& buffer, void* destination) override {
    check(clEnqueueReadBuffer(queue_, static_cast<cl_mem>(buffer.device), CL_TRUE, 0, buffer.bytes(), destination, 0,
                              nullptr, nullptr),
          "clEnqueueReadBuffer");
  }

 private:
  cl_context context_;
  cl_device_id device_;
  cl_command_queue queue_;
  std::string name_;
  int platform_index_ = -1, device_index_ = -1;
};

}  // namespace

std::shared_ptr<Device> opencl_device(cl_context context, cl_device_id device, cl_command_queue queue) {
  if (!context || !device || !queue) throw std::invalid_argument("opencl_device: a null context, device or queue");
  return std::make_shared<OpenCLDevice>(context, device, queue, true);
}

std::shared_ptr<Device> opencl_device(int platform, int device) {
  if (platform < 0) platform = environment_index("KTUNE_OPENCL_PLATFORM");
  if (device < 0) device = environment_index("KTUNE_OPENCL_DEVICE");
  const auto list = platforms();
  if (list.empty()) throw std::runtime_error("opencl device: no OpenCL platform here (is an ICD such as PoCL installed?)");
  if (static_cast<std::size_t>(platform) >= list.size()) {
    std::string names;
    for (auto p : list) names += (names.empty() ? "" : ", ") + platform_string(p, CL_PLATFORM_NAME);
    throw std::runtime_error("opencl device: there is no platform " + std::to_string(platform) + " (platforms: " + names + ")");
  }
  const auto devices = devices_of(list[static_cast<std::size_t>(platform)]);
  if (static_cast<std::size_t>(device) >= devices.size()) {
    std::string names;
    for (auto d : devices) names += (names.empty() ? "" : ", ") + device_string(d, CL_DEVICE_NAME);
    throw std::runtime_error("opencl device: platform " + std::to_string(platform) + " has no device " +
                             std::to_string(device) + " (devices: " + names + ")");
  }
  const cl_device_id id = devices[static_cast<std::size_t>(device)];
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                              reinterpret_cast<cl_context_properties>(list[static_cast<std::size_t>(platform)]), 0};
  cl_int error = CL_SUCCESS;
  cl_context context = clCreateContext(properties, 1, &id, nullptr, nullptr, &error);
  check(error, "clCreateContext");
  cl_command_queue queue = clCreateCommandQueue(context, id, 0, &error);
  if (error != CL_SUCCESS) {
    clReleaseContext(context);
    check(error, "clCreateCommandQueue");
  }
  return std::make_shared<OpenCLDevice>(context, id, queue, false);
}

}  // namespace ktune::runtime
