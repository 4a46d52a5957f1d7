#pragma once
// Results files into and out of a results store, and stores into each other (`ktune store import|export|merge`).
// import -> export is exact: the exported file reads back (io::read_results_file) to the same header (kernel, device,
// problem size, parameters and their values, objectives, provenance) and the same records in the same order, every
// double bit for bit.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ktune/store/results_store.hpp"

namespace ktune::store {

enum class ExportFormat { cache, t4, csv };
// "cache" | "t4" | "csv"; nullopt otherwise.
std::optional<ExportFormat> parse_export_format(std::string_view name);

struct ImportSummary {
  std::int64_t space = 0, session = 0;
  std::string format;        // "Kernel Tuner cache", "T4"
  std::size_t read = 0, added = 0;  // records in the file; new to the store (the others were there already)
  bool truncated = false;    // the file was cut short (its complete records were imported)
};
// Imports a Kernel Tuner cache or T4 file (plain or gzip), all records in one transaction. Throws io::InputError
// naming the file.
ImportSummary import_results_file(ResultsStore& store, const std::string& path);

struct ExportSummary {
  ExportFormat format = ExportFormat::cache;
  std::size_t written = 0;
  std::size_t superseded = 0;  // cache: earlier records of a configuration measured again (a cache keeps one)
};
// Writes space `space` as a results file, atomically (the old file stays whole until the new one is complete). A
// cache keeps the latest record of each configuration, at the place of its first; T4 and CSV keep every record.
// Throws io::InputError naming the file.
ExportSummary export_space(const ResultsStore& store, std::int64_t space, const std::string& path, ExportFormat format);
// The format a space's results came in as (cache for what ktune recorded itself), CSV for a path ending in .csv.
ExportFormat default_export_format(const StoredSpace& space, const std::string& path);

struct MergeSummary {
  std::size_t spaces = 0, sessions = 0, read = 0, added = 0;
};
// Copies every space, session and record of the store at `from` into `into`; records `into` holds already are
// skipped, so merging twice adds nothing.
MergeSummary merge_store(ResultsStore& into, const std::string& from);

}  // namespace ktune::store
