// make_backend(): the one place that maps a backend name to its implementation.
#include <stdexcept>
#include <string>
#include <vector>

#include "live/backends/backend_factories.hpp"

namespace ktune::live {

std::vector<std::string> available_backends() {
  std::vector<std::string> names{"cpp", "opencl"};
#ifdef KTUNE_HAVE_CUDA
  names.emplace_back("cuda");
#endif
  return names;
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options) {
  if (name == "cpp") return make_cpp_backend(options);
  if (name == "opencl") return make_opencl_backend(options);
#ifdef KTUNE_HAVE_CUDA
  if (name == "cuda") return make_cuda_backend(options);
#else
  if (name == "cuda")
    throw BackendUnavailable("the cuda backend is not part of this build (ktune was configured without the CUDA toolkit)");
#endif
  std::string known;
  for (const auto& n : available_backends()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown backend '" + name + "' (available: " + known + ")");
}

}  // namespace ktune::live

namespace ktune::live {

std::string Backend::prebuild(const KernelSource&, const Defines&, const std::string&) {
  throw std::logic_error("the " + name() + " backend cannot compile apart from measuring (supports_prebuild)");
}

std::unique_ptr<CompiledKernel> Backend::load_prebuilt(const KernelSource&, const std::string&) {
  throw std::logic_error("the " + name() + " backend cannot load a prebuilt kernel (supports_prebuild)");
}

}  // namespace ktune::live
