// Elements of kernel arguments as doubles, and IEEE binary16 conversion (no Debian library offers a plain C++
// half type that works on every compiler we build with; std::float16_t is optional in C++23).
#include "ktune/live/element_values.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace ktune::live {

static_assert(std::endian::native == std::endian::little, "kernel argument files are little-endian");

std::uint16_t float_to_half(float value) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
  const std::uint16_t sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
  const std::uint32_t exponent = (f >> 23) & 0xffu;
  std::uint32_t mantissa = f & 0x7fffffu;
  if (exponent == 0xff)  // inf, or NaN (kept quiet and non-zero)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0u));
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (e <= 0) {
    if (e < -10) return sign;  // below half the smallest subnormal: zero
    mantissa |= 0x800000u;     // implicit bit; shift into subnormal position with round-to-nearest-even
    const unsigned shift = static_cast<unsigned>(14 - e);
    std::uint32_t half_mantissa = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half_mantissa & 1u))) ++half_mantissa;
    return static_cast<std::uint16_t>(sign | half_mantissa);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is still correct
  return static_cast<std::uint16_t>(sign | h);
}

float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // zero or subnormal
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

namespace {

template <class T>
void store_integer(double value, std::byte* out) {
  T v{};
  if (std::isnan(value)) {
    v = 0;
  } else if (value <= static_cast<double>(std::numeric_limits<T>::min())) {
    v = std::numeric_limits<T>::min();
  } else if (value >= static_cast<double>(std::numeric_limits<T>::max())) {
    v = std::numeric_limits<T>::max();  // 2^63 and 2^64 round up as doubles: saturate before converting
  } else {
    v = static_cast<T>(value);
  }
  std::memcpy(out, &v, sizeof v);
}

template <class T>
double load(const std::byte* in) {
  T v;
  std::memcpy(&v, in, sizeof v);
  return static_cast<double>(v);
}

}  // namespace

void store_element(ElementType type, double value, std::byte* out) {
  switch (type) {
    case ElementType::int8: return store_integer<std::int8_t>(value, out);
    case ElementType::uint8: return store_integer<std::uint8_t>(value, out);
    case ElementType::int16: return store_integer<std::int16_t>(value, out);
    case ElementType::uint16: return store_integer<std::uint16_t>(value, out);
    case ElementType::int32: return store_integer<std::int32_t>(value, out);
    case ElementType::uint32: return store_integer<std::uint32_t>(value, out);
    case ElementType::int64: return store_integer<std::int64_t>(value, out);
    case ElementType::uint64: return store_integer<std::uint64_t>(value, out);
    case ElementType::float16: {
      const std::uint16_t h = float_to_half(static_cast<float>(value));
      std::memcpy(out, &h, sizeof h);
      return;
    }
    case ElementType::float32: {
      const float f = static_cast<float>(value);
      std::memcpy(out, &f, sizeof f);
      return;
    }
    case ElementType::float64: std::memcpy(out, &value, sizeof value); return;
    case ElementType::boolean: *out = std::byte{value != 0.0 ? std::uint8_t{1} : std::uint8_t{0}}; return;
  }
  throw std::invalid_argument("store_element: unknown element type");
}

double load_element(ElementType type, const std::byte* in) {
  switch (type) {
    case ElementType::int8: return load<std::int8_t>(in);
    case ElementType::uint8: return load<std::uint8_t>(in);
    case ElementType::int16: return load<std::int16_t>(in);
    case ElementType::uint16: return load<std::uint16_t>(in);
    case ElementType::int32: return load<std::int32_t>(in);
    case ElementType::uint32: return load<std::uint32_t>(in);
    case ElementType::int64: return load<std::int64_t>(in);
    case ElementType::uint64: return load<std::uint64_t>(in);
    case ElementType::float16: {
      std::uint16_t h;
      std::memcpy(&h, in, sizeof h);
      return half_to_float(h);
    }
    case ElementType::float32: return load<float>(in);
    case ElementType::float64: return load<double>(in);
    case ElementType::boolean: return *in != std::byte{0} ? 1.0 : 0.0;
  }
  throw std::invalid_argument("load_element: unknown element type");
}

std::vector<double> to_doubles(ElementType type, std::span<const std::byte> bytes) {
  const std::size_t size = element_size(type);
  if (bytes.size() % size != 0)
    throw std::invalid_argument("to_doubles: " + std::to_string(bytes.size()) + " bytes are not a whole number of " +
                                std::string(to_string(type)) + " elements");
  std::vector<double> out(bytes.size() / size);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = load_element(type, bytes.data() + i * size);
  return out;
}

}  // namespace ktune::live
