// Expressions, with Python's precedence (lowest first): `x if c else y`, or,
// and, not, comparisons, |, ^, &, << >>, + -, * / // % @, unary + - ~, **,
// then calls, attributes and subscripts.
#include <set>

#include "frontend/ParserImpl.h"

namespace ufjit::frontend::detail {

using namespace ufjit::ast;

namespace {

struct BinaryOpInfo {
  std::string_view spelling;
  BinaryOp op;
  int precedence;
};

// Left-associative binary operators, by precedence level (1 binds loosest).
constexpr BinaryOpInfo kBinaryOps[] = {
    {"|", BinaryOp::BitOr, 1},    {"^", BinaryOp::BitXor, 2},      {"&", BinaryOp::BitAnd, 3},
    {"<<", BinaryOp::LShift, 4},  {">>", BinaryOp::RShift, 4},     {"+", BinaryOp::Add, 5},
    {"-", BinaryOp::Sub, 5},      {"*", BinaryOp::Mul, 6},         {"/", BinaryOp::Div, 6},
    {"//", BinaryOp::FloorDiv, 6}, {"%", BinaryOp::Mod, 6},        {"@", BinaryOp::MatMul, 6},
};

const BinaryOpInfo *binary_op_at(const Token &t) {
  if (t.kind != TokenKind::Op) return nullptr;
  for (const auto &info : kBinaryOps) {
    if (info.spelling == t.text) return &info;
  }
  return nullptr;
}

bool comparison_at(const Token &t, const Token &next, CmpOp &op, int &width) {
  width = 1;
  if (t.kind == TokenKind::Op) {
    if (t.text == "<") op = CmpOp::Lt;
    else if (t.text == ">") op = CmpOp::Gt;
    else if (t.text == "==") op = CmpOp::Eq;
    else if (t.text == "!=") op = CmpOp::NotEq;
    else if (t.text == "<=") op = CmpOp::LtE;
    else if (t.text == ">=") op = CmpOp::GtE;
    else return false;
    return true;
  }
  if (t.is_keyword("in")) {
    op = CmpOp::In;
    return true;
  }
  if (t.is_keyword("not") && next.is_keyword("in")) {
    op = CmpOp::NotIn;
    width = 2;
    return true;
  }
  if (t.is_keyword("is")) {
    op = next.is_keyword("not") ? CmpOp::IsNot : CmpOp::Is;
    width = next.is_keyword("not") ? 2 : 1;
    return true;
  }
  return false;
}

}  // namespace

bool Parser::can_start_expression() const {
  const Token &t = peek();
  switch (t.kind) {
    case TokenKind::Name:
    case TokenKind::Int:
    case TokenKind::Float:
    case TokenKind::Imag:
    case TokenKind::String:
      return true;
    case TokenKind::Keyword:
      return t.text == "not" || t.text == "lambda" || t.text == "None" || t.text == "True" ||
             t.text == "False" || t.text == "await" || t.text == "yield";
    case TokenKind::Op:
      return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" ||
             t.text == "~" || t.text == "*" || t.text == "...";
    default:
      return false;
  }
}

template <typename Element, typename Ends>
ExprPtr Parser::parse_comma_list(Element element, Ends ends) {
  SourceLocation start = peek().loc;
  ExprPtr first = element();
  if (!first) return nullptr;
  if (!check_op(",")) return first;
  auto tuple = std::make_unique<Tuple>(first->loc);
  tuple->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (ends()) break;
    ExprPtr elt = element();
    if (!elt) return nullptr;
    tuple->elts.push_back(std::move(elt));
  }
  tuple->loc = span_from(start);
  return tuple;
}

ExprPtr Parser::parse_testlist(bool allow_star) {
  return parse_comma_list([this] { return parse_test(); }, [this] { return !can_start_expression(); });
}

ExprPtr Parser::parse_target_list() {
  // `for` targets stop before `in`, so they are parsed below comparisons.
  return parse_comma_list([this] { return parse_binary(1); }, [this] { return check_kw("in"); });
}

ExprPtr Parser::parse_test() {
  NestingGuard guard(*this, peek().loc);
  if (!guard.ok()) return nullptr;
  if (check_kw("lambda")) {
    unsupported(peek().loc, "'lambda'");
    return nullptr;
  }
  SourceLocation start = peek().loc;
  ExprPtr body = parse_or();
  if (!body) return nullptr;
  if (accept_kw("if")) {
    ExprPtr test = parse_or();
    if (!test) return nullptr;
    if (!accept_kw("else")) {
      error_expected("'else'", "in conditional expression");
      return nullptr;
    }
    ExprPtr orelse = parse_test();
    if (!orelse) return nullptr;
    auto node = std::make_unique<IfExp>(start);
    node->body = std::move(body);
    node->test = std::move(test);
    node->orelse = std::move(orelse);
    node->loc = span_from(start);
    body = std::move(node);
  }
  if (check_op(":=")) {
    unsupported(peek().loc, "assignment expressions (':=')", true);
    return nullptr;
  }
  return body;
}

ExprPtr Parser::parse_bool_op(BoolOpKind op, const char *keyword, ExprPtr (Parser::*parse_operand)()) {
  SourceLocation start = peek().loc;
  ExprPtr first = (this->*parse_operand)();
  if (!first || !check_kw(keyword)) return first;
  auto node = std::make_unique<BoolOp>(start);
  node->op = op;
  node->values.push_back(std::move(first));
  while (accept_kw(keyword)) {
    ExprPtr next = (this->*parse_operand)();
    if (!next) return nullptr;
    node->values.push_back(std::move(next));
  }
  node->loc = span_from(start);
  return node;
}

ExprPtr Parser::parse_or() {
  return parse_bool_op(BoolOpKind::Or, "or", &Parser::parse_and);
}

ExprPtr Parser::parse_and() {
  return parse_bool_op(BoolOpKind::And, "and", &Parser::parse_not);
}

ExprPtr Parser::parse_not() {
  if (!check_kw("not")) return parse_comparison();
  SourceLocation start = advance().loc;
  NestingGuard guard(*this, start);
  if (!guard.ok()) return nullptr;
  ExprPtr operand = parse_not();
  if (!operand) return nullptr;
  auto node = std::make_unique<UnaryOp>(start);
  node->op = UnaryOpKind::Not;
  node->operand = std::move(operand);
  node->loc = span_from(start);
  return node;
}

ExprPtr Parser::parse_comparison() {
  SourceLocation start = peek().loc;
  ExprPtr left = parse_binary(1);
  if (!left) return nullptr;
  CmpOp op = CmpOp::Eq;
  int width = 1;
  if (!comparison_at(peek(), peek(1), op, width)) return left;
  auto node = std::make_unique<Compare>(start);
  node->left = std::move(left);
  while (comparison_at(peek(), peek(1), op, width)) {
    SourceLocation op_loc = peek().loc;
    for (int i = 0; i < width; ++i) advance();
    node->ops.push_back(op);
    node->op_locs.push_back(span_from(op_loc));
    ExprPtr right = parse_binary(1);
    if (!right) return nullptr;
    node->comparators.push_back(std::move(right));
  }
  node->loc = span_from(start);
  return node;
}

ExprPtr Parser::parse_binary(int min_precedence) {
  SourceLocation start = peek().loc;
  ExprPtr left = parse_factor();
  if (!left) return nullptr;
  ChainGuard chain(*this);
  while (const BinaryOpInfo *info = binary_op_at(peek())) {
    if (info->precedence < min_precedence) break;
    if (!deepen(peek().loc)) return nullptr;
    SourceLocation op_loc = advance().loc;
    ExprPtr right = parse_binary(info->precedence + 1);
    if (!right) return nullptr;
    auto node = std::make_unique<BinOp>(start);
    node->op = info->op;
    node->op_loc = op_loc;
    node->left = std::move(left);
    node->right = std::move(right);
    node->loc = span_from(start);
    left = std::move(node);
  }
  return left;
}

ExprPtr Parser::parse_factor() {
  const Token &t = peek();
  UnaryOpKind op;
  if (t.is_op("-")) {
    op = UnaryOpKind::USub;
  } else if (t.is_op("+")) {
    op = UnaryOpKind::UAdd;
  } else if (t.is_op("~")) {
    op = UnaryOpKind::Invert;
  } else {
    return parse_power();
  }
  SourceLocation start = advance().loc;
  NestingGuard guard(*this, start);
  if (!guard.ok()) return nullptr;
  ExprPtr operand = parse_factor();
  if (!operand) return nullptr;
  auto node = std::make_unique<UnaryOp>(start);
  node->op = op;
  node->operand = std::move(operand);
  node->loc = span_from(start);
  return node;
}

ExprPtr Parser::parse_power() {
  SourceLocation start = peek().loc;
  if (check_kw("await")) {
    unsupported(start, "'await'");
    return nullptr;
  }
  ExprPtr base = parse_primary();
  if (!base || !check_op("**")) return base;
  SourceLocation op_loc = advance().loc;
  NestingGuard guard(*this, op_loc);
  if (!guard.ok()) return nullptr;
  // The exponent is a factor: `2 ** -1` works and `**` is right-associative.
  ExprPtr exponent = parse_factor();
  if (!exponent) return nullptr;
  auto node = std::make_unique<BinOp>(start);
  node->op = BinaryOp::Pow;
  node->op_loc = op_loc;
  node->left = std::move(base);
  node->right = std::move(exponent);
  node->loc = span_from(start);
  return node;
}

ExprPtr Parser::parse_primary() {
  SourceLocation start = peek().loc;
  ExprPtr expr = parse_atom();
  if (!expr) return nullptr;
  ChainGuard chain(*this);
  while (true) {
    if (check_op("(")) {
      if (!deepen(peek().loc)) return nullptr;
      expr = parse_call(std::move(expr));
    } else if (check_op("[")) {
      if (!deepen(peek().loc)) return nullptr;
      expr = parse_subscript(std::move(expr));
    } else if (check_op(".")) {
      if (!deepen(peek().loc)) return nullptr;
      advance();
      if (!check(TokenKind::Name)) {
        error_expected("an attribute name", "after '.'");
        return nullptr;
      }
      const Token &name = advance();
      auto node = std::make_unique<Attribute>(start);
      node->value = std::move(expr);
      node->attr = name.text;
      node->attr_loc = name.loc;
      node->loc = span_from(start);
      expr = std::move(node);
    } else {
      return expr;
    }
    if (!expr) return nullptr;
  }
}

ExprPtr Parser::parse_call(ExprPtr func) {
  SourceLocation start = func->loc;
  advance();  // (
  auto call = std::make_unique<Call>(start);
  call->func = std::move(func);
  std::set<std::string> keyword_names;
  while (!check_op(")")) {
    if (check_op("**")) {
      unsupported(peek().loc, "star-args ('*args', '**kwargs')", true);
      return nullptr;
    }
    if (check_op("*")) {
      // `f(*t)`: a tuple unpacked into arguments (`complex(*cmath.polar(z))`).
      advance();
      ExprPtr arg = parse_test();
      if (!arg) return nullptr;
      if (!call->keywords.empty()) {
        error(arg->loc, "iterable argument unpacking follows keyword argument");
      }
      call->starred.push_back(call->args.size());
      call->args.push_back(std::move(arg));
      if (accept_op(",")) continue;
      if (check_op(")")) break;
      error_expected("')'", "to close argument list");
      return nullptr;
    }
    if (check(TokenKind::Name) && peek(1).is_op("=")) {
      const Token &name = advance();
      advance();  // =
      Keyword kw;
      kw.name = name.text;
      kw.loc = name.loc;
      kw.value = parse_test();
      if (!kw.value) return nullptr;
      if (!keyword_names.insert(kw.name).second) {
        error(kw.loc, "keyword argument repeated: '" + kw.name + "'");
      }
      call->keywords.push_back(std::move(kw));
    } else {
      ExprPtr arg = parse_test();
      if (!arg) return nullptr;
      if (reject_comprehension("generator expressions")) return nullptr;
      if (check_op("=")) {
        error(arg->loc, "expression cannot be a keyword argument name; a keyword must be a plain name");
        return nullptr;
      }
      if (!call->keywords.empty()) {
        error(arg->loc, "positional argument follows keyword argument");
      }
      call->args.push_back(std::move(arg));
    }
    if (accept_op(",")) continue;
    if (check_op(")")) break;
    error_expected("')'", "to close argument list");
    return nullptr;
  }
  advance();  // )
  call->loc = span_from(start);
  return call;
}

ExprPtr Parser::parse_subscript(ExprPtr value) {
  SourceLocation start = value->loc;
  advance();  // [
  std::vector<ExprPtr> items;
  bool trailing_comma = false;
  while (true) {
    ExprPtr item;
    if (!check_op(":")) {
      item = parse_test();
      if (!item) return nullptr;
    }
    if (check_op(":")) {
      item = parse_slice(std::move(item));
      if (!item) return nullptr;
    }
    items.push_back(std::move(item));
    trailing_comma = accept_op(",");
    if (!trailing_comma || check_op("]")) break;
  }
  if (!accept_op("]")) {
    error_expected("']'", "to close subscript");
    return nullptr;
  }
  auto node = std::make_unique<Subscript>(start);
  node->value = std::move(value);
  if (items.size() == 1 && !trailing_comma) {
    node->index = std::move(items[0]);
  } else {
    auto tuple = std::make_unique<Tuple>(items[0]->loc);
    tuple->elts = std::move(items);
    node->index = std::move(tuple);
  }
  node->loc = span_from(start);
  return node;
}

ExprPtr Parser::parse_slice(ExprPtr lower) {
  SourceLocation start = lower ? lower->loc : peek().loc;
  auto slice = std::make_unique<Slice>(start);
  slice->lower = std::move(lower);
  advance();  // :
  auto part_ends = [&] { return check_op(":") || check_op(",") || check_op("]"); };
  if (!part_ends()) {
    slice->upper = parse_test();
    if (!slice->upper) return nullptr;
  }
  if (accept_op(":") && !check_op(",") && !check_op("]")) {
    slice->step = parse_test();
    if (!slice->step) return nullptr;
  }
  slice->loc = span_from(start);
  return slice;
}

bool Parser::reject_comprehension(std::string_view what) {
  if (!check_kw("for") && !check_kw("async")) return false;
  unsupported(peek().loc, what, true);
  return true;
}

template <typename Node, typename Fill>
ExprPtr Parser::leaf(Fill fill) {
  auto node = std::make_unique<Node>(peek().loc);
  fill(*node);
  advance();
  return node;
}

ExprPtr Parser::parse_atom() {
  const Token &t = peek();
  switch (t.kind) {
    case TokenKind::Name:
      return leaf<Name>([&](Name &n) { n.id = t.text; });
    case TokenKind::Int:
      return leaf<IntLit>([&](IntLit &n) {
        n.value = t.int_value;
        n.overflow = t.overflow;
      });
    case TokenKind::Float:
      return leaf<FloatLit>([&](FloatLit &n) { n.value = t.float_value; });
    case TokenKind::Imag:
      return leaf<ImagLit>([&](ImagLit &n) { n.imag = t.float_value; });
    case TokenKind::String:
      return parse_strings();
    case TokenKind::Keyword:
      if (t.text == "True" || t.text == "False") {
        return leaf<BoolLit>([&](BoolLit &n) { n.value = t.text == "True"; });
      }
      if (t.text == "None") return leaf<NoneLit>([](NoneLit &) {});
      if (t.text == "lambda" || t.text == "yield" || t.text == "await") {
        unsupported(t.loc, "'" + std::string(t.text) + "'");
        return nullptr;
      }
      break;
    case TokenKind::Op:
      if (t.text == "(") return parse_paren();
      if (t.text == "[") return parse_list();
      if (t.text == "{") return parse_brace();
      if (t.text == "...") {
        unsupported(t.loc, "'...' (Ellipsis)");
        return nullptr;
      }
      if (t.text == "*" || t.text == "**") {
        unsupported(t.loc, "star expressions ('*x')", true);
        return nullptr;
      }
      break;
    default:
      break;
  }
  error_expected("an expression");
  return nullptr;
}

ExprPtr Parser::parse_strings() {
  SourceLocation start = peek().loc;
  auto node = std::make_unique<StrLit>(start);
  node->content_loc = peek().string->loc;
  bool reported = false;
  while (check(TokenKind::String)) {
    const Token &t = advance();
    const StringContents &contents = *t.string;
    if (!reported && contents.is_fstring) {
      unsupported(t.loc, "f-strings", true);
      reported = true;
    } else if (!reported && contents.is_bytes) {
      unsupported(t.loc, "bytes literals", true);
      reported = true;
    }
    node->value += contents.value;
  }
  if (reported) return nullptr;
  node->loc = span_from(start);
  return node;
}

ExprPtr Parser::parse_paren() {
  SourceLocation start = advance().loc;  // (
  if (accept_op(")")) {
    auto empty = std::make_unique<Tuple>(start);
    empty->loc = span_from(start);
    return empty;
  }
  if (check_kw("yield")) {
    unsupported(peek().loc, "'yield'");
    return nullptr;
  }
  ExprPtr first = parse_test();
  if (!first) return nullptr;
  if (reject_comprehension("generator expressions")) return nullptr;
  if (accept_op(")")) return first;  // `(x)` is x, not a tuple
  if (!check_op(",")) {
    error_expected("')'", "to close parenthesized expression");
    return nullptr;
  }
  auto tuple = std::make_unique<Tuple>(start);
  tuple->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (check_op(")")) break;
    ExprPtr elt = parse_test();
    if (!elt) return nullptr;
    tuple->elts.push_back(std::move(elt));
  }
  if (!accept_op(")")) {
    error_expected("')'", "to close tuple");
    return nullptr;
  }
  tuple->loc = span_from(start);
  return tuple;
}

ExprPtr Parser::parse_list() {
  SourceLocation start = advance().loc;  // [
  auto list = std::make_unique<List>(start);
  while (!check_op("]")) {
    ExprPtr elt = parse_test();
    if (!elt) return nullptr;
    if (list->elts.empty() && reject_comprehension("list comprehensions")) return nullptr;
    list->elts.push_back(std::move(elt));
    if (accept_op(",")) continue;
    if (check_op("]")) break;
    error_expected("']'", "to close list");
    return nullptr;
  }
  advance();  // ]
  list->loc = span_from(start);
  return list;
}

ExprPtr Parser::parse_brace() {
  SourceLocation start = advance().loc;  // {
  if (check_op("}") || check_op("**")) {
    unsupported(start, "dict displays ('{...}')", true);
    return nullptr;
  }
  ExprPtr first = parse_test();
  if (!first) return nullptr;
  if (check_op(":")) {
    advance();
    ExprPtr value = parse_test();
    if (value && (check_kw("for") || check_kw("async"))) {
      unsupported(start, "dict comprehensions", true);
    } else {
      unsupported(start, "dict displays ('{...}')", true);
    }
    return nullptr;
  }
  if (check_kw("for") || check_kw("async")) {
    unsupported(start, "set comprehensions", true);
  } else {
    unsupported(start, "set displays ('{...}')", true);
  }
  return nullptr;
}

}  // namespace ufjit::frontend::detail
