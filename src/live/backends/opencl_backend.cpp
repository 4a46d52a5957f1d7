// The "opencl" live backend: any OpenCL platform through the ICD loader (PoCL runs it on the CPU, so it is testable
// everywhere). Uses the OpenCL 1.2 C API, which every platform still offers.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "live/backends/backend_factories.hpp"
#include "live/c_string_literal.hpp"

namespace ktune::live {
namespace {

std::string error_name(cl_int code) {
  switch (code) {
#define KTUNE_CL_ERROR(name) \
  case name: return #name;
    KTUNE_CL_ERROR(CL_DEVICE_NOT_FOUND)
    KTUNE_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    KTUNE_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    KTUNE_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    KTUNE_CL_ERROR(CL_OUT_OF_RESOURCES)
    KTUNE_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    KTUNE_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    KTUNE_CL_ERROR(CL_MEM_COPY_OVERLAP)
    KTUNE_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    KTUNE_CL_ERROR(CL_MAP_FAILURE)
    KTUNE_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    KTUNE_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    KTUNE_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    KTUNE_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    KTUNE_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    KTUNE_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    KTUNE_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    KTUNE_CL_ERROR(CL_INVALID_VALUE)
    KTUNE_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    KTUNE_CL_ERROR(CL_INVALID_PLATFORM)
    KTUNE_CL_ERROR(CL_INVALID_DEVICE)
    KTUNE_CL_ERROR(CL_INVALID_CONTEXT)
    KTUNE_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    KTUNE_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    KTUNE_CL_ERROR(CL_INVALID_HOST_PTR)
    KTUNE_CL_ERROR(CL_INVALID_MEM_OBJECT)
    KTUNE_CL_ERROR(CL_INVALID_BINARY)
    KTUNE_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    KTUNE_CL_ERROR(CL_INVALID_PROGRAM)
    KTUNE_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    KTUNE_CL_ERROR(CL_INVALID_KERNEL_NAME)
    KTUNE_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    KTUNE_CL_ERROR(CL_INVALID_KERNEL)
    KTUNE_CL_ERROR(CL_INVALID_ARG_INDEX)
    KTUNE_CL_ERROR(CL_INVALID_ARG_VALUE)
    KTUNE_CL_ERROR(CL_INVALID_ARG_SIZE)
    KTUNE_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    KTUNE_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    KTUNE_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    KTUNE_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    KTUNE_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    KTUNE_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    KTUNE_CL_ERROR(CL_INVALID_EVENT)
    KTUNE_CL_ERROR(CL_INVALID_OPERATION)
    KTUNE_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    KTUNE_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    KTUNE_CL_ERROR(CL_INVALID_PROPERTY)
    KTUNE_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
    KTUNE_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
    KTUNE_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef KTUNE_CL_ERROR
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "OpenCL error " + std::to_string(code);
  }
}

// Owns one OpenCL object (released with its clRelease* function).
template <typename Handle, cl_int (*Release)(Handle)>
class ClObject {
 public:
  ClObject() = default;
  explicit ClObject(Handle handle) : handle_(handle) {}
  ~ClObject() { reset(); }
  ClObject(ClObject&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  ClObject& operator=(ClObject&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  ClObject(const ClObject&) = delete;
  ClObject& operator=(const ClObject&) = delete;
  Handle get() const { return handle_; }
  void reset() {
    if (handle_) Release(handle_);
    handle_ = nullptr;
  }

 private:
  Handle handle_ = nullptr;
};

using Context = ClObject<cl_context, clReleaseContext>;
using Queue = ClObject<cl_command_queue, clReleaseCommandQueue>;
using Program = ClObject<cl_program, clReleaseProgram>;
using Kernel = ClObject<cl_kernel, clReleaseKernel>;
using Buffer = ClObject<cl_mem, clReleaseMemObject>;
using Event = ClObject<cl_event, clReleaseEvent>;

template <typename Error>
void check(cl_int code, const std::string& what) {
  if (code != CL_SUCCESS) throw Error("opencl backend: " + what + " failed: " + error_name(code));
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  std::size_t size = 0;
  if (clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  clGetPlatformInfo(platform, what, size, text.data(), nullptr);
  text.resize(std::strlen(text.c_str()));
  return text;
}

std::string device_string(cl_device_id device, cl_device_info what) {
  std::size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  clGetDeviceInfo(device, what, size, text.data(), nullptr);
  text.resize(std::strlen(text.c_str()));
  return text;
}

template <typename T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  clGetDeviceInfo(device, what, sizeof value, &value, nullptr);
  return value;
}

std::string program_build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS || size == 0)
    return "";
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  log.resize(std::strlen(log.c_str()));
  return log;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + std::to_string(i) + ": " + items[i];
  return out.empty() ? "none" : out;
}

class OpenClKernel final : public CompiledKernel {
 public:
  OpenClKernel(Program program, Kernel kernel, std::string name)
      : program_(std::move(program)), kernel_(std::move(kernel)), name_(std::move(name)) {}
  cl_kernel get() const { return kernel_.get(); }
  const std::string& name() const { return name_; }

 private:
  Program program_;
  Kernel kernel_;
  std::string name_;
};

class OpenClBackend final : public Backend {
 public:
  explicit OpenClBackend(const BackendOptions& options) {
    cl_uint platform_count = 0;
    const cl_int found = clGetPlatformIDs(0, nullptr, &platform_count);
    if (found == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (found == CL_SUCCESS && platform_count == 0))
      throw BackendUnavailable(
          "opencl backend: no OpenCL platform found (no ICD in /etc/OpenCL/vendors; on Debian install "
          "pocl-opencl-icd for the CPU or your GPU vendor's ICD)");
    check<BackendUnavailable>(found, "clGetPlatformIDs");
    std::vector<cl_platform_id> platforms(platform_count);
    check<BackendUnavailable>(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");
    std::vector<std::string> platform_names;
    for (auto p : platforms) platform_names.push_back(platform_string(p, CL_PLATFORM_NAME));
    if (options.platform < 0 || static_cast<cl_uint>(options.platform) >= platform_count)
      throw BackendUnavailable("opencl backend: there is no OpenCL platform " + std::to_string(options.platform) +
                               " (platforms: " + quoted_list(platform_names) + ")");
    platform_ = platforms[static_cast<std::size_t>(options.platform)];

    cl_uint device_count = 0;
    const cl_int devices_found = clGetDeviceIDs(platform_, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
    if (devices_found != CL_SUCCESS && devices_found != CL_DEVICE_NOT_FOUND)
      check<BackendUnavailable>(devices_found, "clGetDeviceIDs");
    std::vector<cl_device_id> devices(device_count);
    if (device_count > 0)
      check<BackendUnavailable>(clGetDeviceIDs(platform_, CL_DEVICE_TYPE_ALL, device_count, devices.data(), nullptr),
                                "clGetDeviceIDs");
    std::vector<std::string> device_names;
    for (auto d : devices) device_names.push_back(device_string(d, CL_DEVICE_NAME));
    if (options.device < 0 || static_cast<cl_uint>(options.device) >= device_count)
      throw BackendUnavailable("opencl backend: platform " + std::to_string(options.platform) + " (" +
                               platform_names[static_cast<std::size_t>(options.platform)] + ") has no device " +
                               std::to_string(options.device) + " (devices: " + quoted_list(device_names) + ")");
    device_ = devices[static_cast<std::size_t>(options.device)];
    device_count_ = device_count;

    cl_int error = CL_SUCCESS;
    const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM,
                                                reinterpret_cast<cl_context_properties>(platform_), 0};
    context_ = Context(clCreateContext(properties, 1, &device_, nullptr, nullptr, &error));
    check<BackendUnavailable>(error, "clCreateContext");
    // Profiling events give the kernel's own duration, without launch overhead or host noise.
    queue_ = Queue(clCreateCommandQueue(context_.get(), device_, CL_QUEUE_PROFILING_ENABLE, &error));
    check<BackendUnavailable>(error, "clCreateCommandQueue");
  }

  std::string name() const override { return "opencl"; }

  DeviceInfo device_info() const override {
    DeviceInfo info;
    info.name = device_string(device_, CL_DEVICE_NAME);
    info.platform = platform_string(platform_, CL_PLATFORM_NAME) + " " + platform_string(platform_, CL_PLATFORM_VERSION);
    info.max_threads = device_value<std::size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    info.max_local_memory = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
    info.device_count = device_count_;
    info.properties.emplace_back("vendor", device_string(device_, CL_DEVICE_VENDOR));
    info.properties.emplace_back("compute_units",
                                 std::to_string(device_value<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS)));
    info.properties.emplace_back("driver_version", device_string(device_, CL_DRIVER_VERSION));
    info.properties.emplace_back("opencl_version", device_string(device_, CL_DEVICE_VERSION));
    info.properties.emplace_back("opencl_c_version", device_string(device_, CL_DEVICE_OPENCL_C_VERSION));
    info.properties.emplace_back("global_memory_bytes",
                                 std::to_string(device_value<cl_ulong>(device_, CL_DEVICE_GLOBAL_MEM_SIZE)));
    info.properties.emplace_back("max_clock_mhz",
                                 std::to_string(device_value<cl_uint>(device_, CL_DEVICE_MAX_CLOCK_FREQUENCY)));
    return info;
  }

  void set_arguments(std::span<const KernelArgument> arguments) override {
    buffers_.clear();
    initial_.assign(arguments.begin(), arguments.end());
    for (std::size_t i = 0; i < initial_.size(); ++i) {
      const KernelArgument& a = initial_[i];
      if (a.scalar && a.bytes.size() != element_size(a.type))
        throw std::invalid_argument("opencl backend: scalar argument '" + a.name + "' holds " +
                                    std::to_string(a.bytes.size()) + " bytes, expected " +
                                    std::to_string(element_size(a.type)));
      if (a.scalar || a.local_memory) {
        buffers_.emplace_back();
        continue;
      }
      cl_int error = CL_SUCCESS;
      // OpenCL rejects empty buffers; an empty vector still gets a valid (one element) buffer.
      const std::size_t size = std::max(a.bytes.size(), element_size(a.type));
      buffers_.emplace_back(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE, size, nullptr, &error));
      check<std::runtime_error>(error, "allocating " + std::to_string(size) + " bytes for argument '" + a.name + "'");
      reset_argument(i);
    }
  }

  void reset_argument(std::size_t i) override {
    const KernelArgument& a = argument(i);
    if (a.scalar || a.local_memory || a.bytes.empty()) return;  // scalars are set from initial_ at every launch
    check<std::runtime_error>(clEnqueueWriteBuffer(queue_.get(), buffers_[i].get(), CL_TRUE, 0, a.bytes.size(),
                                                   a.bytes.data(), 0, nullptr, nullptr),
                              "uploading argument '" + a.name + "'");
  }

  void read_argument(std::size_t i, std::span<std::byte> out) override {
    const KernelArgument& a = argument(i);
    if (out.size() != a.bytes.size())
      throw std::invalid_argument("opencl backend: reading argument '" + a.name + "' into " +
                                  std::to_string(out.size()) + " bytes, but it has " + std::to_string(a.bytes.size()));
    if (a.local_memory) throw std::invalid_argument("opencl backend: local-memory argument '" + a.name + "' has no contents");
    if (a.scalar || out.empty()) {
      std::memcpy(out.data(), a.bytes.data(), out.size());
      return;
    }
    check<std::runtime_error>(clEnqueueReadBuffer(queue_.get(), buffers_[i].get(), CL_TRUE, 0, out.size(), out.data(),
                                                  0, nullptr, nullptr),
                              "reading argument '" + a.name + "'");
  }

  std::unique_ptr<CompiledKernel> compile(const KernelSource& source, const Defines& defines) override {
    std::string text;
    for (const auto& [name, value] : defines) text += "#define " + name + " " + value + "\n";
    // Build-log line numbers then refer to the user's source, not to our defines.
    text += "#line 1";
    if (!source.file.empty()) text += " \"" + c_string_escaped(source.file) + "\"";
    text += "\n" + source.code + "\n";
    const char* code = text.c_str();
    const std::size_t length = text.size();
    cl_int error = CL_SUCCESS;
    Program program(clCreateProgramWithSource(context_.get(), 1, &code, &length, &error));
    check<std::runtime_error>(error, "clCreateProgramWithSource");
    std::string options;
    // The kernel file's folder for its #includes; the options are one string split at spaces, so a folder with
    // whitespace in its name cannot be given (its includes then need an -I option the user quotes for the platform).
    for (const std::string& folder : source.include_dirs)
      if (folder.find_first_of(" \t\n\"'") == std::string::npos) options += (options.empty() ? "-I" : " -I") + folder;
    for (const auto& o : source.compiler_options) options += (options.empty() ? "" : " ") + o;
    const cl_int built = clBuildProgram(program.get(), 1, &device_, options.c_str(), nullptr, nullptr);
    if (built != CL_SUCCESS) {
      std::string where = source.file.empty() ? "" : " from " + source.file;
      throw CompileError("opencl backend: building kernel '" + source.name + "'" + where + " failed (" +
                             error_name(built) + ")",
                         program_build_log(program.get(), device_));
    }
    Kernel kernel(clCreateKernel(program.get(), source.name.c_str(), &error));
    if (error == CL_INVALID_KERNEL_NAME) {
      std::size_t size = 0;
      std::string names;
      if (clGetProgramInfo(program.get(), CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) == CL_SUCCESS && size > 0) {
        names.assign(size, '\0');
        clGetProgramInfo(program.get(), CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr);
        names.resize(std::strlen(names.c_str()));
      }
      throw CompileError("opencl backend: the program has no kernel named '" + source.name + "' (kernels: " +
                             (names.empty() ? "none" : names) + ")",
                         program_build_log(program.get(), device_));
    }
    if (error != CL_SUCCESS)
      throw CompileError("opencl backend: clCreateKernel('" + source.name + "') failed: " + error_name(error),
                         program_build_log(program.get(), device_));
    return std::make_unique<OpenClKernel>(std::move(program), std::move(kernel), source.name);
  }

  double launch(CompiledKernel& compiled, const LaunchGeometry& geometry) override {
    auto* kernel = dynamic_cast<OpenClKernel*>(&compiled);
    if (!kernel) throw LaunchError("opencl backend: the kernel was not compiled by the opencl backend");
    for (std::size_t i = 0; i < initial_.size(); ++i) {
      const KernelArgument& a = initial_[i];
      const auto index = static_cast<cl_uint>(i);
      cl_int error = CL_SUCCESS;
      if (a.local_memory) {
        error = clSetKernelArg(kernel->get(), index, a.bytes.size(), nullptr);
      } else if (a.scalar) {
        error = clSetKernelArg(kernel->get(), index, a.bytes.size(), a.bytes.data());
      } else {
        const cl_mem buffer = buffers_[i].get();
        error = clSetKernelArg(kernel->get(), index, sizeof buffer, &buffer);
      }
      if (error != CL_SUCCESS)
        throw LaunchError("opencl backend: setting argument " + std::to_string(i) + " ('" + a.name + "', " +
                          std::string(a.scalar ? "scalar " : a.local_memory ? "local " : "vector of ") +
                          std::string(to_string(a.type)) + ") of kernel '" + kernel->name() +
                          "' failed: " + error_name(error));
    }
    std::size_t global[3];
    std::size_t local[3];
    for (int d = 0; d < 3; ++d) {
      local[d] = geometry.block[d];
      global[d] = geometry.grid[d] * geometry.block[d];
    }
    cl_event raw_event = nullptr;
    const cl_int enqueued =
        clEnqueueNDRangeKernel(queue_.get(), kernel->get(), 3, nullptr, global, local, 0, nullptr, &raw_event);
    if (enqueued != CL_SUCCESS)
      throw LaunchError("opencl backend: launching '" + kernel->name() + "' with " + std::to_string(global[0]) + "x" +
                        std::to_string(global[1]) + "x" + std::to_string(global[2]) + " work-items in groups of " +
                        std::to_string(local[0]) + "x" + std::to_string(local[1]) + "x" + std::to_string(local[2]) +
                        " failed: " + error_name(enqueued));
    Event event(raw_event);
    const cl_int waited = clWaitForEvents(1, &raw_event);
    cl_int status = CL_COMPLETE;
    clGetEventInfo(raw_event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    if (waited != CL_SUCCESS || status < 0)
      throw LaunchError("opencl backend: kernel '" + kernel->name() +
                        "' failed while running: " + error_name(status < 0 ? status : waited));
    cl_ulong start = 0;
    cl_ulong end = 0;
    check<LaunchError>(clGetEventProfilingInfo(raw_event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
                       "reading the start time");
    check<LaunchError>(clGetEventProfilingInfo(raw_event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
                       "reading the end time");
    return end > start ? static_cast<double>(end - start) * 1e-6 : 0.0;
  }

 private:
  const KernelArgument& argument(std::size_t i) const {
    if (i >= initial_.size())
      throw std::out_of_range("opencl backend: argument " + std::to_string(i) + " does not exist (there are " +
                              std::to_string(initial_.size()) + ")");
    return initial_[i];
  }

  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  std::size_t device_count_ = 1;
  Context context_;
  Queue queue_;
  std::vector<KernelArgument> initial_;
  std::vector<Buffer> buffers_;  // empty handles for scalars and local memory
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend(const BackendOptions& options) {
  return std::make_unique<OpenClBackend>(options);
}

}  // namespace ktune::live
