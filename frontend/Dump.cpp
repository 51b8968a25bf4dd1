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

  void expr(const ast::Expr &e, int depth);
  void stmt(const ast::Stmt &s, int depth);
  void body(const char *label, const ast::Body &b, int depth) {
    if (b.empty()) return;
    line(depth, label);
    for (const auto &s : b) stmt(*s, depth + 1);
  }

 private:
  std::ostringstream out_;
};

void AstDumper::expr(const ast::Expr &e, int depth) {
  using namespace ast;
  std::string where = at(e.loc);
  switch (e.kind) {
    case ExprKind::IntLit: {
      const auto *i = e.as<IntLit>();
      line(depth, "IntLit " + std::to_string(i->value) + (i->overflow ? " (overflow)" : "") + " " +
                      where);
      return;
    }
    case ExprKind::FloatLit:
      line(depth, "FloatLit " + ast::float_repr(e.as<FloatLit>()->value) + " " + where);
      return;
    case ExprKind::ImagLit:
      line(depth, "ImagLit " + ast::shortest_repr(e.as<ImagLit>()->imag) + "j " + where);
      return;
    case ExprKind::BoolLit:
      line(depth, std::string("BoolLit ") + (e.as<BoolLit>()->value ? "True " : "False ") + where);
      return;
    case ExprKind::NoneLit:
      line(depth, "NoneLit " + where);
      return;
    case ExprKind::StrLit:
      line(depth, "StrLit " + ast::string_repr(e.as<StrLit>()->value) + " " + where);
      return;
    case ExprKind::Name:
      line(depth, "Name " + e.as<Name>()->id + " " + where);
      return;
    case ExprKind::Attribute: {
      const auto *a = e.as<Attribute>();
      line(depth, "Attribute ." + a->attr + " " + where);
      expr(*a->value, depth + 1);
      return;
    }
    case ExprKind::Call: {
      const auto *c = e.as<Call>();
      line(depth, "Call " + where);
      expr(*c->func, depth + 1);
      for (std::size_t i = 0; i < c->args.size(); ++i) {
        if (c->is_starred(i)) line(depth + 1, "starred");
        expr(*c->args[i], depth + (c->is_starred(i) ? 2 : 1));
      }
      for (const auto &kw : c->keywords) {
        line(depth + 1, "keyword " + kw.name + " " + at(kw.loc));
        expr(*kw.value, depth + 2);
      }
      return;
    }
    case ExprKind::BinOp: {
      const auto *b = e.as<BinOp>();
      line(depth, std::string("BinOp ") + binary_op_spelling(b->op) + " " + where);
      expr(*b->left, depth + 1);
      expr(*b->right, depth + 1);
      return;
    }
    case ExprKind::UnaryOp: {
      const auto *u = e.as<UnaryOp>();
      const char *op = u->op == UnaryOpKind::UAdd     ? "+"
                       : u->op == UnaryOpKind::USub   ? "-"
                       : u->op == UnaryOpKind::Invert ? "~"
                                                      : "not";
      line(depth, std::string("UnaryOp ") + op + " " + where);
      expr(*u->operand, depth + 1);
      return;
    }
    case ExprKind::BoolOp: {
      const auto *b = e.as<BoolOp>();
      line(depth, std::string("BoolOp ") + (b->op == BoolOpKind::And ? "and " : "or ") + where);
      for (const auto &v : b->values) expr(*v, depth + 1);
      return;
    }
    case ExprKind::Compare: {
      const auto *c = e.as<Compare>();
      std::string ops;
      for (CmpOp op : c->ops) ops += std::string(" ") + cmp_op_spelling(op);
      line(depth, "Compare" + ops + " " + where);
      expr(*c->left, depth + 1);
      for (const auto &v : c->comparators) expr(*v, depth + 1);
      return;
    }
    case ExprKind::IfExp: {
      const auto *i = e.as<IfExp>();
      line(depth, "IfExp " + where);
      expr(*i->test, depth + 1);
      expr(*i->body, depth + 1);
      expr(*i->orelse, depth + 1);
      return;
    }
    case ExprKind::Tuple:
      line(depth, "Tuple " + where);
      for (const auto &v : e.as<Tuple>()->elts) expr(*v, depth + 1);
      return;
    case ExprKind::List:
      line(depth, "List " + where);
      for (const auto &v : e.as<List>()->elts) expr(*v, depth + 1);
      return;
    case ExprKind::Slice: {
      const auto *s = e.as<Slice>();
      line(depth, "Slice " + where);
      for (const ExprPtr *part : {&s->lower, &s->upper, &s->step}) {
        if (*part) {
          expr(**part, depth + 1);
        } else {
          line(depth + 1, "None");
        }
      }
      return;
    }
    case ExprKind::Subscript: {
      const auto *s = e.as<Subscript>();
      line(depth, "Subscript " + where);
      expr(*s->value, depth + 1);
      expr(*s->index, depth + 1);
      return;
    }
  }
}

std::string import_names(const std::vector<ast::ImportAlias> &names) {
  std::string out;
  for (const auto &alias : names) {
    out += " " + alias.name;
    if (!alias.asname.empty()) out += " as " + alias.asname;
  }
  return out;
}

void AstDumper::stmt(const ast::Stmt &s, int depth) {
  using namespace ast;
  std::string where = at(s.loc);
  switch (s.kind) {
    case StmtKind::ExprStmt:
      line(depth, "ExprStmt " + where);
      expr(*s.as<ExprStmt>()->value, depth + 1);
      return;
    case StmtKind::Assign: {
      const auto *a = s.as<Assign>();
      line(depth, "Assign " + where);
      line(depth + 1, "targets:");
      for (const auto &t : a->targets) expr(*t, depth + 2);
      line(depth + 1, "value:");
      expr(*a->value, depth + 2);
      return;
    }
    case StmtKind::AugAssign: {
      const auto *a = s.as<AugAssign>();
      line(depth, std::string("AugAssign ") + binary_op_spelling(a->op) + "= " + where);
      expr(*a->target, depth + 1);
      expr(*a->value, depth + 1);
      return;
    }
    case StmtKind::If: {
      // An elif (an orelse that is one If) is printed beside the body, not
      // inside orelse: nested, a chain of n elifs printed O(n^2) spaces of
      // indentation (gigabytes for 10,000 branches) and recursed n deep.
      const auto *i = s.as<If>();
      line(depth, "If " + where);
      expr(*i->test, depth + 1);
      body("body:", i->body, depth + 1);
      while (i->orelse.size() == 1 && i->orelse.front()->kind == StmtKind::If) {
        i = i->orelse.front()->as<If>();
        line(depth + 1, "elif " + at(i->loc) + ":");
        expr(*i->test, depth + 2);
        body("body:", i->body, depth + 2);
      }
      body("orelse:", i->orelse, depth + 1);
      return;
    }
    case StmtKind::While: {
      const auto *w = s.as<While>();
      line(depth, "While " + where);
      expr(*w->test, depth + 1);
      body("body:", w->body, depth + 1);
      if (!w->orelse.empty()) body("orelse:", w->orelse, depth + 1);
      return;
    }
    case StmtKind::For: {
      const auto *f = s.as<For>();
      line(depth, "For " + where);
      expr(*f->target, depth + 1);
      expr(*f->iter, depth + 1);
      body("body:", f->body, depth + 1);
      if (!f->orelse.empty()) body("orelse:", f->orelse, depth + 1);
      return;
    }
    case StmtKind::Break:
      line(depth, "Break " + where);
      return;
    case StmtKind::Continue:
      line(depth, "Continue " + where);
      return;
    case StmtKind::Return: {
      const auto *r = s.as<Return>();
      line(depth, "Return " + where);
      if (r->value) expr(*r->value, depth + 1);
      return;
    }
    case StmtKind::Pass:
      line(depth, "Pass " + where);
      return;
    case StmtKind::Raise: {
      const auto *r = s.as<Raise>();
      line(depth, "Raise " + where);
      if (r->exc) expr(*r->exc, depth + 1);
      return;
    }
    case StmtKind::FunctionDef: {
      const auto *f = s.as<FunctionDef>();
      std::string params;
      for (const auto &p : f->params) params += (params.empty() ? "" : ", ") + p.name;
      line(depth, "FunctionDef " + f->name + "(" + params + ") " + where);
      if (!f->decorators.empty()) {
        line(depth + 1, "decorators:");
        for (const auto &d : f->decorators) expr(*d.expr, depth + 2);
      }
      if (f->docstring) line(depth + 1, "docstring " + ast::string_repr(*f->docstring));
      body("body:", f->body, depth + 1);
      return;
    }
    case StmtKind::Import:
      line(depth, "Import" + import_names(s.as<Import>()->names) + " " + where);
      return;
    case StmtKind::ImportFrom: {
      const auto *i = s.as<ImportFrom>();
      line(depth, "ImportFrom " + i->module + " import" + import_names(i->names) + " " + where);
      return;
    }
  }
}

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
