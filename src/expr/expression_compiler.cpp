// The bytecode compiler: turns a tree into CompiledExpression's post-order register-stack code. Names are
// resolved to slots once, constant subtrees are folded, types are checked statically (a part that fails for every
// possible operand type is an error now), and operands that are a slot or an int immediate are fused into the
// operation that uses them. The statically typed fast program is compiled separately (fast_program.cpp).
#include <algorithm>
#include <limits>
#include <optional>

#include "expr/bytecode.hpp"

namespace ktune::expr {

using namespace detail;

namespace {

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

// The value of a subtree that has no parameters in it, or nullopt (it has, or evaluating it raises).
std::optional<Value> CompiledExpressionBuilder::constant_value(const Node& n) const {
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
CompiledExpressionBuilder::Types CompiledExpressionBuilder::compile_maybe_skipped(const Node& n, bool skip) {
  unreachable += skip;
  const Types t = compile(n);
  unreachable -= skip;
  return t;
}

// Column of the operator that follows child `left` (skips blanks and closing parentheses).
int CompiledExpressionBuilder::operator_column(const Node& parent, const Node& left) const {
  std::size_t p = static_cast<std::size_t>(std::max(left.end, 0));
  while (p < source.size() && (source[p] == ' ' || source[p] == '\t' || source[p] == ')' || source[p] == '\n'))
    ++p;
  if (p >= source.size() || static_cast<int>(p) >= parent.end) return parent.begin;
  return static_cast<int>(p);
}

TypeSet CompiledExpressionBuilder::element_types(const Types& t) {
  TypeSet e = 0;
  if (t.t & bit(ValueType::List)) e |= t.elem;
  if (t.t & bit(ValueType::String)) e |= bit(ValueType::String);
  return e ? e : kAllTypes;
}

CompiledExpressionBuilder::Types CompiledExpressionBuilder::types_of(const Value& v) {
  Types r{bit(v.type()), 0};
  if (v.is_list()) {
    for (const Value& e : v.as_list()) r.elem |= bit(e.type());
    if (r.elem == 0) r.elem = kAllTypes;
  }
  return r;
}

// Whether every name in `n` is a constant (or a loop variable bound inside `n`).
bool CompiledExpressionBuilder::closed(const Node& n, std::vector<std::string>& bound) const {
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

void CompiledExpressionBuilder::emit_constant(const Value& v) {
  if (v.is_int() && v.as_int() >= std::numeric_limits<std::int32_t>::min() &&
      v.as_int() <= std::numeric_limits<std::int32_t>::max()) {
    emit(kLoadInt, 0, static_cast<std::uint32_t>(static_cast<std::int32_t>(v.as_int())));
  } else {
    out.constants_.push_back(v);
    emit(kLoadConst, 0, static_cast<std::uint32_t>(out.constants_.size() - 1));
  }
  push();
}

CompiledExpressionBuilder::Types CompiledExpressionBuilder::compile(const Node& n) {
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

CompiledExpressionBuilder::Types CompiledExpressionBuilder::compile_node(const Node& n) {
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

CompiledExpressionBuilder::Types CompiledExpressionBuilder::compile_name(const Node& n) {
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

CompiledExpressionBuilder::Types CompiledExpressionBuilder::compile_unary(const Node& n) {
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
TypeSet CompiledExpressionBuilder::binary_types(BinaryOp op, ValueType a, ValueType b, bool nonneg_exponent) {
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

CompiledExpressionBuilder::Types CompiledExpressionBuilder::compile_binary(const Node& n) {
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
int CompiledExpressionBuilder::operand_mode(std::uint32_t start, std::uint32_t end) const {
  if (end != start + 1) return kS;
  const auto& in = out.code_[start];
  if (in.op == kLoadSlot) return kV;
  if (in.op == kLoadInt) return kK;
  return kS;
}

bool CompiledExpressionBuilder::is_jump(std::uint16_t op) {
  return op == kChainCompare || op == kJumpIfFalseOrPop || op == kJumpIfTrueOrPop || op == kPopJumpIfFalse ||
         op == kJump || op == kForIter;
}

// Removes code_[at]; the code after it (one complete operand, whose jumps all stay inside it) moves up.
void CompiledExpressionBuilder::remove_instruction(std::uint32_t at) {
  out.code_.erase(out.code_.begin() + at);
  for (std::size_t i = at; i < out.code_.size(); ++i)
    if (is_jump(out.code_[i].op) && out.code_[i].arg2 > at) --out.code_[i].arg2;
}

// Emits the fused form of a binary operation whose operands' code spans [left_start, right_start) and
// [right_start, here()): an operand that is a single slot load or int immediate becomes an operand mode.
// (A slot load or immediate cannot fail, so evaluating it after the other operand changes nothing.)
void CompiledExpressionBuilder::emit_fused(unsigned base, std::uint32_t left_start, std::uint32_t right_start) {
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

bool CompiledExpressionBuilder::compare_possible(CompareOp op, TypeSet a, TypeSet b) {
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
bool CompiledExpressionBuilder::try_int_set(const Node& right, std::uint32_t& index) {
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

CompiledExpressionBuilder::Types CompiledExpressionBuilder::compile_compare(const Node& n) {
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

CompiledExpressionBuilder::Types CompiledExpressionBuilder::compile_call(const Node& n) {
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

CompiledExpressionBuilder::Types CompiledExpressionBuilder::compile_listcomp(const Node& n) {
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

}  // namespace ktune::expr
