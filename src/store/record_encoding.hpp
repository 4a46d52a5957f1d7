#pragma once
// EvaluationRecord fields as the store's text columns, exactly: JSON, with the Values' integer/float distinction and
// every double bit for bit (nlohmann writes the shortest text that reads back to the same double), non-finite floats
// (which JSON lacks) as {"float": "NaN" | "Infinity" | "-Infinity"} in values and as those strings in runtime lists.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/evaluation_record.hpp"

namespace ktune::store {

nlohmann::json encode_value(const Value& value);
Value decode_value(const nlohmann::json& json);  // throws std::invalid_argument on what encode_value never writes

std::string encode_config(const std::vector<Value>& config);
std::vector<Value> decode_config(const std::string& text);
std::string encode_measurements(const std::vector<Measurement>& measurements);
std::vector<Measurement> decode_measurements(const std::string& text);
std::string encode_runtimes(const std::vector<double>& runtimes);
std::vector<double> decode_runtimes(const std::string& text);

// A 128-bit digest (hex) of every field but clock_ms: identical records have the same one.
std::string record_digest(const std::string& config, const std::string& measurements, const std::string& runtimes,
                          const EvaluationRecord& record);

}  // namespace ktune::store
