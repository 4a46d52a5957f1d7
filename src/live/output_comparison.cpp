// compare_output: Kernel Tuner's np.allclose check (|actual - expected| <= atol + rtol*|expected|) for every element
// type, with NaN matching only NaN. One tight loop per element type: it runs on every verified output (10^7+).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "ktune/live/element_values.hpp"
#include "ktune/live/kernel_specification.hpp"

namespace ktune::live {

namespace {

struct Mismatches {
  std::size_t count = 0;
  std::size_t first = 0;
};

template <class T>
T load(const std::byte* p, std::size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}

bool close(double e, double a, double atol, double rtol) {
  if (a == e) return true;  // also equal infinities
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  return std::abs(a - e) <= atol + rtol * std::abs(e);  // false for inf against finite (inf <= x is false)
}

template <class T>
Mismatches compare_as(const std::byte* expected, const std::byte* actual, std::size_t n, double atol, double rtol) {
  Mismatches m;
  for (std::size_t i = 0; i < n; ++i) {
    const T e = load<T>(expected, i);
    const T a = load<T>(actual, i);
    bool ok;
    if constexpr (std::is_integral_v<T>) {
      // The exact difference of two integers (no rounding through double for int64 beyond 2^53).
      const auto diff = static_cast<std::uint64_t>(a >= e ? static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(e)
                                                         : static_cast<std::uint64_t>(e) - static_cast<std::uint64_t>(a));
      ok = diff == 0 || static_cast<double>(diff) <= atol + rtol * std::abs(static_cast<double>(e));
    } else {
      ok = close(static_cast<double>(e), static_cast<double>(a), atol, rtol);
    }
    if (!ok && m.count++ == 0) m.first = i;
  }
  return m;
}

Mismatches compare_half(const std::byte* expected, const std::byte* actual, std::size_t n, double atol, double rtol) {
  Mismatches m;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = half_to_float(load<std::uint16_t>(expected, i));
    const double a = half_to_float(load<std::uint16_t>(actual, i));
    if (!close(e, a, atol, rtol) && m.count++ == 0) m.first = i;
  }
  return m;
}

// An element for a message: integers exactly, floats with the shortest digits of their own precision.
std::string element_text(ElementType type, const std::byte* p, std::size_t i) {
  const std::byte* at = p + i * element_size(type);
  switch (type) {
    case ElementType::int64: return std::to_string(load<std::int64_t>(at, 0));
    case ElementType::uint64: return std::to_string(load<std::uint64_t>(at, 0));
    case ElementType::float32: return fmt::format("{}", load<float>(at, 0));
    case ElementType::float16: return fmt::format("{}", half_to_float(load<std::uint16_t>(at, 0)));
    case ElementType::float64: return fmt::format("{}", load<double>(at, 0));
    case ElementType::boolean: return load_element(type, at) != 0 ? "true" : "false";
    default: return fmt::format("{}", static_cast<std::int64_t>(load_element(type, at)));
  }
}

}  // namespace

std::string compare_output(const KernelArgument& expected, std::span<const std::byte> actual, double atol, double rtol) {
  if (actual.size() != expected.bytes.size())
    return fmt::format("output '{}': expected {} bytes ({} {} elements), got {} bytes", expected.name,
                       expected.bytes.size(), expected.count(), to_string(expected.type), actual.size());
  const std::byte* e = expected.bytes.data();
  const std::byte* a = actual.data();
  const std::size_t n = expected.count();
  Mismatches m;
  switch (expected.type) {
    case ElementType::int8: m = compare_as<std::int8_t>(e, a, n, atol, rtol); break;
    case ElementType::uint8: m = compare_as<std::uint8_t>(e, a, n, atol, rtol); break;
    case ElementType::int16: m = compare_as<std::int16_t>(e, a, n, atol, rtol); break;
    case ElementType::uint16: m = compare_as<std::uint16_t>(e, a, n, atol, rtol); break;
    case ElementType::int32: m = compare_as<std::int32_t>(e, a, n, atol, rtol); break;
    case ElementType::uint32: m = compare_as<std::uint32_t>(e, a, n, atol, rtol); break;
    case ElementType::int64: m = compare_as<std::int64_t>(e, a, n, atol, rtol); break;
    case ElementType::uint64: m = compare_as<std::uint64_t>(e, a, n, atol, rtol); break;
    case ElementType::float16: m = compare_half(e, a, n, atol, rtol); break;
    case ElementType::float32: m = compare_as<float>(e, a, n, atol, rtol); break;
    case ElementType::float64: m = compare_as<double>(e, a, n, atol, rtol); break;
    case ElementType::boolean:  // any non-zero byte is true
      for (std::size_t i = 0; i < n; ++i)
        if ((e[i] != std::byte{0}) != (a[i] != std::byte{0}) && m.count++ == 0) m.first = i;
      break;
  }
  if (m.count == 0) return "";
  return fmt::format("output '{}': {} of {} elements differ by more than atol {} + rtol {} * |expected|; first at "
                     "index {}: expected {}, got {}",
                     expected.name, m.count, n, atol, rtol, m.first, element_text(expected.type, e, m.first),
                     element_text(expected.type, a, m.first));
}

}  // namespace ktune::live
