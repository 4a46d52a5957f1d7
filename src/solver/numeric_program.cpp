#include "solver/numeric_program.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ktune/expr/evaluator.hpp"

namespace ktune::solver {

using expr::BinaryOp;
using expr::BoolOpKind;
using expr::CompareOp;
using expr::Node;
using expr::NodeKind;
using expr::UnaryOp;
using Op = NumericProgram::Op;
using Instr = NumericProgram::Instr;

class NumericCompiler {
 public:
  NumericCompiler(NumericProgram& prog, const std::function<int(std::string_view)>& slot_of)
      : prog_(prog), slot_of_(slot_of) {}

  bool emit_point(const Node& n) { return emit(n, prog_.code_, /*interval=*/false); }
  bool emit_interval(const Node& n) { return emit(n, prog_.interval_code_, /*interval=*/true); }
  bool saw_comparison_with_var = false;

 private:
  static bool numeric_constant(const Value& v) { return v.is_numeric(); }

  void push(std::vector<Instr>& code, Op op, std::uint32_t arg = 0, double value = 0, std::uint32_t arg2 = 0) {
    code.push_back(Instr{op, arg, arg2, value});
  }

  bool emit(const Node& n, std::vector<Instr>& code, bool interval) {
    switch (n.kind) {
      case NodeKind::Constant:
        if (!numeric_constant(n.value) || !(std::fabs(n.value.to_double()) <= NumericProgram::kExactLimit)) return false;
        push(code, Op::Const, 0, n.value.to_double());
        return true;
      case NodeKind::Name: {
        const int slot = slot_of_(n.name);
        if (slot < 0) return false;
        push(code, Op::Var, static_cast<std::uint32_t>(slot));
        return true;
      }
      case NodeKind::Unary: {
        if (!emit(*n.children[0], code, interval)) return false;
        push(code, n.unary_op == UnaryOp::Neg ? Op::Neg : n.unary_op == UnaryOp::Pos ? Op::Pos : Op::Not);
        return true;
      }
      case NodeKind::Binary: {
        if (!emit(*n.children[0], code, interval) || !emit(*n.children[1], code, interval)) return false;
        static constexpr Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::FloorDiv, Op::Mod, Op::Pow};
        push(code, ops[static_cast<int>(n.binary_op)]);
        return true;
      }
      case NodeKind::Compare: return emit_compare(n, code, interval);
      case NodeKind::BoolOp: {
        if (interval) {
          if (!emit(*n.children[0], code, interval)) return false;
          for (std::size_t i = 1; i < n.children.size(); ++i) {
            if (!emit(*n.children[i], code, interval)) return false;
            push(code, n.bool_op == BoolOpKind::And ? Op::And : Op::Or);
          }
          return true;
        }
        std::vector<std::size_t> patches;
        for (std::size_t i = 0; i < n.children.size(); ++i) {
          if (!emit(*n.children[i], code, interval)) return false;
          if (i + 1 < n.children.size()) {
            patches.push_back(code.size());
            push(code, n.bool_op == BoolOpKind::And ? Op::JumpIfFalsyKeep : Op::JumpIfTruthyKeep);
          }
        }
        for (auto p : patches) code[p].arg = static_cast<std::uint32_t>(code.size());
        return true;
      }
      case NodeKind::IfExp: {  // children: body, test, orelse
        if (interval) {
          if (!emit(*n.children[1], code, interval) || !emit(*n.children[0], code, interval) ||
              !emit(*n.children[2], code, interval))
            return false;
          push(code, Op::IfElse);
          return true;
        }
        if (!emit(*n.children[1], code, interval)) return false;
        const std::size_t jf = code.size();
        push(code, Op::JumpIfFalsyPop);
        if (!emit(*n.children[0], code, interval)) return false;
        const std::size_t je = code.size();
        push(code, Op::Jump);
        code[jf].arg = static_cast<std::uint32_t>(code.size());
        if (!emit(*n.children[2], code, interval)) return false;
        code[je].arg = static_cast<std::uint32_t>(code.size());
        return true;
      }
      case NodeKind::Call: {
        const std::string& f = n.name;
        const std::size_t argc = n.children.size();
        Op op;
        if (f == "min" && argc >= 2) op = Op::Min;
        else if (f == "max" && argc >= 2) op = Op::Max;
        else if (f == "abs" && argc == 1) op = Op::Abs;
        else if (f == "int" && argc == 1) op = Op::Int;
        else if (f == "float" && argc == 1) op = Op::Float;
        else if (f == "round" && argc == 1) op = Op::Round;
        else return false;
        for (const auto& c : n.children)
          if (!emit(*c, code, interval)) return false;
        push(code, op, static_cast<std::uint32_t>(argc));
        return true;
      }
      default: return false;
    }
  }

  // A chain a op1 b op2 c is (a op1 b) and (b op2 c): the middle operand is pure, so evaluating it twice is safe.
  bool emit_compare(const Node& n, std::vector<Instr>& code, bool interval) {
    std::vector<std::size_t> patches;
    const std::size_t links = n.compare_ops.size();
    for (std::size_t i = 0; i < links; ++i) {
      const CompareOp cop = n.compare_ops[i];
      if (!emit(*n.children[i], code, interval)) return false;
      if (cop == CompareOp::In || cop == CompareOp::NotIn) {
        const Node& rhs = *n.children[i + 1];
        std::vector<double> items;
        if (rhs.kind == NodeKind::List || rhs.kind == NodeKind::Tuple) {
          for (const auto& c : rhs.children) {
            if (c->kind != NodeKind::Constant || !c->value.is_numeric()) return false;
            if (!(std::fabs(c->value.to_double()) <= NumericProgram::kExactLimit)) return false;
            items.push_back(c->value.to_double());
          }
        } else if (rhs.kind == NodeKind::Constant && rhs.value.is_list()) {
          for (const auto& v : rhs.value.as_list()) {
            if (!v.is_numeric() || !(std::fabs(v.to_double()) <= NumericProgram::kExactLimit)) return false;
            items.push_back(v.to_double());
          }
        } else {
          return false;
        }
        const auto offset = static_cast<std::uint32_t>(prog_.lists_.size());
        prog_.lists_.insert(prog_.lists_.end(), items.begin(), items.end());
        push(code, cop == CompareOp::In ? Op::InList : Op::NotInList, offset, 0, static_cast<std::uint32_t>(items.size()));
      } else {
        if (!emit(*n.children[i + 1], code, interval)) return false;
        static constexpr Op ops[] = {Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge};
        push(code, ops[static_cast<int>(cop)]);
      }
      saw_comparison_with_var = true;
      if (interval) {
        if (i > 0) push(code, Op::And);  // eager: each link after the first is and-ed with the previous ones
      } else if (i + 1 < links) {
        patches.push_back(code.size());
        push(code, Op::JumpIfFalsyKeep);
      }
    }
    for (auto p : patches) code[p].arg = static_cast<std::uint32_t>(code.size());
    return true;
  }

  NumericProgram& prog_;
  const std::function<int(std::string_view)>& slot_of_;
};

namespace {
std::size_t stack_depth(const std::vector<Instr>& code) {
  // Upper bound: every push can stay on the stack.
  std::size_t pushes = 0;
  for (const auto& in : code)
    if (in.op == Op::Const || in.op == Op::Var) ++pushes;
  return pushes + 1;
}
}  // namespace

const char* const NumericProgram::kInexact = "a value beyond 2^53: evaluate exactly";

std::optional<NumericProgram> NumericProgram::compile(const Node& root,
                                                      const std::function<int(std::string_view)>& slot_of) {
  NumericProgram prog;
  NumericCompiler point_compiler(prog, slot_of);
  if (!point_compiler.emit_point(root)) return std::nullopt;
  NumericCompiler interval_compiler(prog, slot_of);
  if (!interval_compiler.emit_interval(root)) return std::nullopt;
  prog.max_stack_ = std::max(stack_depth(prog.code_), stack_depth(prog.interval_code_));
  // Bounds pruning pays off for comparisons over + - * / min max; % // and `in` rarely prove anything.
  bool monotone = true;
  for (const auto& in : prog.interval_code_)
    if (in.op == Op::Mod || in.op == Op::FloorDiv || in.op == Op::InList || in.op == Op::NotInList) monotone = false;
  prog.interval_useful_ = interval_compiler.saw_comparison_with_var && monotone;
  return prog;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool python_pow(double a, double b, double& out, const char*& err) {
  if (a == 0.0 && b < 0) { err = "ZeroDivisionError: 0 cannot be raised to a negative power"; return false; }
  if (a < 0 && std::isfinite(b) && b != std::floor(b)) {
    err = "ValueError: negative number raised to a fractional power (complex result)";
    return false;
  }
  out = std::pow(a, b);
  if (std::isinf(out) && std::isfinite(a) && std::isfinite(b)) { err = "OverflowError: result too large"; return false; }
  return true;
}

bool binary_point(Op op, double a, double b, double& out, const char*& err) {
  switch (op) {
    case Op::Add: out = a + b; return true;
    case Op::Sub: out = a - b; return true;
    case Op::Mul: out = a * b; return true;
    case Op::Div:
      if (b == 0.0) { err = "ZeroDivisionError: division by zero"; return false; }
      out = a / b;
      return true;
    case Op::FloorDiv:
      if (b == 0.0) { err = "ZeroDivisionError: integer division or modulo by zero"; return false; }
      out = expr::ops::floordiv(a, b);
      return true;
    case Op::Mod:
      if (b == 0.0) { err = "ZeroDivisionError: integer division or modulo by zero"; return false; }
      out = expr::ops::mod(a, b);
      return true;
    case Op::Pow: return python_pow(a, b, out, err);
    case Op::Eq: out = a == b; return true;
    case Op::Ne: out = a != b; return true;
    case Op::Lt: out = a < b; return true;
    case Op::Le: out = a <= b; return true;
    case Op::Gt: out = a > b; return true;
    case Op::Ge: out = a >= b; return true;
    default: return false;
  }
}

bool unary_call_point(Op op, double a, double& out, const char*& err) {
  switch (op) {
    case Op::Neg: out = -a; return true;
    case Op::Pos: out = a; return true;
    case Op::Not: out = a == 0.0 ? 1.0 : 0.0; return true;
    case Op::Abs: out = std::fabs(a); return true;
    case Op::Float: out = a; return true;
    case Op::Int:
      if (!std::isfinite(a)) { err = "ValueError: cannot convert float infinity or NaN to integer"; return false; }
      out = std::trunc(a);
      return true;
    case Op::Round:
      if (!std::isfinite(a)) { err = "ValueError: cannot round float infinity or NaN"; return false; }
      out = expr::ops::round_half_even(a);
      return true;
    default: return false;
  }
}

}  // namespace

bool NumericProgram::evaluate(const double* vars, double& result, const char*& error) const {
  double stack_buf[64];
  std::vector<double> heap;
  double* st = stack_buf;
  if (max_stack_ > 64) {
    heap.resize(max_stack_);
    st = heap.data();
  }
  std::size_t sp = 0;
  const std::size_t n = code_.size();
  for (std::size_t pc = 0; pc < n; ++pc) {
    const Instr& in = code_[pc];
    switch (in.op) {
      case Op::Const: st[sp++] = in.value; break;
      case Op::Var: st[sp++] = vars[in.arg]; break;
      case Op::Neg: case Op::Pos: case Op::Not: case Op::Abs: case Op::Float: case Op::Int: case Op::Round:
        if (!unary_call_point(in.op, st[sp - 1], st[sp - 1], error)) return false;  // none of these grows |x|
        break;
      case Op::Min: case Op::Max: {
        const std::size_t argc = in.arg;
        double best = st[sp - argc];
        for (std::size_t i = sp - argc + 1; i < sp; ++i) {
          // Python keeps the first of equal items; numerically the same value.
          if (in.op == Op::Min ? st[i] < best : st[i] > best) best = st[i];
        }
        sp -= argc;
        st[sp++] = best;
        break;
      }
      case Op::InList: case Op::NotInList: {
        const double x = st[sp - 1];
        bool found = false;
        for (std::uint32_t i = 0; i < in.arg2; ++i)
          if (lists_[in.arg + i] == x) { found = true; break; }
        st[sp - 1] = (found == (in.op == Op::InList)) ? 1.0 : 0.0;
        break;
      }
      case Op::JumpIfFalsyKeep:
        if (st[sp - 1] == 0.0) pc = in.arg - 1; else --sp;
        break;
      case Op::JumpIfTruthyKeep:
        if (st[sp - 1] != 0.0) pc = in.arg - 1; else --sp;
        break;
      case Op::JumpIfFalsyPop:
        --sp;
        if (st[sp] == 0.0) pc = in.arg - 1;
        break;
      case Op::Jump: pc = in.arg - 1; break;
      default: {
        const double b = st[--sp];
        if (!binary_point(in.op, st[sp - 1], b, st[sp - 1], error)) return false;
        if (!(std::fabs(st[sp - 1]) <= kExactLimit)) {
          error = kInexact;
          return false;
        }
        break;
      }
    }
  }
  result = st[sp - 1];
  return true;
}

namespace {

Interval unknown() { return {-kInf, kInf}; }
Interval point(double x) { return {x, x}; }
bool is_point(const Interval& a) { return a.lo == a.hi; }
Interval sanitize(Interval r) {
  if (std::isnan(r.lo) || std::isnan(r.hi)) return unknown();
  return r;
}
// Truthiness: 0 = certainly falsy, 1 = certainly truthy, 2 = unknown.
int truth(const Interval& a) {
  if (std::isnan(a.lo) || std::isnan(a.hi)) return 2;
  if (a.lo == 0.0 && a.hi == 0.0) return 0;
  if (a.lo > 0.0 || a.hi < 0.0) return 1;
  return 2;
}
Interval hull(const Interval& a, const Interval& b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
const Interval kFalse{0, 0}, kTrue{1, 1}, kMaybe{0, 1};

Interval mul(const Interval& a, const Interval& b) {
  const double c[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  for (double x : c)
    if (std::isnan(x)) return unknown();
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

Interval binary_interval(Op op, const Interval& a, const Interval& b) {
  if (is_point(a) && is_point(b)) {
    double out;
    const char* err = nullptr;
    if (!binary_point(op, a.lo, b.lo, out, err)) return unknown();
    return sanitize(point(out));
  }
  switch (op) {
    case Op::Add: return sanitize({a.lo + b.lo, a.hi + b.hi});
    case Op::Sub: return sanitize({a.lo - b.hi, a.hi - b.lo});
    case Op::Mul: return mul(a, b);
    case Op::Div:
      if (b.lo > 0.0 || b.hi < 0.0) {
        const double c[4] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
        for (double x : c)
          if (std::isnan(x)) return unknown();
        return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
      }
      return unknown();
    case Op::FloorDiv:
      if (is_point(b) && b.lo > 0.0 && std::isfinite(a.lo) && std::isfinite(a.hi))  // monotone in a
        return sanitize({expr::ops::floordiv(a.lo, b.lo), expr::ops::floordiv(a.hi, b.lo)});
      return unknown();
    case Op::Mod:
      if (is_point(b) && b.lo > 0.0 && std::isfinite(b.lo)) return {0.0, b.lo};
      if (is_point(b) && b.lo < 0.0 && std::isfinite(b.lo)) return {b.lo, 0.0};
      return unknown();
    case Op::Pow:
      if (is_point(b) && b.lo >= 0 && b.lo == std::floor(b.lo) && a.lo >= 0.0)
        return sanitize({std::pow(a.lo, b.lo), std::pow(a.hi, b.lo)});
      return unknown();
    case Op::Eq:
      if (a.hi < b.lo || b.hi < a.lo) return kFalse;
      return kMaybe;
    case Op::Ne:
      if (a.hi < b.lo || b.hi < a.lo) return kTrue;
      return kMaybe;
    case Op::Lt:
      if (a.hi < b.lo) return kTrue;
      if (a.lo >= b.hi) return kFalse;
      return kMaybe;
    case Op::Le:
      if (a.hi <= b.lo) return kTrue;
      if (a.lo > b.hi) return kFalse;
      return kMaybe;
    case Op::Gt:
      if (a.lo > b.hi) return kTrue;
      if (a.hi <= b.lo) return kFalse;
      return kMaybe;
    case Op::Ge:
      if (a.lo >= b.hi) return kTrue;
      if (a.hi < b.lo) return kFalse;
      return kMaybe;
    default: return unknown();
  }
}

Interval unary_interval(Op op, const Interval& a) {
  if (is_point(a)) {
    double out;
    const char* err = nullptr;
    if (!unary_call_point(op, a.lo, out, err)) return unknown();
    return sanitize(point(out));
  }
  switch (op) {
    case Op::Neg: return {-a.hi, -a.lo};
    case Op::Pos: case Op::Float: return a;
    case Op::Not: {
      const int t = truth(a);
      return t == 0 ? kTrue : t == 1 ? kFalse : kMaybe;
    }
    case Op::Abs:
      if (a.lo >= 0) return a;
      if (a.hi <= 0) return {-a.hi, -a.lo};
      return {0.0, std::max(-a.lo, a.hi)};
    case Op::Int: return {std::trunc(a.lo), std::trunc(a.hi)};  // trunc is monotone
    case Op::Round: return {expr::ops::round_half_even(a.lo), expr::ops::round_half_even(a.hi)};
    default: return unknown();
  }
}

}  // namespace

bool NumericProgram::may_hold(const Interval* box) const {
  Interval stack_buf[64];
  std::vector<Interval> heap;
  Interval* st = stack_buf;
  if (max_stack_ > 64) {
    heap.resize(max_stack_);
    st = heap.data();
  }
  std::size_t sp = 0;
  for (const Instr& in : interval_code_) {
    switch (in.op) {
      case Op::Const: st[sp++] = point(in.value); break;
      case Op::Var: st[sp++] = box[in.arg]; break;
      case Op::Neg: case Op::Pos: case Op::Not: case Op::Abs: case Op::Float: case Op::Int: case Op::Round:
        st[sp - 1] = unary_interval(in.op, st[sp - 1]);
        break;
      case Op::Min: case Op::Max: {
        const std::size_t argc = in.arg;
        Interval r = st[sp - argc];
        for (std::size_t i = sp - argc + 1; i < sp; ++i) {
          if (in.op == Op::Min) r = {std::min(r.lo, st[i].lo), std::min(r.hi, st[i].hi)};
          else r = {std::max(r.lo, st[i].lo), std::max(r.hi, st[i].hi)};
        }
        sp -= argc;
        st[sp++] = sanitize(r);
        break;
      }
      case Op::InList: case Op::NotInList: {
        const Interval x = st[sp - 1];
        bool any_inside = false, all_equal_point = false;
        for (std::uint32_t i = 0; i < in.arg2; ++i) {
          const double v = lists_[in.arg + i];
          if (v >= x.lo && v <= x.hi) any_inside = true;
          if (is_point(x) && v == x.lo) all_equal_point = true;
        }
        Interval r;
        if (std::isnan(x.lo) || std::isnan(x.hi)) r = kMaybe;
        else if (is_point(x)) r = all_equal_point ? kTrue : kFalse;
        else r = any_inside ? kMaybe : kFalse;
        if (in.op == Op::NotInList) r = r.lo == r.hi ? (r.lo == 0 ? kTrue : kFalse) : kMaybe;
        st[sp - 1] = r;
        break;
      }
      case Op::And: {
        const Interval b = st[--sp];
        const Interval a = st[sp - 1];
        const int t = truth(a);
        st[sp - 1] = t == 0 ? a : t == 1 ? b : hull(kFalse, b);
        break;
      }
      case Op::Or: {
        const Interval b = st[--sp];
        const Interval a = st[sp - 1];
        const int t = truth(a);
        st[sp - 1] = t == 1 ? a : t == 0 ? b : hull(a, b);
        break;
      }
      case Op::IfElse: {
        const Interval orelse = st[--sp];
        const Interval body = st[--sp];
        const Interval test = st[sp - 1];
        const int t = truth(test);
        st[sp - 1] = t == 1 ? body : t == 0 ? orelse : hull(body, orelse);
        break;
      }
      default: {
        const Interval b = st[--sp];
        Interval& r = st[sp - 1];
        r = binary_interval(in.op, r, b);
        // Beyond 2^53 doubles round and Python's integers do not: such a bound proves nothing.
        if (!(std::fabs(r.lo) <= kExactLimit && std::fabs(r.hi) <= kExactLimit)) r = unknown();
        break;
      }
    }
  }
  return truth(st[sp - 1]) != 0;
}

}  // namespace ktune::solver

// ---- batch evaluation ---------------------------------------------------------------------------------------
namespace ktune::solver {
namespace {

constexpr std::size_t kLanes = 64;

// One stack entry of the batch evaluator: either uniform (one value for all lanes) or per lane.
struct LaneValue {
  bool uniform = true;
  double scalar = 0;
  std::uint64_t scalar_error = 0;  // all-ones if the uniform computation raised
  double lane[kLanes];
  std::uint64_t error = 0;  // per lane
};

inline double lane_at(const LaneValue& v, std::size_t i) { return v.uniform ? v.scalar : v.lane[i]; }
inline std::uint64_t errors_of(const LaneValue& v) { return v.uniform ? v.scalar_error : v.error; }

void to_lanes(LaneValue& v, std::size_t lanes) {
  if (!v.uniform) return;
  for (std::size_t i = 0; i < lanes; ++i) v.lane[i] = v.scalar;
  v.error = v.scalar_error;
  v.uniform = false;
}

bool truthy_lane(double x) { return x != 0.0; }  // NaN is truthy in Python, and NaN != 0.0 holds

}  // namespace

std::uint64_t NumericProgram::evaluate_lanes(const double* vars, std::size_t var, const double* lane_values,
                                             std::size_t lanes, std::uint64_t& errors,
                                             const char*& error_message, bool& inexact) const {
  const std::uint64_t all = lanes == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << lanes) - 1);
  LaneValue small[16];
  std::vector<LaneValue> big;
  LaneValue* st = small;
  if (max_stack_ > 16) {
    big.resize(max_stack_);
    st = big.data();
  }
  std::size_t sp = 0;
  const char* err = nullptr;
  for (const Instr& in : interval_code_) {
    switch (in.op) {
      case Op::Const: {
        LaneValue& v = st[sp++];
        v.uniform = true;
        v.scalar = in.value;
        v.scalar_error = 0;
        break;
      }
      case Op::Var: {
        LaneValue& v = st[sp++];
        if (in.arg == var) {
          v.uniform = false;
          for (std::size_t i = 0; i < lanes; ++i) v.lane[i] = lane_values[i];
          v.error = 0;
        } else {
          v.uniform = true;
          v.scalar = vars[in.arg];
          v.scalar_error = 0;
        }
        break;
      }
      case Op::Neg: case Op::Pos: case Op::Not: case Op::Abs: case Op::Float: case Op::Int: case Op::Round: {
        LaneValue& v = st[sp - 1];
        if (v.uniform) {
          if (!v.scalar_error && !unary_call_point(in.op, v.scalar, v.scalar, err)) v.scalar_error = all;
        } else if (in.op == Op::Neg) {
          for (std::size_t i = 0; i < lanes; ++i) v.lane[i] = -v.lane[i];
        } else {
          for (std::size_t i = 0; i < lanes; ++i)
            if (!unary_call_point(in.op, v.lane[i], v.lane[i], err)) v.error |= std::uint64_t{1} << i;
        }
        break;
      }
      case Op::Min: case Op::Max: {
        const std::size_t argc = in.arg;
        LaneValue& r = st[sp - argc];
        bool uniform = true;
        for (std::size_t j = 0; j < argc; ++j) uniform = uniform && st[sp - argc + j].uniform;
        if (uniform) {
          for (std::size_t j = 1; j < argc; ++j) {
            const LaneValue& o = st[sp - argc + j];
            r.scalar_error |= o.scalar_error;
            if (in.op == Op::Min ? o.scalar < r.scalar : o.scalar > r.scalar) r.scalar = o.scalar;
          }
        } else {
          to_lanes(r, lanes);
          for (std::size_t j = 1; j < argc; ++j) {
            const LaneValue& o = st[sp - argc + j];
            r.error |= errors_of(o);
            for (std::size_t i = 0; i < lanes; ++i) {
              const double x = lane_at(o, i);
              if (in.op == Op::Min ? x < r.lane[i] : x > r.lane[i]) r.lane[i] = x;
            }
          }
        }
        sp -= argc - 1;
        break;
      }
      case Op::InList: case Op::NotInList: {
        LaneValue& v = st[sp - 1];
        auto member = [&](double x) {
          bool found = false;
          for (std::uint32_t j = 0; j < in.arg2; ++j)
            if (lists_[in.arg + j] == x) { found = true; break; }
          return (found == (in.op == Op::InList)) ? 1.0 : 0.0;
        };
        if (v.uniform) v.scalar = member(v.scalar);
        else
          for (std::size_t i = 0; i < lanes; ++i) v.lane[i] = member(v.lane[i]);
        break;
      }
      case Op::And: case Op::Or: {
        LaneValue& b = st[--sp];
        LaneValue& a = st[sp - 1];
        const bool is_and = in.op == Op::And;
        if (a.uniform) {
          // The left operand decides for every lane at once.
          const bool take_a = a.scalar_error || (is_and ? !truthy_lane(a.scalar) : truthy_lane(a.scalar));
          if (!take_a) a = b;
          break;
        }
        std::uint64_t err_out = a.error;
        for (std::size_t i = 0; i < lanes; ++i) {
          const bool a_err = (a.error >> i) & 1u;
          if (a_err) continue;
          const bool take_a = is_and ? !truthy_lane(a.lane[i]) : truthy_lane(a.lane[i]);
          if (!take_a) {
            a.lane[i] = lane_at(b, i);
            err_out |= errors_of(b) & (std::uint64_t{1} << i);
          }
        }
        a.error = err_out;
        break;
      }
      case Op::IfElse: {
        LaneValue& orelse = st[--sp];
        LaneValue& body = st[--sp];
        LaneValue& test = st[sp - 1];
        if (test.uniform) {
          if (test.scalar_error) break;  // stays an error
          test = truthy_lane(test.scalar) ? body : orelse;
          break;
        }
        std::uint64_t err_out = test.error;
        for (std::size_t i = 0; i < lanes; ++i) {
          if ((test.error >> i) & 1u) continue;
          const LaneValue& src = truthy_lane(test.lane[i]) ? body : orelse;
          test.lane[i] = lane_at(src, i);
          err_out |= errors_of(src) & (std::uint64_t{1} << i);
        }
        test.error = err_out;
        break;
      }
      default: {  // binary operators and comparisons
        LaneValue& b = st[--sp];
        LaneValue& a = st[sp - 1];
        if (a.uniform && b.uniform) {
          a.scalar_error |= b.scalar_error;
          if (!a.scalar_error && !binary_point(in.op, a.scalar, b.scalar, a.scalar, err)) a.scalar_error = all;
          if (!a.scalar_error && !(std::fabs(a.scalar) <= kExactLimit)) {  // see evaluate_lanes' `inexact`
            a.scalar_error = all;
            inexact = true;
          }
          break;
        }
        const std::uint64_t e = errors_of(a) | errors_of(b);
        to_lanes(a, lanes);
        a.error = e;
        switch (in.op) {  // the common error-free operators as tight loops
          case Op::Add: for (std::size_t i = 0; i < lanes; ++i) a.lane[i] += lane_at(b, i); break;
          case Op::Sub: for (std::size_t i = 0; i < lanes; ++i) a.lane[i] -= lane_at(b, i); break;
          case Op::Mul: for (std::size_t i = 0; i < lanes; ++i) a.lane[i] *= lane_at(b, i); break;
          case Op::Lt: for (std::size_t i = 0; i < lanes; ++i) a.lane[i] = a.lane[i] < lane_at(b, i); break;
          case Op::Le: for (std::size_t i = 0; i < lanes; ++i) a.lane[i] = a.lane[i] <= lane_at(b, i); break;
          case Op::Gt: for (std::size_t i = 0; i < lanes; ++i) a.lane[i] = a.lane[i] > lane_at(b, i); break;
          case Op::Ge: for (std::size_t i = 0; i < lanes; ++i) a.lane[i] = a.lane[i] >= lane_at(b, i); break;
          case Op::Eq: for (std::size_t i = 0; i < lanes; ++i) a.lane[i] = a.lane[i] == lane_at(b, i); break;
          case Op::Ne: for (std::size_t i = 0; i < lanes; ++i) a.lane[i] = a.lane[i] != lane_at(b, i); break;
          default:
            for (std::size_t i = 0; i < lanes; ++i)
              if (!binary_point(in.op, a.lane[i], lane_at(b, i), a.lane[i], err)) a.error |= std::uint64_t{1} << i;
            break;
        }
        if (in.op < Op::Eq) {  // arithmetic (comparisons give 0 or 1): lanes beyond 2^53 are inexact
          std::uint64_t beyond = 0;
          for (std::size_t i = 0; i < lanes; ++i)
            beyond |= static_cast<std::uint64_t>(!(std::fabs(a.lane[i]) <= kExactLimit)) << i;
          beyond &= ~a.error;
          if (beyond) {
            a.error |= beyond;
            inexact = true;
          }
        }
        break;
      }
    }
  }
  const LaneValue& r = st[sp - 1];
  if (err) error_message = err;
  std::uint64_t ok = 0;
  if (r.uniform) {
    errors = r.scalar_error & all;
    ok = (!r.scalar_error && truthy_lane(r.scalar)) ? all : 0;
  } else {
    errors = r.error & all;
    for (std::size_t i = 0; i < lanes; ++i)
      if (truthy_lane(r.lane[i])) ok |= std::uint64_t{1} << i;
    ok &= ~errors;
  }
  return ok;
}

}  // namespace ktune::solver
