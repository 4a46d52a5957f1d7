#pragma once
// Internal to src/expr. CompiledExpression: an expression flattened to post-order bytecode over a small register
// stack. This header holds what its parts share: the opcodes, the registers, the fast program's encoding, and the
// declaration of CompiledExpressionBuilder, the friend of CompiledExpression that compiles and runs it. The members
// are defined by concern: expression_compiler.cpp (the bytecode compiler), fast_program.cpp (the compiler of the
// statically typed numeric fast program), expression_vm.cpp (both interpreters: the evaluation path).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ktune/expr/evaluator.hpp"

namespace ktune::expr {

// Names shared by the files of the expression compiler and VM (not part of the public API).
namespace detail {

using Int = std::int64_t;

inline constexpr TypeSet kAllTypes = type_bit(ValueType::None) | type_bit(ValueType::Bool) |
                                     type_bit(ValueType::Int) | type_bit(ValueType::Float) |
                                     type_bit(ValueType::String) | type_bit(ValueType::List);
inline constexpr TypeSet kIntLike = type_bit(ValueType::Bool) | type_bit(ValueType::Int);
inline constexpr TypeSet kNumeric = kIntLike | type_bit(ValueType::Float);
inline constexpr TypeSet kSequence = type_bit(ValueType::String) | type_bit(ValueType::List);

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
inline constexpr const char* kFunctionNames[] = {"min", "max", "abs", "int", "float", "round",
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

}  // namespace detail

// Compiles a tree into a CompiledExpression, and runs it (the friend declared in ktune/expr/evaluator.hpp).
struct CompiledExpressionBuilder {
  struct Types {
    TypeSet t = detail::kAllTypes;
    TypeSet elem = detail::kAllTypes;  // element types when t includes List (String iterates to String)
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

  // ---- The bytecode compiler (expression_compiler.cpp) ----
  std::optional<Value> constant_value(const Node& n) const;
  Types compile_maybe_skipped(const Node& n, bool skip);

  [[noreturn]] void fail(const std::string& message, int column) const {
    throw ExpressionError(message, std::string(source), column);
  }
  int operator_column(const Node& parent, const Node& left) const;

  void emit(detail::Op op, std::uint32_t arg = 0, std::uint32_t arg2 = 0) {
    out.code_.push_back({static_cast<std::uint16_t>(op), static_cast<std::uint16_t>(arg), arg2});
  }
  void push(std::size_t n = 1) {
    depth += n;
    out.max_stack_ = std::max(out.max_stack_, depth);
  }
  void pop(std::size_t n = 1) { depth -= n; }
  std::uint32_t here() const { return static_cast<std::uint32_t>(out.code_.size()); }
  void patch(std::uint32_t at) { out.code_[at].arg2 = here(); }

  static TypeSet element_types(const Types& t);
  static Types types_of(const Value& v);
  bool closed(const Node& n, std::vector<std::string>& bound) const;
  void emit_constant(const Value& v);
  Types compile(const Node& n);
  Types compile_node(const Node& n);
  Types compile_name(const Node& n);
  Types compile_unary(const Node& n);
  static TypeSet binary_types(BinaryOp op, ValueType a, ValueType b, bool nonneg_exponent);
  Types compile_binary(const Node& n);
  int operand_mode(std::uint32_t start, std::uint32_t end) const;
  static bool is_jump(std::uint16_t op);
  void remove_instruction(std::uint32_t at);
  void emit_fused(unsigned base, std::uint32_t left_start, std::uint32_t right_start);
  static bool compare_possible(CompareOp op, TypeSet a, TypeSet b);
  bool try_int_set(const Node& right, std::uint32_t& index);
  Types compile_compare(const Node& n);
  Types compile_call(const Node& n);
  Types compile_listcomp(const Node& n);

  // ---- The VM (expression_vm.cpp, which alone defines and calls them) ----
  // fast_call, with_frame and run_fast are declared inline, as they were when defined in the class, so that the
  // inliner treats them as before. run is not: it is too large to inline anyway, and as a COMDAT function it would
  // take the helpers that only it calls into its group and lose their hot/cold splitting.
  static detail::Reg run(const CompiledExpression& e, const Value* slots, detail::Frame& frame, detail::Reg* stack,
                         detail::Reg* locals);
  static inline bool fast_call(detail::Function fn, detail::Reg* args, std::size_t argc);
  template <class F>
  static inline auto with_frame(const CompiledExpression& e, const Value* slots, F&& finish);

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

  // Compiler of the fast program (fast_program.cpp).
  FastResult fast_constant(const Value& v);
  static constexpr unsigned kConstFlag = 0x1000;  // marks a constant's register number until compile_fast shifts it
  FastResult fast_to_float(FastResult r);
  FastResult fast(const Node& n);
  static bool a_is_reg(FastOp op);
  static bool b_is_reg(FastOp op);
  static bool dst_is_reg(FastOp op);
  void compile_fast(const Node& root);

  union FastReg {
    detail::Int i;
    double d;
  };

  // The fast program's interpreter (expression_vm.cpp).
  static inline bool run_fast(const CompiledExpression& e, const Value* slots, FastReg& result, Kind& kind);
};

}  // namespace ktune::expr
