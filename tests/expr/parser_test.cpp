// Parser: tree shapes (precedence, associativity, chains), node columns, tokens, unparse and clone.
#include <gtest/gtest.h>

#include <string>

#include "ktune/expr/evaluator.hpp"
#include "ktune/expr/parser.hpp"

namespace {

using namespace ktune;
using namespace ktune::expr;

// S-expression of a tree: makes the grouping the parser chose explicit.
std::string sexpr(const Node& n) {
  auto kids = [&](std::size_t from = 0) {
    std::string out;
    for (std::size_t i = from; i < n.children.size(); ++i) out += " " + sexpr(*n.children[i]);
    return out;
  };
  switch (n.kind) {
    case NodeKind::Constant: return n.value.repr();
    case NodeKind::Name: return n.name;
    case NodeKind::Unary: return std::string("(") + (n.unary_op == UnaryOp::Not ? "not" : to_string(n.unary_op)) + kids() + ")";
    case NodeKind::Binary: return std::string("(") + to_string(n.binary_op) + kids() + ")";
    case NodeKind::Compare: {
      std::string out = "(cmp " + sexpr(*n.children[0]);
      for (std::size_t i = 0; i < n.compare_ops.size(); ++i)
        out += std::string(" ") + to_string(n.compare_ops[i]) + " " + sexpr(*n.children[i + 1]);
      return out + ")";
    }
    case NodeKind::BoolOp: return std::string("(") + (n.bool_op == BoolOpKind::And ? "and" : "or") + kids() + ")";
    case NodeKind::IfExp: return "(ifexp" + kids() + ")";
    case NodeKind::Call: return "(call " + n.name + kids() + ")";
    case NodeKind::List: return "(list" + kids() + ")";
    case NodeKind::Tuple: return "(tuple" + kids() + ")";
    case NodeKind::ListComp: return "(listcomp " + n.name + kids() + ")";
  }
  return "?";
}

std::string shape(const std::string& source) { return sexpr(*parse_expression(source)); }

TEST(Parser, PrecedenceAndAssociativity) {
  EXPECT_EQ(shape("1 + 2 * 3"), "(+ 1 (* 2 3))");
  EXPECT_EQ(shape("10 - 2 - 3"), "(- (- 10 2) 3)");
  EXPECT_EQ(shape("a / b // c % d * e"), "(* (% (// (/ a b) c) d) e)");
  EXPECT_EQ(shape("2 ** 3 ** 2"), "(** 2 (** 3 2))");
  EXPECT_EQ(shape("-2 ** 2"), "(- (** 2 2))");
  EXPECT_EQ(shape("2 ** -1"), "(** 2 (- 1))");
  EXPECT_EQ(shape("-a * b"), "(* (- a) b)");
  EXPECT_EQ(shape("- - +a"), "(- (- (+ a)))");
  EXPECT_EQ(shape("not a == b"), "(not (cmp a == b))");
  EXPECT_EQ(shape("not not a"), "(not (not a))");
  EXPECT_EQ(shape("a or b and c"), "(or a (and b c))");
  EXPECT_EQ(shape("a and b or c and d"), "(or (and a b) (and c d))");
  EXPECT_EQ(shape("a or b or c"), "(or a b c)");
  EXPECT_EQ(shape("not a and b"), "(and (not a) b)");
  EXPECT_EQ(shape("a + 1 < b * 2"), "(cmp (+ a 1) < (* b 2))");
  EXPECT_EQ(shape("x if c else y"), "(ifexp x c y)");
  EXPECT_EQ(shape("x if c else y if d else z"), "(ifexp x c (ifexp y d z))");
  EXPECT_EQ(shape("a or b if c or d else e"), "(ifexp (or a b) (or c d) e)");
  EXPECT_EQ(shape("(1 + 2) * 3"), "(* (+ 1 2) 3)");
  EXPECT_EQ(shape("a in l and b not in l"), "(and (cmp a in l) (cmp b not in l))");
}

TEST(Parser, ComparisonChainsAreOneNode) {
  const NodePtr n = parse_expression("32 <= a*b <= 1024");
  ASSERT_EQ(n->kind, NodeKind::Compare);
  ASSERT_EQ(n->children.size(), 3u);
  ASSERT_EQ(n->compare_ops.size(), 2u);
  EXPECT_EQ(n->compare_ops[0], CompareOp::Le);
  EXPECT_EQ(n->compare_ops[1], CompareOp::Le);
  EXPECT_EQ(shape("a < b == c != d > e >= f"), "(cmp a < b == c != d > e >= f)");
  EXPECT_EQ(shape("(a < b) < c"), "(cmp (cmp a < b) < c)");
}

TEST(Parser, Atoms) {
  EXPECT_EQ(shape("[1, 2.5, 'x', True, None]"), "(list 1 2.5 'x' True None)");
  EXPECT_EQ(shape("[1, 2,]"), "(list 1 2)");
  EXPECT_EQ(shape("[]"), "(list)");
  EXPECT_EQ(shape("(1, 2)"), "(tuple 1 2)");
  EXPECT_EQ(shape("(1,)"), "(tuple 1)");
  EXPECT_EQ(shape("()"), "(tuple)");
  EXPECT_EQ(shape("max(a, b,)"), "(call max a b)");
  EXPECT_EQ(shape("list(range(1, 33, 2))"), "(call list (call range 1 33 2))");
  EXPECT_EQ(shape("[2**i for i in range(0, 6)]"), "(listcomp i (** 2 i) (call range 0 6))");
  EXPECT_EQ(shape("[x for x in l if x > 1]"), "(listcomp x x l (cmp x > 1))");
  EXPECT_EQ(shape("[a if a else b for a in l]"), "(listcomp a (ifexp a a b) l)");
  EXPECT_EQ(shape("sum(x for x in l)"), "(call sum (listcomp x x l))");
  EXPECT_EQ(shape("0x1F + 0o17 + 0b101 + 1_000"), "(+ (+ (+ 31 15) 5) 1000)");
  EXPECT_EQ(shape("1e-3 + .5 + 5. + 1E3"), "(+ (+ (+ 0.001 0.5) 5.0) 1000.0)");
  EXPECT_EQ(shape("'a\\'b' + \"c\\\"d\" + 'e\\nf' + 'x' 'y'"), "(+ (+ (+ \"a'b\" 'c\"d') 'e\\nf') 'xy')");
  EXPECT_EQ(shape("\t a\n+\tb "), "(+ a b)");
}

TEST(Parser, NodeColumns) {
  const std::string src = "x + max(a, (b))";
  const NodePtr n = parse_expression(src);
  EXPECT_EQ(n->begin, 0);
  EXPECT_EQ(n->end, 15);
  const Node& call = *n->children[1];
  EXPECT_EQ(call.begin, 4);
  EXPECT_EQ(call.end, 15);
  EXPECT_EQ(call.children[0]->begin, 8);
  EXPECT_EQ(call.children[1]->begin, 12);  // parentheses are not part of the inner node
  EXPECT_EQ(call.children[1]->end, 13);
  const NodePtr u = parse_expression("  -a");
  EXPECT_EQ(u->begin, 2);
  EXPECT_EQ(u->end, 4);
}

TEST(Parser, Tokens) {
  const auto toks = tokenize("a<=1.5//'s' not in[x]");
  std::vector<std::string> texts;
  for (const auto& t : toks) texts.push_back(t.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"a", "<=", "1.5", "//", "'s'", "not", "in", "[", "x", "]", ""}));
  EXPECT_EQ(toks[2].kind, TokenKind::Float);
  EXPECT_EQ(toks[2].value.as_float(), 1.5);
  EXPECT_EQ(toks[4].value.as_string(), "s");
  EXPECT_EQ(toks[3].begin, 6);
  EXPECT_EQ(toks.back().kind, TokenKind::End);
}

TEST(Parser, UnparseRoundTrips) {
  const char* sources[] = {
      "1 + 2 * 3", "(1 + 2) * 3", "10 - (2 - 3)", "2 ** 3 ** 2", "(2 ** 3) ** 2", "(-2) ** 2", "-2 ** 2",
      "2 ** -1", "not a == b", "(not a) == b", "a or b and c", "(a or b) and c", "a and (b or c)",
      "(a < b) < c", "a < b < c", "x if c else y", "(x if c else y) if d else z", "x if (c if d else e) else y",
      "[2 ** i for i in range(0, 6)]", "[x for x in l if x > 1]", "(1,)", "(1, 2)", "()", "max(a, b) - -c",
      "a - -1", "'it\\'s' + \"q\"", "[1, 2.5, None, True, 'x']", "- - a", "a not in l", "1e+16 + 1e-05",
      "a // b % c", "a * (b // c)", "(a and b) + 1", "-(a + b)", "not (a or b)", "(lambda_ + 1)",
      "[x if x else -x for x in range(-2, 3)]", "sum(x * x for x in l)", "1e999 + 1",
  };
  for (const char* s : sources) {
    SCOPED_TRACE(s);
    const NodePtr tree = parse_expression(s);
    const std::string text = unparse(*tree);
    const NodePtr again = parse_expression(text);
    EXPECT_EQ(sexpr(*again), sexpr(*tree)) << "unparsed as: " << text;
    EXPECT_EQ(unparse(*again), text);
  }
  EXPECT_EQ(unparse(*parse_expression("(1+2)*3")), "(1 + 2) * 3");
  EXPECT_EQ(unparse(*parse_expression("a<=b")), "a <= b");
  EXPECT_EQ(unparse(*parse_expression("not(a)")), "not a");
  EXPECT_EQ(unparse(*parse_expression("[2**i for i in range(6)]")), "[2 ** i for i in range(6)]");
  EXPECT_EQ(unparse(*parse_expression("(a if b else c) + 1")), "(a if b else c) + 1");
}

TEST(Parser, CloneIsDeepAndEqual) {
  const NodePtr tree = parse_expression("32 <= a * b <= 1024 and [x for x in l if x] != []");
  NodePtr copy = tree->clone();
  EXPECT_EQ(sexpr(*copy), sexpr(*tree));
  EXPECT_EQ(copy->begin, tree->begin);
  EXPECT_EQ(copy->children[0]->compare_ops, tree->children[0]->compare_ops);
  copy->children[0]->children[0]->value = Value(64);
  EXPECT_NE(sexpr(*copy), sexpr(*tree));
  EXPECT_STREQ(to_string(CompareOp::NotIn), "not in");
  EXPECT_STREQ(to_string(BinaryOp::FloorDiv), "//");
  EXPECT_STREQ(to_string(UnaryOp::Not), "not ");
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(1000, '(') + "1" + std::string(1000, ')');
  EXPECT_THROW(parse_expression(deep), ExpressionError);
  const std::string ok = std::string(40, '(') + "1" + std::string(40, ')');
  EXPECT_EQ(evaluate_constant_expression(ok).repr(), "1");
}

}  // namespace
