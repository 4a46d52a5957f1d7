#pragma once
// Capture: a real launch written out as a tuning problem that `ktune tune` runs as it is.
//
// For kernel NAME at its first launch with a problem size, into $KTUNE_CAPTURE_DIR (default ./capture):
//   NAME.t1.json            the T1 problem: parameters, restrictions, the kernel file, launch geometry, problem size,
//                           the arguments read from the files below, the reference outputs and the tolerance
//                           (NAME.<size>.t1.json for each further problem size, e.g. vector_add.4096.t1.json)
//   NAME.data/kernel.EXT    the kernel's source as launched
//   NAME.data/ARG.bin       every array argument's bytes before the launch
//   NAME.data/ARG.expected.bin  every output's bytes after the default configuration ran on copies of the inputs
// The application's own launch then runs as it would have.
#include <string>
#include <string_view>

namespace ktune::runtime {

// True when $KTUNE_CAPTURE names the kernel: a comma-separated list of names or globs (* and ?).
bool capture_requested(std::string_view kernel_name);
// A name against one glob pattern (* any run, ? any character).
bool glob_match(std::string_view pattern, std::string_view name);
// $KTUNE_CAPTURE_DIR, else "capture".
std::string capture_directory();

}  // namespace ktune::runtime
