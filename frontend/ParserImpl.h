// The recursive-descent parser behind frontend::parse (Parser.h). Private to
// the frontend: expressions live in ParserExpr.cpp, statements in Parser.cpp.
//
// Error handling: a parse function that fails reports through the
// DiagnosticEngine and returns null; the statement loop then skips to the
// next statement (synchronize) and goes on, so one run reports every error
// that recovery allows. Every loop consumes a token or exits, and nesting is
// capped, so no input hangs the parser or overflows its stack.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/AST.h"
#include "frontend/Token.h"

namespace ufjit::frontend::detail {

/// Nested brackets, unary operators and conditional expressions: Python's own
/// limit for parentheses.
inline constexpr int kMaxNesting = 200;
/// Depth of the tree an expression builds, counting left-deep chains
/// (`a + b + c`, `f()()`) too: later stages walk the tree recursively.
inline constexpr int kMaxTreeDepth = 100000;
/// `elif` chains nest in `orelse`, so they count towards the tree depth too.
inline constexpr int kMaxElifChain = 100000;

class Parser {
 public:
  /// `lexer_diagnostics` are the lexer's reports: the parser interleaves
  /// them with its own so that the output follows source order.
  Parser(std::shared_ptr<const SourceFile> file, std::vector<Token> tokens, DiagnosticEngine &diags,
         std::vector<Diagnostic> lexer_diagnostics);
  std::unique_ptr<ast::Module> parse_module();

 private:
  // ---- tokens
  const Token &peek(std::size_t ahead = 0) const;
  const Token &advance();
  bool check_op(std::string_view op) const { return peek().is_op(op); }
  bool check_kw(std::string_view kw) const { return peek().is_keyword(kw); }
  bool check(TokenKind kind) const { return peek().kind == kind; }
  bool accept_op(std::string_view op);
  bool accept_kw(std::string_view kw);
  /// The location from `start` to the end of the last consumed token, when
  /// both are on one line (the underline of a caret diagnostic).
  SourceLocation span_from(SourceLocation start) const;

  // ---- errors
  /// Reports an error, after any lexer report that comes before it.
  void error(const SourceLocation &loc, std::string message);
  /// Re-reports the lexer's diagnostics located before `loc` (all of them
  /// when `loc` is invalid).
  void flush_lexer_diagnostics(const SourceLocation &loc);
  /// The one wording for syntax errors (STYLE.md item 6):
  /// "expected ')' to close argument list, found ','".
  void error_expected(std::string_view expected, std::string_view context = {});
  /// "'lambda' is not supported in ufjit kernels" at `loc`.
  void unsupported(const SourceLocation &loc, std::string_view construct, bool plural = false,
                   std::string_view hint = {});
  /// Skips to just after the next NEWLINE, or to a DEDENT or the end.
  void synchronize();
  /// After a failed compound-statement header: skips the rest of the line,
  /// then parses (and drops) an indented block, so that errors inside it
  /// are still reported.
  void recover_block();

  // ---- nesting guard
  class NestingGuard;
  class ChainGuard;
  /// Counts one level of recursion; false (after one error) past the caps.
  bool enter_nesting(const SourceLocation &loc);
  /// Counts one more link of a left-deep chain; false past kMaxTreeDepth.
  bool deepen(const SourceLocation &loc);

  // ---- statements (Parser.cpp)
  void parse_statements(ast::Body &out, bool top_level);
  void parse_statement(ast::Body &out);
  void parse_simple_statements(ast::Body &out);
  ast::StmtPtr parse_small_statement();
  ast::StmtPtr parse_expression_statement();
  /// `first = ... = value`, at the first '='.
  ast::StmtPtr parse_assign(SourceLocation start, ast::ExprPtr first);
  /// `target op= value`, at the operator.
  ast::StmtPtr parse_aug_assign(SourceLocation start, ast::ExprPtr target, ast::BinaryOp op);
  /// `assert test[, message]` as `if not test: raise AssertionError(message)`.
  ast::StmtPtr parse_assert();
  ast::StmtPtr parse_import();
  ast::StmtPtr parse_import_from();
  bool parse_dotted_name(std::string &out, SourceLocation &loc);
  /// An optional `as NAME` of an import; false (after an error) on `as` without a name.
  bool parse_import_asname(std::string &asname);
  ast::StmtPtr parse_if();
  ast::StmtPtr parse_while();
  ast::StmtPtr parse_for();
  ast::StmtPtr parse_decorated();
  ast::StmtPtr parse_funcdef(std::vector<ast::Decorator> decorators);
  bool parse_parameters(ast::FunctionDef &def);
  void reject_compound(const Token &keyword);
  /// `:` then an indented block or simple statements on the same line.
  bool parse_block(ast::Body &out, std::string_view after);
  /// A loop's `else:` clause (outside the subset): reports `construct`,
  /// skips the clause and returns true; false when there is none.
  bool check_target(const ast::Expr &target, bool augmented);

  // ---- expressions (ParserExpr.cpp)
  ast::ExprPtr parse_testlist(bool allow_star);
  ast::ExprPtr parse_target_list();
  /// `a, b, ...` as a Tuple, or the one element without a comma: each element
  /// read by `element()`, a trailing comma allowed where `ends()` holds.
  template <typename Element, typename Ends>
  ast::ExprPtr parse_comma_list(Element element, Ends ends);
  /// A leaf node (a name or a literal) at the current token, which it
  /// consumes; `fill(node)` sets its fields from the token.
  template <typename Node, typename Fill>
  ast::ExprPtr leaf(Fill fill);
  ast::ExprPtr parse_test();
  /// `a or b or ...` (`keyword` "or") and `a and b and ...`: one BoolOp of
  /// operands parsed by `parse_operand`, or the lone operand.
  ast::ExprPtr parse_bool_op(ast::BoolOpKind op, const char *keyword,
                             ast::ExprPtr (Parser::*parse_operand)());
  ast::ExprPtr parse_or();
  ast::ExprPtr parse_and();
  ast::ExprPtr parse_not();
  ast::ExprPtr parse_comparison();
  ast::ExprPtr parse_binary(int min_precedence);
  ast::ExprPtr parse_factor();
  ast::ExprPtr parse_power();
  ast::ExprPtr parse_primary();
  ast::ExprPtr parse_atom();
  ast::ExprPtr parse_strings();
  ast::ExprPtr parse_paren();
  ast::ExprPtr parse_list();
  ast::ExprPtr parse_brace();
  ast::ExprPtr parse_call(ast::ExprPtr func);
  /// `lower:upper:step` after `lower` (null when absent), at the first ':'.
  ast::ExprPtr parse_slice(ast::ExprPtr lower);
  ast::ExprPtr parse_subscript(ast::ExprPtr value);
  bool can_start_expression() const;
  /// Reports `for` after an element: a comprehension or generator.
  bool reject_comprehension(std::string_view what);

  std::shared_ptr<const SourceFile> file_;
  std::vector<Token> tokens_;
  DiagnosticEngine &diags_;
  std::vector<Diagnostic> lexer_diagnostics_;
  std::size_t next_lexer_diagnostic_ = 0;
  std::size_t pos_ = 0;
  SourceLocation prev_;
  int nesting_ = 0;
  int tree_depth_ = 0;
  int function_depth_ = 0;
  int loop_depth_ = 0;
};

/// One level of recursion for the lifetime of the guard.
class Parser::NestingGuard {
 public:
  NestingGuard(Parser &parser, const SourceLocation &loc)
      : parser_(parser), ok_(parser.enter_nesting(loc)) {}
  ~NestingGuard() {
    --parser_.nesting_;
    --parser_.tree_depth_;
  }
  NestingGuard(const NestingGuard &) = delete;
  NestingGuard &operator=(const NestingGuard &) = delete;
  bool ok() const { return ok_; }

 private:
  Parser &parser_;
  bool ok_;
};

/// Restores the tree depth that the links of one chain added.
class Parser::ChainGuard {
 public:
  explicit ChainGuard(Parser &parser) : parser_(parser), saved_(parser.tree_depth_) {}
  ~ChainGuard() { parser_.tree_depth_ = saved_; }
  ChainGuard(const ChainGuard &) = delete;
  ChainGuard &operator=(const ChainGuard &) = delete;

 private:
  Parser &parser_;
  int saved_;
};

}  // namespace ufjit::frontend::detail
