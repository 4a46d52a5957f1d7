#include "store/record_encoding.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace ktune::store {

namespace {

nlohmann::json encode_double(double d) {
  if (std::isfinite(d)) return d;
  return std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
}

double decode_double(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  }
  throw std::invalid_argument(fmt::format("not a stored number: {}", j.dump()));
}

nlohmann::json parse(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw std::invalid_argument("a damaged record (invalid JSON in the store)");
  return j;
}

// Two independent 64-bit FNV-1a style hashes (different bases and primes): 128 bits, no accidental collision among
// the records of any store.
struct Digest {
  std::uint64_t a = 14695981039346656037ull, b = 0x9ae16a3b2f90404full;
  void add(std::string_view text) {
    for (unsigned char c : text) {
      a = (a ^ c) * 1099511628211ull;
      b = (b ^ c) * 0x100000001b3ull ^ (b >> 29);
    }
    a = (a ^ 0xff) * 1099511628211ull;  // a separator, so that fields cannot shift into each other
    b = (b ^ 0xff) * 0x100000001b3ull ^ (b >> 29);
  }
  void add(double d) {
    const auto bits = std::isnan(d) ? std::uint64_t{0x7ff8000000000000ull} : std::bit_cast<std::uint64_t>(d);
    add(std::string_view(reinterpret_cast<const char*>(&bits), sizeof bits));
  }
};

}  // namespace

nlohmann::json encode_value(const Value& v) {
  switch (v.type()) {
    case ValueType::None: return nullptr;
    case ValueType::Bool: return v.as_bool();
    case ValueType::Int: return v.as_int();
    case ValueType::Float:
      if (std::isfinite(v.as_float())) return v.as_float();
      return nlohmann::json{{"float", encode_double(v.as_float())}};
    case ValueType::String: return v.as_string();
    case ValueType::List: {
      nlohmann::json list = nlohmann::json::array();
      for (const Value& item : v.as_list()) list.push_back(encode_value(item));
      return list;
    }
  }
  return nullptr;
}

Value decode_value(const nlohmann::json& j) {
  if (j.is_null()) return Value();
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      throw std::invalid_argument("a stored integer out of range");
    return j.get<std::int64_t>();
  }
  if (j.is_number_float()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_array()) {
    Value::List list;
    for (const auto& item : j) list.push_back(decode_value(item));
    return Value(std::move(list));
  }
  if (j.is_object() && j.size() == 1 && j.contains("float")) return decode_double(j["float"]);
  throw std::invalid_argument(fmt::format("not a stored value: {}", j.dump()));
}

std::string encode_config(const std::vector<Value>& config) {
  nlohmann::json j = nlohmann::json::array();
  for (const Value& v : config) j.push_back(encode_value(v));
  return j.dump();
}

std::vector<Value> decode_config(const std::string& text) {
  const auto j = parse(text);
  if (!j.is_array()) throw std::invalid_argument("a damaged record (its configuration is no list)");
  std::vector<Value> config;
  config.reserve(j.size());
  for (const auto& v : j) config.push_back(decode_value(v));
  return config;
}

std::string encode_measurements(const std::vector<Measurement>& measurements) {
  nlohmann::json j = nlohmann::json::array();
  for (const Measurement& m : measurements) j.push_back({m.name, encode_value(m.value), m.unit});
  return j.dump();
}

std::vector<Measurement> decode_measurements(const std::string& text) {
  const auto j = parse(text);
  std::vector<Measurement> out;
  if (!j.is_array()) throw std::invalid_argument("a damaged record (its measurements are no list)");
  out.reserve(j.size());
  for (const auto& m : j) {
    if (!m.is_array() || m.size() != 3 || !m[0].is_string() || !m[2].is_string())
      throw std::invalid_argument("a damaged record (a measurement is no [name, value, unit])");
    out.push_back({m[0].get<std::string>(), decode_value(m[1]), m[2].get<std::string>()});
  }
  return out;
}

std::string encode_runtimes(const std::vector<double>& runtimes) {
  nlohmann::json j = nlohmann::json::array();
  for (double d : runtimes) j.push_back(encode_double(d));
  return j.dump();
}

std::vector<double> decode_runtimes(const std::string& text) {
  const auto j = parse(text);
  if (!j.is_array()) throw std::invalid_argument("a damaged record (its runtimes are no list)");
  std::vector<double> out;
  out.reserve(j.size());
  for (const auto& d : j) out.push_back(decode_double(d));
  return out;
}

std::string record_digest(const std::string& config, const std::string& measurements, const std::string& runtimes,
                          const EvaluationRecord& r) {
  Digest d;
  d.add(config);
  d.add(measurements);
  d.add(runtimes);
  for (double t : {r.compile_ms, r.benchmark_ms, r.verification_ms, r.framework_ms, r.strategy_ms}) d.add(t);
  d.add(std::string_view(reinterpret_cast<const char*>(&r.status), 1));
  d.add(r.message);
  d.add(r.timestamp);
  return fmt::format("{:016x}{:016x}", d.a, d.b);
}

}  // namespace ktune::store
