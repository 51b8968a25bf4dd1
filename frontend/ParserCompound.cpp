// Compound statements (if, while, for, def with decorators) and imports.
#include <set>

#include "frontend/ParserImpl.h"

namespace ufjit::frontend::detail {

using namespace ufjit::ast;

bool Parser::parse_block(Body &out, std::string_view after) {
  if (!accept_op(":")) {
    error_expected("':'", after);
    recover_block();
    return false;
  }
  if (!check(TokenKind::Newline)) {
    parse_simple_statements(out);
    return true;
  }
  int line = peek().loc.line;
  advance();
  if (!check(TokenKind::Indent)) {
    error(peek().loc, "expected an indented block " + std::string(after) + " on line " +
                                 std::to_string(line));
    return false;
  }
  advance();
  parse_statements(out, false);
  return true;
}

StmtPtr Parser::parse_if() {
  SourceLocation start = advance().loc;  // if
  auto root = std::make_unique<If>(start);
  If *current = root.get();
  bool ok = true;
  int chain = 0;
  while (true) {
    current->test = parse_test();
    if (!current->test) {
      ok = false;
      recover_block();
    } else if (!parse_block(current->body, "after 'if' condition")) {
      ok = false;
    }
    if (check_kw("elif")) {
      SourceLocation elif_loc = advance().loc;
      if (++chain > kMaxElifChain) {
        error(elif_loc, "too many 'elif' branches (more than " +
                                   std::to_string(kMaxElifChain) + ")");
        recover_block();
        // The rest of the chain goes with this statement: skipped, not
        // reported clause by clause as stray 'elif's.
        while (check_kw("elif") || check_kw("else")) {
          advance();
          recover_block();
        }
        return nullptr;
      }
      auto next = std::make_unique<If>(elif_loc);
      If *next_ptr = next.get();
      current->orelse.push_back(std::move(next));
      current = next_ptr;
      continue;
    }
    if (accept_kw("else")) {
      if (!parse_block(current->orelse, "after 'else'")) ok = false;
    }
    break;
  }
  if (!ok) return nullptr;
  return root;
}

StmtPtr Parser::parse_while() {
  auto node = std::make_unique<While>(advance().loc);
  node->test = parse_test();
  bool ok = node->test != nullptr;
  ++loop_depth_;
  if (!ok) {
    recover_block();
  } else {
    ok = parse_block(node->body, "after 'while' condition");
  }
  --loop_depth_;
  if (accept_kw("else") && !parse_block(node->orelse, "after 'else'")) ok = false;
  if (!ok) return nullptr;
  return node;
}

StmtPtr Parser::parse_for() {
  auto node = std::make_unique<For>(advance().loc);
  bool ok = true;
  node->target = parse_target_list();
  if (!node->target) {
    ok = false;
  } else if (!check_target(*node->target, false)) {
    ok = false;
  }
  if (node->target && !accept_kw("in")) {
    error_expected("'in'", "after 'for' target");
    node->target = nullptr;
    ok = false;
  }
  if (node->target) {
    node->iter = parse_testlist(false);
    if (!node->iter) ok = false;
  }
  ++loop_depth_;
  if (node->target && node->iter) {
    if (!parse_block(node->body, "after 'for' clause")) ok = false;
  } else {
    recover_block();
  }
  --loop_depth_;
  if (accept_kw("else") && !parse_block(node->orelse, "after 'else'")) ok = false;
  if (!ok) return nullptr;
  return node;
}

StmtPtr Parser::parse_decorated() {
  std::vector<Decorator> decorators;
  while (check_op("@")) {
    Decorator d;
    d.loc = advance().loc;
    d.expr = parse_test();
    if (!d.expr) {
      synchronize();
      continue;
    }
    if (!check(TokenKind::Newline)) {
      error_expected("end of line", "after decorator");
      synchronize();
      continue;
    }
    advance();
    decorators.push_back(std::move(d));
  }
  if (check_kw("def")) return parse_funcdef(std::move(decorators));
  if (check_kw("async") && peek(1).is_keyword("def")) {
    reject_compound(peek());
    return nullptr;
  }
  error(peek().loc, "a decorator must be followed by 'def', found " + describe_token(peek()) +
                               "; decorators on anything else are not supported in ufjit kernels");
  return nullptr;
}

StmtPtr Parser::parse_funcdef(std::vector<Decorator> decorators) {
  SourceLocation def_loc = advance().loc;  // def
  auto def = std::make_unique<FunctionDef>(def_loc);
  def->decorators = std::move(decorators);
  if (!check(TokenKind::Name)) {
    error_expected("a function name", "after 'def'");
    ++function_depth_;
    recover_block();
    --function_depth_;
    return nullptr;
  }
  def->name = peek().text;
  def->name_loc = advance().loc;
  bool nested = function_depth_ > 0;
  if (nested) {
    unsupported(def_loc, "nested functions", true, "define '" + def->name + "' at module level");
  }
  bool header_ok = parse_parameters(*def);
  if (header_ok && check_op("->")) {
    unsupported(peek().loc, "return annotations", true);
    header_ok = false;
  }
  int saved_loops = loop_depth_;
  loop_depth_ = 0;
  ++function_depth_;
  bool ok = header_ok;
  if (header_ok) {
    ok = parse_block(def->body, "after function definition");
  } else {
    recover_block();  // the body still gets checked, as a function body
  }
  --function_depth_;
  loop_depth_ = saved_loops;
  if (!ok || nested) return nullptr;
  // A leading string statement is the docstring (Python's rule).
  if (!def->body.empty()) {
    if (auto *stmt = def->body.front()->as<ExprStmt>()) {
      if (auto *str = stmt->value->as<StrLit>()) {
        def->docstring = str->value;
        def->body.erase(def->body.begin());
      }
    }
  }
  return def;
}

bool Parser::parse_parameters(FunctionDef &def) {
  if (!accept_op("(")) {
    error_expected("'('", "after function name");
    return false;
  }
  std::set<std::string> seen;
  while (!check_op(")")) {
    const Token &t = peek();
    if (t.is_op("*")) {
      if (peek(1).is_op(",") || peek(1).is_op(")")) {
        unsupported(t.loc, "keyword-only parameters", true);
      } else {
        unsupported(t.loc, "star-args ('*args', '**kwargs')", true);
      }
      return false;
    }
    if (t.is_op("**")) {
      unsupported(t.loc, "star-args ('*args', '**kwargs')", true);
      return false;
    }
    if (t.is_op("/")) {
      unsupported(t.loc, "positional-only parameters ('/')", true);
      return false;
    }
    if (t.kind != TokenKind::Name) {
      error_expected("a parameter name", "in parameter list");
      return false;
    }
    Param param;
    param.name = t.text;
    param.loc = t.loc;
    advance();
    if (!seen.insert(param.name).second) {
      error(param.loc, "duplicate argument '" + param.name + "' in function definition");
    }
    def.params.push_back(std::move(param));
    if (check_op(":")) {
      unsupported(peek().loc, "parameter annotations", true);
      return false;
    }
    if (check_op("=")) {
      unsupported(peek().loc, "default parameter values", true);
      return false;
    }
    if (accept_op(",")) continue;
    if (check_op(")")) break;
    error_expected("')'", "to close parameter list");
    return false;
  }
  advance();  // )
  return true;
}

bool Parser::parse_dotted_name(std::string &out, SourceLocation &loc) {
  if (!check(TokenKind::Name)) {
    error_expected("a module name");
    return false;
  }
  loc = peek().loc;
  out = advance().text;
  while (check_op(".")) {
    advance();
    if (!check(TokenKind::Name)) {
      error_expected("a name", "after '.' in module name");
      return false;
    }
    out += '.';
    out += advance().text;
  }
  loc = span_from(loc);
  return true;
}

bool Parser::parse_import_asname(std::string &asname) {
  if (!accept_kw("as")) return true;
  if (!check(TokenKind::Name)) {
    error_expected("a name", "after 'as'");
    return false;
  }
  asname = advance().text;
  return true;
}

StmtPtr Parser::parse_import() {
  auto node = std::make_unique<Import>(advance().loc);  // import
  do {
    ImportAlias alias;
    if (!parse_dotted_name(alias.name, alias.loc)) return nullptr;
    if (!parse_import_asname(alias.asname)) return nullptr;
    node->names.push_back(std::move(alias));
  } while (accept_op(","));
  if (function_depth_ > 0) {
    unsupported(node->loc, "imports inside a function", true, "import at module level");
    return nullptr;
  }
  return node;
}

StmtPtr Parser::parse_import_from() {
  auto node = std::make_unique<ImportFrom>(advance().loc);  // from
  if (check_op(".") || check_op("...")) {
    unsupported(peek().loc, "relative imports", true);
    return nullptr;
  }
  SourceLocation module_loc;
  if (!parse_dotted_name(node->module, module_loc)) return nullptr;
  if (!accept_kw("import")) {
    error_expected("'import'", "after module name");
    return nullptr;
  }
  if (check_op("*")) {
    unsupported(peek().loc, "'from " + node->module + " import *'", false,
                "import the names you use");
    return nullptr;
  }
  bool parenthesized = accept_op("(");
  while (true) {
    if (!check(TokenKind::Name)) {
      error_expected("a name to import");
      return nullptr;
    }
    ImportAlias alias;
    alias.loc = peek().loc;
    alias.name = advance().text;
    if (!parse_import_asname(alias.asname)) return nullptr;
    node->names.push_back(std::move(alias));
    if (!accept_op(",")) break;
    if (parenthesized && check_op(")")) break;
  }
  if (parenthesized && !accept_op(")")) {
    error_expected("')'", "to close import list");
    return nullptr;
  }
  if (function_depth_ > 0) {
    unsupported(node->loc, "imports inside a function", true, "import at module level");
    return nullptr;
  }
  return node;
}

}  // namespace ufjit::frontend::detail
