// Python operator and built-in function semantics on Values, mirroring CPython 3 (Objects/longobject.c,
// Objects/floatobject.c, Python/bltinmodule.c) for 64-bit ints and doubles. Overflow of int64 raises instead of
// promoting to a big int.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "ktune/expr/evaluator.hpp"

namespace ktune::expr::ops {

namespace {

using Int = std::int64_t;
// 128-bit intermediates for exact rounding and range arithmetic (__extension__: GCC/Clang builtin type).
__extension__ typedef __int128 I128;
__extension__ typedef unsigned __int128 U128;

[[noreturn]] void type_error(const std::string& m) { throw EvalError(EvalErrorKind::Type, "TypeError: " + m); }
[[noreturn]] void value_error(const std::string& m) { throw EvalError(EvalErrorKind::Value, "ValueError: " + m); }
[[noreturn]] void zero_division(const std::string& m) {
  throw EvalError(EvalErrorKind::ZeroDivision, "ZeroDivisionError: " + m);
}
[[noreturn]] void overflow(const std::string& m) { throw EvalError(EvalErrorKind::Overflow, "OverflowError: " + m); }
[[noreturn]] void int_overflow() { overflow("integer result does not fit in 64 bits"); }

bool is_intlike(const Value& v) { return v.is_int() || v.is_bool(); }
Int int_of(const Value& v) { return v.is_bool() ? (v.as_bool() ? 1 : 0) : v.as_int(); }

// Largest list a repetition or range() may produce (protects memory; Python would raise MemoryError).
constexpr std::size_t kMaxListSize = std::size_t{1} << 26;

Int checked_add(Int a, Int b) {
  Int r;
  if (__builtin_add_overflow(a, b, &r)) int_overflow();
  return r;
}
Int checked_sub(Int a, Int b) {
  Int r;
  if (__builtin_sub_overflow(a, b, &r)) int_overflow();
  return r;
}
Int checked_mul(Int a, Int b) {
  Int r;
  if (__builtin_mul_overflow(a, b, &r)) int_overflow();
  return r;
}

int bit_length(std::uint64_t x) { return x == 0 ? 0 : 64 - __builtin_clzll(x); }
int bit_length128(U128 x) {
  const auto hi = static_cast<std::uint64_t>(x >> 64);
  return hi ? 64 + bit_length(hi) : bit_length(static_cast<std::uint64_t>(x));
}

// Correctly rounded a / b (round-half-even), as CPython's long_true_divide.
double true_divide(Int a, Int b) {
  if (b == 0) zero_division("division by zero");
  constexpr Int exact = Int{1} << 53;
  if (a >= -exact && a <= exact && b >= -exact && b <= exact)
    return static_cast<double>(a) / static_cast<double>(b);  // both exact in a double: one rounding
  const bool negative = (a < 0) != (b < 0);
  const std::uint64_t n = a < 0 ? 0 - static_cast<std::uint64_t>(a) : static_cast<std::uint64_t>(a);
  const std::uint64_t d = b < 0 ? 0 - static_cast<std::uint64_t>(b) : static_cast<std::uint64_t>(b);
  if (n == 0) return negative ? -0.0 : 0.0;
  // Scale the numerator so the integer quotient has at least 55 bits, then round to 53 bits by hand.
  const int k = std::max(0, 55 + bit_length(d) - bit_length(n));
  const U128 num = static_cast<U128>(n) << k;
  U128 q = num / d;
  const bool sticky = num % d != 0;
  const int shift = bit_length128(q) - 53;
  const U128 one = 1;
  U128 mant = q >> shift;
  const U128 rest = q & ((one << shift) - 1);
  const U128 half = one << (shift - 1);
  if (rest > half || (rest == half && (sticky || (mant & 1)))) ++mant;
  const double r = std::ldexp(static_cast<double>(static_cast<std::uint64_t>(mant)), shift - k);
  return negative ? -r : r;
}

double float_pow(double iv, double iw) {
  // Objects/floatobject.c float_pow.
  if (iw == 0) return 1.0;
  if (std::isnan(iv)) return iv;
  if (std::isnan(iw)) return iv == 1.0 ? 1.0 : iw;
  auto is_odd_integer = [](double x) { return std::fmod(std::fabs(x), 2.0) == 1.0; };
  if (std::isinf(iw)) {
    iv = std::fabs(iv);
    if (iv == 1.0) return 1.0;
    if ((iw > 0) == (iv > 1.0)) return std::fabs(iw);
    return 0.0;
  }
  if (std::isinf(iv)) {
    const bool odd = is_odd_integer(iw);
    if (iw > 0) return odd ? iv : std::fabs(iv);
    return odd ? std::copysign(0.0, iv) : 0.0;
  }
  if (iv == 0.0) {
    const bool odd = is_odd_integer(iw);
    if (iw < 0.0) zero_division("0.0 cannot be raised to a negative power");
    return odd ? iv : 0.0;
  }
  bool negate = false;
  if (iv < 0.0) {
    if (iw != std::floor(iw)) value_error("negative number cannot be raised to a fractional power (complex result)");
    iv = -iv;
    negate = is_odd_integer(iw);
  }
  if (iv == 1.0) return negate ? -1.0 : 1.0;
  const double ix = std::pow(iv, iw);
  if (std::isinf(ix)) overflow("(34, 'Numerical result out of range')");
  return negate ? -ix : ix;
}

Value int_pow(Int base, Int exp) {
  if (exp < 0) {
    if (base == 0) zero_division("0.0 cannot be raised to a negative power");
    return Value(float_pow(static_cast<double>(base), static_cast<double>(exp)));
  }
  Int result = 1;
  while (exp > 0) {
    if (exp & 1) result = checked_mul(result, base);
    exp >>= 1;
    if (exp > 0) base = checked_mul(base, base);
  }
  return Value(result);
}

// Elements of an iterable value (list or str), or TypeError.
Value::List iterate(const Value& v) {
  if (v.is_list()) return v.as_list();
  if (v.is_string()) {
    Value::List out;
    const std::string& s = v.as_string();
    for (std::size_t i = 0; i < s.size();) {
      std::size_t len = 1;
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0xF0) len = 4;
      else if (c >= 0xE0) len = 3;
      else if (c >= 0xC0) len = 2;
      len = std::min(len, s.size() - i);
      out.emplace_back(s.substr(i, len));
      i += len;
    }
    return out;
  }
  type_error("'" + v.type_name() + "' object is not iterable");
}

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

Value repeat(const Value& seq, Int count) {
  const bool empty = seq.is_string() ? seq.as_string().empty() : seq.as_list().empty();
  // An empty sequence repeated any number of times is empty at once (not after 10**14 empty appends).
  if (count <= 0 || empty) return seq.is_string() ? Value(std::string()) : Value(Value::List{});
  const auto n = static_cast<std::uint64_t>(count);
  if (seq.is_string()) {
    const std::string& s = seq.as_string();
    if (!s.empty() && n > kMaxListSize / s.size()) overflow("repeated string is too long");
    std::string out;
    out.reserve(s.size() * n);
    for (std::uint64_t i = 0; i < n; ++i) out += s;
    return Value(std::move(out));
  }
  const auto& l = seq.as_list();
  if (!l.empty() && n > kMaxListSize / l.size()) overflow("repeated list is too long");
  Value::List out;
  out.reserve(l.size() * n);
  for (std::uint64_t i = 0; i < n; ++i) out.insert(out.end(), l.begin(), l.end());
  return Value(std::move(out));
}

[[noreturn]] void unsupported(const char* op, const Value& a, const Value& b) {
  type_error(std::string("unsupported operand type(s) for ") + op + ": '" + a.type_name() + "' and '" +
             b.type_name() + "'");
}

// Three-way comparison of two numeric values, exact across int and float. 2 = unordered (nan).
int compare_numbers(const Value& a, const Value& b) {
  if (a.is_float() && b.is_float()) {
    const double x = a.as_float(), y = b.as_float();
    if (std::isnan(x) || std::isnan(y)) return 2;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.is_float()) {
    const int c = python_compare_int_float(int_of(b), a.as_float());
    return c == 2 ? 2 : -c;
  }
  if (b.is_float()) return python_compare_int_float(int_of(a), b.as_float());
  const Int x = int_of(a), y = int_of(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

bool ordering(CompareOp op, const Value& a, const Value& b) {
  int c;
  if (a.is_numeric() && b.is_numeric()) {
    c = compare_numbers(a, b);
    if (c == 2) return false;
  } else if (a.is_string() && b.is_string()) {
    const int r = a.as_string().compare(b.as_string());
    c = r < 0 ? -1 : r > 0 ? 1 : 0;
  } else if (a.is_list() && b.is_list()) {
    // Lexicographic: the first elements that differ decide (with the same operator), else the lengths.
    const auto& la = a.as_list();
    const auto& lb = b.as_list();
    std::size_t i = 0;
    while (i < la.size() && i < lb.size() && python_equal(la[i], lb[i])) ++i;
    if (i < la.size() && i < lb.size()) return ordering(op, la[i], lb[i]);
    c = la.size() < lb.size() ? -1 : la.size() > lb.size() ? 1 : 0;
  } else {
    type_error(std::string("'") + to_string(op) + "' not supported between instances of '" + a.type_name() +
               "' and '" + b.type_name() + "'");
  }
  switch (op) {
    case CompareOp::Lt: return c < 0;
    case CompareOp::Le: return c <= 0;
    case CompareOp::Gt: return c > 0;
    case CompareOp::Ge: return c >= 0;
    default: return false;
  }
}

bool contains(const Value& container, const Value& item) {
  if (container.is_list()) {
    for (const Value& e : container.as_list())
      if (python_equal(e, item)) return true;
    return false;
  }
  if (container.is_string()) {
    if (!item.is_string()) type_error("'in <string>' requires string as left operand, not " + item.type_name());
    return container.as_string().find(item.as_string()) != std::string::npos;
  }
  type_error("argument of type '" + container.type_name() + "' is not iterable");
}

std::string strip(const std::string& s) {
  const char* ws = " \t\n\r\f\v";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

// Removes single underscores between digits (Python allows them in int() and float() strings); false if misplaced.
bool remove_underscores(std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_') {
      const bool ok = i > 0 && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i - 1])) &&
                      std::isdigit(static_cast<unsigned char>(s[i + 1]));
      if (!ok) return false;
      continue;
    }
    out += s[i];
  }
  s = std::move(out);
  return true;
}

Int parse_int(const std::string& text) {
  std::string s = strip(text);
  const auto bad = [&]() { value_error("invalid literal for int() with base 10: " + Value(text).repr()); };
  if (!remove_underscores(s)) bad();
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) bad();
  U128 v = 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) bad();
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
    if (v > (static_cast<U128>(1) << 63)) int_overflow();
  }
  if (!negative && v > static_cast<U128>(std::numeric_limits<Int>::max())) int_overflow();
  return negative ? static_cast<Int>(0 - static_cast<std::uint64_t>(v)) : static_cast<Int>(v);
}

double parse_float(const std::string& text) {
  std::string s = strip(text);
  const auto bad = [&]() { value_error("could not convert string to float: " + Value(text).repr()); };
  std::string lower;
  for (const char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::size_t i = 0;
  bool negative = false;
  if (i < lower.size() && (lower[i] == '+' || lower[i] == '-')) negative = lower[i++] == '-';
  const std::string body = lower.substr(i);
  if (body == "inf" || body == "infinity") return negative ? -HUGE_VAL : HUGE_VAL;
  if (body == "nan") return negative ? -std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::quiet_NaN();
  if (!remove_underscores(s)) bad();
  // Validate Python's float syntax: digits [. digits] [e [sign] digits], at least one digit in the mantissa.
  std::size_t j = 0;
  if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
  std::size_t mantissa_digits = 0;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j, ++mantissa_digits;
  if (j < s.size() && s[j] == '.') {
    ++j;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j, ++mantissa_digits;
  }
  if (mantissa_digits == 0) bad();
  if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
    ++j;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    std::size_t exp_digits = 0;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j, ++exp_digits;
    if (exp_digits == 0) bad();
  }
  if (j != s.size()) bad();
  return std::strtod(s.c_str(), nullptr);
}

Int float_to_int(double d) {
  if (std::isnan(d)) value_error("cannot convert float NaN to integer");
  if (std::isinf(d)) overflow("cannot convert float infinity to integer");
  const double t = std::trunc(d);
  if (t >= 9223372036854775808.0 || t < -9223372036854775808.0) int_overflow();
  return static_cast<Int>(t);
}

// Python's round(x, ndigits) for a float: the exact decimal value of x rounded half-even at 10^-ndigits.
double round_float_digits(double x, Int ndigits) {
  if (!std::isfinite(x) || x == 0.0) return x;
  if (ndigits > 323) return x;              // beyond the precision of any double
  if (ndigits < -308) return 0.0 * x;       // rounds to (signed) zero
  // glibc prints the exact binary value; 1100 fraction digits cover every double.
  static thread_local char buf[1500];
  std::snprintf(buf, sizeof buf, "%.1100f", std::fabs(x));
  std::string s(buf);
  const auto point = s.find('.');
  std::string digits = s.substr(0, point) + s.substr(point + 1);
  const auto int_len = static_cast<Int>(point);
  // Keep int_len + ndigits digits; round on the rest.
  const Int keep = int_len + ndigits;
  if (keep < 0) return std::copysign(0.0, x);
  std::string kept = digits.substr(0, static_cast<std::size_t>(keep));
  const std::string rest = digits.substr(static_cast<std::size_t>(keep));
  bool round_up = false;
  if (!rest.empty()) {
    if (rest[0] > '5') round_up = true;
    else if (rest[0] == '5') {
      const bool exact_half = rest.find_first_not_of('0', 1) == std::string::npos;
      const int last = kept.empty() ? 0 : kept.back() - '0';
      round_up = !exact_half || (last % 2 == 1);
    }
  }
  if (round_up) {
    Int i = static_cast<Int>(kept.size()) - 1;
    while (i >= 0 && kept[static_cast<std::size_t>(i)] == '9') kept[static_cast<std::size_t>(i--)] = '0';
    if (i < 0) kept.insert(kept.begin(), '1');
    else ++kept[static_cast<std::size_t>(i)];
  }
  if (kept.empty()) kept = "0";
  std::string num = kept + "e" + std::to_string(-ndigits);
  const double r = std::strtod(num.c_str(), nullptr);
  if (std::isinf(r)) overflow("rounded value too large to represent");
  return std::copysign(r, x);
}

Int round_int_digits(Int x, Int ndigits) {
  if (ndigits >= 0) return x;
  if (ndigits < -19) return 0;
  U128 pow10 = 1;
  for (Int i = 0; i < -ndigits; ++i) pow10 *= 10;
  const I128 v = x;
  const I128 p = static_cast<I128>(pow10);
  I128 q = v / p, r = v % p;
  if (r < 0) {
    r += p;
    q -= 1;
  }
  // Half-even on the remainder.
  if (2 * r > p || (2 * r == p && (q & 1))) q += 1;
  const I128 result = q * p;
  if (result > std::numeric_limits<Int>::max() || result < std::numeric_limits<Int>::min()) int_overflow();
  return static_cast<Int>(result);
}

Int index_arg(const Value& v, const char* fn) {
  if (is_intlike(v)) return int_of(v);
  (void)fn;
  type_error("'" + v.type_name() + "' object cannot be interpreted as an integer");
}

void arity(std::string_view fn, std::size_t n, std::size_t lo, std::size_t hi) {
  if (n >= lo && n <= hi) return;
  std::string expected = lo == hi ? std::to_string(lo) : hi == SIZE_MAX ? "at least " + std::to_string(lo)
                                                                      : std::to_string(lo) + " or " + std::to_string(hi);
  type_error(std::string(fn) + "() takes " + expected + " argument" + (lo == 1 && (hi == 1 || hi == SIZE_MAX) ? "" : "s") + " (" +
             std::to_string(n) + " given)");
}

Value min_max(bool is_max, const std::vector<Value>& args) {
  const char* fn = is_max ? "max" : "min";
  if (args.empty()) type_error(std::string(fn) + " expected at least 1 argument, got 0");
  Value::List items;
  const Value::List* seq = &args;
  if (args.size() == 1) {
    items = iterate(args[0]);
    seq = &items;
  }
  if (seq->empty()) value_error(std::string(fn) + "() arg is an empty sequence");
  const Value* best = &(*seq)[0];
  for (std::size_t i = 1; i < seq->size(); ++i) {
    // CPython keeps the first of equal items: replaces only when item > best (max) / item < best (min).
    if (compare(is_max ? CompareOp::Gt : CompareOp::Lt, (*seq)[i], *best)) best = &(*seq)[i];
  }
  return *best;
}

}  // namespace

double floordiv(double a, double b) {
  // Objects/floatobject.c float_divmod.
  if (b == 0.0) zero_division("float floor division by zero");
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) div -= 1.0;
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, a / b);
  }
  return floordiv;
}

double mod(double a, double b) {
  // Objects/floatobject.c float_rem.
  if (b == 0.0) zero_division("float modulo");
  double m = std::fmod(a, b);
  if (m != 0.0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(0.0, b);
  }
  return m;
}

std::int64_t floordiv(std::int64_t a, std::int64_t b) {
  if (b == 0) zero_division("integer division or modulo by zero");
  if (b == -1) {
    if (a == std::numeric_limits<Int>::min()) int_overflow();
    return -a;
  }
  Int q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t mod(std::int64_t a, std::int64_t b) {
  if (b == 0) zero_division("integer division or modulo by zero");
  if (b == -1) return 0;
  Int r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

double round_half_even(double x) {
  double r = std::round(x);  // half away from zero
  if (std::fabs(x - std::trunc(x)) == 0.5) r = 2.0 * std::round(x / 2.0);
  return r;
}

Value unary(UnaryOp op, const Value& a) {
  switch (op) {
    case UnaryOp::Not: return Value(!a.truthy());
    case UnaryOp::Neg:
      if (is_intlike(a)) {
        const Int v = int_of(a);
        if (v == std::numeric_limits<Int>::min()) int_overflow();
        return Value(-v);
      }
      if (a.is_float()) return Value(-a.as_float());
      type_error("bad operand type for unary -: '" + a.type_name() + "'");
    case UnaryOp::Pos:
      if (is_intlike(a)) return Value(int_of(a));
      if (a.is_float()) return a;
      type_error("bad operand type for unary +: '" + a.type_name() + "'");
  }
  return Value();
}

Value binary(BinaryOp op, const Value& a, const Value& b) {
  const char* sym = to_string(op);
  if (a.is_numeric() && b.is_numeric()) {
    if (is_intlike(a) && is_intlike(b)) {
      const Int x = int_of(a), y = int_of(b);
      switch (op) {
        case BinaryOp::Add: return Value(checked_add(x, y));
        case BinaryOp::Sub: return Value(checked_sub(x, y));
        case BinaryOp::Mul: return Value(checked_mul(x, y));
        case BinaryOp::Div: return Value(true_divide(x, y));
        case BinaryOp::FloorDiv: return Value(floordiv(x, y));
        case BinaryOp::Mod: return Value(mod(x, y));
        case BinaryOp::Pow: return int_pow(x, y);
      }
    }
    const double x = a.to_double(), y = b.to_double();
    switch (op) {
      case BinaryOp::Add: return Value(x + y);
      case BinaryOp::Sub: return Value(x - y);
      case BinaryOp::Mul: return Value(x * y);
      case BinaryOp::Div:
        if (y == 0.0) zero_division("float division by zero");
        return Value(x / y);
      case BinaryOp::FloorDiv: return Value(floordiv(x, y));
      case BinaryOp::Mod: return Value(mod(x, y));
      case BinaryOp::Pow: return Value(float_pow(x, y));
    }
  }
  if (op == BinaryOp::Add) {
    if (a.is_string() && b.is_string()) return Value(a.as_string() + b.as_string());
    if (a.is_list() && b.is_list()) {
      Value::List out = a.as_list();
      out.insert(out.end(), b.as_list().begin(), b.as_list().end());
      return Value(std::move(out));
    }
  }
  if (op == BinaryOp::Mul) {
    if ((a.is_string() || a.is_list()) && is_intlike(b)) return repeat(a, int_of(b));
    if ((b.is_string() || b.is_list()) && is_intlike(a)) return repeat(b, int_of(a));
    if ((a.is_string() || a.is_list()) && b.is_float())
      type_error("can't multiply sequence by non-int of type 'float'");
    if ((b.is_string() || b.is_list()) && a.is_float())
      type_error("can't multiply sequence by non-int of type 'float'");
  }
  if (op == BinaryOp::Mod && a.is_string()) type_error("printf-style string formatting (str % ...) is not supported");
  if (op == BinaryOp::Add && a.is_string() && !b.is_string())
    type_error("can only concatenate str (not \"" + b.type_name() + "\") to str");
  if (op == BinaryOp::Add && a.is_list() && !b.is_list())
    type_error("can only concatenate list (not \"" + b.type_name() + "\") to list");
  if (op == BinaryOp::Pow) {
    type_error("unsupported operand type(s) for ** or pow(): '" + a.type_name() + "' and '" + b.type_name() + "'");
  }
  unsupported(sym, a, b);
}

bool compare(CompareOp op, const Value& a, const Value& b) {
  switch (op) {
    case CompareOp::Eq: return python_equal(a, b);
    case CompareOp::Ne: return !python_equal(a, b);
    case CompareOp::In: return contains(b, a);
    case CompareOp::NotIn: return !contains(b, a);
    default: return ordering(op, a, b);
  }
}

bool is_known_function(std::string_view f) {
  static constexpr std::string_view names[] = {"min", "max",   "abs",  "int",  "float", "round",
                                               "len", "range", "list", "str",  "bool",  "sum"};
  return std::find(std::begin(names), std::end(names), f) != std::end(names);
}

Value call(std::string_view fn, const std::vector<Value>& args) {
  const std::size_t n = args.size();
  if (fn == "min" || fn == "max") return min_max(fn == "max", args);
  if (fn == "abs") {
    arity(fn, n, 1, 1);
    const Value& a = args[0];
    if (is_intlike(a)) {
      const Int v = int_of(a);
      if (v == std::numeric_limits<Int>::min()) int_overflow();
      return Value(v < 0 ? -v : v);
    }
    if (a.is_float()) return Value(std::fabs(a.as_float()));
    type_error("bad operand type for abs(): '" + a.type_name() + "'");
  }
  if (fn == "int") {
    arity(fn, n, 0, 1);
    if (n == 0) return Value(Int{0});
    const Value& a = args[0];
    if (is_intlike(a)) return Value(int_of(a));
    if (a.is_float()) return Value(float_to_int(a.as_float()));
    if (a.is_string()) return Value(parse_int(a.as_string()));
    type_error("int() argument must be a string, a bytes-like object or a real number, not '" + a.type_name() + "'");
  }
  if (fn == "float") {
    arity(fn, n, 0, 1);
    if (n == 0) return Value(0.0);
    const Value& a = args[0];
    if (a.is_numeric()) return Value(a.to_double());
    if (a.is_string()) return Value(parse_float(a.as_string()));
    type_error("float() argument must be a string or a real number, not '" + a.type_name() + "'");
  }
  if (fn == "round") {
    arity(fn, n, 1, 2);
    const Value& x = args[0];
    if (!x.is_numeric()) type_error("type " + x.type_name() + " doesn't define __round__ method");
    if (n == 1 || args[1].is_none()) {
      if (is_intlike(x)) return Value(int_of(x));
      const double d = x.as_float();
      if (std::isnan(d)) value_error("cannot convert float NaN to integer");
      if (std::isinf(d)) overflow("cannot convert float infinity to integer");
      return Value(float_to_int(round_half_even(d)));
    }
    const Int nd = index_arg(args[1], "round");
    if (is_intlike(x)) return Value(round_int_digits(int_of(x), nd));
    return Value(round_float_digits(x.as_float(), nd));
  }
  if (fn == "len") {
    arity(fn, n, 1, 1);
    if (args[0].is_string()) return Value(static_cast<Int>(code_points(args[0].as_string())));
    if (args[0].is_list()) return Value(static_cast<Int>(args[0].as_list().size()));
    type_error("object of type '" + args[0].type_name() + "' has no len()");
  }
  if (fn == "range") {
    if (n == 0) type_error("range expected at least 1 argument, got 0");
    if (n > 3) type_error("range expected at most 3 arguments, got " + std::to_string(n));
    Int start = 0, stop, step = 1;
    if (n == 1) {
      stop = index_arg(args[0], "range");
    } else {
      start = index_arg(args[0], "range");
      stop = index_arg(args[1], "range");
      if (n == 3) step = index_arg(args[2], "range");
    }
    if (step == 0) value_error("range() arg 3 must not be zero");
    const I128 span = step > 0 ? static_cast<I128>(stop) - start : static_cast<I128>(start) - stop;
    const I128 abs_step = step > 0 ? step : -static_cast<I128>(step);
    const I128 count = span <= 0 ? 0 : (span + abs_step - 1) / abs_step;
    if (count > static_cast<I128>(kMaxListSize)) overflow("range() is too large to expand into a list");
    Value::List out;
    out.reserve(static_cast<std::size_t>(count));
    for (I128 i = 0; i < count; ++i) out.emplace_back(static_cast<Int>(start + i * step));
    return Value(std::move(out));
  }
  if (fn == "list") {
    arity(fn, n, 0, 1);
    if (n == 0) return Value(Value::List{});
    return Value(iterate(args[0]));
  }
  if (fn == "str") {
    arity(fn, n, 0, 1);
    if (n == 0) return Value(std::string());
    return Value(args[0].str());
  }
  if (fn == "bool") {
    arity(fn, n, 0, 1);
    if (n == 0) return Value(false);
    return Value(args[0].truthy());
  }
  if (fn == "sum") {
    arity(fn, n, 1, 2);
    Value acc = n == 2 ? args[1] : Value(Int{0});
    if (acc.is_string()) type_error("sum() can't sum strings [use ''.join(seq) instead]");
    for (const Value& item : iterate(args[0])) acc = binary(BinaryOp::Add, acc, item);
    return acc;
  }
  type_error("unknown function '" + std::string(fn) + "'");
}

}  // namespace ktune::expr::ops
