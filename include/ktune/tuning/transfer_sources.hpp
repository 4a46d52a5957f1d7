#pragma once
// Reading transfer sources (docs/transfer.md): Kernel Tuner caches and T4 files are one source each; a results store
// (docs/store.md) is one source per space it holds, its space's origin as a results file's header. A file is a
// store when it starts as every SQLite database does.
#include <string>
#include <vector>

#include "ktune/problem.hpp"
#include "ktune/tuning/transfer_prior.hpp"

namespace ktune {

// Throws io::InputError naming the file.
std::vector<TransferSource> read_transfer_sources(const std::vector<std::string>& paths);

// The sources for tuning `problem` (kernel `kernel_name`, "" when unknown): those of the same kernel (same_kernel).
// A cache or T4 file given that is of another kernel is an error naming it and what differs; a store's spaces of
// other kernels are passed over, but a store with none of this kernel is an error too.
std::vector<TransferSource> sources_for(const std::vector<TransferSource>& sources,
                                        const std::vector<std::string>& paths, const Problem& problem,
                                        const std::string& kernel_name);

// Sources that measured one device at one problem size (same_measured_device) merged into one, in the order of their
// first appearance; the others as they are. A cache given with its T4 export (`--transfer cachefiles/*/*`) would
// otherwise count as two devices that agree: the opening would take one device's best twice and another's never,
// and the weighting would count it twice. The merged source is named "A + B"; it holds each configuration once (a
// measurement before a failure, else the first source's), its parameters' value lists the union of theirs.
std::vector<TransferSource> merge_same_device(const std::vector<TransferSource>& sources);

}  // namespace ktune
