#pragma once
// Output files that are never half-written and never found unwritable after hours of measuring.
//
// - check_output_path() runs before any work: it creates missing folders and proves, by creating and removing a
//   file there, that the output can be written; else it refuses at once with the operating system's reason.
// - write_file_atomically() writes a temporary file in the same folder, flushes it to disk (fsync), renames it over
//   the path and syncs the folder: a kill -9, a full disk or a file-size limit at any point leaves the previous file
//   as it was or the new one complete, never a mix (what SQLite promises of a committed transaction, for one file).
// - A path that is a symbolic link is written through: the link's target is replaced, the link stays, and a replaced
//   file keeps its permission bits.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ktune::io {

// The file `path` names with symbolic links followed (the path itself when it is not a link, or a dangling one's
// target). Throws InputError for a loop of links.
std::string resolve_output_path(const std::string& path);

// Creates the missing folders of `path` and checks that a file can be created there and that `path` is not a
// folder. Throws InputError naming `path` and `what` ("--output", "--csv") with the OS's reason.
void check_output_path(const std::string& path, const std::string& what);

// Writes what `writer` puts into the stream to `path` atomically (above). Throws InputError naming the path with
// the OS's reason (the previous file stays as it was, the temporary file is removed).
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& writer);
void write_file_atomically(const std::string& path, const std::string& content);

// True when `a` and `b` name the same existing file (links and different spellings followed), or the same path
// once made absolute when either does not exist yet.
bool same_file(const std::string& a, const std::string& b);

// Refuses (InputError) any two of `paths` that name the same file, each with the option that gave it: an output
// written over an input or over another output loses one of them. Pairs are {option, path}; empty paths are
// skipped; inputs are only compared with outputs (`inputs` first, then `outputs`).
struct NamedPath {
  std::string option;  // "--simulate", "--output"
  std::string path;
};
void refuse_overlapping_paths(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs);

}  // namespace ktune::io
