#pragma once
// The tuning problem behind a Kernel Tuner cache file (.json or .json.gz): the parameters come from "tune_params"
// in the order of "tune_params_keys" (the key order of "tune_params" if that list is absent), constraints from
// "restrictions" (a string or a list of strings) if present. Kernel Tuner does not store its restrictions in cache
// files, so the valid configurations of such a problem are known only from the cached entries.
// The problem is named after "kernel_name", else the file stem. The "cache" entries are skipped while parsing.
//
// Every error is an InputError naming the file and the JSON path.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/problem.hpp"

namespace ktune::io {

// A JSON document parsed without its top-level "cache" member (the bulk of a cache file, not built in memory),
// with the key order of "tune_params" as written in the file (nlohmann::json objects sort their keys).
struct ScannedDocument {
  nlohmann::json document;
  std::vector<std::string> tune_params_order;
  bool had_cache = false;  // a top-level "cache" key was present (and skipped)
};
// Throws InputError naming `source_name` (with the byte position) on invalid JSON.
ScannedDocument parse_skipping_cache(const std::string& text, const std::string& source_name);

Problem problem_from_cache_file(const std::string& path);
// `document` as parsed (its "cache" may be present or not); `tune_params_order` the key order of "tune_params"
// in the file, used only when "tune_params_keys" is absent.
Problem problem_from_cache_json(const nlohmann::json& document, const std::string& source_name,
                                const std::vector<std::string>& tune_params_order = {});

}  // namespace ktune::io
