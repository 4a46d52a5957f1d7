// The VM: runs a CompiledExpression. The statically typed fast program (run_fast) is tried first; the general
// bytecode interpreter (run) gives the result, or raises the error, wherever it bails out. Scalars live unboxed
// in the registers (no Value construction, no heap); strings and lists are referenced.
// Everything on the evaluation path is in this one translation unit, so that the compiler can inline across it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "expr/bytecode.hpp"

namespace ktune::expr {

using namespace detail;

namespace {

[[gnu::always_inline]] inline bool intlike(const Reg& r) { return (kIntLike >> static_cast<unsigned>(r.t)) & 1u; }

[[gnu::always_inline]] inline bool truthy(const Reg& r) {
  switch (r.t) {
    case ValueType::None: return false;
    case ValueType::Bool:
    case ValueType::Int: return r.i != 0;
    case ValueType::Float: return r.d != 0.0;
    default: return r.ref->truthy();
  }
}

// A Value view of a register: scalars are boxed into `tmp`, references returned as they are.
inline const Value& view(const Reg& r, Value& tmp) {
  switch (r.t) {
    case ValueType::None: tmp = Value(); return tmp;
    case ValueType::Bool: tmp = Value(r.i != 0); return tmp;
    case ValueType::Int: tmp = Value(r.i); return tmp;
    case ValueType::Float: tmp = Value(r.d); return tmp;
    default: return *r.ref;
  }
}

inline Value to_value(const Reg& r) {
  Value tmp;
  return view(r, tmp);
}

[[gnu::always_inline]] inline double as_double(const Reg& r) { return r.t == ValueType::Float ? r.d : static_cast<double>(r.i); }

// Three-way numeric comparison of two numeric registers, exact across int and float; 2 = unordered.
inline int compare_numeric(const Reg& a, const Reg& b) {
  if (a.t != ValueType::Float && b.t != ValueType::Float) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  if (a.t == ValueType::Float && b.t == ValueType::Float) {
    if (a.d < b.d) return -1;
    if (a.d > b.d) return 1;
    if (a.d == b.d) return 0;
    return 2;
  }
  if (a.t == ValueType::Float) {
    const int c = python_compare_int_float(b.i, a.d);
    return c == 2 ? 2 : -c;
  }
  return python_compare_int_float(a.i, b.d);
}

inline bool compare_result(CompareOp op, int c) {
  if (c == 2) return op == CompareOp::Ne;
  switch (op) {
    case CompareOp::Eq: return c == 0;
    case CompareOp::Ne: return c != 0;
    case CompareOp::Lt: return c < 0;
    case CompareOp::Le: return c <= 0;
    case CompareOp::Gt: return c > 0;
    case CompareOp::Ge: return c >= 0;
    default: return false;
  }
}

[[gnu::always_inline]] inline bool numeric(const Reg& r) { return (kNumeric >> static_cast<unsigned>(r.t)) & 1u; }

bool compare_regs(CompareOp op, const Reg& a, const Reg& b) {
  if (op != CompareOp::In && op != CompareOp::NotIn && numeric(a) && numeric(b))
    return compare_result(op, compare_numeric(a, b));
  Value ta, tb;
  return ops::compare(op, view(a, ta), view(b, tb));
}

// a op b into a. Fast paths for the common numeric cases; everything else (and every error) goes through ops.
void binary_regs(BinaryOp op, Reg& a, const Reg& b, Frame& frame) {
  if (intlike(a) && intlike(b)) {
    Int r;
    switch (op) {
      case BinaryOp::Add:
        if (!__builtin_add_overflow(a.i, b.i, &r)) { a.t = ValueType::Int; a.i = r; return; }
        break;
      case BinaryOp::Sub:
        if (!__builtin_sub_overflow(a.i, b.i, &r)) { a.t = ValueType::Int; a.i = r; return; }
        break;
      case BinaryOp::Mul:
        if (!__builtin_mul_overflow(a.i, b.i, &r)) { a.t = ValueType::Int; a.i = r; return; }
        break;
      case BinaryOp::Div: {
        constexpr Int exact = Int{1} << 53;
        if (b.i != 0 && a.i >= -exact && a.i <= exact && b.i >= -exact && b.i <= exact) {
          a.d = static_cast<double>(a.i) / static_cast<double>(b.i);
          a.t = ValueType::Float;
          return;
        }
        break;
      }
      case BinaryOp::FloorDiv:
        if (b.i != 0 && b.i != -1) { a.i = ops::floordiv(a.i, b.i); a.t = ValueType::Int; return; }
        break;
      case BinaryOp::Mod:
        if (b.i != 0) { a.i = ops::mod(a.i, b.i); a.t = ValueType::Int; return; }
        break;
      case BinaryOp::Pow:
        if (b.i >= 0) {
          Int result = 1, base = a.i, e = b.i;
          bool ok = true;
          while (e > 0 && ok) {
            if (e & 1) ok = !__builtin_mul_overflow(result, base, &result);
            e >>= 1;
            if (e > 0 && ok) ok = !__builtin_mul_overflow(base, base, &base);
          }
          if (ok) { a.t = ValueType::Int; a.i = result; return; }
        }
        break;
    }
  } else if (numeric(a) && numeric(b)) {
    const double x = as_double(a), y = as_double(b);
    switch (op) {
      case BinaryOp::Add: a.d = x + y; a.t = ValueType::Float; return;
      case BinaryOp::Sub: a.d = x - y; a.t = ValueType::Float; return;
      case BinaryOp::Mul: a.d = x * y; a.t = ValueType::Float; return;
      case BinaryOp::Div:
        if (y != 0.0) { a.d = x / y; a.t = ValueType::Float; return; }
        break;
      case BinaryOp::FloorDiv: a.d = ops::floordiv(x, y); a.t = ValueType::Float; return;
      case BinaryOp::Mod: a.d = ops::mod(x, y); a.t = ValueType::Float; return;
      case BinaryOp::Pow: break;
    }
  }
  Value ta, tb;
  frame.store(a, ops::binary(op, view(a, ta), view(b, tb)));
}

[[gnu::always_inline]] inline void load_fast(Reg& r, const Value& v) {
  if (v.is_int()) {
    r.t = ValueType::Int;
    r.i = v.as_int();
  } else {
    load(r, v);
  }
}

[[gnu::noinline]] void binary_slow(BinaryOp op, Reg& a, const Reg& b, Frame& frame) { binary_regs(op, a, b, frame); }

// a OP b into a, with OP known at compile time; the common int cases inline, the rest out of line.
template <BinaryOp OP>
[[gnu::always_inline]] inline void binary_fast(Reg& a, const Reg& b, Frame& frame) {
  if (a.t == ValueType::Int && b.t == ValueType::Int) {
    Int r;
    if constexpr (OP == BinaryOp::Add) {
      if (!__builtin_add_overflow(a.i, b.i, &r)) { a.i = r; return; }
    } else if constexpr (OP == BinaryOp::Sub) {
      if (!__builtin_sub_overflow(a.i, b.i, &r)) { a.i = r; return; }
    } else if constexpr (OP == BinaryOp::Mul) {
      if (!__builtin_mul_overflow(a.i, b.i, &r)) { a.i = r; return; }
    } else if constexpr (OP == BinaryOp::Mod) {
      if (b.i > 0 && a.i >= 0) { a.i %= b.i; return; }
    } else if constexpr (OP == BinaryOp::FloorDiv) {
      if (b.i > 0 && a.i >= 0) { a.i /= b.i; return; }
    }
  } else if (a.t == ValueType::Float && b.t == ValueType::Float) {
    if constexpr (OP == BinaryOp::Add) { a.d += b.d; return; }
    else if constexpr (OP == BinaryOp::Sub) { a.d -= b.d; return; }
    else if constexpr (OP == BinaryOp::Mul) { a.d *= b.d; return; }
    else if constexpr (OP == BinaryOp::Div) {
      if (b.d != 0.0) { a.d /= b.d; return; }
    }
  }
  binary_slow(OP, a, b, frame);
}

[[gnu::noinline]] bool compare_slow(CompareOp op, const Reg& a, const Reg& b) { return compare_regs(op, a, b); }

template <CompareOp OP>
[[gnu::always_inline]] inline bool compare_fast(const Reg& a, const Reg& b) {
  if (a.t == ValueType::Int && b.t == ValueType::Int) {
    if constexpr (OP == CompareOp::Eq) return a.i == b.i;
    else if constexpr (OP == CompareOp::Ne) return a.i != b.i;
    else if constexpr (OP == CompareOp::Lt) return a.i < b.i;
    else if constexpr (OP == CompareOp::Le) return a.i <= b.i;
    else if constexpr (OP == CompareOp::Gt) return a.i > b.i;
    else return a.i >= b.i;
  }
  return compare_slow(OP, a, b);
}

// Fetches the operands of a fused instruction (see the opcode encoding), popping stack operands.
template <int MA, int MB>
[[gnu::always_inline]] inline void operands(Reg& a, Reg& b, Reg*& sp, const CompiledExpression::Instr& in, const Value* slots) {
  if constexpr (MB == kS) b = *--sp;
  else if constexpr (MB == kV) load_fast(b, slots[MA == kK ? in.arg : in.arg2]);
  else { b.t = ValueType::Int; b.i = static_cast<std::int32_t>(in.arg2); }
  if constexpr (MA == kS) a = *--sp;
  else if constexpr (MA == kV) load_fast(a, slots[in.arg]);
  else { a.t = ValueType::Int; a.i = static_cast<std::int32_t>(in.arg2); }
}

template <BinaryOp OP, int MA, int MB>
[[gnu::always_inline]] inline void exec_binary(Reg*& sp, const CompiledExpression::Instr& in, const Value* slots, Frame& frame) {
  Reg a, b;
  operands<MA, MB>(a, b, sp, in, slots);
  binary_fast<OP>(a, b, frame);
  *sp++ = a;
}

template <CompareOp OP, int MA, int MB>
[[gnu::always_inline]] inline void exec_compare(Reg*& sp, const CompiledExpression::Instr& in, const Value* slots) {
  Reg a, b;
  operands<MA, MB>(a, b, sp, in, slots);
  const bool r = compare_fast<OP>(a, b);
  sp->t = ValueType::Bool;
  sp->i = r;
  ++sp;
}

}  // namespace

// The interpreter. Returns the result register; non-scalar results point into `frame` or the constants.
Reg CompiledExpressionBuilder::run(const CompiledExpression& e, const Value* slots, Frame& frame, Reg* stack,
                                   Reg* locals) {
  const CompiledExpression::Instr* code = e.code_.data();
  const std::size_t size = e.code_.size();
  Reg* sp = stack;  // next free register
  std::size_t pc = 0;
  while (pc < size) {
    const CompiledExpression::Instr in = code[pc++];
    switch (in.op) {
      case kLoadSlot: load_fast(*sp++, slots[in.arg]); break;
      case kLoadInt:
        sp->t = ValueType::Int;
        sp->i = static_cast<std::int32_t>(in.arg2);
        ++sp;
        break;
      case kLoadConst: load(*sp++, e.constants_[in.arg2]); break;
      case kLoadLocal: *sp++ = locals[in.arg]; break;
#define KTUNE_MODES(F, OPV) \
  F(OPV, kS, kS) F(OPV, kS, kV) F(OPV, kS, kK) F(OPV, kV, kS) F(OPV, kV, kV) F(OPV, kV, kK) F(OPV, kK, kS) F(OPV, kK, kV)
#define KTUNE_BINARY_CASE(OPV, MA, MB)                                   \
  case kBinaryBase + static_cast<int>(OPV) * 9 + (MA) * 3 + (MB):        \
    exec_binary<OPV, MA, MB>(sp, in, slots, frame);                      \
    break;
#define KTUNE_COMPARE_CASE(OPV, MA, MB)                                  \
  case kCompareBase + static_cast<int>(OPV) * 9 + (MA) * 3 + (MB):       \
    exec_compare<OPV, MA, MB>(sp, in, slots);                            \
    break;
      KTUNE_MODES(KTUNE_BINARY_CASE, BinaryOp::Add)
      KTUNE_MODES(KTUNE_BINARY_CASE, BinaryOp::Sub)
      KTUNE_MODES(KTUNE_BINARY_CASE, BinaryOp::Mul)
      KTUNE_MODES(KTUNE_BINARY_CASE, BinaryOp::Div)
      KTUNE_MODES(KTUNE_BINARY_CASE, BinaryOp::FloorDiv)
      KTUNE_MODES(KTUNE_BINARY_CASE, BinaryOp::Mod)
      KTUNE_MODES(KTUNE_BINARY_CASE, BinaryOp::Pow)
      KTUNE_MODES(KTUNE_COMPARE_CASE, CompareOp::Eq)
      KTUNE_MODES(KTUNE_COMPARE_CASE, CompareOp::Ne)
      KTUNE_MODES(KTUNE_COMPARE_CASE, CompareOp::Lt)
      KTUNE_MODES(KTUNE_COMPARE_CASE, CompareOp::Le)
      KTUNE_MODES(KTUNE_COMPARE_CASE, CompareOp::Gt)
      KTUNE_MODES(KTUNE_COMPARE_CASE, CompareOp::Ge)
#undef KTUNE_COMPARE_CASE
#undef KTUNE_BINARY_CASE
#undef KTUNE_MODES
      case kUnary: {
        Reg& a = sp[-1];
        const auto op = static_cast<UnaryOp>(in.arg);
        if (op == UnaryOp::Not) {
          a.i = truthy(a) ? 0 : 1;
          a.t = ValueType::Bool;
        } else if (intlike(a) && (op == UnaryOp::Pos || a.i != std::numeric_limits<Int>::min())) {
          a.i = op == UnaryOp::Neg ? -a.i : a.i;
          a.t = ValueType::Int;
        } else if (a.t == ValueType::Float) {
          if (op == UnaryOp::Neg) a.d = -a.d;
        } else {
          Value tmp;
          frame.store(a, ops::unary(op, view(a, tmp)));
        }
        break;
      }
      case kCompare: {  // in / not in
        --sp;
        const bool r = compare_regs(static_cast<CompareOp>(in.arg), sp[-1], *sp);
        sp[-1].t = ValueType::Bool;
        sp[-1].i = r;
        break;
      }
      case kChainCompare: {
        --sp;
        if (compare_regs(static_cast<CompareOp>(in.arg), sp[-1], *sp)) {
          sp[-1] = *sp;  // the right operand is the next comparison's left operand
        } else {
          sp[-1].t = ValueType::Bool;
          sp[-1].i = 0;
          pc = in.arg2;
        }
        break;
      }
      case kInIntSet: {
        Reg& a = sp[-1];
        bool found = false;
        const auto& set = e.int_sets_[in.arg2];
        if (intlike(a)) {
          found = std::binary_search(set.begin(), set.end(), a.i);
        } else if (a.t == ValueType::Float && a.d == std::trunc(a.d) && a.d >= -9223372036854775808.0 &&
                   a.d < 9223372036854775808.0) {
          found = std::binary_search(set.begin(), set.end(), static_cast<Int>(a.d));
        }
        a.t = ValueType::Bool;
        a.i = found != (in.arg == 1);
        break;
      }
      case kJumpIfFalseOrPop:
        if (!truthy(sp[-1])) pc = in.arg2;
        else --sp;
        break;
      case kJumpIfTrueOrPop:
        if (truthy(sp[-1])) pc = in.arg2;
        else --sp;
        break;
      case kPopJumpIfFalse:
        if (!truthy(*--sp)) pc = in.arg2;
        break;
      case kJump: pc = in.arg2; break;
      case kCall: {
        const std::size_t argc = in.arg2;
        Reg* args = sp - argc;
        sp = args + 1;
        if (fast_call(static_cast<Function>(in.arg), args, argc)) break;
        std::vector<Value> values;
        values.reserve(argc);
        for (std::size_t i = 0; i < argc; ++i) values.push_back(to_value(args[i]));
        frame.store(args[0], ops::call(kFunctionNames[in.arg], values));
        break;
      }
      case kBuildList: {
        const std::size_t count = in.arg2;
        Value::List items;
        items.reserve(count);
        Reg* first = sp - count;
        for (std::size_t i = 0; i < count; ++i) items.push_back(to_value(first[i]));
        sp = first + 1;
        frame.store(*first, Value(std::move(items)));
        break;
      }
      case kIterBegin: {
        Value tmp;
        const Value& iterable = view(*--sp, tmp);
        Frame::Loop loop;
        loop.items = iterable.is_list() ? iterable : ops::call("list", {iterable});
        frame.loops.push_back(std::move(loop));
        break;
      }
      case kForIter: {
        Frame::Loop& loop = frame.loops.back();
        const auto& items = loop.items.as_list();
        if (loop.next < items.size()) load(locals[in.arg], items[loop.next++]);
        else pc = in.arg2;
        break;
      }
      case kAppend: frame.loops.back().out.push_back(to_value(*--sp)); break;
      case kIterEnd: {
        Value result(std::move(frame.loops.back().out));
        frame.loops.pop_back();
        frame.store(*sp++, std::move(result));
        break;
      }
      default: break;
    }
  }
  return sp[-1];
}

// Scalar fast paths for calls; false: use ops::call.
bool CompiledExpressionBuilder::fast_call(Function fn, Reg* args, std::size_t argc) {
  switch (fn) {
    case kMin:
    case kMax: {
      if (argc < 2) return false;
      for (std::size_t i = 0; i < argc; ++i)
        if (!numeric(args[i])) return false;
      Reg best = args[0];
      for (std::size_t i = 1; i < argc; ++i) {
        const int c = compare_numeric(args[i], best);
        if (fn == kMax ? (c == 1) : (c == -1)) best = args[i];
      }
      args[0] = best;
      return true;
    }
    case kAbs:
      if (argc == 1 && intlike(args[0]) && args[0].i != std::numeric_limits<Int>::min()) {
        args[0].i = args[0].i < 0 ? -args[0].i : args[0].i;
        args[0].t = ValueType::Int;
        return true;
      }
      if (argc == 1 && args[0].t == ValueType::Float) {
        args[0].d = std::fabs(args[0].d);
        return true;
      }
      return false;
    case kIntF:
      if (argc == 1 && intlike(args[0])) {
        args[0].t = ValueType::Int;
        return true;
      }
      return false;
    case kFloatF:
      if (argc == 1 && numeric(args[0])) {
        args[0].d = as_double(args[0]);
        args[0].t = ValueType::Float;
        return true;
      }
      return false;
    case kBoolF:
      if (argc == 1) {
        args[0].i = truthy(args[0]);
        args[0].t = ValueType::Bool;
        return true;
      }
      return false;
    default: return false;
  }
}

template <class F>
auto CompiledExpressionBuilder::with_frame(const CompiledExpression& e, const Value* slots, F&& finish) {
  constexpr std::size_t kInline = 24;
  Reg stack_buf[kInline];
  Reg locals_buf[4];
  std::unique_ptr<Reg[]> heap;  // only for very deep expressions or many comprehension variables
  Reg* stack = stack_buf;
  Reg* locals = locals_buf;
  if (e.max_stack_ + 1 > kInline || e.num_locals_ > 4) [[unlikely]] {
    heap = std::make_unique<Reg[]>(e.max_stack_ + 1 + e.num_locals_);
    stack = heap.get();
    locals = stack + e.max_stack_ + 1;
  }
  Frame frame;
  const Reg r = run(e, slots, frame, stack, locals);
  return finish(r);
}

// Runs fast_code_. False: bail out (unexpected slot type, or an operation that fails or needs the general
// semantics); the general program then gives the result or raises the error.
bool CompiledExpressionBuilder::run_fast(const CompiledExpression& e, const Value* slots, FastReg& result, Kind& kind) {
  FastReg regs[kMaxFastRegs];
  if (!e.fast_consts_.empty()) std::memcpy(regs, e.fast_consts_.data(), e.fast_consts_.size() * sizeof(FastReg));
  const std::uint64_t* code = e.fast_code_.data();
  constexpr Int kMin = std::numeric_limits<Int>::min();
  constexpr Int kExact = Int{1} << 53;
  struct Decoded {  // the layout of word(): little-endian bytes op, dst, a, b, then imm
    std::uint8_t op, dst, a, b;
    std::uint32_t imm;
  };
  static_assert(sizeof(Decoded) == sizeof(std::uint64_t));
  for (std::size_t pc = 0;;) {
    Decoded in;
    std::memcpy(&in, &code[pc++], sizeof in);
#define dst regs[in.dst]
#define ra regs[in.a]
#define rb regs[in.b]
#define imm in.imm
    switch (static_cast<FastOp>(in.op)) {
      case fLoadI: {
        const Value& v = slots[imm];
        if (!v.is_int()) return false;
        dst.i = v.as_int();
        break;
      }
      case fLoadF: {
        const Value& v = slots[imm];
        if (!v.is_float()) return false;
        dst.d = v.as_float();
        break;
      }
      case fLoadB: {
        const Value& v = slots[imm];
        if (!v.is_bool()) return false;
        dst.i = v.as_bool() ? 1 : 0;
        break;
      }
      case fMov: dst = ra; break;
      case fI2F: dst.d = static_cast<double>(ra.i); break;
      case fAddI:
        if (__builtin_add_overflow(ra.i, rb.i, &dst.i)) return false;
        break;
      case fSubI:
        if (__builtin_sub_overflow(ra.i, rb.i, &dst.i)) return false;
        break;
      case fMulI:
        if (__builtin_mul_overflow(ra.i, rb.i, &dst.i)) return false;
        break;
      case fFloorDivI: {
        const Int x = ra.i, y = rb.i;
        if (y == 0 || y == -1) return false;
        Int q = x / y;
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
        dst.i = q;
        break;
      }
      case fModI: {
        const Int x = ra.i, y = rb.i;
        if (y == 0 || y == -1) return false;
        Int r = x % y;
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        dst.i = r;
        break;
      }
      case fDivI: {
        const Int x = ra.i, y = rb.i;
        if (y == 0 || x < -kExact || x > kExact || y < -kExact || y > kExact) return false;
        dst.d = static_cast<double>(x) / static_cast<double>(y);
        break;
      }
      case fPowI: {
        Int base = ra.i, e2 = rb.i, r = 1;
        if (e2 < 0) return false;
        while (e2 > 0) {
          if ((e2 & 1) && __builtin_mul_overflow(r, base, &r)) return false;
          e2 >>= 1;
          if (e2 > 0 && __builtin_mul_overflow(base, base, &base)) return false;
        }
        dst.i = r;
        break;
      }
      case fAddF: dst.d = ra.d + rb.d; break;
      case fSubF: dst.d = ra.d - rb.d; break;
      case fMulF: dst.d = ra.d * rb.d; break;
      case fDivF:
        if (rb.d == 0.0) return false;
        dst.d = ra.d / rb.d;
        break;
      case fFloorDivF:
        if (rb.d == 0.0) return false;
        dst.d = ops::floordiv(ra.d, rb.d);
        break;
      case fModF:
        if (rb.d == 0.0) return false;
        dst.d = ops::mod(ra.d, rb.d);
        break;
      case fNegI:
        if (ra.i == kMin) return false;
        dst.i = -ra.i;
        break;
      case fNegF: dst.d = -ra.d; break;
      case fNotI: dst.i = ra.i == 0; break;
      case fNotF: dst.i = ra.d == 0.0; break;
      case fTruthI: dst.i = ra.i != 0; break;
      case fTruthF: dst.i = ra.d != 0.0; break;
      case fCmpI: {
        const Int x = ra.i, y = rb.i;
        dst.i = compare_result(static_cast<CompareOp>(imm), x < y ? -1 : x > y ? 1 : 0);
        break;
      }
      case fCmpF: {
        const double x = ra.d, y = rb.d;
        dst.i = compare_result(static_cast<CompareOp>(imm), x < y ? -1 : x > y ? 1 : x == y ? 0 : 2);
        break;
      }
      case fCmpIF: dst.i = compare_result(static_cast<CompareOp>(imm), python_compare_int_float(ra.i, rb.d)); break;
      case fCmpFI: {
        const int c = python_compare_int_float(rb.i, ra.d);
        dst.i = compare_result(static_cast<CompareOp>(imm), c == 2 ? 2 : -c);
        break;
      }
      case fInSet: {
        const auto& set = e.int_sets_[imm];
        dst.i = std::binary_search(set.begin(), set.end(), ra.i) != (in.b != 0);
        break;
      }
      case fJz:
        if (ra.i == 0) pc = imm;
        break;
      case fJnz:
        if (ra.i != 0) pc = imm;
        break;
      case fJzF:
        if (ra.d == 0.0) pc = imm;
        break;
      case fJnzF:
        if (ra.d != 0.0) pc = imm;
        break;
      case fJmp: pc = imm; break;
      // Python's min/max keep the first of equal (or unordered) items.
      case fMinI: dst = rb.i < ra.i ? rb : ra; break;
      case fMaxI: dst = rb.i > ra.i ? rb : ra; break;
      case fMinF: dst = rb.d < ra.d ? rb : ra; break;
      case fMaxF: dst = rb.d > ra.d ? rb : ra; break;
      case fAbsI:
        if (ra.i == kMin) return false;
        dst.i = ra.i < 0 ? -ra.i : ra.i;
        break;
      case fAbsF: dst.d = std::fabs(ra.d); break;
      case fF2I: {
        const double t = std::trunc(ra.d);
        if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) return false;  // also nan
        dst.i = static_cast<Int>(t);
        break;
      }
      case fRoundF: {
        const double t = ops::round_half_even(ra.d);
        if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) return false;
        dst.i = static_cast<Int>(t);
        break;
      }
      case fRet:
        result = ra;
        kind = static_cast<Kind>(in.b);
        return true;
    }
#undef dst
#undef ra
#undef rb
#undef imm
  }
}

Value CompiledExpression::evaluate(const Value* slots) const {
  if (code_.empty()) return Value();
  if (!fast_code_.empty()) {
    CompiledExpressionBuilder::FastReg r;
    CompiledExpressionBuilder::Kind kind;
    if (CompiledExpressionBuilder::run_fast(*this, slots, r, kind)) {
      if (kind == CompiledExpressionBuilder::kF) return Value(r.d);
      if (kind == CompiledExpressionBuilder::kB) return Value(r.i != 0);
      return Value(r.i);
    }
  }
  return CompiledExpressionBuilder::with_frame(*this, slots, [](const Reg& r) { return to_value(r); });
}

bool CompiledExpression::evaluate_truthy(const Value* slots) const {
  if (code_.empty()) return false;
  if (!fast_code_.empty()) {
    CompiledExpressionBuilder::FastReg r;
    CompiledExpressionBuilder::Kind kind;
    if (CompiledExpressionBuilder::run_fast(*this, slots, r, kind))
      return kind == CompiledExpressionBuilder::kF ? r.d != 0.0 : r.i != 0;
  }
  return CompiledExpressionBuilder::with_frame(*this, slots, [](const Reg& r) { return truthy(r); });
}

}  // namespace ktune::expr
