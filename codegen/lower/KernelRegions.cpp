// Which kernels the CPU target splits at their barriers, and which of their
// variables need a value per thread (codegen/lower/KernelRegions.h).
// requires: a verified explicit kernel module.
#include "codegen/lower/KernelRegions.h"

#include <functional>
#include <map>
#include <vector>

#include "ir/IRVisitor.h"

namespace ufjit::codegen {

namespace {

/// The barrier a statement is, when the split makes it a region boundary:
/// `cuda.syncthreads()` alone, or `v = cuda.syncthreads_count(p)` (the
/// value possibly converted).
const ir::Sync *barrier_of(const ir::Expr &value) {
  ir::Expr e = value;
  if (const auto *cast = e.as<ir::Cast>()) e = cast->value;
  const auto *sync = e.as<ir::Sync>();
  return sync != nullptr && is_block_barrier(sync->op) ? sync : nullptr;
}

bool expr_has_barrier(const ir::Expr &e) {
  bool found = false;
  if (!e) return false;
  ir::for_each_expr(ir::Evaluate::make(e), [&](const ir::Expr &x) {
    const auto *sync = x.as<ir::Sync>();
    found = found || (sync != nullptr && is_block_barrier(sync->op));
  });
  return found;
}

bool exprs_have_barrier(const std::vector<ir::Expr> &exprs) {
  for (const ir::Expr &e : exprs) {
    if (expr_has_barrier(e)) return true;
  }
  return false;
}

/// Whether the split can handle `s`: barriers only where it cuts, and no
/// `break`/`continue` of a loop holding a barrier (`direct`: `s` is in such
/// a loop's body, outside any inner loop).
bool splittable(const ir::Stmt &s, bool direct) {
  if (!s) return true;
  switch (s->kind) {
    case ir::NodeKind::Block:
      for (const ir::Stmt &child : s.as<ir::Block>()->stmts) {
        if (!splittable(child, direct)) return false;
      }
      return true;
    case ir::NodeKind::Break:
    case ir::NodeKind::Continue:
      return !direct;
    case ir::NodeKind::If: {
      const auto *i = s.as<ir::If>();
      return !expr_has_barrier(i->cond) && splittable(i->then_body, direct) && splittable(i->else_body, direct);
    }
    case ir::NodeKind::While: {
      const auto *w = s.as<ir::While>();
      return !expr_has_barrier(w->cond) && splittable(w->body, has_block_barrier(w->body));
    }
    case ir::NodeKind::ForRange: {
      const auto *f = s.as<ir::ForRange>();
      return !exprs_have_barrier({f->start, f->stop, f->step}) && splittable(f->body, has_block_barrier(f->body));
    }
    case ir::NodeKind::Evaluate:
    case ir::NodeKind::Assign: {
      const ir::Expr &value = s->kind == ir::NodeKind::Assign ? s.as<ir::Assign>()->value : s.as<ir::Evaluate>()->value;
      const ir::Sync *sync = barrier_of(value);
      return sync != nullptr ? !exprs_have_barrier(sync->args) : !expr_has_barrier(value);
    }
    default:
      return !has_block_barrier(s);
  }
}

/// What a kernel module holds that decides its shape.
struct KernelUses {
  bool barrier = false;         // a block barrier anywhere
  bool warp = false;            // a warp collective (or activemask) anywhere
  bool helper_barrier = false;  // a barrier in a function other than the entry
  bool local_array = false;     // a cuda.local.array in the entry
};

KernelUses kernel_uses(const ir::Module &module) {
  KernelUses uses;
  for (std::size_t k = 0; k < module.functions.size(); ++k) {
    const bool entry = static_cast<int>(k) == module.entry;
    ir::for_each_expr(module.functions[k].body, [&](const ir::Expr &e) {
      if (const auto *sync = e.as<ir::Sync>()) {
        const bool barrier = is_block_barrier(sync->op);
        uses.barrier = uses.barrier || barrier;
        uses.helper_barrier = uses.helper_barrier || (barrier && !entry);
        uses.warp = uses.warp || (!barrier && (ir::sync_waits(sync->op) || sync->op == ir::SyncOp::ActiveMask));
      }
      const auto *alloc = e.as<ir::ArrayAlloc>();
      uses.local_array = uses.local_array || (entry && alloc != nullptr && alloc->space == ir::MemorySpace::Local);
    });
  }
  return uses;
}

class VarNames : public ir::IRVisitor {
 public:
  explicit VarNames(std::set<std::string> &names) : names_(names) {}

 protected:
  using ir::IRVisitor::visit;
  void visit(const ir::Var *op) override { names_.insert(op->name); }
  void visit(const ir::Assign *op) override {
    names_.insert(op->var);
    ir::IRVisitor::visit(op);
  }
  void visit(const ir::ForRange *op) override {
    names_.insert(op->var);
    ir::IRVisitor::visit(op);
  }

 private:
  std::set<std::string> &names_;
};

/// Whether every thread of a block computes `e` alike: constants, shared
/// and constant arrays, the block's and the grid's coordinates, the
/// variables of `invariant`, and arithmetic on them.
bool block_invariant(const ir::Expr &e, const std::set<std::string> &invariant_vars) {
  bool invariant = true;
  ir::for_each_expr(ir::Evaluate::make(e), [&](const ir::Expr &x) {
    switch (x->kind) {
      case ir::NodeKind::Const:
      case ir::NodeKind::Cast:
      case ir::NodeKind::Unary:
      case ir::NodeKind::Binary:
      case ir::NodeKind::Compare:
      case ir::NodeKind::Select:
      case ir::NodeKind::MakeTuple:
      case ir::NodeKind::TupleGet:
        return;
      case ir::NodeKind::Var:
        invariant = invariant && invariant_vars.count(x.as<ir::Var>()->name) != 0;
        return;
      case ir::NodeKind::ArrayAlloc:
        invariant = invariant && x.as<ir::ArrayAlloc>()->space != ir::MemorySpace::Local;
        return;
      case ir::NodeKind::Intrinsic: {
        const ir::IntrinsicOp op = x.as<ir::Intrinsic>()->op;
        invariant = invariant && op != ir::IntrinsicOp::ThreadIdxX && op != ir::IntrinsicOp::ThreadIdxY &&
                    op != ir::IntrinsicOp::ThreadIdxZ && op != ir::IntrinsicOp::LaneId;
        return;
      }
      default:
        invariant = false;
        return;
    }
  });
  return invariant;
}

/// The reads of a region that no assignment of the same region precedes on
/// every path (a value from before the region), and the region assignments.
class ExposedReads {
 public:
  void region(const std::vector<ir::Stmt> &stmts) {
    std::set<std::string> assigned;
    for (const ir::Stmt &s : stmts) stmt(s, assigned);
  }
  void region(const std::vector<ir::Expr> &exprs) {
    const std::set<std::string> none;
    for (const ir::Expr &e : exprs) reads(e, none);
  }
  /// Counts the assignments of `body` (a whole function's) and notes the
  /// variables assigned once a value every thread of a block computes alike.
  void count_assignments(const ir::Stmt &body) {
    ir::for_each_stmt(body, [&](const ir::Stmt &s) {
      if (const auto *a = s.as<ir::Assign>()) ++assignments_[a->var];
      if (const auto *f = s.as<ir::ForRange>()) assignments_[f->var] += 2;
    });
    // In statement order: `sA = $t0` after `$t0 = shared_array(...)`.
    ir::for_each_stmt(body, [&](const ir::Stmt &s) {
      const auto *a = s.as<ir::Assign>();
      if (a != nullptr && assignments_[a->var] == 1 && block_invariant(a->value, invariant_)) invariant_.insert(a->var);
    });
  }
  std::set<std::string> per_thread() const {
    std::set<std::string> both;
    for (const std::string &name : exposed_) {
      if (assigned_.count(name) == 0) continue;
      auto it = assignments_.find(name);
      // One assignment of a value alike in every thread: the threads that
      // assign it all store the same value, and a thread that does not
      // assign it never reads it (the typer sees to that).
      if (it != assignments_.end() && it->second == 1 && invariant_.count(name) != 0) continue;
      both.insert(name);
    }
    return both;
  }

 private:
  void reads(const ir::Expr &e, const std::set<std::string> &assigned) {
    if (!e) return;
    std::set<std::string> names;
    add_variable_names(e, names);
    for (const std::string &name : names) {
      if (assigned.count(name) == 0) exposed_.insert(name);
    }
  }
  void assign(const std::string &name, std::set<std::string> &assigned) {
    assigned.insert(name);
    assigned_.insert(name);
  }
  void stmt(const ir::Stmt &s, std::set<std::string> &assigned);

  std::set<std::string> exposed_;
  std::set<std::string> assigned_;
  std::map<std::string, int> assignments_;
  std::set<std::string> invariant_;
};

void ExposedReads::stmt(const ir::Stmt &s, std::set<std::string> &assigned) {
  if (!s) return;
  switch (s->kind) {
    case ir::NodeKind::Block:
      for (const ir::Stmt &child : s.as<ir::Block>()->stmts) stmt(child, assigned);
      return;
    case ir::NodeKind::Assign:
      reads(s.as<ir::Assign>()->value, assigned);
      assign(s.as<ir::Assign>()->var, assigned);
      return;
    case ir::NodeKind::If: {
      const auto *i = s.as<ir::If>();
      reads(i->cond, assigned);
      std::set<std::string> then_assigned = assigned;
      stmt(i->then_body, then_assigned);
      std::set<std::string> else_assigned = assigned;
      stmt(i->else_body, else_assigned);
      for (const std::string &name : then_assigned) {
        if (else_assigned.count(name) != 0) assigned.insert(name);
      }
      return;
    }
    case ir::NodeKind::While: {
      const auto *w = s.as<ir::While>();
      reads(w->cond, assigned);
      std::set<std::string> body = assigned;
      stmt(w->body, body);
      return;
    }
    case ir::NodeKind::ForRange: {
      const auto *f = s.as<ir::ForRange>();
      for (const ir::Expr &e : {f->start, f->stop, f->step}) reads(e, assigned);
      std::set<std::string> body = assigned;
      assign(f->var, body);
      stmt(f->body, body);
      return;
    }
    default: {
      // The rest only read (Evaluate, ArrayStore, Return, Raise, Print).
      std::set<std::string> names;
      add_variable_names(s, names);
      for (const std::string &name : names) {
        if (assigned.count(name) == 0) exposed_.insert(name);
      }
      return;
    }
  }
}

/// Visits the regions of a split body as the lowering forms them: each run
/// of barrier-free statements, and the expressions of the control around
/// barriers and of barriers' predicates, which every thread evaluates.
void walk_regions(const ir::Stmt &body, ExposedReads &out) {
  std::vector<ir::Stmt> run;
  std::vector<ir::Stmt> stmts;
  if (const auto *block = body.as<ir::Block>()) {
    stmts = block->stmts;
  } else if (body) {
    stmts.push_back(body);
  }
  for (const ir::Stmt &s : stmts) {
    if (!has_block_barrier(s)) {
      run.push_back(s);
      continue;
    }
    out.region(run);
    run.clear();
    if (const auto *i = s.as<ir::If>()) {
      out.region(std::vector<ir::Expr>{i->cond});
      walk_regions(i->then_body, out);
      walk_regions(i->else_body, out);
    } else if (const auto *w = s.as<ir::While>()) {
      out.region(std::vector<ir::Expr>{w->cond});
      walk_regions(w->body, out);
    } else if (const auto *f = s.as<ir::ForRange>()) {
      out.region(std::vector<ir::Expr>{f->start, f->stop, f->step});
      walk_regions(f->body, out);
    } else if (s.as<ir::Block>() != nullptr) {
      walk_regions(s, out);
    } else {
      const ir::Expr &value = s->kind == ir::NodeKind::Assign ? s.as<ir::Assign>()->value : s.as<ir::Evaluate>()->value;
      out.region(barrier_of(value)->args);
    }
  }
  out.region(run);
}

}  // namespace

bool is_block_barrier(ir::SyncOp op) {
  return op == ir::SyncOp::SyncThreads || op == ir::SyncOp::SyncThreadsCount || op == ir::SyncOp::SyncThreadsAnd ||
         op == ir::SyncOp::SyncThreadsOr;
}

bool has_block_barrier(const ir::Stmt &s) {
  return first_barrier_line(s) != 0;
}

int first_barrier_line(const ir::Stmt &s) {
  int line = 0;
  bool found = false;
  if (!s) return 0;
  ir::for_each_expr(s, [&](const ir::Expr &e) {
    const auto *sync = e.as<ir::Sync>();
    if (found || sync == nullptr || !is_block_barrier(sync->op)) return;
    found = true;
    line = sync->line > 0 ? sync->line : 1;
  });
  return line;
}

CpuBlockShape cpu_block_shape(const ir::Module &module) {
  if (module.checked) return CpuBlockShape::Fibers;  // the race checker sees each barrier through ctx->sync
  if (!module.threads_wait) return CpuBlockShape::ThreadLoop;
  const KernelUses uses = kernel_uses(module);
  if (uses.warp || uses.helper_barrier || uses.local_array || !uses.barrier) return CpuBlockShape::Fibers;
  return splittable(module.entry_function().body, false) ? CpuBlockShape::Regions : CpuBlockShape::Fibers;
}

std::set<std::string> per_thread_variables(const ir::Function &fn) {
  ExposedReads reads;
  reads.count_assignments(fn.body);
  walk_regions(fn.body, reads);
  return reads.per_thread();
}

void add_variable_names(const ir::Stmt &s, std::set<std::string> &names) {
  VarNames visitor(names);
  visitor.visit_stmt(s);
}

void add_variable_names(const ir::Expr &e, std::set<std::string> &names) {
  VarNames visitor(names);
  visitor.visit_expr(e);
}

}  // namespace ufjit::codegen
