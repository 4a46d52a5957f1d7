#pragma once
// Whether the tests run under AddressSanitizer + UndefinedBehaviorSanitizer (make asan, CI).

namespace ktune::testing {

// Statistical acceptance tests (many seeds of the same runs) skip or shrink there: shorter tests run the same code
// under the sanitizers, and the repeats cost minutes of CI without reaching any other code.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderSanitizers = true;
#else
inline constexpr bool kUnderSanitizers = false;
#endif

}  // namespace ktune::testing
