#include "ktune/status.hpp"

#include <array>

namespace ktune {
namespace {

struct StatusNames {
  Status status;
  std::string_view name, kernel_tuner, t4;
};
constexpr std::array<StatusNames, 6> kNames{{
    {Status::ok, "ok", "", "correct"},
    {Status::compile_failed, "compile-failed", "CompilationFailedConfig", "compile"},
    {Status::runtime_failed, "runtime-failed", "RuntimeFailedConfig", "runtime"},
    {Status::verification_failed, "verification-failed", "VerificationFailedConfig", "correctness"},
    {Status::timeout, "timeout", "TimeoutConfig", "timeout"},
    {Status::invalid, "invalid", "InvalidConfig", "constraints"},
}};

const StatusNames& names_of(Status status) { return kNames[static_cast<std::size_t>(status)]; }

}  // namespace

std::string_view to_string(Status status) { return names_of(status).name; }
std::string_view kernel_tuner_error(Status status) { return names_of(status).kernel_tuner; }
std::string_view t4_invalidity(Status status) { return names_of(status).t4; }

std::optional<Status> parse_status(std::string_view name) {
  for (const auto& n : kNames)
    if (n.name == name) return n.status;
  return std::nullopt;
}

std::optional<Status> status_from_kernel_tuner_error(std::string_view error) {
  if (error.empty()) return std::nullopt;
  for (const auto& n : kNames)
    if (n.kernel_tuner == error) return n.status;
  if (error == "ErrorConfig") return Status::runtime_failed;
  return std::nullopt;
}

std::optional<Status> status_from_t4_invalidity(std::string_view invalidity) {
  for (const auto& n : kNames)
    if (n.t4 == invalidity) return n.status;
  return std::nullopt;
}

}  // namespace ktune
