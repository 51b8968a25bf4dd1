#include "ir/IRPrinter.h"

#include <cmath>
#include <cstdio>

#include "frontend/AST.h"
#include "support/InternalAssert.h"
#include "support/LargeStack.h"
#include "ir/IRVisitor.h"
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

/// Prints into one string: each part is appended where it goes (the module's
/// text is hashed for every signature typed, so no part is built apart).
class Printer {
 public:
  void expr(const Expr &e) {
    internal_assert(e) << "printing a null expression";
    dispatch(e, "printing", [this](const auto *n) { node(n); });
  }

  void stmt(const Stmt &s, int indent) {
    internal_assert(s) << "printing a null statement";
    dispatch(s, "printing", [this, indent](const auto *n) { node(n, indent); });
  }

  void function(const Function &f) {
    out_ += "func " + f.name + "(";
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      if (i > 0) out_ += ", ";
      out_ += f.params[i].name + ": " + f.params[i].type.str();
    }
    out_ += ") -> " + f.ret.str() + " {\n";
    for (const Variable &v : f.locals) out_ += "  var " + v.name + ": " + v.type.str() + "\n";
    if (f.body) stmt(f.body, 1);
    out_ += "}\n";
  }

  std::string &out() { return out_; }

 private:
  // Expressions, one overload per kind of UFJIT_FOR_EACH_IR_EXPR.
  void node(const Const *c) {
    out_ += print_const(c);
  }

  void node(const Var *v) {
    out_ += v->name;
  }

  void node(const Cast *c) {
    out_ += c->type.str();
    out_ += '(';
    expr(c->value);
    out_ += ')';
  }

  void node(const Unary *u) {
    out_ += '(';
    out_ += unary_opcode_name(u->op);
    expr(u->value);
    out_ += ')';
  }

  void node(const Binary *b) {
    infix(b->a, binary_opcode_name(b->op), b->b);
  }

  void node(const Compare *b) {
    infix(b->a, compare_opcode_name(b->op), b->b);
  }

  void node(const Select *s) {
    out_ += '(';
    expr(s->a);
    out_ += " if ";
    expr(s->cond);
    out_ += " else ";
    expr(s->b);
    out_ += ')';
  }

  void node(const ShortCircuit *s) {
    infix(s->a, s->op == ShortCircuit::Op::And ? "and" : "or", s->b);
  }

  void node(const Call *c) {
    out_ += "call ";
    out_ += c->callee;
    out_ += '(';
    list(c->args);
    out_ += ')';
  }

  void node(const Intrinsic *i) {
    out_ += intrinsic_name(i->op);
    out_ += '(';
    list(i->args);
    out_ += ')';
  }

  void node(const MakeTuple *t) {
    out_ += '(';
    list(t->elements);
    out_ += t->elements.size() == 1 ? ",)" : ")";
  }

  void node(const TupleGet *t) {
    expr(t->tuple);
    out_ += '[';
    out_ += std::to_string(t->index);
    out_ += ']';
  }

  void node(const ArrayLoad *a) {
    expr(a->array);
    out_ += '[';
    list(a->indices);
    out_ += ']';
    line_mark(a->line);
  }

  /// A checked module's access line: "@12" (nothing elsewhere, so that
  /// other modules print as they always have).
  void line_mark(int line) {
    if (line != 0) out_ += "@" + std::to_string(line);
  }

  void node(const ArrayDim *a) {
    expr(a->array);
    out_ += ".shape[";
    out_ += std::to_string(a->dim);
    out_ += ']';
  }

  // a[i, start +: length by step]: index i; `length` elements from `start`.
  void node(const ArraySlice *a) {
    expr(a->array);
    out_ += '[';
    for (std::size_t k = 0; k < a->dims.size(); ++k) {
      const ArraySlice::Dim &d = a->dims[k];
      if (k > 0) out_ += ", ";
      expr(d.start);
      if (d.length) {
        out_ += " +: ";
        expr(d.length);
        out_ += " by ";
        out_ += std::to_string(d.step);
      }
    }
    out_ += ']';
  }

  // a.field<float32(2) @8>: the field's dtype, subarray shape and offset.
  void node(const ArrayField *a) {
    expr(a->array);
    out_ += ".field<";
    out_ += dtype_name(a->type.dtype());
    if (!a->shape.empty()) {
      out_ += '(';
      for (std::size_t k = 0; k < a->shape.size(); ++k) out_ += (k > 0 ? ", " : "") + std::to_string(a->shape[k]);
      out_ += ')';
    }
    out_ += " @" + std::to_string(a->offset) + '>';
  }

  // shared_array<float32>(16, 16 @ 0): its space, dtype, shape and offset.
  void node(const ArrayAlloc *a) {
    out_ += memory_space_name(a->space);
    out_ += "_array<";
    out_ += dtype_name(a->type.dtype());
    out_ += ">(";
    for (std::size_t k = 0; k < a->shape.size(); ++k) {
      if (k > 0) out_ += ", ";
      out_ += std::to_string(a->shape[k]);
    }
    if (a->space == MemorySpace::Shared) {
      out_ += " @ ";
      out_ += std::to_string(a->offset);
    }
    if (a->space == MemorySpace::Constant) {
      // Every byte: the kernel caches key on this text.
      static constexpr char kHex[] = "0123456789abcdef";
      out_ += " = 0x";
      for (unsigned char c : *a->data) {
        out_ += kHex[c >> 4];
        out_ += kHex[c & 15];
      }
    }
    out_ += ')';
  }

  void node(const ArrayAtomic *a) {
    out_ += "atomic_";
    out_ += atomic_op_name(a->op);
    out_ += '(';
    expr(a->array);
    out_ += '[';
    list(a->indices);
    out_ += "], ";
    if (a->compare) {
      expr(a->compare);
      out_ += ", ";
    }
    expr(a->value);
    out_ += ')';
  }

  void node(const Sync *s) {
    out_ += sync_op_name(s->op);
    out_ += '(';
    list(s->args);
    out_ += ") @line ";
    out_ += std::to_string(s->line);
  }

  // Statements, one overload per kind of UFJIT_FOR_EACH_IR_STMT; each line
  // starts with `indent` levels of two spaces.
  void pad(int indent) {
    out_.append(static_cast<std::size_t>(indent) * 2, ' ');
  }

  void node(const Block *b, int indent) {
    for (const Stmt &c : b->stmts) stmt(c, indent);
  }

  void node(const Assign *a, int indent) {
    pad(indent);
    out_ += a->var;
    out_ += " = ";
    expr(a->value);
    out_ += '\n';
  }

  void node(const ArrayStore *a, int indent) {
    pad(indent);
    expr(a->array);
    out_ += '[';
    list(a->indices);
    out_ += ']';
    line_mark(a->line);
    out_ += " = ";
    expr(a->value);
    out_ += '\n';
  }

  // An elif chain prints flat ("} else if c {"): nested, its indentation
  // grew with its length (10,000 elifs: 1 GB of text).
  void node(const If *i, int indent) {
    pad(indent);
    out_ += "if ";
    expr(i->cond);
    out_ += " {\n";
    for (;;) {
      stmt(i->then_body, indent + 1);
      if (const If *elif = i->elif ()) {
        pad(indent);
        out_ += "} else if ";
        expr(elif->cond);
        out_ += " {\n";
        i = elif;
        continue;
      }
      if (i->else_body) {
        pad(indent);
        out_ += "} else {\n";
        stmt(i->else_body, indent + 1);
      }
      break;
    }
    pad(indent);
    out_ += "}\n";
  }

  void node(const While *w, int indent) {
    pad(indent);
    out_ += "while ";
    expr(w->cond);
    out_ += " {\n";
    stmt(w->body, indent + 1);
    pad(indent);
    out_ += "}\n";
  }

  void node(const ForRange *f, int indent) {
    pad(indent);
    out_ += "for ";
    out_ += f->var;
    out_ += " in range(";
    expr(f->start);
    out_ += ", ";
    expr(f->stop);
    out_ += ", ";
    expr(f->step);
    out_ += ") {\n";
    stmt(f->body, indent + 1);
    pad(indent);
    out_ += "}\n";
  }

  void node(const Break *, int indent) {
    pad(indent);
    out_ += "break\n";
  }

  void node(const Continue *, int indent) {
    pad(indent);
    out_ += "continue\n";
  }

  void node(const Return *r, int indent) {
    pad(indent);
    out_ += "return";
    if (r->value) {
      out_ += ' ';
      expr(r->value);
    }
    out_ += '\n';
  }

  void node(const Raise *r, int indent) {
    pad(indent);
    out_ += "raise " + r->exception + "(" + ast::string_repr(r->message);
    for (const Expr &v : r->values) {
      out_ += ", ";
      expr(v);
    }
    out_ += ") site " +
            std::to_string(r->site) + " at " + r->file + ":" + std::to_string(r->line) + ":" +
            std::to_string(r->col) + "\n";
  }

  void node(const Print *p, int indent) {
    pad(indent);
    out_ += "print " + ast::string_repr(p->format);
    for (const Expr &a : p->args) {
      out_ += ", ";
      expr(a);
    }
    out_ += '\n';
  }

  void node(const Evaluate *e, int indent) {
    pad(indent);
    out_ += "eval ";
    expr(e->value);
    out_ += '\n';
  }

  /// "(a op b)"
  void infix(const Expr &a, const char *op, const Expr &b) {
    out_ += '(';
    expr(a);
    out_ += ' ';
    out_ += op;
    out_ += ' ';
    expr(b);
    out_ += ')';
  }

  void list(const std::vector<Expr> &es) {
    for (std::size_t i = 0; i < es.size(); ++i) {
      if (i > 0) out_ += ", ";
      expr(es[i]);
    }
  }

  std::string out_;
};

}  // namespace

std::string print(const Module &m) {
  // The runtime prints modules for its cache keys on the caller's thread.
  return run_with_large_stack([&] {
    Printer p;
    std::string &out = p.out();
    std::string entry = m.functions.empty() ? std::string("?") : m.entry_function().name;
    out += "module " + m.name + " entry=" + entry + " fastmath=" + (m.options.fastmath ? "true" : "false");
    if (m.explicit_kernel) {
      out += " kernel shared_bytes=" + std::to_string(m.shared_bytes) + (m.threads_wait ? " threads_wait" : "") +
             (m.checked ? " checked" : "");
    }
    out += "\n";
    for (const ExternFunction &x : m.externs) {
      out += "extern ";
      out += x.abi == ExternFunction::Abi::C ? "abi=c " : "abi=numba ";
      out += x.name + "(";
      for (std::size_t i = 0; i < x.params.size(); ++i) out += (i ? ", " : "") + x.params[i].str();
      out += ") -> " + x.ret.str() + "\n";
    }
    for (const LinkFile &f : m.link_files) {
      // FNV-1a of the bytes: the helper's content is part of every cache key.
      uint64_t hash = 1469598103934665603ull;
      for (unsigned char c : f.bytes) hash = (hash ^ c) * 1099511628211ull;
      char hex[17];
      std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(hash));
      out += "link " + f.spelled + " bytes=" + std::to_string(f.bytes.size()) + " fnv1a=" + hex;
      for (const std::string &option : f.nvrtc_options) out += " nvrtc:" + option;
      out += "\n";
    }
    for (const Function &f : m.functions) p.function(f);
    return std::move(out);
  });
}

std::string print(const Function &f) {
  Printer p;
  p.function(f);
  return std::move(p.out());
}

std::string print(const Expr &e) {
  Printer p;
  p.expr(e);
  return std::move(p.out());
}

std::string print(const Stmt &s, int indent) {
  Printer p;
  p.stmt(s, indent);
  return std::move(p.out());
}

}  // namespace ufjit::ir
