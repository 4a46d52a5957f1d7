// CompiledExpression::disassemble: a human-readable listing of the bytecode, for debugging and tests.
#include <iterator>
#include <string>

#include "expr/bytecode.hpp"

namespace ktune::expr {

using namespace detail;

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
