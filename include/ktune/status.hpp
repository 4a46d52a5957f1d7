#pragma once
// How an evaluation of one configuration ended. Failures are results too: they are recorded, charged to the tuning
// clock and tuning goes on.
#include <optional>
#include <string_view>

namespace ktune {

enum class Status : unsigned char {
  ok,
  compile_failed,       // Kernel Tuner "CompilationFailedConfig", T4 invalidity "compile"
  runtime_failed,       // "RuntimeFailedConfig", T4 "runtime"
  verification_failed,  // wrong result; T4 "correctness"
  timeout,              // T4 "timeout"
  invalid,              // violates a constraint or the device limits: "InvalidConfig", T4 "constraints"
};

// "ok", "compile-failed", "runtime-failed", "verification-failed", "timeout", "invalid" (the --json spelling).
std::string_view to_string(Status status);
std::optional<Status> parse_status(std::string_view name);

// Kernel Tuner's error strings: "InvalidConfig", "CompilationFailedConfig", "RuntimeFailedConfig" (and the base
// "ErrorConfig", read as runtime_failed). Kernel Tuner has no string for verification failures or timeouts; we
// write ours as "VerificationFailedConfig" and "TimeoutConfig" (Kernel Tuner reads any unknown string as a value).
std::optional<Status> status_from_kernel_tuner_error(std::string_view error);
std::string_view kernel_tuner_error(Status status);  // "" for ok

// T4 "invalidity": correct, compile, runtime, correctness, timeout, constraints.
std::optional<Status> status_from_t4_invalidity(std::string_view invalidity);
std::string_view t4_invalidity(Status status);

}  // namespace ktune
