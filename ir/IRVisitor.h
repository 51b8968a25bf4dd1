// IRVisitor and IRMutator, generated from the node lists of IR.h (Halide
// style): the default for every node is to recurse into its children; a pass
// overrides only the nodes it cares about. The mutator returns the very same
// handle when no child changed, so unchanged subtrees stay shared.
#pragma once

#include <functional>
#include <type_traits>

#include "ir/IR.h"
#include "support/InternalAssert.h"

namespace ufjit::ir {

/// Calls `fn` with the node of `e` as its concrete type (`const Binary *`,
/// ...) and returns what it returns: the one switch over the expression kinds
/// that the visitor, the mutator and the printer share. `e` is not null;
/// `who` names the caller in the internal error for a statement kind.
template <typename Fn>
auto dispatch_expr(const Expr &e, const char *who, Fn &&fn) {
  switch (e->kind) {
#define UFJIT_IR_DISPATCH(name) \
  case NodeKind::name:          \
    return fn(static_cast<const name *>(e.get()));
    UFJIT_FOR_EACH_IR_EXPR(UFJIT_IR_DISPATCH)
#undef UFJIT_IR_DISPATCH
    default:
      break;
  }
  internal_error << who << ": not an expression kind: " << node_kind_name(e->kind);
  return std::invoke_result_t<Fn, const Const *>();
}

/// dispatch_expr for the statement kinds.
template <typename Fn>
auto dispatch_stmt(const Stmt &s, const char *who, Fn &&fn) {
  switch (s->kind) {
#define UFJIT_IR_DISPATCH(name) \
  case NodeKind::name:          \
    return fn(static_cast<const name *>(s.get()));
    UFJIT_FOR_EACH_IR_STMT(UFJIT_IR_DISPATCH)
#undef UFJIT_IR_DISPATCH
    default:
      break;
  }
  internal_error << who << ": not a statement kind: " << node_kind_name(s->kind);
  return std::invoke_result_t<Fn, const Block *>();
}

/// Read-only traversal. Call visit_expr/visit_stmt to dispatch on a handle;
/// override visit(const Node *) to act on a kind (call the base to recurse).
class IRVisitor {
 public:
  virtual ~IRVisitor() = default;
  /// Dispatches on the node kind; null handles are ignored.
  void visit_expr(const Expr &e);
  void visit_stmt(const Stmt &s);

 protected:
#define UFJIT_IR_VISIT_DECL(name) virtual void visit(const name *op);
  UFJIT_FOR_EACH_IR_EXPR(UFJIT_IR_VISIT_DECL)
  UFJIT_FOR_EACH_IR_STMT(UFJIT_IR_VISIT_DECL)
#undef UFJIT_IR_VISIT_DECL
};

/// Rewriting traversal. visit(op, self) gets the node and its handle, so
/// that an override can return `self` unchanged.
class IRMutator {
 public:
  virtual ~IRMutator() = default;
  /// Null in, null out.
  Expr mutate(const Expr &e);
  Stmt mutate(const Stmt &s);

 protected:
#define UFJIT_IR_MUTATE_EXPR_DECL(name) virtual Expr visit(const name *op, const Expr &self);
#define UFJIT_IR_MUTATE_STMT_DECL(name) virtual Stmt visit(const name *op, const Stmt &self);
  UFJIT_FOR_EACH_IR_EXPR(UFJIT_IR_MUTATE_EXPR_DECL)
  UFJIT_FOR_EACH_IR_STMT(UFJIT_IR_MUTATE_STMT_DECL)
#undef UFJIT_IR_MUTATE_EXPR_DECL
#undef UFJIT_IR_MUTATE_STMT_DECL
};

/// Calls `fn` on every expression node reachable from `s`, parents before
/// children (a small query helper in the spirit of Halide's visit_with).
void for_each_expr(const Stmt &s, const std::function<void(const Expr &)> &fn);
/// Calls `fn` on every statement node of `s` (including `s`), parents first.
void for_each_stmt(const Stmt &s, const std::function<void(const Stmt &)> &fn);

}  // namespace ufjit::ir
