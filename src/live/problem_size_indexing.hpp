#pragma once
// T1 sizes index the problem size ("ProblemSize[0] * ProblemSize[1]"), but the expression language has no
// subscripts: ProblemSize[0..2] with a literal index is rewritten to problem_size_x/y/z before parsing.
#include <string>
#include <string_view>

namespace ktune::live {

std::string rewrite_problem_size_indexing(std::string_view expression);

}  // namespace ktune::live
