#include "ir/IRPrinter.h"

#include <cmath>
#include <sstream>

#include "frontend/AST.h"
#include "frontend/InternalAssert.h"
#include "frontend/LargeStack.h"
#include "ir/Numeric.h"

namespace ufjit::ir {

namespace {

std::string print_const(const Const *c) {
  const Type &t = c->type;
  DType d = t.dtype();
  std::string v;
  if (is_bool(d)) {
    v = c->int_bits != 0 ? "True" : "False";
  } else if (is_signed_int(d)) {
    v = std::to_string(c->as_int64());
  } else if (is_unsigned_int(d)) {
    v = std::to_string(c->int_bits);
  } else if (is_float(d)) {
    v = format_float(d, c->float_value);
  } else {
    double re = c->complex_value.real();
    double im = c->complex_value.imag();
    bool negative_imag = !std::isnan(im) && std::signbit(im);
    v = "(" + format_float(d, re) + (negative_imag ? "-" : "+") + format_float(d, negative_imag ? -im : im) + "j)";
  }
  return v + ":" + t.str();
}

class Printer {
 public:
  std::string expr(const Expr &e) {
    internal_assert(e) << "printing a null expression";
    switch (e->kind) {
      case NodeKind::Const:
        return print_const(e.as<Const>());
      case NodeKind::Var:
        return e.as<Var>()->name;
      case NodeKind::Cast: {
        const Cast *c = e.as<Cast>();
        return c->type.str() + "(" + expr(c->value) + ")";
      }
      case NodeKind::Unary: {
        const Unary *u = e.as<Unary>();
        return std::string("(") + unary_opcode_name(u->op) + expr(u->value) + ")";
      }
      case NodeKind::Binary: {
        const Binary *b = e.as<Binary>();
        return "(" + expr(b->a) + " " + binary_opcode_name(b->op) + " " + expr(b->b) + ")";
      }
      case NodeKind::Compare: {
        const Compare *b = e.as<Compare>();
        return "(" + expr(b->a) + " " + compare_opcode_name(b->op) + " " + expr(b->b) + ")";
      }
      case NodeKind::Select: {
        const Select *s = e.as<Select>();
        return "(" + expr(s->a) + " if " + expr(s->cond) + " else " + expr(s->b) + ")";
      }
      case NodeKind::ShortCircuit: {
        const ShortCircuit *s = e.as<ShortCircuit>();
        const char *op = s->op == ShortCircuit::Op::And ? " and " : " or ";
        return "(" + expr(s->a) + op + expr(s->b) + ")";
      }
      case NodeKind::Call: {
        const Call *c = e.as<Call>();
        return "call " + c->callee + "(" + list(c->args) + ")";
      }
      case NodeKind::Intrinsic: {
        const Intrinsic *i = e.as<Intrinsic>();
        return std::string(intrinsic_name(i->op)) + "(" + list(i->args) + ")";
      }
      case NodeKind::MakeTuple: {
        const MakeTuple *t = e.as<MakeTuple>();
        return "(" + list(t->elements) + (t->elements.size() == 1 ? ",)" : ")");
      }
      case NodeKind::TupleGet: {
        const TupleGet *t = e.as<TupleGet>();
        return expr(t->tuple) + "[" + std::to_string(t->index) + "]";
      }
      case NodeKind::ArrayLoad: {
        const ArrayLoad *a = e.as<ArrayLoad>();
        return expr(a->array) + "[" + list(a->indices) + "]";
      }
      case NodeKind::ArrayDim: {
        const ArrayDim *a = e.as<ArrayDim>();
        return expr(a->array) + ".shape[" + std::to_string(a->dim) + "]";
      }
      case NodeKind::ArraySlice: {
        // a[i, start +: length by step]: index i; `length` elements from `start`.
        const ArraySlice *a = e.as<ArraySlice>();
        std::string out = expr(a->array) + "[";
        for (std::size_t k = 0; k < a->dims.size(); ++k) {
          const ArraySlice::Dim &d = a->dims[k];
          if (k > 0) out += ", ";
          out += expr(d.start);
          if (d.length) out += " +: " + expr(d.length) + " by " + std::to_string(d.step);
        }
        return out + "]";
      }
      default:
        break;
    }
    internal_error << "printing: not an expression: " << node_kind_name(e->kind);
    return "";
  }

  void stmt(const Stmt &s, int indent) {
    internal_assert(s) << "printing a null statement";
    std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    switch (s->kind) {
      case NodeKind::Block:
        for (const Stmt &c : s.as<Block>()->stmts) stmt(c, indent);
        return;
      case NodeKind::Assign: {
        const Assign *a = s.as<Assign>();
        out_ << pad << a->var << " = " << expr(a->value) << "\n";
        return;
      }
      case NodeKind::ArrayStore: {
        const ArrayStore *a = s.as<ArrayStore>();
        out_ << pad << expr(a->array) << "[" << list(a->indices) << "] = " << expr(a->value) << "\n";
        return;
      }
      case NodeKind::If: {
        // An elif chain prints flat ("} else if c {"): nested, its
        // indentation grew with its length (10,000 elifs: 1 GB of text).
        const If *i = s.as<If>();
        out_ << pad << "if " << expr(i->cond) << " {\n";
        for (;;) {
          stmt(i->then_body, indent + 1);
          if (const If *elif = i->elif()) {
            out_ << pad << "} else if " << expr(elif->cond) << " {\n";
            i = elif;
            continue;
          }
          if (i->else_body) {
            out_ << pad << "} else {\n";
            stmt(i->else_body, indent + 1);
          }
          break;
        }
        out_ << pad << "}\n";
        return;
      }
      case NodeKind::While: {
        const While *w = s.as<While>();
        out_ << pad << "while " << expr(w->cond) << " {\n";
        stmt(w->body, indent + 1);
        out_ << pad << "}\n";
        return;
      }
      case NodeKind::ForRange: {
        const ForRange *f = s.as<ForRange>();
        out_ << pad << "for " << f->var << " in range(" << expr(f->start) << ", " << expr(f->stop) << ", "
             << expr(f->step) << ") {\n";
        stmt(f->body, indent + 1);
        out_ << pad << "}\n";
        return;
      }
      case NodeKind::Break:
        out_ << pad << "break\n";
        return;
      case NodeKind::Continue:
        out_ << pad << "continue\n";
        return;
      case NodeKind::Return: {
        const Return *r = s.as<Return>();
        out_ << pad << "return";
        if (r->value) out_ << " " << expr(r->value);
        out_ << "\n";
        return;
      }
      case NodeKind::Raise: {
        const Raise *r = s.as<Raise>();
        out_ << pad << "raise " << r->exception << "(" << ast::string_repr(r->message) << ") site " << r->site << " at "
             << r->file << ":" << r->line << ":" << r->col << "\n";
        return;
      }
      case NodeKind::Evaluate:
        out_ << pad << "eval " << expr(s.as<Evaluate>()->value) << "\n";
        return;
      default:
        break;
    }
    internal_error << "printing: not a statement: " << node_kind_name(s->kind);
  }

  void function(const Function &f) {
    out_ << "func " << f.name << "(";
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      if (i > 0) out_ << ", ";
      out_ << f.params[i].name << ": " << f.params[i].type.str();
    }
    out_ << ") -> " << f.ret.str() << " {\n";
    for (const Variable &v : f.locals) out_ << "  var " << v.name << ": " << v.type.str() << "\n";
    if (f.body) stmt(f.body, 1);
    out_ << "}\n";
  }

  std::string text() const { return out_.str(); }
  std::ostringstream &out() { return out_; }

 private:
  std::string list(const std::vector<Expr> &es) {
    std::string s;
    for (std::size_t i = 0; i < es.size(); ++i) {
      if (i > 0) s += ", ";
      s += expr(es[i]);
    }
    return s;
  }

  std::ostringstream out_;
};

}  // namespace

std::string print(const Module &m) {
  // The runtime prints modules for its cache keys on the caller's thread.
  return run_with_large_stack([&] {
    Printer p;
    std::string entry = m.functions.empty() ? std::string("?") : m.entry_function().name;
    p.out() << "module " << m.name << " entry=" << entry << " fastmath=" << (m.options.fastmath ? "true" : "false")
            << "\n";
    for (const ExternFunction &x : m.externs) {
      p.out() << "extern " << (x.abi == ExternFunction::Abi::C ? "abi=c " : "abi=numba ") << x.name << "(";
      for (std::size_t i = 0; i < x.params.size(); ++i) p.out() << (i ? ", " : "") << x.params[i].str();
      p.out() << ") -> " << x.ret.str() << "\n";
    }
    for (const LinkFile &f : m.link_files) {
      // FNV-1a of the bytes: the helper's content is part of every cache key.
      uint64_t hash = 1469598103934665603ull;
      for (unsigned char c : f.bytes) hash = (hash ^ c) * 1099511628211ull;
      p.out() << "link " << f.spelled << " bytes=" << f.bytes.size() << " fnv1a=" << std::hex << hash << std::dec;
      for (const std::string &option : f.nvrtc_options) p.out() << " nvrtc:" << option;
      p.out() << "\n";
    }
    for (const Function &f : m.functions) p.function(f);
    return p.text();
  });
}

std::string print(const Function &f) {
  Printer p;
  p.function(f);
  return p.text();
}

std::string print(const Expr &e) {
  Printer p;
  return p.expr(e);
}

std::string print(const Stmt &s, int indent) {
  Printer p;
  p.stmt(s, indent);
  return p.text();
}

}  // namespace ufjit::ir
