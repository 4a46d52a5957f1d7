#include "ktune/io/problem_file.hpp"

#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ktune/io/kernel_tuner_cache.hpp"
#include "ktune/io/input_error.hpp"
#include "ktune/io/json_file.hpp"
#include "ktune/io/t1_reader.hpp"

namespace ktune::io {

const char* to_string(ProblemFormat format) {
  switch (format) {
    case ProblemFormat::T1: return "T1";
    case ProblemFormat::Native: return "ktune";
    case ProblemFormat::KernelTunerCache: return "Kernel Tuner cache";
  }
  return "?";
}

ProblemFile read_problem_file(const std::string& path) {
  // Parsed once, skipping the (possibly huge) entries of a cache file; T1 and ktune files have no "cache" key.
  const std::string text = read_file_text(path);
  ScannedDocument scanned;
  try {
    scanned = parse_skipping_cache(text, path);
  } catch (const InputError&) {
    // A Kernel Tuner cache cut short by an interrupted run is read as tune --simulate reads it (its complete
    // entries); any other file keeps the strict parser's error.
    std::optional<ProblemFile> cut;
    try {
      ResultsFile results = parse_kernel_tuner_cache(text, path);
      if (results.truncated) cut = ProblemFile{std::move(results.problem), ProblemFormat::KernelTunerCache, true};
    } catch (const InputError&) {
    }
    if (cut) return *std::move(cut);
    throw;
  }
  const nlohmann::json& doc = scanned.document;
  if (!doc.is_object())
    throw InputError(path, "", fmt::format("expected a JSON object at the top level, got {}", doc.type_name()));
  if (doc.contains("ConfigurationSpace")) return {parse_t1(doc, path), ProblemFormat::T1};
  if (doc.contains("parameters")) {
    if (scanned.had_cache) throw InputError(path, "cache", "unknown key in a ktune problem file");
    try {
      return {Problem::from_json(doc), ProblemFormat::Native};
    } catch (const ProblemError& e) {
      throw InputError(path, "", e.what());
    }
  }
  if (doc.contains("tune_params"))
    return {problem_from_cache_json(doc, path, scanned.tune_params_order), ProblemFormat::KernelTunerCache};
  if (doc.contains("results"))
    throw InputError(path, "", "a T4 results file holds no problem definition; expected a T1 file, a ktune problem "
                               "or a Kernel Tuner cache file");
  throw InputError(path, "", "not a problem file: expected a top-level 'ConfigurationSpace' (T1), 'parameters' "
                             "(ktune problem) or 'tune_params' (Kernel Tuner cache file)");
}

}  // namespace ktune::io
