#include "ir/IRVisitor.h"

#include "support/InternalAssert.h"

namespace ufjit::ir {

// ------------------------------------------------------------------ visitor

void IRVisitor::visit_expr(const Expr &e) {
  if (!e) return;
  dispatch(e, "visit_expr", [this](const auto *node) { visit(node); });
}

void IRVisitor::visit_stmt(const Stmt &s) {
  if (!s) return;
  dispatch(s, "visit_stmt", [this](const auto *node) { visit(node); });
}

void IRVisitor::visit(const Const *) {}
void IRVisitor::visit(const Var *) {}
void IRVisitor::visit(const Cast *op) { visit_expr(op->value); }
void IRVisitor::visit(const Unary *op) { visit_expr(op->value); }
void IRVisitor::visit(const Binary *op) {
  visit_expr(op->a);
  visit_expr(op->b);
}
void IRVisitor::visit(const Compare *op) {
  visit_expr(op->a);
  visit_expr(op->b);
}
void IRVisitor::visit(const Select *op) {
  visit_expr(op->cond);
  visit_expr(op->a);
  visit_expr(op->b);
}
void IRVisitor::visit(const ShortCircuit *op) {
  visit_expr(op->a);
  visit_expr(op->b);
}
void IRVisitor::visit(const Call *op) {
  for (const Expr &a : op->args) visit_expr(a);
}
void IRVisitor::visit(const Intrinsic *op) {
  for (const Expr &a : op->args) visit_expr(a);
}
void IRVisitor::visit(const MakeTuple *op) {
  for (const Expr &a : op->elements) visit_expr(a);
}
void IRVisitor::visit(const TupleGet *op) { visit_expr(op->tuple); }
void IRVisitor::visit(const ArrayLoad *op) {
  visit_expr(op->array);
  for (const Expr &i : op->indices) visit_expr(i);
}
void IRVisitor::visit(const ArrayDim *op) { visit_expr(op->array); }
void IRVisitor::visit(const ArraySlice *op) {
  visit_expr(op->array);
  for (const ArraySlice::Dim &d : op->dims) {
    visit_expr(d.start);
    if (d.length) visit_expr(d.length);
  }
}
void IRVisitor::visit(const ArrayField *op) { visit_expr(op->array); }

void IRVisitor::visit(const ArrayAlloc *op) { (void)op; }
void IRVisitor::visit(const ArrayAtomic *op) {
  visit_expr(op->array);
  for (const Expr &i : op->indices) visit_expr(i);
  visit_expr(op->value);
  visit_expr(op->compare);
}
void IRVisitor::visit(const Sync *op) {
  for (const Expr &a : op->args) visit_expr(a);
}

void IRVisitor::visit(const Block *op) {
  for (const Stmt &s : op->stmts) visit_stmt(s);
}
void IRVisitor::visit(const Assign *op) { visit_expr(op->value); }
void IRVisitor::visit(const ArrayStore *op) {
  visit_expr(op->array);
  for (const Expr &i : op->indices) visit_expr(i);
  visit_expr(op->value);
}
void IRVisitor::visit(const If *op) {
  visit_expr(op->cond);
  visit_stmt(op->then_body);
  visit_stmt(op->else_body);
}
void IRVisitor::visit(const While *op) {
  visit_expr(op->cond);
  visit_stmt(op->body);
}
void IRVisitor::visit(const ForRange *op) {
  visit_expr(op->start);
  visit_expr(op->stop);
  visit_expr(op->step);
  visit_stmt(op->body);
}
void IRVisitor::visit(const Break *) {}
void IRVisitor::visit(const Continue *) {}
void IRVisitor::visit(const Return *op) { visit_expr(op->value); }
void IRVisitor::visit(const Raise *op) {
  for (const Expr &v : op->values) visit_expr(v);
}
void IRVisitor::visit(const Evaluate *op) { visit_expr(op->value); }
void IRVisitor::visit(const Print *op) {
  for (const Expr &a : op->args) visit_expr(a);
}

// ------------------------------------------------------------------ mutator

Expr IRMutator::mutate(const Expr &e) {
  if (!e) return e;
  return dispatch(e, "mutate", [&](const auto *node) { return visit(node, e); });
}

Stmt IRMutator::mutate(const Stmt &s) {
  if (!s) return s;
  return dispatch(s, "mutate", [&](const auto *node) { return visit(node, s); });
}

namespace {

/// Mutates each element; true if any changed.
template <typename T, typename M>
bool mutate_all(M &m, const std::vector<T> &in, std::vector<T> &out) {
  bool changed = false;
  out.reserve(in.size());
  for (const T &x : in) {
    out.push_back(m.mutate(x));
    changed = changed || !out.back().same_as(x);
  }
  return changed;
}

}  // namespace

Expr IRMutator::visit(const Const *, const Expr &self) { return self; }
Expr IRMutator::visit(const Var *, const Expr &self) { return self; }
Expr IRMutator::visit(const Cast *op, const Expr &self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : Cast::make(op->type.dtype(), v);
}
Expr IRMutator::visit(const Unary *op, const Expr &self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : Unary::make(op->op, v);
}
Expr IRMutator::visit(const Binary *op, const Expr &self) {
  Expr a = mutate(op->a);
  Expr b = mutate(op->b);
  return a.same_as(op->a) && b.same_as(op->b) ? self : Binary::make(op->op, a, b);
}
Expr IRMutator::visit(const Compare *op, const Expr &self) {
  Expr a = mutate(op->a);
  Expr b = mutate(op->b);
  return a.same_as(op->a) && b.same_as(op->b) ? self : Compare::make(op->op, a, b);
}
Expr IRMutator::visit(const Select *op, const Expr &self) {
  Expr c = mutate(op->cond);
  Expr a = mutate(op->a);
  Expr b = mutate(op->b);
  if (c.same_as(op->cond) && a.same_as(op->a) && b.same_as(op->b)) return self;
  return Select::make(c, a, b);
}
Expr IRMutator::visit(const ShortCircuit *op, const Expr &self) {
  Expr a = mutate(op->a);
  Expr b = mutate(op->b);
  return a.same_as(op->a) && b.same_as(op->b) ? self : ShortCircuit::make(op->op, a, b);
}
Expr IRMutator::visit(const Call *op, const Expr &self) {
  std::vector<Expr> args;
  if (!mutate_all(*this, op->args, args)) return self;
  return Call::make(op->type, op->callee, std::move(args));
}
Expr IRMutator::visit(const Intrinsic *op, const Expr &self) {
  std::vector<Expr> args;
  if (!mutate_all(*this, op->args, args)) return self;
  return Intrinsic::make(op->op, op->type, std::move(args));
}
Expr IRMutator::visit(const MakeTuple *op, const Expr &self) {
  std::vector<Expr> els;
  if (!mutate_all(*this, op->elements, els)) return self;
  return MakeTuple::make(std::move(els));
}
Expr IRMutator::visit(const TupleGet *op, const Expr &self) {
  Expr t = mutate(op->tuple);
  return t.same_as(op->tuple) ? self : TupleGet::make(t, op->index);
}
Expr IRMutator::visit(const ArrayLoad *op, const Expr &self) {
  Expr a = mutate(op->array);
  std::vector<Expr> idx;
  bool changed = mutate_all(*this, op->indices, idx);
  if (!changed && a.same_as(op->array)) return self;
  return ArrayLoad::make(a, std::move(idx), op->line);
}
Expr IRMutator::visit(const ArrayDim *op, const Expr &self) {
  Expr a = mutate(op->array);
  return a.same_as(op->array) ? self : ArrayDim::make(a, op->dim);
}
Expr IRMutator::visit(const ArraySlice *op, const Expr &self) {
  Expr a = mutate(op->array);
  bool changed = !a.same_as(op->array);
  std::vector<ArraySlice::Dim> dims = op->dims;
  for (ArraySlice::Dim &d : dims) {
    Expr start = mutate(d.start);
    Expr length = d.length ? mutate(d.length) : Expr();
    changed = changed || !start.same_as(d.start) || (d.length && !length.same_as(d.length));
    d.start = start;
    d.length = length;
  }
  return changed ? ArraySlice::make(a, std::move(dims)) : self;
}
Expr IRMutator::visit(const ArrayField *op, const Expr &self) {
  Expr a = mutate(op->array);
  return a.same_as(op->array) ? self : ArrayField::make(a, op->type.dtype(), op->offset, op->shape);
}

Expr IRMutator::visit(const ArrayAlloc *op, const Expr &self) {
  (void)op;
  return self;
}
Expr IRMutator::visit(const ArrayAtomic *op, const Expr &self) {
  Expr a = mutate(op->array);
  std::vector<Expr> idx;
  bool changed = mutate_all(*this, op->indices, idx);
  Expr v = mutate(op->value);
  Expr c = mutate(op->compare);
  if (!changed && a.same_as(op->array) && v.same_as(op->value) && c.same_as(op->compare)) return self;
  return ArrayAtomic::make(op->op, a, std::move(idx), v, c);
}
Expr IRMutator::visit(const Sync *op, const Expr &self) {
  std::vector<Expr> args;
  if (!mutate_all(*this, op->args, args)) return self;
  return Sync::make(op->op, op->type, std::move(args), op->line);
}

Stmt IRMutator::visit(const Block *op, const Stmt &self) {
  std::vector<Stmt> stmts;
  if (!mutate_all(*this, op->stmts, stmts)) return self;
  return Block::make(std::move(stmts));
}
Stmt IRMutator::visit(const Assign *op, const Stmt &self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : Assign::make(op->var, v);
}
Stmt IRMutator::visit(const ArrayStore *op, const Stmt &self) {
  Expr a = mutate(op->array);
  std::vector<Expr> idx;
  bool changed = mutate_all(*this, op->indices, idx);
  Expr v = mutate(op->value);
  if (!changed && a.same_as(op->array) && v.same_as(op->value)) return self;
  return ArrayStore::make(a, std::move(idx), v, op->line);
}
Stmt IRMutator::visit(const If *op, const Stmt &self) {
  Expr c = mutate(op->cond);
  Stmt t = mutate(op->then_body);
  Stmt e = mutate(op->else_body);
  if (c.same_as(op->cond) && t.same_as(op->then_body) && e.same_as(op->else_body)) return self;
  return If::make(c, t, e);
}
Stmt IRMutator::visit(const While *op, const Stmt &self) {
  Expr c = mutate(op->cond);
  Stmt b = mutate(op->body);
  return c.same_as(op->cond) && b.same_as(op->body) ? self : While::make(c, b);
}
Stmt IRMutator::visit(const ForRange *op, const Stmt &self) {
  Expr start = mutate(op->start);
  Expr stop = mutate(op->stop);
  Expr step = mutate(op->step);
  Stmt b = mutate(op->body);
  if (start.same_as(op->start) && stop.same_as(op->stop) && step.same_as(op->step) && b.same_as(op->body)) return self;
  return ForRange::make(op->var, start, stop, step, b);
}
Stmt IRMutator::visit(const Break *, const Stmt &self) { return self; }
Stmt IRMutator::visit(const Continue *, const Stmt &self) { return self; }
Stmt IRMutator::visit(const Raise *op, const Stmt &self) {
  std::vector<Expr> values;
  if (!mutate_all(*this, op->values, values)) return self;
  return Raise::make(op->exception, op->message, op->file, op->line, op->col, op->site, std::move(values));
}
Stmt IRMutator::visit(const Return *op, const Stmt &self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : Return::make(v);
}
Stmt IRMutator::visit(const Print *op, const Stmt &self) {
  std::vector<Expr> args;
  if (!mutate_all(*this, op->args, args)) return self;
  return Print::make(op->format, std::move(args));
}

Stmt IRMutator::visit(const Evaluate *op, const Stmt &self) {
  Expr v = mutate(op->value);
  return v.same_as(op->value) ? self : Evaluate::make(v);
}

// ------------------------------------------------------------------ helpers

namespace {

class ExprWalker : public IRVisitor {
 public:
  explicit ExprWalker(const std::function<void(const Expr &)> &fn) : fn_(fn) {}
  void walk(const Expr &e) {
    if (!e) return;
    fn_(e);
    visit_expr(e);
  }

 protected:
  // Re-route child visits through walk() so that fn_ sees every node.
  void visit(const Cast *op) override { walk(op->value); }
  void visit(const Unary *op) override { walk(op->value); }
  void visit(const Binary *op) override {
    walk(op->a);
    walk(op->b);
  }
  void visit(const Compare *op) override {
    walk(op->a);
    walk(op->b);
  }
  void visit(const Select *op) override {
    walk(op->cond);
    walk(op->a);
    walk(op->b);
  }
  void visit(const ShortCircuit *op) override {
    walk(op->a);
    walk(op->b);
  }
  void visit(const Call *op) override {
    for (const Expr &a : op->args) walk(a);
  }
  void visit(const Intrinsic *op) override {
    for (const Expr &a : op->args) walk(a);
  }
  void visit(const MakeTuple *op) override {
    for (const Expr &a : op->elements) walk(a);
  }
  void visit(const TupleGet *op) override { walk(op->tuple); }
  void visit(const ArrayLoad *op) override {
    walk(op->array);
    for (const Expr &i : op->indices) walk(i);
  }
  void visit(const ArrayDim *op) override { walk(op->array); }
  void visit(const ArraySlice *op) override {
    walk(op->array);
    for (const ArraySlice::Dim &d : op->dims) {
      walk(d.start);
      if (d.length) walk(d.length);
    }
  }
  void visit(const ArrayField *op) override { walk(op->array); }
  void visit(const ArrayAtomic *op) override {
    walk(op->array);
    for (const Expr &i : op->indices) walk(i);
    walk(op->value);
    walk(op->compare);
  }
  void visit(const Sync *op) override {
    for (const Expr &a : op->args) walk(a);
  }
  void visit(const Assign *op) override { walk(op->value); }
  void visit(const ArrayStore *op) override {
    walk(op->array);
    for (const Expr &i : op->indices) walk(i);
    walk(op->value);
  }
  void visit(const If *op) override {
    walk(op->cond);
    visit_stmt(op->then_body);
    visit_stmt(op->else_body);
  }
  void visit(const While *op) override {
    walk(op->cond);
    visit_stmt(op->body);
  }
  void visit(const ForRange *op) override {
    walk(op->start);
    walk(op->stop);
    walk(op->step);
    visit_stmt(op->body);
  }
  void visit(const Return *op) override { walk(op->value); }
  void visit(const Raise *op) override {
    for (const Expr &v : op->values) walk(v);
  }
  void visit(const Evaluate *op) override { walk(op->value); }
  void visit(const Print *op) override {
    for (const Expr &a : op->args) walk(a);
  }
  using IRVisitor::visit;

 private:
  const std::function<void(const Expr &)> &fn_;
};

void walk_stmts(const Stmt &s, const std::function<void(const Stmt &)> &fn) {
  if (!s) return;
  fn(s);
  if (const Block *b = s.as<Block>()) {
    for (const Stmt &c : b->stmts) walk_stmts(c, fn);
  } else if (const If *i = s.as<If>()) {
    walk_stmts(i->then_body, fn);
    walk_stmts(i->else_body, fn);
  } else if (const While *w = s.as<While>()) {
    walk_stmts(w->body, fn);
  } else if (const ForRange *f = s.as<ForRange>()) {
    walk_stmts(f->body, fn);
  }
}

}  // namespace

void for_each_expr(const Stmt &s, const std::function<void(const Expr &)> &fn) {
  ExprWalker w(fn);
  w.visit_stmt(s);
}

void for_each_stmt(const Stmt &s, const std::function<void(const Stmt &)> &fn) { walk_stmts(s, fn); }

}  // namespace ufjit::ir
