// Recursive-descent parser for the Python expression subset, following Python's grammar and precedence:
// if-else < or < and < not < comparisons (chained) < + - < * / // % < unary - + < ** < primaries.
#include "ktune/expr/parser.hpp"

#include <algorithm>

#include "ktune/expr/evaluator.hpp"

namespace ktune::expr {

namespace {

constexpr int kMaxDepth = 150;

bool is_reserved_keyword(std::string_view s) {
  static constexpr std::string_view words[] = {"and",    "or",     "not",   "in",      "if",     "else",
                                               "for",    "is",     "lambda", "import", "def",    "return",
                                               "while",  "class",  "del",   "global",  "pass",   "raise",
                                               "try",    "with",   "yield", "assert",  "async",  "await",
                                               "break",  "continue", "elif", "except", "finally", "from",
                                               "nonlocal", "as"};
  return std::find(std::begin(words), std::end(words), s) != std::end(words);
}

class Parser {
 public:
  explicit Parser(std::string_view src) : src_(src), toks_(tokenize(src)) {}

  NodePtr parse() {
    if (peek().kind == TokenKind::End) fail("empty expression", 0);
    NodePtr root = test();
    if (peek().kind != TokenKind::End) unexpected(peek());
    return root;
  }

 private:
  const Token& peek(std::size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  const Token& take() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  bool is_op(const char* op, std::size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == TokenKind::Op && t.text == op;
  }
  bool is_kw(const char* kw, std::size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == TokenKind::Name && t.text == kw;
  }

  [[noreturn]] void fail(const std::string& message, int column) const {
    throw ExpressionError(message, std::string(src_), column);
  }
  [[noreturn]] void unexpected(const Token& t) const {
    if (t.kind == TokenKind::End) fail("unexpected end of expression", t.begin);
    if (t.kind == TokenKind::Op && t.text == ")") fail("unmatched ')'", t.begin);
    if (t.kind == TokenKind::Op && t.text == "]") fail("unmatched ']'", t.begin);
    if (t.kind == TokenKind::Op && t.text == "=") fail("'=' is not allowed here; use '==' to compare", t.begin);
    if (t.kind == TokenKind::Name && t.text == "is") fail("'is' is not supported; use '==' or '!='", t.begin);
    fail("invalid syntax: unexpected '" + t.text + "'", t.begin);
  }
  // Consumes the closing bracket `close` of the bracket opened at `open_column`.
  void expect_close(const char* close, const char* open, int open_column) {
    if (is_op(close)) {
      take();
      return;
    }
    const Token& t = peek();
    if (t.kind == TokenKind::End) fail(std::string("'") + open + "' was never closed", open_column);
    if (t.kind == TokenKind::Op && (t.text == ")" || t.text == "]"))
      fail("closing '" + t.text + "' does not match '" + open + "'", t.begin);
    if (t.kind == TokenKind::Op && t.text == "=") unexpected(t);
    fail(std::string("expected ',' or '") + close + "' but found '" + t.text + "'", t.begin);
  }

  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxDepth) p_.fail("expression nested too deeply", p_.peek().begin);
    }
    ~DepthGuard() { --p_.depth_; }
    Parser& p_;
  };

  // A chain `a + b + c ...` is parsed by a loop but builds a left-nested tree as deep as the chain is long, which
  // every evaluator walks recursively: each link counts as a level of nesting too.
  struct ChainGuard {
    explicit ChainGuard(Parser& p) : p_(p) {}
    void link() {
      ++links_;
      if (++p_.depth_ > kMaxDepth) p_.fail("expression nested too deeply", p_.peek().begin);
    }
    ~ChainGuard() { p_.depth_ -= links_; }
    Parser& p_;
    int links_ = 0;
  };

  static NodePtr make(NodeKind kind, int begin, int end) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->begin = begin;
    n->end = end;
    return n;
  }

  // test: or_test ['if' or_test 'else' test]
  NodePtr test() {
    DepthGuard guard(*this);
    NodePtr body = or_test();
    if (!is_kw("if")) return body;
    take();
    NodePtr cond = or_test();
    if (!is_kw("else")) {
      if (peek().kind == TokenKind::End) fail("expected 'else' in conditional expression", peek().begin);
      fail("expected 'else' in conditional expression but found '" + peek().text + "'", peek().begin);
    }
    take();
    NodePtr orelse = test();
    auto n = make(NodeKind::IfExp, body->begin, orelse->end);
    n->children.push_back(std::move(body));
    n->children.push_back(std::move(cond));
    n->children.push_back(std::move(orelse));
    return n;
  }

  NodePtr bool_chain(BoolOpKind kind, const char* kw, NodePtr (Parser::*operand)()) {
    NodePtr first = (this->*operand)();
    if (!is_kw(kw)) return first;
    auto n = make(NodeKind::BoolOp, first->begin, first->end);
    n->bool_op = kind;
    n->children.push_back(std::move(first));
    while (is_kw(kw)) {
      take();
      n->children.push_back((this->*operand)());
    }
    n->end = n->children.back()->end;
    return n;
  }
  NodePtr or_test() { return bool_chain(BoolOpKind::Or, "or", &Parser::and_test); }
  NodePtr and_test() { return bool_chain(BoolOpKind::And, "and", &Parser::not_test); }

  NodePtr not_test() {
    if (!is_kw("not")) return comparison();
    DepthGuard guard(*this);
    const int begin = take().begin;
    NodePtr operand = not_test();
    auto n = make(NodeKind::Unary, begin, operand->end);
    n->unary_op = UnaryOp::Not;
    n->children.push_back(std::move(operand));
    return n;
  }

  // Returns true and sets `op` if the next token(s) form a comparison operator (consumed).
  bool comparison_op(CompareOp& op) {
    const Token& t = peek();
    if (t.kind == TokenKind::Op) {
      static constexpr std::pair<const char*, CompareOp> table[] = {{"==", CompareOp::Eq}, {"!=", CompareOp::Ne},
                                                                   {"<", CompareOp::Lt},  {"<=", CompareOp::Le},
                                                                   {">", CompareOp::Gt},  {">=", CompareOp::Ge}};
      for (const auto& [text, o] : table) {
        if (t.text == text) {
          take();
          op = o;
          return true;
        }
      }
      return false;
    }
    if (t.kind != TokenKind::Name) return false;
    if (t.text == "in") {
      take();
      op = CompareOp::In;
      return true;
    }
    if (t.text == "not") {
      if (!is_kw("in", 1)) fail("expected 'in' after 'not'", peek(1).begin);
      take();
      take();
      op = CompareOp::NotIn;
      return true;
    }
    if (t.text == "is") unexpected(t);
    return false;
  }

  NodePtr comparison() {
    NodePtr first = arith();
    CompareOp op;
    const int column = peek().begin;
    if (!comparison_op(op)) return first;
    auto n = make(NodeKind::Compare, first->begin, first->end);
    n->op = column;
    n->children.push_back(std::move(first));
    do {
      n->compare_ops.push_back(op);
      n->children.push_back(arith());
    } while (comparison_op(op));
    n->end = n->children.back()->end;
    return n;
  }

  NodePtr binary(NodePtr left, BinaryOp op, int op_column, NodePtr right) {
    auto n = make(NodeKind::Binary, left->begin, right->end);
    n->binary_op = op;
    n->op = op_column;
    n->children.push_back(std::move(left));
    n->children.push_back(std::move(right));
    return n;
  }

  NodePtr arith() {
    NodePtr left = term();
    ChainGuard chain(*this);
    while (is_op("+") || is_op("-")) {
      chain.link();
      const Token& t = take();
      const BinaryOp op = t.text == "+" ? BinaryOp::Add : BinaryOp::Sub;
      const int column = t.begin;
      left = binary(std::move(left), op, column, term());
    }
    return left;
  }

  NodePtr term() {
    NodePtr left = factor();
    ChainGuard chain(*this);
    while (true) {
      BinaryOp op;
      if (is_op("*")) op = BinaryOp::Mul;
      else if (is_op("/")) op = BinaryOp::Div;
      else if (is_op("//")) op = BinaryOp::FloorDiv;
      else if (is_op("%")) op = BinaryOp::Mod;
      else return left;
      chain.link();
      const int column = take().begin;
      left = binary(std::move(left), op, column, factor());
    }
  }

  NodePtr factor() {
    if (!is_op("-") && !is_op("+")) return power();
    DepthGuard guard(*this);
    const Token& t = take();
    const int begin = t.begin;
    const UnaryOp op = t.text == "-" ? UnaryOp::Neg : UnaryOp::Pos;
    NodePtr operand = factor();
    auto n = make(NodeKind::Unary, begin, operand->end);
    n->unary_op = op;
    n->children.push_back(std::move(operand));
    return n;
  }

  // power: primary ['**' factor]   (right-associative; the exponent may carry a unary sign)
  NodePtr power() {
    NodePtr base = primary();
    if (!is_op("**")) return base;
    DepthGuard guard(*this);
    const int column = take().begin;
    return binary(std::move(base), BinaryOp::Pow, column, factor());
  }

  NodePtr primary() {
    NodePtr atom_node = atom();
    const Token& t = peek();
    if (t.kind == TokenKind::Op && t.text == "(") fail("only the built-in functions can be called", t.begin);
    if (t.kind == TokenKind::Op && t.text == "[") fail("indexing is not supported", t.begin);
    if (t.kind == TokenKind::Op && t.text == ".") fail("attribute access is not supported", t.begin);
    return atom_node;
  }

  NodePtr atom() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::Int:
      case TokenKind::Float: {
        take();
        auto n = make(NodeKind::Constant, t.begin, t.end);
        n->value = t.value;
        return n;
      }
      case TokenKind::String: {
        take();
        auto n = make(NodeKind::Constant, t.begin, t.end);
        std::string text = t.value.as_string();
        while (peek().kind == TokenKind::String) {  // adjacent literals concatenate: 'a' 'b' == 'ab'
          text += peek().value.as_string();
          n->end = take().end;
        }
        n->value = Value(std::move(text));
        return n;
      }
      case TokenKind::Name: return name_or_call();
      case TokenKind::Op:
        if (t.text == "(") return parenthesised();
        if (t.text == "[") return list_display();
        unexpected(t);
      case TokenKind::End: unexpected(t);
    }
    unexpected(t);
  }

  NodePtr name_or_call() {
    const Token& t = take();
    if (t.text == "True" || t.text == "False" || t.text == "None") {
      auto n = make(NodeKind::Constant, t.begin, t.end);
      if (t.text != "None") n->value = Value(t.text == "True");
      return n;
    }
    if (is_reserved_keyword(t.text)) {
      if (t.text == "is") unexpected(t);
      fail("invalid syntax: unexpected keyword '" + t.text + "'", t.begin);
    }
    if (!is_op("(")) {
      auto n = make(NodeKind::Name, t.begin, t.end);
      n->name = t.text;
      return n;
    }
    if (!ops::is_known_function(t.text))
      fail("unknown function '" + t.text + "' (known: min max abs int float round len range list str bool sum)",
           t.begin);
    DepthGuard guard(*this);
    auto n = make(NodeKind::Call, t.begin, t.end);
    n->name = t.text;
    const int open = take().begin;
    while (!is_op(")")) {
      if (peek().kind == TokenKind::Name && is_op("=", 1)) fail("keyword arguments are not supported", peek().begin);
      NodePtr arg = test();
      if (is_kw("for")) {
        if (!n->children.empty()) fail("a generator argument must be the only argument", peek().begin);
        const int begin = arg->begin;  // read before the move: argument order is unspecified
        arg = comprehension(std::move(arg), begin);
        n->children.push_back(std::move(arg));
        break;
      }
      n->children.push_back(std::move(arg));
      if (!is_op(",")) break;
      take();
    }
    n->end = peek().end;
    expect_close(")", "(", open);
    return n;
  }

  NodePtr parenthesised() {
    DepthGuard guard(*this);
    const Token& open = take();
    const int begin = open.begin;
    if (is_op(")")) {
      auto n = make(NodeKind::Tuple, begin, take().end);
      return n;
    }
    NodePtr first = test();
    if (is_kw("for")) fail("generator expressions are not supported; use a list [... for ...]", peek().begin);
    if (!is_op(",")) {
      expect_close(")", "(", begin);
      return first;  // the node keeps its own span (without the parentheses), like Python's AST
    }
    auto n = make(NodeKind::Tuple, begin, begin);
    n->children.push_back(std::move(first));
    while (is_op(",")) {
      take();
      if (is_op(")")) break;
      n->children.push_back(test());
    }
    n->end = peek().end;
    expect_close(")", "(", begin);
    return n;
  }

  NodePtr list_display() {
    DepthGuard guard(*this);
    const int begin = take().begin;
    auto n = make(NodeKind::List, begin, begin);
    if (is_op("]")) {
      n->end = take().end;
      return n;
    }
    NodePtr first = test();
    if (is_kw("for")) {
      NodePtr comp = comprehension(std::move(first), begin);
      comp->end = peek().end;
      expect_close("]", "[", begin);
      return comp;
    }
    n->children.push_back(std::move(first));
    while (is_op(",")) {
      take();
      if (is_op("]")) break;
      n->children.push_back(test());
    }
    n->end = peek().end;
    expect_close("]", "[", begin);
    return n;
  }

  // After `element`, at 'for': 'for' NAME 'in' or_test ['if' or_test]
  NodePtr comprehension(NodePtr element, int begin) {
    take();  // for
    const Token& var = peek();
    if (var.kind != TokenKind::Name || is_reserved_keyword(var.text) || var.text == "True" || var.text == "False" ||
        var.text == "None")
      fail("expected a loop variable name after 'for'", var.begin);
    take();
    if (is_op(",")) fail("only a single loop variable is supported", peek().begin);
    if (!is_kw("in")) fail("expected 'in' after the loop variable", peek().begin);
    take();
    auto n = make(NodeKind::ListComp, begin, begin);
    n->name = var.text;
    n->children.push_back(std::move(element));
    n->children.push_back(or_test());
    if (is_kw("if")) {
      take();
      n->children.push_back(or_test());
    }
    if (is_kw("for") || is_kw("if"))
      fail("only one 'for' and one 'if' are supported in a comprehension", peek().begin);
    n->end = n->children.back()->end;
    return n;
  }

  std::string_view src_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

NodePtr parse_expression(std::string_view source) { return Parser(source).parse(); }

}  // namespace ktune::expr
