#include "frontend/Dump.h"

#include <cstdio>
#include <sstream>

#include "support/LargeStack.h"
#include "frontend/Lexer.h"

namespace ufjit::frontend {

namespace {

std::string at(const SourceLocation &loc) {
  return "@" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

std::string import_names(const std::vector<ast::ImportAlias> &names) {
  std::string out;
  for (const auto &alias : names) {
    out += " " + alias.name;
    if (!alias.asname.empty()) out += " as " + alias.asname;
  }
  return out;
}

constexpr int kMaxIndent = 64;

class AstDumper {
 public:
  std::string result() const { return out_.str(); }

  /// Indentation shows nesting up to kMaxIndent levels; a deeper line says
  /// its depth instead. A chain of n binary operators is a tree n deep, and
  /// indenting every level printed O(n^2) bytes (gigabytes for 20,000 terms).
  void line(int depth, const std::string &text) {
    const int indent = depth < kMaxIndent ? depth : kMaxIndent;
    out_ << std::string(static_cast<std::size_t>(indent) * 2, ' ');
    if (depth > kMaxIndent) out_ << "[depth " << depth << "] ";
    out_ << text << "\n";
  }

  // One case per kind of `n`'s node list: its overload of node() below.
#define UFJIT_DUMP_NODE(name)        \
  case decltype(n.kind)::name:       \
    node(*n.as<ast::name>(), depth); \
    return;

  void expr(const ast::Expr &n, int depth) {
    switch (n.kind) { UFJIT_FOR_EACH_AST_EXPR(UFJIT_DUMP_NODE) }
  }

  void stmt(const ast::Stmt &n, int depth) {
    switch (n.kind) { UFJIT_FOR_EACH_AST_STMT(UFJIT_DUMP_NODE) }
  }
#undef UFJIT_DUMP_NODE

  void body(const char *label, const ast::Body &b, int depth) {
    if (b.empty()) return;
    line(depth, label);
    for (const auto &s : b) stmt(*s, depth + 1);
  }

 private:
  // Expressions, one overload per kind of UFJIT_FOR_EACH_AST_EXPR.
  void node(const ast::IntLit &i, int depth) {
    line(depth, "IntLit " + std::to_string(i.value) + (i.overflow ? " (overflow)" : "") + " " + at(i.loc));
  }

  void node(const ast::FloatLit &f, int depth) {
    line(depth, "FloatLit " + ast::float_repr(f.value) + " " + at(f.loc));
  }

  void node(const ast::ImagLit &i, int depth) {
    line(depth, "ImagLit " + ast::shortest_repr(i.imag) + "j " + at(i.loc));
  }

  void node(const ast::BoolLit &b, int depth) {
    line(depth, std::string("BoolLit ") + (b.value ? "True " : "False ") + at(b.loc));
  }

  void node(const ast::NoneLit &n, int depth) {
    line(depth, "NoneLit " + at(n.loc));
  }

  void node(const ast::StrLit &s, int depth) {
    line(depth, "StrLit " + ast::string_repr(s.value) + " " + at(s.loc));
  }

  void node(const ast::Name &n, int depth) {
    line(depth, "Name " + n.id + " " + at(n.loc));
  }

  void node(const ast::Attribute &a, int depth) {
    line(depth, "Attribute ." + a.attr + " " + at(a.loc));
    expr(*a.value, depth + 1);
  }

  void node(const ast::Call &c, int depth) {
    line(depth, "Call " + at(c.loc));
    expr(*c.func, depth + 1);
    for (std::size_t i = 0; i < c.args.size(); ++i) {
      if (c.is_starred(i)) line(depth + 1, "starred");
      expr(*c.args[i], depth + (c.is_starred(i) ? 2 : 1));
    }
    for (const auto &kw : c.keywords) {
      line(depth + 1, "keyword " + kw.name + " " + at(kw.loc));
      expr(*kw.value, depth + 2);
    }
  }

  /// An operator's node, `head` naming it and its operator, with its two
  /// operands printed below it.
  void operator_node(int depth, const std::string &head, const SourceLocation &loc, const ast::Expr &left,
                     const ast::Expr &right) {
    line(depth, head + " " + at(loc));
    expr(left, depth + 1);
    expr(right, depth + 1);
  }

  void node(const ast::BinOp &b, int depth) {
    operator_node(depth, std::string("BinOp ") + ast::binary_op_spelling(b.op), b.loc, *b.left, *b.right);
  }

  void node(const ast::UnaryOp &u, int depth) {
    line(depth, std::string("UnaryOp ") + ast::unary_op_spelling(u.op) + " " + at(u.loc));
    expr(*u.operand, depth + 1);
  }

  void node(const ast::BoolOp &b, int depth) {
    line(depth, std::string("BoolOp ") + (b.op == ast::BoolOpKind::And ? "and " : "or ") + at(b.loc));
    for (const auto &v : b.values) expr(*v, depth + 1);
  }

  void node(const ast::Compare &c, int depth) {
    std::string ops;
    for (ast::CmpOp op : c.ops) ops += std::string(" ") + ast::cmp_op_spelling(op);
    line(depth, "Compare" + ops + " " + at(c.loc));
    expr(*c.left, depth + 1);
    for (const auto &v : c.comparators) expr(*v, depth + 1);
  }

  void node(const ast::IfExp &i, int depth) {
    line(depth, "IfExp " + at(i.loc));
    expr(*i.test, depth + 1);
    expr(*i.body, depth + 1);
    expr(*i.orelse, depth + 1);
  }

  void node(const ast::Tuple &t, int depth) {
    line(depth, "Tuple " + at(t.loc));
    for (const auto &v : t.elts) expr(*v, depth + 1);
  }

  void node(const ast::List &l, int depth) {
    line(depth, "List " + at(l.loc));
    for (const auto &v : l.elts) expr(*v, depth + 1);
  }

  void node(const ast::Slice &s, int depth) {
    line(depth, "Slice " + at(s.loc));
    for (const ast::ExprPtr *part : {&s.lower, &s.upper, &s.step}) {
      if (*part) {
        expr(**part, depth + 1);
      } else {
        line(depth + 1, "None");
      }
    }
  }

  void node(const ast::Subscript &s, int depth) {
    line(depth, "Subscript " + at(s.loc));
    expr(*s.value, depth + 1);
    expr(*s.index, depth + 1);
  }

  // Statements, one overload per kind of UFJIT_FOR_EACH_AST_STMT.
  void node(const ast::ExprStmt &e, int depth) {
    line(depth, "ExprStmt " + at(e.loc));
    expr(*e.value, depth + 1);
  }

  void node(const ast::Assign &a, int depth) {
    line(depth, "Assign " + at(a.loc));
    line(depth + 1, "targets:");
    for (const auto &t : a.targets) expr(*t, depth + 2);
    line(depth + 1, "value:");
    expr(*a.value, depth + 2);
  }

  void node(const ast::AugAssign &a, int depth) {
    operator_node(depth, std::string("AugAssign ") + ast::binary_op_spelling(a.op) + "=", a.loc, *a.target,
                  *a.value);
  }

  // An elif (an orelse that is one If) is printed beside the body, not
  // inside orelse: nested, a chain of n elifs printed O(n^2) spaces of
  // indentation (gigabytes for 10,000 branches) and recursed n deep.
  void node(const ast::If &first, int depth) {
    const ast::If *i = &first;
    line(depth, "If " + at(i->loc));
    expr(*i->test, depth + 1);
    body("body:", i->body, depth + 1);
    while (i->orelse.size() == 1 && i->orelse.front()->kind == ast::StmtKind::If) {
      i = i->orelse.front()->as<ast::If>();
      line(depth + 1, "elif " + at(i->loc) + ":");
      expr(*i->test, depth + 2);
      body("body:", i->body, depth + 2);
    }
    body("orelse:", i->orelse, depth + 1);
  }

  void node(const ast::While &w, int depth) {
    line(depth, "While " + at(w.loc));
    expr(*w.test, depth + 1);
    body("body:", w.body, depth + 1);
    body("orelse:", w.orelse, depth + 1);
  }

  void node(const ast::For &f, int depth) {
    line(depth, "For " + at(f.loc));
    expr(*f.target, depth + 1);
    expr(*f.iter, depth + 1);
    body("body:", f.body, depth + 1);
    body("orelse:", f.orelse, depth + 1);
  }

  void node(const ast::Break &b, int depth) {
    line(depth, "Break " + at(b.loc));
  }

  void node(const ast::Continue &c, int depth) {
    line(depth, "Continue " + at(c.loc));
  }

  void node(const ast::Return &r, int depth) {
    line(depth, "Return " + at(r.loc));
    if (r.value) expr(*r.value, depth + 1);
  }

  void node(const ast::Pass &p, int depth) {
    line(depth, "Pass " + at(p.loc));
  }

  void node(const ast::Raise &r, int depth) {
    line(depth, "Raise " + at(r.loc));
    if (r.exc) expr(*r.exc, depth + 1);
  }

  void node(const ast::FunctionDef &f, int depth) {
    std::string params;
    for (const auto &p : f.params) params += (params.empty() ? "" : ", ") + p.name;
    line(depth, "FunctionDef " + f.name + "(" + params + ") " + at(f.loc));
    if (!f.decorators.empty()) {
      line(depth + 1, "decorators:");
      for (const auto &d : f.decorators) expr(*d.expr, depth + 2);
    }
    if (f.docstring) line(depth + 1, "docstring " + ast::string_repr(*f.docstring));
    body("body:", f.body, depth + 1);
  }

  void node(const ast::Import &i, int depth) {
    line(depth, "Import" + import_names(i.names) + " " + at(i.loc));
  }

  void node(const ast::ImportFrom &i, int depth) {
    line(depth, "ImportFrom " + i.module + " import" + import_names(i.names) + " " + at(i.loc));
  }

  std::ostringstream out_;
};

}  // namespace

std::string dump_tokens(const SourceFile &file, DiagnosticEngine &diags) {
  std::ostringstream out;
  for (const Token &t : tokenize(file, diags)) {
    out << t.loc.line << ":" << t.loc.col << " " << token_kind_name(t.kind);
    if (!t.text.empty()) out << " " << ast::string_repr(std::string(t.text));
    if (t.kind == TokenKind::Int) {
      out << " = " << t.int_value;
      if (t.overflow) out << " (overflow)";
    } else if (t.kind == TokenKind::Float) {
      out << " = " << ast::float_repr(t.float_value);
    } else if (t.kind == TokenKind::Imag) {
      out << " = " << ast::shortest_repr(t.float_value) << "j";
    } else if (t.kind == TokenKind::String) {
      out << " = " << ast::string_repr(t.string->value);
    }
    out << "\n";
  }
  return out.str();
}

std::string dump_ast(const ast::Module &module) {
  // The dumper recurses as deep as the tree (a chain of n operators is n
  // deep), as the parser does: on the compile stack, whatever the caller's.
  return run_with_large_stack([&] {
    AstDumper dumper;
    dumper.line(0, "Module " + (module.file ? module.file->name() : std::string("<unknown>")));
    for (const auto &s : module.body) dumper.stmt(*s, 1);
    return dumper.result();
  });
}

}  // namespace ufjit::frontend
