// Kernel Tuner's loop_unroll_factor convention: 0 lets the compiler decide, so its `#pragma unroll NAME` goes.
#include <gtest/gtest.h>

#include "live/unroll_pragmas.hpp"

namespace ktune::live::detail {
namespace {

TEST(UnrollPragmas, ZeroBlanksThePragmaOfThatParameterOnly) {
  const std::string code =
      "#pragma unroll loop_unroll_factor\nfor (;;) {}\n"
      "  #  pragma   unroll\tloop_unroll_factor_y // inner\n"
      "#pragma unroll loop_unroll_factor_x\n"
      "#pragma unroll\n"
      "#pragma unroll loop_unroll_factor2 + 1\n";
  const std::string out =
      blank_zero_unroll_pragmas(code, {{"loop_unroll_factor", "0"}, {"loop_unroll_factor_y", "0"},
                                       {"loop_unroll_factor_x", "4"}, {"loop_unroll_factor2", "0"}, {"n", "0"}});
  const auto blank = [](std::string_view line) { return std::string(line.size(), ' '); };
  EXPECT_EQ(out, blank("#pragma unroll loop_unroll_factor") + "\nfor (;;) {}\n" +
                     blank("  #  pragma   unroll\tloop_unroll_factor_y // inner") +
                     "\n#pragma unroll loop_unroll_factor_x\n#pragma unroll\n#pragma unroll loop_unroll_factor2 + 1\n");
  EXPECT_EQ(blank_zero_unroll_pragmas(code, {{"loop_unroll_factor", "8"}}), code);
  EXPECT_EQ(blank_zero_unroll_pragmas(code, {{"unroll", "0"}}), code);
  // a name that merely starts like the parameter's is another parameter
  EXPECT_EQ(blank_zero_unroll_pragmas("#pragma unroll loop_unroll_factor_x\n", {{"loop_unroll_factor", "0"}}),
            "#pragma unroll loop_unroll_factor_x\n");
}

}  // namespace
}  // namespace ktune::live::detail
