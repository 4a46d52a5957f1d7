// CompiledExpression: an expression flattened to post-order bytecode over a small register stack.
// Scalars live unboxed in the registers (no Value construction, no heap); strings and lists are referenced.
// Names are resolved to slots once, constant subtrees are folded, and types are checked statically.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "ktune/expr/evaluator.hpp"

namespace ktune::expr {

namespace {

using Int = std::int64_t;

constexpr TypeSet kAllTypes = type_bit(ValueType::None) | type_bit(ValueType::Bool) | type_bit(ValueType::Int) |
                              type_bit(ValueType::Float) | type_bit(ValueType::String) | type_bit(ValueType::List);
constexpr TypeSet kIntLike = type_bit(ValueType::Bool) | type_bit(ValueType::Int);
constexpr TypeSet kNumeric = kIntLike | type_bit(ValueType::Float);
constexpr TypeSet kSequence = type_bit(ValueType::String) | type_bit(ValueType::List);

enum Op : std::uint16_t {
  kLoadSlot,   // arg: slot
  kLoadConst,  // arg2: constant index
  kLoadInt,    // arg2: int32 immediate
  kLoadLocal,  // arg: local
  kUnary,      // arg: UnaryOp
  kCompare,    // arg: CompareOp (in / not in; the others are fused, see below)
  kChainCompare,     // arg: CompareOp, arg2: jump target when false (leaves False), else leaves the right operand
  kInIntSet,         // arg: 0 = in, 1 = not in; arg2: int set index (constant right operand)
  kJumpIfFalseOrPop, // and
  kJumpIfTrueOrPop,  // or
  kPopJumpIfFalse,
  kJump,
  kCall,       // arg: function id, arg2: argument count
  kBuildList,  // arg2: element count
  kIterBegin,  // pops the iterable, opens a loop
  kForIter,    // arg: local, arg2: jump target when exhausted
  kAppend,     // pops a value into the innermost loop's result
  kIterEnd,    // closes the innermost loop, pushes its result list
  // Fused arithmetic and comparisons: kBinaryBase + op * 9 + mode_a * 3 + mode_b (likewise kCompareBase for
  // == != < <= > >=). Operand modes: from the stack, a slot, or an int32 immediate. Encoding: a's slot in arg,
  // b's slot in arg2 (in arg when a is an immediate), an immediate in arg2.
  kBinaryBase = 32,
  kCompareBase = kBinaryBase + 7 * 9,
  kOpcodeEnd = kCompareBase + 6 * 9,
};

enum Mode : int { kS = 0, kV = 1, kK = 2 };

enum Function : std::uint16_t { kMin, kMax, kAbs, kIntF, kFloatF, kRound, kLen, kRange, kListF, kStr, kBoolF, kSum };
constexpr const char* kFunctionNames[] = {"min", "max", "abs", "int", "float", "round",
                                          "len", "range", "list", "str", "bool", "sum"};

// An unboxed register: Bool and Int keep their value in i (bool as 0/1), Float in d, String/List point to a
// Value owned by a slot, the constant pool or the frame's temporaries.
struct Reg {
  ValueType t;
  union {
    Int i;
    double d;
    const Value* ref;
  };
};

inline TypeSet bit(ValueType t) { return type_bit(t); }
[[gnu::always_inline]] inline bool intlike(const Reg& r) { return (kIntLike >> static_cast<unsigned>(r.t)) & 1u; }

[[gnu::always_inline]] inline void load(Reg& r, const Value& v) {
  r.t = v.type();
  switch (r.t) {
    case ValueType::Bool: r.i = v.as_bool() ? 1 : 0; break;
    case ValueType::Int: r.i = v.as_int(); break;
    case ValueType::Float: r.d = v.as_float(); break;
    case ValueType::None: r.i = 0; break;
    default: r.ref = &v; break;
  }
}

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

// Per-evaluation storage for non-scalar intermediate results and comprehension loops; unused (and never
// allocating) for purely scalar expressions.
struct Frame {
  struct Loop {
    Value items;
    std::size_t next = 0;
    Value::List out;
  };
  std::vector<std::unique_ptr<Value>> temps;
  std::vector<Loop> loops;

  void store(Reg& r, Value v) {
    load(r, v);
    if (r.t == ValueType::String || r.t == ValueType::List) {
      temps.push_back(std::make_unique<Value>(std::move(v)));
      r.ref = temps.back().get();
    }
  }
};

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

std::string type_names(TypeSet s) {
  static constexpr const char* names[] = {"NoneType", "bool", "int", "float", "str", "list"};
  std::string out;
  for (unsigned t = 0; t < 6; ++t) {
    if (!(s & (1u << t))) continue;
    if (!out.empty()) out += "|";
    out += names[t];
  }
  return out.empty() ? "?" : out;
}

}  // namespace

// Compiles a tree into a CompiledExpression (the friend declared in the header).
struct CompiledExpressionBuilder {
  struct Types {
    TypeSet t = kAllTypes;
    TypeSet elem = kAllTypes;  // element types when t includes List (String iterates to String)
  };

  CompiledExpressionBuilder(CompiledExpression& result, std::string_view src, const std::vector<std::string>& names,
                            const std::vector<TypeSet>& types,
                            const std::map<std::string, Value, std::less<>>& consts)
      : out(result), source(src), slot_names(names), slot_types(types), constants(consts) {}

  CompiledExpression& out;
  std::string_view source;
  const std::vector<std::string>& slot_names;
  const std::vector<TypeSet>& slot_types;
  const std::map<std::string, Value, std::less<>>& constants;
  struct Local {
    std::string name;
    std::uint16_t index;
    TypeSet types;
  };
  std::vector<Local> locals;  // comprehension variables in scope, innermost last
  std::size_t depth = 0;
  int unreachable = 0;  // > 0 while compiling a part that constants make unreachable (`False and ...`)

  // The value of a subtree that has no parameters in it, or nullopt (it has, or evaluating it raises).
  std::optional<Value> constant_value(const Node& n) const {
    std::vector<std::string> bound;
    if (n.kind == NodeKind::Constant) return n.value;
    if (!closed(n, bound)) return std::nullopt;
    try {
      return evaluate(
          n,
          [this](std::string_view name) -> const Value* {
            const auto it = constants.find(name);
            return it == constants.end() ? nullptr : &it->second;
          },
          source);
    } catch (const EvalError&) {
      return std::nullopt;
    }
  }

  // Compiles `n`, as unreachable when `skip` (a constant decided it is never evaluated).
  Types compile_maybe_skipped(const Node& n, bool skip) {
    unreachable += skip;
    const Types t = compile(n);
    unreachable -= skip;
    return t;
  }

  [[noreturn]] void fail(const std::string& message, int column) const {
    throw ExpressionError(message, std::string(source), column);
  }

  // Column of the operator that follows child `left` (skips blanks and closing parentheses).
  int operator_column(const Node& parent, const Node& left) const {
    std::size_t p = static_cast<std::size_t>(std::max(left.end, 0));
    while (p < source.size() && (source[p] == ' ' || source[p] == '\t' || source[p] == ')' || source[p] == '\n'))
      ++p;
    if (p >= source.size() || static_cast<int>(p) >= parent.end) return parent.begin;
    return static_cast<int>(p);
  }

  void emit(Op op, std::uint32_t arg = 0, std::uint32_t arg2 = 0) {
    out.code_.push_back({static_cast<std::uint16_t>(op), static_cast<std::uint16_t>(arg), arg2});
  }
  void push(std::size_t n = 1) {
    depth += n;
    out.max_stack_ = std::max(out.max_stack_, depth);
  }
  void pop(std::size_t n = 1) { depth -= n; }
  std::uint32_t here() const { return static_cast<std::uint32_t>(out.code_.size()); }
  void patch(std::uint32_t at) { out.code_[at].arg2 = here(); }

  static TypeSet element_types(const Types& t) {
    TypeSet e = 0;
    if (t.t & bit(ValueType::List)) e |= t.elem;
    if (t.t & bit(ValueType::String)) e |= bit(ValueType::String);
    return e ? e : kAllTypes;
  }

  static Types types_of(const Value& v) {
    Types r{bit(v.type()), 0};
    if (v.is_list()) {
      for (const Value& e : v.as_list()) r.elem |= bit(e.type());
      if (r.elem == 0) r.elem = kAllTypes;
    }
    return r;
  }

  // Whether every name in `n` is a constant (or a loop variable bound inside `n`).
  bool closed(const Node& n, std::vector<std::string>& bound) const {
    switch (n.kind) {
      case NodeKind::Name:
        if (std::find(bound.begin(), bound.end(), n.name) != bound.end()) return true;
        for (const auto& l : locals)
          if (l.name == n.name) return false;
        if (std::find(slot_names.begin(), slot_names.end(), n.name) != slot_names.end()) return false;
        return constants.find(n.name) != constants.end();
      case NodeKind::ListComp: {
        if (!closed(*n.children.at(1), bound)) return false;
        bound.push_back(n.name);
        bool ok = closed(*n.children[0], bound) && (n.children.size() < 3 || closed(*n.children[2], bound));
        bound.pop_back();
        return ok;
      }
      default:
        for (const auto& c : n.children)
          if (!closed(*c, bound)) return false;
        return true;
    }
  }

  void emit_constant(const Value& v) {
    if (v.is_int() && v.as_int() >= std::numeric_limits<std::int32_t>::min() &&
        v.as_int() <= std::numeric_limits<std::int32_t>::max()) {
      emit(kLoadInt, 0, static_cast<std::uint32_t>(static_cast<std::int32_t>(v.as_int())));
    } else {
      out.constants_.push_back(v);
      emit(kLoadConst, 0, static_cast<std::uint32_t>(out.constants_.size() - 1));
    }
    push();
  }

  Types compile(const Node& n) {
    std::optional<std::pair<std::string, int>> raises;  // a constant part raising a TypeError: message, column
    if (n.kind != NodeKind::Constant && n.kind != NodeKind::Name) {
      std::vector<std::string> bound;
      if (closed(n, bound)) {
        try {
          const Value v = evaluate(
              n,
              [this](std::string_view name) -> const Value* {
                const auto it = constants.find(name);
                return it == constants.end() ? nullptr : &it->second;
              },
              source);
          emit_constant(v);
          return types_of(v);
        } catch (const EvalError& e) {
          // Raises whatever the configuration: a mistake in the expression, reported now (issue 19). Where the
          // part can never run (`True or 1 // 0`), it is compiled so the error stays where Python has it.
          if (!unreachable) {
            const int column = e.column() >= 0 ? e.column() : n.error_column();
            if (e.kind() != EvalErrorKind::Type) fail("always raises " + std::string(e.what()), column);
            raises.emplace("always raises " + std::string(e.what()), column);
          }
        }
      }
    }
    // For a TypeError the type checker's own message, where it has one ("type mismatch: ..."), comes first.
    const Types types = compile_node(n);
    if (raises) fail(raises->first, raises->second);
    return types;
  }

  Types compile_node(const Node& n) {
    switch (n.kind) {
      case NodeKind::Constant: emit_constant(n.value); return types_of(n.value);
      case NodeKind::Name: return compile_name(n);
      case NodeKind::Unary: return compile_unary(n);
      case NodeKind::Binary: return compile_binary(n);
      case NodeKind::Compare: return compile_compare(n);
      case NodeKind::BoolOp: {
        const Op jump = n.bool_op == BoolOpKind::And ? kJumpIfFalseOrPop : kJumpIfTrueOrPop;
        std::vector<std::uint32_t> exits;
        Types r{0, 0};
        bool decided = false;  // a constant operand short-circuits: the operands after it never run
        for (std::size_t i = 0; i < n.children.size(); ++i) {
          const Types c = compile_maybe_skipped(*n.children[i], decided);
          r.t |= c.t;
          r.elem |= c.elem;
          if (const auto v = constant_value(*n.children[i]))
            decided = decided || (n.bool_op == BoolOpKind::And ? !v->truthy() : v->truthy());
          if (i + 1 < n.children.size()) {
            exits.push_back(here());
            emit(jump);
            pop();
          }
        }
        for (const auto e : exits) patch(e);
        return r;
      }
      case NodeKind::IfExp: {
        compile(*n.children.at(1));
        const auto test = constant_value(*n.children[1]);
        const std::uint32_t to_else = here();
        emit(kPopJumpIfFalse);
        pop();
        const Types body = compile_maybe_skipped(*n.children.at(0), test && !test->truthy());
        const std::uint32_t to_end = here();
        emit(kJump);
        pop();
        patch(to_else);
        const Types orelse = compile_maybe_skipped(*n.children.at(2), test && test->truthy());
        patch(to_end);
        return {body.t | orelse.t, body.elem | orelse.elem};
      }
      case NodeKind::Call: return compile_call(n);
      case NodeKind::List:
      case NodeKind::Tuple: {
        Types r{bit(ValueType::List), 0};
        for (const auto& c : n.children) r.elem |= compile(*c).t;
        if (r.elem == 0) r.elem = kAllTypes;
        emit(kBuildList, 0, static_cast<std::uint32_t>(n.children.size()));
        pop(n.children.size());
        push();
        return r;
      }
      case NodeKind::ListComp: return compile_listcomp(n);
    }
    fail("unsupported expression", n.begin);
  }

  Types compile_name(const Node& n) {
    for (auto it = locals.rbegin(); it != locals.rend(); ++it) {
      if (it->name == n.name) {
        emit(kLoadLocal, it->index);
        push();
        return {it->types, kAllTypes};
      }
    }
    const auto slot = std::find(slot_names.begin(), slot_names.end(), n.name);
    if (slot != slot_names.end()) {
      const auto index = static_cast<std::size_t>(slot - slot_names.begin());
      if (index > std::numeric_limits<std::uint16_t>::max()) fail("too many parameters", n.begin);
      emit(kLoadSlot, static_cast<std::uint32_t>(index));
      push();
      const TypeSet t = index < slot_types.size() && slot_types[index] ? slot_types[index] : kAllTypes;
      return {t, kAllTypes};
    }
    const auto c = constants.find(n.name);
    if (c != constants.end()) {
      emit_constant(c->second);
      return types_of(c->second);
    }
    fail("unknown name '" + n.name + "'", n.begin);
  }

  Types compile_unary(const Node& n) {
    const Types a = compile(*n.children.at(0));
    emit(kUnary, static_cast<std::uint32_t>(n.unary_op));
    if (n.unary_op == UnaryOp::Not) return {bit(ValueType::Bool), 0};
    TypeSet r = 0;
    if (a.t & kIntLike) r |= bit(ValueType::Int);
    if (a.t & bit(ValueType::Float)) r |= bit(ValueType::Float);
    if (!r)
      fail(std::string("type mismatch: bad operand type for unary ") + to_string(n.unary_op) + ": '" +
               type_names(a.t) + "'",
           n.begin);
    return {r, 0};
  }

  // Result types of `a op b` for single types (0: always a TypeError).
  static TypeSet binary_types(BinaryOp op, ValueType a, ValueType b, bool nonneg_exponent) {
    const TypeSet ab = bit(a), bb = bit(b);
    if ((ab & kNumeric) && (bb & kNumeric)) {
      const bool ints = (ab & kIntLike) && (bb & kIntLike);
      if (op == BinaryOp::Div) return bit(ValueType::Float);
      if (op == BinaryOp::Pow && ints)
        return nonneg_exponent ? bit(ValueType::Int) : bit(ValueType::Int) | bit(ValueType::Float);
      return ints ? bit(ValueType::Int) : bit(ValueType::Float);
    }
    if (op == BinaryOp::Add && a == b && (ab & kSequence)) return ab;
    if (op == BinaryOp::Mul) {
      if ((ab & kSequence) && (bb & kIntLike)) return ab;
      if ((bb & kSequence) && (ab & kIntLike)) return bb;
    }
    return 0;
  }

  Types compile_binary(const Node& n) {
    const Node& left = *n.children.at(0);
    const Node& right = *n.children.at(1);
    const std::uint32_t left_start = here();
    const Types a = compile(left);
    const std::uint32_t right_start = here();
    const Types b = compile(right);
    if (!unreachable && (n.binary_op == BinaryOp::Div || n.binary_op == BinaryOp::FloorDiv ||
                         n.binary_op == BinaryOp::Mod)) {
      const auto divisor = constant_value(right);
      if (divisor && divisor->is_numeric() && divisor->to_double() == 0.0)
        fail("always raises ZeroDivisionError: the divisor is 0", n.error_column());
    }
    const bool nonneg = right.kind == NodeKind::Constant && right.value.is_int() && right.value.as_int() >= 0;
    Types r{0, 0};
    for (unsigned ta = 0; ta < 6; ++ta) {
      if (!(a.t & (1u << ta))) continue;
      for (unsigned tb = 0; tb < 6; ++tb) {
        if (!(b.t & (1u << tb))) continue;
        r.t |= binary_types(n.binary_op, static_cast<ValueType>(ta), static_cast<ValueType>(tb), nonneg);
      }
    }
    if (!r.t)
      fail(std::string("unsupported operand types for ") + to_string(n.binary_op) + ": '" + type_names(a.t) +
               "' and '" + type_names(b.t) + "'",
           operator_column(n, left));
    if (r.t & bit(ValueType::List)) r.elem = (a.t & bit(ValueType::List) ? a.elem : 0) |
                                             (b.t & bit(ValueType::List) ? b.elem : 0);
    if (r.elem == 0) r.elem = kAllTypes;
    emit_fused(kBinaryBase + static_cast<unsigned>(n.binary_op) * 9, left_start, right_start);
    return r;
  }

  // Whether code_[at] is the only instruction of an operand and can become an operand mode of the next op.
  int operand_mode(std::uint32_t start, std::uint32_t end) const {
    if (end != start + 1) return kS;
    const auto& in = out.code_[start];
    if (in.op == kLoadSlot) return kV;
    if (in.op == kLoadInt) return kK;
    return kS;
  }

  static bool is_jump(std::uint16_t op) {
    return op == kChainCompare || op == kJumpIfFalseOrPop || op == kJumpIfTrueOrPop || op == kPopJumpIfFalse ||
           op == kJump || op == kForIter;
  }

  // Removes code_[at]; the code after it (one complete operand, whose jumps all stay inside it) moves up.
  void remove_instruction(std::uint32_t at) {
    out.code_.erase(out.code_.begin() + at);
    for (std::size_t i = at; i < out.code_.size(); ++i)
      if (is_jump(out.code_[i].op) && out.code_[i].arg2 > at) --out.code_[i].arg2;
  }

  // Emits the fused form of a binary operation whose operands' code spans [left_start, right_start) and
  // [right_start, here()): an operand that is a single slot load or int immediate becomes an operand mode.
  // (A slot load or immediate cannot fail, so evaluating it after the other operand changes nothing.)
  void emit_fused(unsigned base, std::uint32_t left_start, std::uint32_t right_start) {
    const int mb = operand_mode(right_start, here());
    int ma = operand_mode(left_start, right_start);
    if (ma == kK && mb == kK) ma = kS;  // both immediates (folding failed, e.g. 1 // 0): keep one on the stack
    const CompiledExpression::Instr left_in = ma != kS ? out.code_[left_start] : CompiledExpression::Instr{};
    const CompiledExpression::Instr right_in = mb != kS ? out.code_[right_start] : CompiledExpression::Instr{};
    std::uint32_t arg = 0, arg2 = 0;
    if (ma == kV) arg = left_in.arg;
    if (ma == kK) arg2 = left_in.arg2;
    if (mb == kV) (ma == kK ? arg : arg2) = right_in.arg;
    if (mb == kK) arg2 = right_in.arg2;
    if (mb != kS) {
      out.code_.pop_back();
      pop();
    }
    if (ma != kS) {
      remove_instruction(left_start);
      pop();
    }
    pop((ma == kS ? 1 : 0) + (mb == kS ? 1 : 0));
    emit(static_cast<Op>(base + static_cast<unsigned>(ma) * 3 + static_cast<unsigned>(mb)), arg, arg2);
    push();
  }

  static bool compare_possible(CompareOp op, TypeSet a, TypeSet b) {
    switch (op) {
      case CompareOp::Eq:
      case CompareOp::Ne: return true;
      case CompareOp::In:
      case CompareOp::NotIn:
        return (b & bit(ValueType::List)) || ((b & bit(ValueType::String)) && (a & bit(ValueType::String)));
      default:
        return ((a & kNumeric) && (b & kNumeric)) || ((a & b) & kSequence);
    }
  }

  // A constant list of ints (or bools) on the right of `in`: registered as a sorted set for binary search.
  bool try_int_set(const Node& right, std::uint32_t& index) {
    std::vector<std::string> bound;
    if (!closed(right, bound)) return false;
    Value v;
    try {
      v = evaluate(
          right,
          [this](std::string_view name) -> const Value* {
            const auto it = constants.find(name);
            return it == constants.end() ? nullptr : &it->second;
          },
          source);
    } catch (const EvalError&) {
      return false;
    }
    if (!v.is_list() || v.as_list().empty()) return false;
    std::vector<Int> set;
    for (const Value& e : v.as_list()) {
      if (e.is_int()) set.push_back(e.as_int());
      else if (e.is_bool()) set.push_back(e.as_bool() ? 1 : 0);
      else return false;
    }
    std::sort(set.begin(), set.end());
    set.erase(std::unique(set.begin(), set.end()), set.end());
    out.int_sets_.push_back(std::move(set));
    index = static_cast<std::uint32_t>(out.int_sets_.size() - 1);
    return true;
  }

  Types compile_compare(const Node& n) {
    if (n.children.size() != n.compare_ops.size() + 1 || n.compare_ops.empty()) fail("malformed comparison", n.begin);
    // Single `x in [constant ints]`: a set lookup.
    if (n.compare_ops.size() == 1 && (n.compare_ops[0] == CompareOp::In || n.compare_ops[0] == CompareOp::NotIn)) {
      std::uint32_t set = 0;
      if (try_int_set(*n.children[1], set)) {
        compile(*n.children[0]);
        emit(kInIntSet, n.compare_ops[0] == CompareOp::NotIn ? 1 : 0, set);
        return {bit(ValueType::Bool), 0};
      }
    }
    std::vector<std::uint32_t> exits;
    std::uint32_t left_start = here();
    Types prev = compile(*n.children[0]);
    for (std::size_t i = 0; i < n.compare_ops.size(); ++i) {
      const CompareOp op = n.compare_ops[i];
      const std::uint32_t right_start = here();
      const Types next = compile(*n.children[i + 1]);
      if (!compare_possible(op, prev.t, next.t)) {
        const int column = operator_column(n, *n.children[i]);
        if (op == CompareOp::In || op == CompareOp::NotIn)
          fail(std::string("type mismatch: '") + to_string(op) + "' needs a list, or a str on both sides, not '" +
                   type_names(prev.t) + "' " + to_string(op) + " '" + type_names(next.t) + "'",
               column);
        fail(std::string("type mismatch: '") + to_string(op) + "' not supported between '" + type_names(prev.t) +
                 "' and '" + type_names(next.t) + "'",
             column);
      }
      if (i + 1 < n.compare_ops.size()) {
        exits.push_back(here());
        emit(kChainCompare, static_cast<std::uint32_t>(op));
        pop();  // leaves the right operand (or False on exit)
      } else if (op == CompareOp::In || op == CompareOp::NotIn) {
        emit(kCompare, static_cast<std::uint32_t>(op));
        pop();
      } else {
        // The left operand of a chain's last comparison is left on the stack by kChainCompare.
        emit_fused(kCompareBase + static_cast<unsigned>(op) * 9, i > 0 ? right_start : left_start, right_start);
      }
      prev = next;
    }
    for (const auto e : exits) patch(e);
    return {bit(ValueType::Bool), 0};
  }

  Types compile_call(const Node& n) {
    const auto* name_it = std::find_if(std::begin(kFunctionNames), std::end(kFunctionNames),
                                       [&](const char* f) { return n.name == f; });
    if (name_it == std::end(kFunctionNames)) fail("unknown function '" + n.name + "'", n.begin);
    const auto fn = static_cast<Function>(name_it - std::begin(kFunctionNames));
    const std::size_t argc = n.children.size();
    std::size_t lo = 1, hi = 1;
    switch (fn) {
      case kMin: case kMax: lo = 1; hi = SIZE_MAX; break;
      case kIntF: case kFloatF: case kListF: case kStr: case kBoolF: lo = 0; hi = 1; break;
      case kRound: case kSum: lo = 1; hi = 2; break;
      case kRange: lo = 1; hi = 3; break;
      default: break;
    }
    if (argc < lo || argc > hi) {
      const std::string expected = lo == hi ? std::to_string(lo)
                                   : hi == SIZE_MAX ? "at least " + std::to_string(lo)
                                                    : hi == lo + 1 ? std::to_string(lo) + " or " + std::to_string(hi)
                                                                   : std::to_string(lo) + " to " + std::to_string(hi);
      fail("type mismatch: " + n.name + "() takes " + expected + " argument" + (lo == 1 && (hi == 1 || hi == SIZE_MAX) ? "" : "s") +
               " (" + std::to_string(argc) + " given)",
           n.begin);
    }
    std::vector<Types> args;
    for (const auto& c : n.children) args.push_back(compile(*c));
    auto require = [&](std::size_t i, TypeSet accepted) {
      if (!(args[i].t & accepted))
        fail("type mismatch: " + n.name + "() argument " + std::to_string(i + 1) + " cannot be '" +
                 type_names(args[i].t) + "'",
             n.children[i]->begin);
    };
    Types r{0, 0};
    switch (fn) {
      case kMin:
      case kMax:
        if (argc == 1) {
          require(0, kSequence);
          r.t = element_types(args[0]);
        } else {
          for (const auto& a : args) r.t |= a.t, r.elem |= a.elem;
        }
        break;
      case kAbs:
        require(0, kNumeric);
        r.t = ((args[0].t & kIntLike) ? bit(ValueType::Int) : 0) | (args[0].t & bit(ValueType::Float));
        break;
      case kIntF:
        if (argc) require(0, kNumeric | bit(ValueType::String));
        r.t = bit(ValueType::Int);
        break;
      case kFloatF:
        if (argc) require(0, kNumeric | bit(ValueType::String));
        r.t = bit(ValueType::Float);
        break;
      case kRound:
        require(0, kNumeric);
        if (argc == 2) require(1, kIntLike | bit(ValueType::None));
        if (argc == 1 || args[1].t == bit(ValueType::None)) {
          r.t = bit(ValueType::Int);
        } else {
          r.t = ((args[0].t & kIntLike) ? bit(ValueType::Int) : 0) | (args[0].t & bit(ValueType::Float));
          if (args[1].t & bit(ValueType::None)) r.t |= bit(ValueType::Int);
        }
        break;
      case kLen:
        require(0, kSequence);
        r.t = bit(ValueType::Int);
        break;
      case kRange:
        for (std::size_t i = 0; i < argc; ++i) require(i, kIntLike);
        r = {bit(ValueType::List), bit(ValueType::Int)};
        break;
      case kListF:
        if (argc) require(0, kSequence);
        r = {bit(ValueType::List), argc ? element_types(args[0]) : kAllTypes};
        break;
      case kStr: r.t = bit(ValueType::String); break;
      case kBoolF: r.t = bit(ValueType::Bool); break;
      case kSum: {
        require(0, kSequence);
        TypeSet acc = argc == 2 ? args[1].t : bit(ValueType::Int);
        const TypeSet elem = element_types(args[0]);
        for (int round = 0; round < 3; ++round) {
          TypeSet next = acc;
          for (unsigned ta = 0; ta < 6; ++ta)
            for (unsigned tb = 0; tb < 6; ++tb)
              if ((acc & (1u << ta)) && (elem & (1u << tb)))
                next |= binary_types(BinaryOp::Add, static_cast<ValueType>(ta), static_cast<ValueType>(tb), false);
          acc = next;
        }
        r.t = acc & ~bit(ValueType::String);
        if (!r.t) r.t = kAllTypes;
        break;
      }
    }
    if (r.elem == 0) r.elem = kAllTypes;
    emit(kCall, fn, static_cast<std::uint32_t>(argc));
    pop(argc);
    push();
    return r;
  }

  Types compile_listcomp(const Node& n) {
    const Types iterable = compile(*n.children.at(1));
    if (!(iterable.t & kSequence))
      fail("type mismatch: '" + type_names(iterable.t) + "' object is not iterable", n.children[1]->begin);
    // Over a constant empty sequence, the element and condition never run.
    const auto items = constant_value(*n.children[1]);
    const bool empty = items && ((items->is_list() && items->as_list().empty()) ||
                                 (items->is_string() && items->as_string().empty()));
    unreachable += empty;
    emit(kIterBegin);
    pop();
    const auto local = static_cast<std::uint16_t>(out.num_locals_++);
    locals.push_back({n.name, local, element_types(iterable)});
    const std::uint32_t loop = here();
    emit(kForIter, local);
    std::uint32_t skip = 0;
    const bool has_cond = n.children.size() > 2;
    if (has_cond) {
      compile(*n.children[2]);
      skip = here();
      emit(kPopJumpIfFalse, 0, loop);
      pop();
    }
    const Types element = compile(*n.children[0]);
    emit(kAppend);
    pop();
    emit(kJump, 0, loop);
    patch(loop);
    if (has_cond) out.code_[skip].arg2 = loop;
    unreachable -= empty;
    locals.pop_back();
    emit(kIterEnd);
    push();
    return {bit(ValueType::List), element.t ? element.t : kAllTypes};
  }

  // The interpreter. Returns the result register; non-scalar results point into `frame` or the constants.
  static Reg run(const CompiledExpression& e, const Value* slots, Frame& frame, Reg* stack, Reg* locals) {
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
  static bool fast_call(Function fn, Reg* args, std::size_t argc) {
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
  static auto with_frame(const CompiledExpression& e, const Value* slots, F&& finish) {
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
  // ---- The statically typed numeric fast program ----
  // Registers hold int64 (kinds I and B, bool as 0/1) or double (kind F). Word layout:
  // op (8 bits) | dst (8) | a (8) | b (8) | imm (32).
  enum FastOp : std::uint8_t {
    fLoadI, fLoadF, fLoadB,  // dst = slots[imm], which must hold exactly that type (else bail)
    fMov, fI2F,
    fAddI, fSubI, fMulI, fFloorDivI, fModI, fDivI, fPowI,
    fAddF, fSubF, fMulF, fDivF, fFloorDivF, fModF,
    fNegI, fNegF, fNotI, fNotF, fTruthI, fTruthF,
    fCmpI, fCmpF, fCmpIF, fCmpFI,  // imm: CompareOp
    fInSet,                        // dst = a in int_sets_[imm], negated if b
    fJz, fJnz, fJzF, fJnzF, fJmp,  // on register a; imm: target
    fMinI, fMaxI, fMinF, fMaxF, fAbsI, fAbsF, fF2I, fRoundF,
    fRet,  // a: result register, b: kind
  };
  enum Kind : std::uint8_t { kI, kF, kB };
  struct FastFail {};  // the expression does not qualify
  static constexpr unsigned kMaxFastRegs = 128;

  struct FastInstr {
    FastOp op;
    unsigned dst = 0, a = 0, b = 0;
    std::uint32_t imm = 0;
  };
  std::vector<FastInstr> fcode;
  std::vector<FastInstr> fprologue;  // slot loads, run before fcode
  unsigned fast_regs = 0;
  std::vector<std::pair<std::uint32_t, unsigned>> fast_slot_regs;  // slot -> register

  static std::uint64_t word(const FastInstr& i) {
    return static_cast<std::uint64_t>(i.op) | static_cast<std::uint64_t>(i.dst) << 8 |
           static_cast<std::uint64_t>(i.a) << 16 | static_cast<std::uint64_t>(i.b) << 24 |
           static_cast<std::uint64_t>(i.imm) << 32;
  }
  void fput(FastOp op, unsigned dst, unsigned a = 0, unsigned b = 0, std::uint32_t imm = 0) {
    fcode.push_back({op, dst, a, b, imm});
  }
  std::size_t fhere() const { return fcode.size(); }
  void fpatch(std::size_t at) { fcode[at].imm = static_cast<std::uint32_t>(fcode.size()); }
  unsigned new_reg() {
    if (fast_regs >= kMaxFastRegs) throw FastFail{};
    return fast_regs++;
  }
  unsigned femit(FastOp op, unsigned a = 0, unsigned b = 0, std::uint32_t imm = 0) {
    const unsigned dst = new_reg();
    fput(op, dst, a, b, imm);
    return dst;
  }
  struct FastResult {
    unsigned reg;
    Kind kind;
  };

  FastResult fast_constant(const Value& v) {
    std::uint64_t bits = 0;
    Kind kind;
    if (v.is_int() || v.is_bool()) {
      const Int i = v.is_bool() ? (v.as_bool() ? 1 : 0) : v.as_int();
      std::memcpy(&bits, &i, sizeof bits);
      kind = v.is_bool() ? kB : kI;
    } else if (v.is_float()) {
      const double d = v.as_float();
      std::memcpy(&bits, &d, sizeof bits);
      kind = kF;
    } else {
      throw FastFail{};
    }
    // Constants are copied into the registers before the program runs, so they must come first: they are
    // numbered separately and shifted once the program is complete.
    out.fast_consts_.push_back(bits);
    return {kConstFlag | static_cast<unsigned>(out.fast_consts_.size() - 1), kind};
  }
  static constexpr unsigned kConstFlag = 0x1000;

  FastResult fast_to_float(FastResult r) {
    if (r.kind == kF) return r;
    return {femit(fI2F, r.reg), kF};
  }

  FastResult fast(const Node& n) {
    switch (n.kind) {
      case NodeKind::Constant: return fast_constant(n.value);
      case NodeKind::Name: {
        if (!locals.empty()) throw FastFail{};
        const auto slot = std::find(slot_names.begin(), slot_names.end(), n.name);
        if (slot == slot_names.end()) {
          const auto c = constants.find(n.name);
          if (c == constants.end()) throw FastFail{};
          return fast_constant(c->second);
        }
        const auto index = static_cast<std::uint32_t>(slot - slot_names.begin());
        const TypeSet t = index < slot_types.size() ? slot_types[index] : 0;
        Kind kind;
        FastOp op;
        if (t == bit(ValueType::Int)) kind = kI, op = fLoadI;
        else if (t == bit(ValueType::Float)) kind = kF, op = fLoadF;
        else if (t == bit(ValueType::Bool)) kind = kB, op = fLoadB;
        else throw FastFail{};
        for (const auto& [s, r] : fast_slot_regs)
          if (s == index) return {r, kind};
        // Loaded once in a prologue (a first use may sit in a branch that is skipped).
        const unsigned r = new_reg();
        fast_slot_regs.emplace_back(index, r);
        fprologue.push_back({op, r, 0, 0, index});
        return {r, kind};
      }
      case NodeKind::Unary: {
        const FastResult a = fast(*n.children.at(0));
        switch (n.unary_op) {
          case UnaryOp::Not: return {femit(a.kind == kF ? fNotF : fNotI, a.reg), kB};
          case UnaryOp::Neg: return a.kind == kF ? FastResult{femit(fNegF, a.reg), kF} : FastResult{femit(fNegI, a.reg), kI};
          case UnaryOp::Pos: return a.kind == kF ? a : FastResult{femit(fMov, a.reg), kI};
        }
        throw FastFail{};
      }
      case NodeKind::Binary: {
        const Node& right_node = *n.children.at(1);
        FastResult a = fast(*n.children.at(0));
        FastResult b = fast(right_node);
        const BinaryOp op = n.binary_op;
        if (a.kind != kF && b.kind != kF) {
          switch (op) {
            case BinaryOp::Add: return {femit(fAddI, a.reg, b.reg), kI};
            case BinaryOp::Sub: return {femit(fSubI, a.reg, b.reg), kI};
            case BinaryOp::Mul: return {femit(fMulI, a.reg, b.reg), kI};
            case BinaryOp::FloorDiv: return {femit(fFloorDivI, a.reg, b.reg), kI};
            case BinaryOp::Mod: return {femit(fModI, a.reg, b.reg), kI};
            case BinaryOp::Div: return {femit(fDivI, a.reg, b.reg), kF};
            case BinaryOp::Pow:
              // int ** int is an int only for a non-negative exponent: require a constant one.
              if (right_node.kind == NodeKind::Constant && right_node.value.is_int() && right_node.value.as_int() >= 0)
                return {femit(fPowI, a.reg, b.reg), kI};
              throw FastFail{};
          }
        }
        if (op == BinaryOp::Pow) throw FastFail{};
        a = fast_to_float(a);
        b = fast_to_float(b);
        switch (op) {
          case BinaryOp::Add: return {femit(fAddF, a.reg, b.reg), kF};
          case BinaryOp::Sub: return {femit(fSubF, a.reg, b.reg), kF};
          case BinaryOp::Mul: return {femit(fMulF, a.reg, b.reg), kF};
          case BinaryOp::Div: return {femit(fDivF, a.reg, b.reg), kF};
          case BinaryOp::FloorDiv: return {femit(fFloorDivF, a.reg, b.reg), kF};
          case BinaryOp::Mod: return {femit(fModF, a.reg, b.reg), kF};
          default: throw FastFail{};
        }
      }
      case NodeKind::Compare: {
        if (n.children.size() != n.compare_ops.size() + 1) throw FastFail{};
        const unsigned dst = new_reg();
        std::vector<std::size_t> exits;
        FastResult left = fast(*n.children[0]);
        for (std::size_t i = 0; i < n.compare_ops.size(); ++i) {
          const CompareOp op = n.compare_ops[i];
          FastResult right{0, kI};
          if (op == CompareOp::In || op == CompareOp::NotIn) {
            std::uint32_t set = 0;
            if (left.kind == kF || !try_int_set(*n.children[i + 1], set)) throw FastFail{};
            fput(fInSet, dst, left.reg, op == CompareOp::NotIn ? 1 : 0, set);
          } else {
            right = fast(*n.children[i + 1]);
            const auto imm = static_cast<std::uint32_t>(op);
            if (left.kind != kF && right.kind != kF) fput(fCmpI, dst, left.reg, right.reg, imm);
            else if (left.kind == kF && right.kind == kF) fput(fCmpF, dst, left.reg, right.reg, imm);
            else if (left.kind == kF) fput(fCmpFI, dst, left.reg, right.reg, imm);
            else fput(fCmpIF, dst, left.reg, right.reg, imm);
          }
          if (i + 1 < n.compare_ops.size()) {
            exits.push_back(fhere());
            fput(fJz, 0, dst);
          }
          left = right;
        }
        for (const auto e : exits) fpatch(e);
        return {dst, kB};
      }
      case NodeKind::BoolOp: {
        const unsigned dst = new_reg();
        std::vector<std::size_t> exits;
        Kind kind = kB;
        for (std::size_t i = 0; i < n.children.size(); ++i) {
          const FastResult r = fast(*n.children[i]);
          if (i == 0) kind = r.kind;
          else if (r.kind != kind) throw FastFail{};  // the result type would depend on the values
          fput(fMov, dst, r.reg);
          if (i + 1 < n.children.size()) {
            exits.push_back(fhere());
            const bool is_and = n.bool_op == BoolOpKind::And;
            fput(kind == kF ? (is_and ? fJzF : fJnzF) : (is_and ? fJz : fJnz), 0, dst);
          }
        }
        for (const auto e : exits) fpatch(e);
        return {dst, kind};
      }
      case NodeKind::IfExp: {
        const unsigned dst = new_reg();
        const FastResult test = fast(*n.children.at(1));
        const std::size_t to_else = fhere();
        fput(test.kind == kF ? fJzF : fJz, 0, test.reg);
        const FastResult body = fast(*n.children.at(0));
        fput(fMov, dst, body.reg);
        const std::size_t to_end = fhere();
        fput(fJmp, 0);
        fpatch(to_else);
        const FastResult orelse = fast(*n.children.at(2));
        if (orelse.kind != body.kind) throw FastFail{};
        fput(fMov, dst, orelse.reg);
        fpatch(to_end);
        return {dst, body.kind};
      }
      case NodeKind::Call: {
        const std::string& f = n.name;
        std::vector<FastResult> args;
        for (const auto& c : n.children) args.push_back(fast(*c));
        if ((f == "min" || f == "max") && args.size() >= 2) {
          FastResult acc = args[0];
          for (const auto& a : args)
            if (a.kind != acc.kind) throw FastFail{};
          const bool is_max = f == "max";
          for (std::size_t i = 1; i < args.size(); ++i)
            acc = {femit(acc.kind == kF ? (is_max ? fMaxF : fMinF) : (is_max ? fMaxI : fMinI), acc.reg, args[i].reg),
                   acc.kind};
          return acc;
        }
        if (args.size() != 1) throw FastFail{};
        const FastResult a = args[0];
        if (f == "abs") return a.kind == kF ? FastResult{femit(fAbsF, a.reg), kF} : FastResult{femit(fAbsI, a.reg), kI};
        if (f == "int") return a.kind == kF ? FastResult{femit(fF2I, a.reg), kI} : FastResult{femit(fMov, a.reg), kI};
        if (f == "float") return a.kind == kF ? a : FastResult{femit(fI2F, a.reg), kF};
        if (f == "round") return a.kind == kF ? FastResult{femit(fRoundF, a.reg), kI} : FastResult{femit(fMov, a.reg), kI};
        if (f == "bool") return {femit(a.kind == kF ? fTruthF : fTruthI, a.reg), kB};
        throw FastFail{};
      }
      default: throw FastFail{};
    }
  }

  static bool a_is_reg(FastOp op) { return !(op == fLoadI || op == fLoadF || op == fLoadB || op == fJmp); }
  static bool b_is_reg(FastOp op) {
    return (op >= fAddI && op <= fModF) || (op >= fCmpI && op <= fCmpFI) || (op >= fMinI && op <= fMaxF);
  }
  static bool dst_is_reg(FastOp op) { return !(op >= fJz && op <= fJmp) && op != fRet; }

  // Builds fast_code_ for `root`, or leaves it empty when the expression does not qualify.
  void compile_fast(const Node& root) {
    try {
      const FastResult r = fast(root);
      fput(fRet, 0, r.reg, r.kind);
      // Renumber: constants take registers [0, nc), the others follow.
      const auto nc = static_cast<unsigned>(out.fast_consts_.size());
      if (fast_regs + nc > kMaxFastRegs) throw FastFail{};
      auto map = [&](unsigned reg) { return (reg & kConstFlag) ? reg & ~kConstFlag : reg + nc; };
      const auto shift = static_cast<std::uint32_t>(fprologue.size());
      for (FastInstr& i : fcode)
        if (i.op >= fJz && i.op <= fJmp) i.imm += shift;
      fcode.insert(fcode.begin(), fprologue.begin(), fprologue.end());
      for (FastInstr& i : fcode) {
        if (dst_is_reg(i.op)) i.dst = map(i.dst);
        if (a_is_reg(i.op)) i.a = map(i.a);
        if (b_is_reg(i.op)) i.b = map(i.b);
        out.fast_code_.push_back(word(i));
      }
    } catch (const FastFail&) {
      out.fast_code_.clear();
      out.fast_consts_.clear();
    }
  }

  union FastReg {
    Int i;
    double d;
  };

  // Runs fast_code_. False: bail out (unexpected slot type, or an operation that fails or needs the general
  // semantics); the general program then gives the result or raises the error.
  static bool run_fast(const CompiledExpression& e, const Value* slots, FastReg& result, Kind& kind) {
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
};

CompiledExpression CompiledExpression::compile(const Node& root, std::string_view source,
                                               const std::vector<std::string>& slot_names,
                                               const std::vector<TypeSet>& slot_types,
                                               const std::map<std::string, Value, std::less<>>& constants) {
  CompiledExpression result;
  CompiledExpressionBuilder builder(result, source, slot_names, slot_types, constants);
  const auto types = builder.compile(root);
  result.result_types_ = types.t;
  builder.compile_fast(root);
  if (result.code_.size() > std::numeric_limits<std::uint32_t>::max() / 2) builder.fail("expression too large", 0);
  return result;
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

namespace ktune::expr {

std::string CompiledExpression::disassemble() const {
  static constexpr const char* names[] = {"load_slot", "load_const", "load_int", "load_local", "unary", "compare",
                                          "chain_compare", "in_int_set", "jump_if_false_or_pop",
                                          "jump_if_true_or_pop", "pop_jump_if_false", "jump", "call", "build_list",
                                          "iter_begin", "for_iter", "append", "iter_end"};
  static constexpr const char* modes[] = {"stack", "slot", "int"};
  std::string out;
  for (std::size_t pc = 0; pc < code_.size(); ++pc) {
    const Instr& in = code_[pc];
    std::string line = std::to_string(pc) + ": ";
    if (in.op >= kBinaryBase && in.op < kCompareBase) {
      const unsigned k = in.op - kBinaryBase;
      line += std::string("binary ") + to_string(static_cast<BinaryOp>(k / 9)) + " " + modes[(k % 9) / 3] + "," +
              modes[k % 3];
    } else if (in.op >= kCompareBase && in.op < kOpcodeEnd) {
      const unsigned k = in.op - kCompareBase;
      line += std::string("compare ") + to_string(static_cast<CompareOp>(k / 9)) + " " + modes[(k % 9) / 3] + "," +
              modes[k % 3];
    } else if (in.op < std::size(names)) {
      line += names[in.op];
    } else {
      line += "op" + std::to_string(in.op);
    }
    out += line + " " + std::to_string(in.arg) + " " + std::to_string(static_cast<std::int32_t>(in.arg2)) + "\n";
  }
  return out;
}

}  // namespace ktune::expr
