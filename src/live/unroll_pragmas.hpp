#pragma once
// Kernel Tuner's loop_unroll_factor convention: a tunable parameter whose name starts with "loop_unroll_factor" and
// whose value is 0 means "let the compiler decide". Compilers reject `#pragma unroll 0`, so the lines
// `#pragma unroll NAME` of such a parameter are blanked (line numbers in compiler messages stay right). Kernel Tuner
// does this for CUDA and HIP; ktune does it for every backend (PoCL's clang rejects 0 as well).
#include <string>

#include "ktune/live/backend.hpp"

namespace ktune::live::detail {

// `code` with the pragmas of the zero-valued loop_unroll_factor* defines blanked; unchanged when there are none.
std::string blank_zero_unroll_pragmas(std::string code, const Defines& defines);

}  // namespace ktune::live::detail
