#pragma once
// Checks a library as the CUDA driver without exposing cuda.h (tests and diagnostics): opens it, resolves every
// entry point the cuda backend uses and calls cuInit. Throws BackendUnavailable with the reason, exactly as
// make_backend("cuda") would for the real driver.
#ifdef KTUNE_HAVE_CUDA
namespace ktune::live::cuda {

void probe_driver(const char* library);

}  // namespace ktune::live::cuda
#endif
