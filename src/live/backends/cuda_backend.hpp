#pragma once
// The cuda backend on a given driver API table. make_cuda_backend() uses the process-wide driver (libcuda.so.1);
// tests use this to run the backend's host logic against a driver double on machines without a GPU.
#ifdef KTUNE_HAVE_CUDA
#include <memory>

#include "ktune/live/backend.hpp"
#include "live/backends/cuda_driver.hpp"

namespace ktune::live::cuda {

// `api` must outlive the backend.
std::unique_ptr<Backend> make_cuda_backend_on(const DriverApi& api, const BackendOptions& options);

}  // namespace ktune::live::cuda
#endif
