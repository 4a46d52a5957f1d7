#pragma once
// The constructors behind make_backend(), one per backend file.
#include <memory>

#include "ktune/live/backend.hpp"

namespace ktune::live {

std::unique_ptr<Backend> make_cpp_backend(const BackendOptions& options);
std::unique_ptr<Backend> make_opencl_backend(const BackendOptions& options);
#ifdef KTUNE_HAVE_CUDA
std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options);
#endif

}  // namespace ktune::live
