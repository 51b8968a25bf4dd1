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

/// Calls `fn` with the node of `h` (an Expr or a Stmt, not null) as its
/// concrete type (`const Binary *`, `const If *`, ...) and returns what it
/// returns: the one switch over the node kinds that the visitor, the mutator
/// and the printer share. `who` names the caller in the internal error for
/// a kind the handle cannot hold.
template <typename Handle, typename Fn>
auto dispatch(const Handle &h, const char *who, Fn &&fn) {
  constexpr bool kExpr = std::is_same_v<Handle, Expr>;
#define UFJIT_IR_DISPATCH(name) \
  case NodeKind::name:          \
    return fn(static_cast<const name *>(h.get()));
  if constexpr (kExpr) {
    switch (h->kind) {
      UFJIT_FOR_EACH_IR_EXPR(UFJIT_IR_DISPATCH)
      default:
        break;
    }
  } else {
    switch (h->kind) {
      UFJIT_FOR_EACH_IR_STMT(UFJIT_IR_DISPATCH)
      default:
        break;
    }
  }
#undef UFJIT_IR_DISPATCH
  internal_error << who << ": not " << (kExpr ? "an expression" : "a statement")
                 << " kind: " << node_kind_name(h->kind);
  return std::invoke_result_t<Fn, std::conditional_t<kExpr, const Const *, const Block *>>();
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
