// Statements, recovery and the parse() entry point (Parser.h); expressions
// are in ParserExpr.cpp.
#include "frontend/Parser.h"

#include <set>

#include "support/LargeStack.h"
#include "frontend/Lexer.h"
#include "frontend/ParserImpl.h"

namespace ufjit::frontend {

namespace detail {

using namespace ufjit::ast;

Parser::Parser(std::shared_ptr<const SourceFile> file, std::vector<Token> tokens,
               DiagnosticEngine &diags, std::vector<Diagnostic> lexer_diagnostics)
    : file_(std::move(file)),
      tokens_(std::move(tokens)),
      diags_(diags),
      lexer_diagnostics_(std::move(lexer_diagnostics)) {
  if (tokens_.empty() || tokens_.back().kind != TokenKind::EndMarker) {
    Token end;
    end.kind = TokenKind::EndMarker;
    end.loc = SourceLocation{file_.get(), 1, 1, 1};
    tokens_.push_back(std::move(end));
  }
}

// ---------------------------------------------------------------- tokens

const Token &Parser::peek(std::size_t ahead) const {
  std::size_t index = pos_ + ahead;
  return index < tokens_.size() ? tokens_[index] : tokens_.back();
}

const Token &Parser::advance() {
  const Token &t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  if (t.kind != TokenKind::Newline && t.kind != TokenKind::Indent && t.kind != TokenKind::Dedent &&
      t.kind != TokenKind::EndMarker) {
    prev_ = t.loc;
  }
  return t;
}

bool Parser::accept_op(std::string_view op) {
  if (!check_op(op)) return false;
  advance();
  return true;
}

bool Parser::accept_kw(std::string_view kw) {
  if (!check_kw(kw)) return false;
  advance();
  return true;
}

SourceLocation Parser::span_from(SourceLocation start) const {
  if (prev_.line == start.line && prev_.col >= start.col) {
    start.length = prev_.col + prev_.length - start.col;
  }
  return start;
}

// ---------------------------------------------------------------- errors

void Parser::flush_lexer_diagnostics(const SourceLocation &loc) {
  while (next_lexer_diagnostic_ < lexer_diagnostics_.size()) {
    const Diagnostic &d = lexer_diagnostics_[next_lexer_diagnostic_];
    bool before = !loc.valid() || d.loc.line < loc.line ||
                  (d.loc.line == loc.line && d.loc.col <= loc.col);
    if (!before) return;
    diags_.report(d);
    ++next_lexer_diagnostic_;
  }
}

void Parser::error(const SourceLocation &loc, std::string message) {
  flush_lexer_diagnostics(loc);
  // A line the lexer already complained about (a stray character, bad
  // indentation) gives follow-on syntax errors that only repeat it.
  for (const Diagnostic &d : lexer_diagnostics_) {
    if (d.severity == Severity::Error && d.loc.line == loc.line) return;
  }
  diags_.error(loc, std::move(message));
}

void Parser::error_expected(std::string_view expected, std::string_view context) {
  std::string message = "expected ";
  message += expected;
  if (!context.empty()) {
    message += ' ';
    message += context;
  }
  message += ", found ";
  message += describe_token(peek());
  error(peek().loc, std::move(message));
}

void Parser::unsupported(const SourceLocation &loc, std::string_view construct, bool plural,
                         std::string_view hint) {
  std::string message(construct);
  message += plural ? " are" : " is";
  message += " not supported in ufjit kernels";
  if (!hint.empty()) {
    message += "; ";
    message += hint;
  }
  error(loc, std::move(message));
}

void Parser::synchronize() {
  while (true) {
    TokenKind kind = peek().kind;
    if (kind == TokenKind::EndMarker || kind == TokenKind::Dedent) return;
    advance();
    if (kind == TokenKind::Newline) return;
  }
}

void Parser::recover_block() {
  synchronize();
  if (!check(TokenKind::Indent)) return;
  advance();
  Body dropped;
  parse_statements(dropped, false);
}

bool Parser::enter_nesting(const SourceLocation &loc) {
  ++nesting_;
  ++tree_depth_;
  if (nesting_ > kMaxNesting) {
    error(loc, "too many nested parentheses or operators (more than " +
                          std::to_string(kMaxNesting) + " levels)");
    return false;
  }
  if (tree_depth_ > kMaxTreeDepth) {
    error(loc, "expression is too deeply nested (more than " +
                          std::to_string(kMaxTreeDepth) + " levels); split it with temporaries");
    return false;
  }
  return true;
}

bool Parser::deepen(const SourceLocation &loc) {
  ++tree_depth_;
  if (tree_depth_ > kMaxTreeDepth) {
    error(loc, "expression is too deeply nested (more than " +
                          std::to_string(kMaxTreeDepth) + " levels); split it with temporaries");
    return false;
  }
  return true;
}

// ---------------------------------------------------------------- statements

std::unique_ptr<Module> Parser::parse_module() {
  auto module = std::make_unique<Module>();
  module->file = file_;
  parse_statements(module->body, true);
  flush_lexer_diagnostics(SourceLocation{});
  return module;
}

void Parser::parse_statements(Body &out, bool top_level) {
  while (!check(TokenKind::EndMarker)) {
    if (check(TokenKind::Dedent)) {
      if (!top_level) break;
      advance();
      continue;
    }
    if (check(TokenKind::Newline)) {
      advance();
      continue;
    }
    if (check(TokenKind::Indent)) {
      error(peek().loc, "unexpected indent");
      advance();
      Body dropped;
      parse_statements(dropped, false);
      continue;
    }
    std::size_t before = pos_;
    parse_statement(out);
    if (pos_ == before) advance();
  }
  if (!top_level && check(TokenKind::Dedent)) advance();
}

void Parser::parse_statement(Body &out) {
  const Token &t = peek();
  StmtPtr stmt;
  if (t.is_op("@")) {
    stmt = parse_decorated();
  } else if (t.is_keyword("def")) {
    stmt = parse_funcdef({});
  } else if (t.is_keyword("if")) {
    stmt = parse_if();
  } else if (t.is_keyword("while")) {
    stmt = parse_while();
  } else if (t.is_keyword("for")) {
    stmt = parse_for();
  } else if (t.is_keyword("try") || t.is_keyword("with") || t.is_keyword("class") ||
             t.is_keyword("async")) {
    reject_compound(t);
    return;
  } else if (t.is_keyword("elif") || t.is_keyword("else") || t.is_keyword("except") ||
             t.is_keyword("finally")) {
    error(t.loc, "'" + std::string(t.text) + "' does not follow a matching statement");
    advance();
    recover_block();
    return;
  } else {
    parse_simple_statements(out);
    return;
  }
  if (stmt) out.push_back(std::move(stmt));
}

void Parser::reject_compound(const Token &keyword) {
  const std::string word(keyword.text);
  if (word == "async") {
    unsupported(keyword.loc, "'async'");
  } else {
    unsupported(keyword.loc, "'" + word + "'");
  }
  advance();
  if (word == "async") {
    // `async def` / `async for`: the body is still checked, in its context.
    ++function_depth_;
    ++loop_depth_;
    recover_block();
    --loop_depth_;
    --function_depth_;
    return;
  }
  recover_block();
  if (word != "try") return;
  // The clauses of the rejected `try` are part of it, not new errors.
  while (check_kw("except") || check_kw("else") || check_kw("finally")) {
    advance();
    recover_block();
  }
}

void Parser::parse_simple_statements(Body &out) {
  while (true) {
    StmtPtr stmt = parse_small_statement();
    if (!stmt) {
      synchronize();
      return;
    }
    out.push_back(std::move(stmt));
    if (accept_op(";")) {
      if (check(TokenKind::Newline)) break;
      continue;
    }
    break;
  }
  if (check(TokenKind::Newline)) {
    advance();
    return;
  }
  error_expected("end of line", "after statement");
  synchronize();
}

StmtPtr Parser::parse_small_statement() {
  const Token &t = peek();
  if (t.kind == TokenKind::Keyword) {
    const std::string word(t.text);
    if (word == "pass") {
      return std::make_unique<Pass>(advance().loc);
    }
    if (word == "break" || word == "continue") {
      SourceLocation loc = advance().loc;
      if (loop_depth_ == 0) {
        error(loc, "'" + word + "' outside loop");
        return nullptr;
      }
      if (word == "break") return std::make_unique<Break>(loc);
      return std::make_unique<Continue>(loc);
    }
    if (word == "return") {
      auto ret = std::make_unique<Return>(advance().loc);
      if (function_depth_ == 0) {
        error(ret->loc, "'return' outside function");
        return nullptr;
      }
      if (can_start_expression()) {
        ret->value = parse_testlist(true);
        if (!ret->value) return nullptr;
      }
      return ret;
    }
    if (word == "import") return parse_import();
    if (word == "from") return parse_import_from();
    if (word == "raise") {
      auto r = std::make_unique<Raise>(advance().loc);
      if (can_start_expression()) {
        r->exc = parse_test();
        if (!r->exc) return nullptr;
      }
      if (check_kw("from")) {
        unsupported(peek().loc, "'raise ... from'");
        return nullptr;
      }
      return r;
    }
    if (word == "assert") return parse_assert();
    if (word == "del" || word == "global" ||
        word == "nonlocal" || word == "yield") {
      unsupported(t.loc, "'" + word + "'");
      return nullptr;
    }
  }
  return parse_expression_statement();
}

StmtPtr Parser::parse_assert() {
  // `assert test, "message"` is `if not test: raise AssertionError("message")`
  // (Numba's nopython mode raises it; here it is reported as any raise).
  SourceLocation loc = advance().loc;
  ExprPtr test = parse_test();
  if (!test) return nullptr;
  auto call = std::make_unique<Call>(loc);
  auto cls = std::make_unique<Name>(loc);
  cls->id = "AssertionError";
  call->func = std::move(cls);
  if (accept_op(",")) {
    ExprPtr message = parse_test();
    if (!message) return nullptr;
    call->args.push_back(std::move(message));
  }
  auto raise = std::make_unique<Raise>(loc);
  raise->exc = std::move(call);
  auto negated = std::make_unique<UnaryOp>(test->loc);
  negated->op = UnaryOpKind::Not;
  negated->operand = std::move(test);
  auto node = std::make_unique<If>(loc);
  node->test = std::move(negated);
  node->body.push_back(std::move(raise));
  return node;
}

namespace {

/// The augmented assignment operators and their binary operations.
constexpr std::pair<std::string_view, BinaryOp> kAugOps[] = {
    {"+=", BinaryOp::Add},    {"-=", BinaryOp::Sub},       {"*=", BinaryOp::Mul},
    {"/=", BinaryOp::Div},    {"//=", BinaryOp::FloorDiv}, {"%=", BinaryOp::Mod},
    {"**=", BinaryOp::Pow},   {"&=", BinaryOp::BitAnd},    {"|=", BinaryOp::BitOr},
    {"^=", BinaryOp::BitXor}, {"<<=", BinaryOp::LShift},   {">>=", BinaryOp::RShift},
    {"@=", BinaryOp::MatMul},
};

}  // namespace

StmtPtr Parser::parse_expression_statement() {
  SourceLocation start = peek().loc;
  ExprPtr first = parse_testlist(true);
  if (!first) return nullptr;
  if (check_op("=")) return parse_assign(start, std::move(first));
  for (const auto &[spelling, op] : kAugOps) {
    if (check_op(spelling)) return parse_aug_assign(start, std::move(first), op);
  }
  if (check_op(":")) {
    unsupported(peek().loc, "variable annotations", true);
    return nullptr;
  }
  auto stmt = std::make_unique<ExprStmt>(start);
  stmt->value = std::move(first);
  return stmt;
}

StmtPtr Parser::parse_assign(SourceLocation start, ExprPtr first) {
  auto assign = std::make_unique<Assign>(start);
  assign->targets.push_back(std::move(first));
  while (accept_op("=")) {
    if (check_kw("yield")) {
      unsupported(peek().loc, "'yield'");
      return nullptr;
    }
    ExprPtr value = parse_testlist(true);
    if (!value) return nullptr;
    if (check_op("=")) {
      assign->targets.push_back(std::move(value));
    } else {
      assign->value = std::move(value);
    }
  }
  bool ok = true;
  for (const auto &target : assign->targets) ok = check_target(*target, false) && ok;
  if (!ok) return nullptr;
  return assign;
}

StmtPtr Parser::parse_aug_assign(SourceLocation start, ExprPtr target, BinaryOp op) {
  auto aug = std::make_unique<AugAssign>(start);
  aug->op = op;
  aug->op_loc = advance().loc;
  bool target_ok = check_target(*target, true);
  aug->target = std::move(target);
  if (check_kw("yield")) {
    unsupported(peek().loc, "'yield'");
    return nullptr;
  }
  aug->value = parse_testlist(true);
  if (!aug->value || !target_ok) return nullptr;
  return aug;
}

bool Parser::check_target(const Expr &target, bool augmented) {
  switch (target.kind) {
    case ExprKind::Name:
    case ExprKind::Subscript:
    case ExprKind::Attribute:  // a record's field; the typer refuses any other
      return true;
    case ExprKind::Tuple:
      if (augmented) {
        error(target.loc, "'tuple' is an illegal expression for augmented assignment");
        return false;
      } else {
        bool ok = true;
        for (const auto &elt : target.as<Tuple>()->elts) ok = check_target(*elt, false) && ok;
        return ok;
      }
    case ExprKind::List:
      unsupported(target.loc, "list targets ('[a, b] = ...')", true, "use a tuple: 'a, b = ...'");
      return false;
    case ExprKind::Call:
      error(target.loc, "cannot assign to function call");
      return false;
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::ImagLit:
    case ExprKind::StrLit:
      error(target.loc, "cannot assign to literal");
      return false;
    case ExprKind::BoolLit:
      error(target.loc, target.as<BoolLit>()->value ? "cannot assign to True"
                                                            : "cannot assign to False");
      return false;
    case ExprKind::NoneLit:
      error(target.loc, "cannot assign to None");
      return false;
    default:
      error(target.loc, "cannot assign to expression");
      return false;
  }
}

}  // namespace detail

std::unique_ptr<ast::Module> parse(std::shared_ptr<const SourceFile> file, DiagnosticEngine &diags) {
  diags.retain(file);
  DiagnosticEngine lexer_diags;
  lexer_diags.set_error_limit(0);  // a buffer: `diags` applies the limit
  std::vector<Token> tokens = tokenize(*file, lexer_diags);
  return run_with_large_stack([&] {
    detail::Parser parser(file, std::move(tokens), diags, lexer_diags.diagnostics());
    return parser.parse_module();
  });
}

}  // namespace ufjit::frontend
