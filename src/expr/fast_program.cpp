// The compiler of the statically typed numeric fast program: where every slot an expression uses has exactly
// one of the types int, float, bool and only numeric operations are used, the expression also becomes a program on
// unboxed int64/double registers (encoding in bytecode.hpp, interpreter run_fast in expression_vm.cpp).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "expr/bytecode.hpp"

namespace ktune::expr {

using namespace detail;

CompiledExpressionBuilder::FastResult CompiledExpressionBuilder::fast_constant(const Value& v) {
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

CompiledExpressionBuilder::FastResult CompiledExpressionBuilder::fast_to_float(FastResult r) {
  if (r.kind == kF) return r;
  return {femit(fI2F, r.reg), kF};
}

CompiledExpressionBuilder::FastResult CompiledExpressionBuilder::fast(const Node& n) {
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

// Which fields of an instruction hold register numbers (renumbered by compile_fast).
bool CompiledExpressionBuilder::a_is_reg(FastOp op) {
  return !(op == fLoadI || op == fLoadF || op == fLoadB || op == fJmp);
}
bool CompiledExpressionBuilder::b_is_reg(FastOp op) {
  return (op >= fAddI && op <= fModF) || (op >= fCmpI && op <= fCmpFI) || (op >= fMinI && op <= fMaxF);
}
bool CompiledExpressionBuilder::dst_is_reg(FastOp op) { return !(op >= fJz && op <= fJmp) && op != fRet; }

// Builds fast_code_ for `root`, or leaves it empty when the expression does not qualify.
void CompiledExpressionBuilder::compile_fast(const Node& root) {
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

}  // namespace ktune::expr
