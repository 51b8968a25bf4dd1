#include "ir/Verifier.h"

#include <algorithm>
#include <map>
#include <set>

#include "support/InternalAssert.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"

namespace ufjit::ir {

namespace {

/// Checks `ok`; builds the message `what` only when it fails (a check runs on
/// every node of every module typed, its message almost never).
#define VERIFY_CHECK(ok, what) \
  do {                         \
    if (!(ok)) fail(what);     \
  } while (false)

bool is_float_type(const Type &t) { return t.is_float(); }

Type complex_part(const Type &t) {
  return Type::scalar(t.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64);
}

/// For an If whose condition is a constant: the branch taken (possibly
/// empty); nullptr otherwise. The typer reasons the same way (it emits only
/// the taken branch), so both agree on which paths exist.
const Stmt *taken_branch(const If *i) {
  const Const *c = i->cond.as<Const>();
  if (c == nullptr) return nullptr;
  return c->int_bits != 0 ? &i->then_body : &i->else_body;
}

/// Whether a `while` body contains a `break` that leaves this loop (not one
/// of a nested loop).
bool has_own_break(const Stmt &s) {
  if (!s) return false;
  if (s.as<Break>()) return true;
  if (const Block *b = s.as<Block>()) return std::any_of(b->stmts.begin(), b->stmts.end(), has_own_break);
  if (const If *i = s.as<If>()) {
    if (const Stmt *t = taken_branch(i)) return has_own_break(*t);
    return has_own_break(i->then_body) || has_own_break(i->else_body);
  }
  return false;  // While/ForRange: their breaks are their own
}

/// Whether every path through `s` ends in a Return (or never ends).
bool always_returns(const Stmt &s) {
  if (!s) return false;
  if (s.as<Return>() || s.as<Raise>()) return true;
  if (const Block *b = s.as<Block>()) return std::any_of(b->stmts.begin(), b->stmts.end(), always_returns);
  if (const If *i = s.as<If>()) {
    if (const Stmt *t = taken_branch(i)) return always_returns(*t);
    return always_returns(i->then_body) && always_returns(i->else_body);
  }
  if (const While *w = s.as<While>()) {
    const Const *c = w->cond.as<Const>();
    return c != nullptr && c->int_bits != 0 && !has_own_break(w->body);
  }
  return false;
}

class FunctionVerifier : public IRVisitor {
 public:
  /// `index_of` maps each function name of `m` to its index (one lookup per
  /// call, so that a module of many helpers verifies in linear time).
  FunctionVerifier(const Module &m, std::size_t index, const std::map<std::string, std::size_t> &index_of)
      : module_(m), index_(index), f_(m.functions[index]), index_of_(index_of) {}

  void run() {
    std::set<std::string> names;
    for (const Variable &p : f_.params) {
      declare(p, names, "parameter");
      params_.insert(p.name);
    }
    for (const Variable &l : f_.locals) declare(l, names, "local");
    VERIFY_CHECK(static_cast<bool>(f_.body), "function without a body");
    visit_stmt(f_.body);
    if (!f_.ret.is_void()) VERIFY_CHECK(always_returns(f_.body), "a path falls off the end of a non-void function");
  }

 protected:
  using IRVisitor::visit;

  void visit(const Var *op) override {
    auto it = vars_.find(op->name);
    VERIFY_CHECK(it != vars_.end(), "undeclared variable '" + op->name + "'");
    VERIFY_CHECK(it->second == op->type,
          "variable '" + op->name + "' used as " + op->type.str() + " but declared " + it->second.str());
  }

  void visit(const Cast *op) override {
    VERIFY_CHECK(op->type.is_scalar() && op->value.type().is_scalar(), "Cast of a non-scalar: " + print(Expr(node(op))));
    IRVisitor::visit(op);
  }

  void visit(const Binary *op) override {
    VERIFY_CHECK(op->a.type() == op->b.type() && op->type == op->a.type(), "Binary operand types differ");
    IRVisitor::visit(op);
  }

  void visit(const Compare *op) override {
    VERIFY_CHECK(op->a.type() == op->b.type() && op->type.is_bool(), "Compare operand types differ");
    IRVisitor::visit(op);
  }

  void visit(const Select *op) override {
    VERIFY_CHECK(op->cond.type().is_bool(), "Select condition is not bool");
    VERIFY_CHECK(op->a.type() == op->b.type() && op->type == op->a.type(), "Select arm types differ");
    IRVisitor::visit(op);
  }

  void visit(const ShortCircuit *op) override {
    VERIFY_CHECK(op->a.type() == op->b.type() && op->type == op->a.type(), "ShortCircuit operand types differ");
    IRVisitor::visit(op);
  }

  void visit(const Call *op) override {
    if (const ExternFunction *ext = module_.find_extern(op->callee)) {
      VERIFY_CHECK(ext->params.size() == op->args.size(), "call of extern '" + op->callee + "' with wrong arity");
      for (std::size_t i = 0; i < op->args.size() && i < ext->params.size(); ++i) {
        VERIFY_CHECK(op->args[i].type() == ext->params[i], "argument " + std::to_string(i) + " of extern call '" +
                                                        op->callee + "' has type " + op->args[i].type().str());
      }
      VERIFY_CHECK(op->type == ext->ret, "call of extern '" + op->callee + "' typed " + op->type.str());
      IRVisitor::visit(op);
      return;
    }
    const Function *callee = nullptr;
    std::size_t callee_index = 0;
    auto found = index_of_.find(op->callee);
    if (found != index_of_.end()) {
      callee_index = found->second;
      callee = &module_.functions[callee_index];
    }
    VERIFY_CHECK(callee != nullptr, "call of unknown function '" + op->callee + "'");
    VERIFY_CHECK(callee_index < index_, "call of '" + op->callee +
                                     "', which is not defined before its caller (recursion, or callees out of order)");
    VERIFY_CHECK(callee->params.size() == op->args.size(), "call of '" + op->callee + "' with " +
                                                        std::to_string(op->args.size()) + " arguments, expected " +
                                                        std::to_string(callee->params.size()));
    for (std::size_t i = 0; i < op->args.size(); ++i) {
      VERIFY_CHECK(op->args[i].type() == callee->params[i].type,
            "argument " + std::to_string(i) + " of call '" + op->callee + "' has type " + op->args[i].type().str() +
                ", parameter is " + callee->params[i].type.str());
    }
    VERIFY_CHECK(op->type == callee->ret, "call of '" + op->callee + "' typed " + op->type.str() + ", returns " +
                                       callee->ret.str());
    IRVisitor::visit(op);
  }

  void visit(const Intrinsic *op) override {
    check_intrinsic(op);
    IRVisitor::visit(op);
  }

  void visit(const MakeTuple *op) override {
    VERIFY_CHECK(op->type.is_tuple() && op->type.elements().size() == op->elements.size(), "MakeTuple type mismatch");
    IRVisitor::visit(op);
  }

  /// An array operand: a variable or a view of one.
  bool array_operand(const Expr &a) const {
    if (!a.type().is_array()) return false;
    if (const ArraySlice *s = a.as<ArraySlice>()) return array_operand(s->array);
    if (const ArrayField *f = a.as<ArrayField>()) return array_operand(f->array);
    const ArrayAlloc *constant = a.as<ArrayAlloc>();
    return a.as<Var>() != nullptr || (constant != nullptr && constant->space == MemorySpace::Constant);
  }

  void visit(const ArrayLoad *op) override {
    VERIFY_CHECK(array_operand(op->array), "ArrayLoad of a non-array or an array that is not a variable or a view");
    IRVisitor::visit(op);
  }

  void visit(const ArrayDim *op) override {
    VERIFY_CHECK(array_operand(op->array), "ArrayDim of a non-array variable");
    IRVisitor::visit(op);
  }

  void visit(const ArraySlice *op) override {
    VERIFY_CHECK(array_operand(op->array), "ArraySlice of a non-array variable");
    IRVisitor::visit(op);
  }

  void visit(const ArrayField *op) override {
    VERIFY_CHECK(op->array.type().is_record() && array_operand(op->array), "ArrayField of a non-record array");
    IRVisitor::visit(op);
  }

  void visit(const Assign *op) override {
    auto it = vars_.find(op->var);
    VERIFY_CHECK(it != vars_.end(), "assignment to undeclared variable '" + op->var + "'");
    // An array local holds a view (`row = a[i]`); array parameters are never reassigned.
    VERIFY_CHECK(!it->second.is_array() || params_.count(op->var) == 0, "assignment to array parameter '" + op->var + "'");
    VERIFY_CHECK(it->second == op->value.type(), "assignment of " + op->value.type().str() + " to '" + op->var +
                                              "' declared " + it->second.str());
    IRVisitor::visit(op);
  }

  void visit(const ArrayStore *op) override {
    VERIFY_CHECK(array_operand(op->array), "ArrayStore to a non-array variable");
    IRVisitor::visit(op);
  }

  void visit(const ArrayAtomic *op) override {
    VERIFY_CHECK(module_.explicit_kernel, "an atomic outside an explicit kernel's module");
    VERIFY_CHECK(array_operand(op->array), "ArrayAtomic on a non-array variable");
    IRVisitor::visit(op);
  }

  void visit(const ArrayAlloc *op) override {
    VERIFY_CHECK(module_.explicit_kernel || op->space == MemorySpace::Constant,
                 "an array allocation outside an explicit kernel's module");
    VERIFY_CHECK((op->space == MemorySpace::Constant) == (op->data != nullptr), "constant array data");
    if (op->space == MemorySpace::Shared) {
      int64_t bytes = static_cast<int64_t>(dtype_size(op->type.dtype()));
      for (int64_t d : op->shape) bytes *= d;
      VERIFY_CHECK(op->offset % 16 == 0 && op->offset + bytes <= module_.shared_bytes,
                   "shared array outside the module's shared_bytes");
    }
    IRVisitor::visit(op);
  }

  void visit(const Sync *op) override {
    VERIFY_CHECK(module_.explicit_kernel, std::string(sync_op_name(op->op)) + " outside an explicit kernel's module");
    VERIFY_CHECK(!sync_waits(op->op) || module_.threads_wait, "a waiting Sync in a module without threads_wait");
    IRVisitor::visit(op);
  }

  void visit(const If *op) override {
    VERIFY_CHECK(op->cond.type().is_bool(), "If condition is not bool");
    IRVisitor::visit(op);
  }

  void visit(const While *op) override {
    VERIFY_CHECK(op->cond.type().is_bool(), "While condition is not bool");
    visit_expr(op->cond);
    ++loop_depth_;
    visit_stmt(op->body);
    --loop_depth_;
  }

  void visit(const ForRange *op) override {
    auto it = vars_.find(op->var);
    VERIFY_CHECK(it != vars_.end(), "loop variable '" + op->var + "' is not declared");
    VERIFY_CHECK(it->second == op->start.type(), "loop variable '" + op->var + "' declared " + it->second.str() +
                                              ", range of " + op->start.type().str());
    VERIFY_CHECK(op->start.type() == op->stop.type() && op->stop.type() == op->step.type(), "range bound types differ");
    visit_expr(op->start);
    visit_expr(op->stop);
    visit_expr(op->step);
    ++loop_depth_;
    visit_stmt(op->body);
    --loop_depth_;
  }

  void visit(const Break *) override { VERIFY_CHECK(loop_depth_ > 0, "break outside a loop"); }
  void visit(const Continue *) override { VERIFY_CHECK(loop_depth_ > 0, "continue outside a loop"); }

  void visit(const Return *op) override {
    if (f_.ret.is_void()) {
      VERIFY_CHECK(!op->value, "return with a value in a void function");
      return;
    }
    VERIFY_CHECK(static_cast<bool>(op->value), "return without a value in a function returning " + f_.ret.str());
    VERIFY_CHECK(op->value.type() == f_.ret, "return of " + op->value.type().str() + " in a function returning " +
                                          f_.ret.str());
    IRVisitor::visit(op);
  }

 private:
  template <typename T>
  static std::shared_ptr<const ExprNode> node(const T *op) {
    // Only for messages: a non-owning handle to print a node.
    return std::shared_ptr<const ExprNode>(std::shared_ptr<const ExprNode>(), op);
  }

  void declare(const Variable &v, std::set<std::string> &names, const char *what) {
    VERIFY_CHECK(!v.name.empty(), std::string(what) + " with an empty name");
    VERIFY_CHECK(!v.type.is_void(), std::string(what) + " '" + v.name + "' of type void");
    VERIFY_CHECK(names.insert(v.name).second, std::string(what) + " '" + v.name + "' declared twice");
    vars_[v.name] = v.type;
  }
  std::set<std::string> params_;

  /// An explicit kernel's coordinates (threadIdx.x, laneid, ...): int32, in kernel modules only.
  void check_coordinate(const Intrinsic *op, const std::string &name) {
    VERIFY_CHECK(module_.explicit_kernel, name + " outside an explicit kernel's module");
    VERIFY_CHECK(op->type == Type::scalar(DType::Int32), name + " types");
  }

  void check_intrinsic(const Intrinsic *op) {
    std::string name = intrinsic_name(op->op);
    auto arg = [&](std::size_t i) -> const Type & { return op->args[i].type(); };
    auto all_args_are = [&](const Type &t) {
      for (const Expr &a : op->args) {
        if (a.type() != t) return false;
      }
      return true;
    };
    if (intrinsic_arity(op->op) == 0) return check_coordinate(op, name);
    switch (op->op) {
      case IntrinsicOp::Ldexp:
        VERIFY_CHECK(is_float_type(op->type) && arg(0) == op->type && arg(1) == Type::scalar(DType::Int32),
              "ldexp types: " + op->type.str());
        return;
      case IntrinsicOp::Frexp:
        VERIFY_CHECK(is_float_type(arg(0)) && op->type == Type::tuple({arg(0), Type::scalar(DType::Int32)}),
              "frexp types: " + op->type.str());
        return;
      case IntrinsicOp::Modf:
        VERIFY_CHECK(is_float_type(arg(0)) && op->type == Type::tuple({arg(0), arg(0)}), "modf types: " + op->type.str());
        return;
      case IntrinsicOp::IsNan:
      case IntrinsicOp::IsInf:
      case IntrinsicOp::IsFinite:
        VERIFY_CHECK(op->type.is_bool() && (arg(0).is_float() || arg(0).is_complex()), name + " types");
        return;
      case IntrinsicOp::IAbs:
        VERIFY_CHECK(arg(0).is_int() && op->type == arg(0), "iabs types");
        return;
      case IntrinsicOp::Popc:
      case IntrinsicOp::Clz:
      case IntrinsicOp::Brev:
        VERIFY_CHECK(arg(0).is_int() && op->type == arg(0), name + " types");
        return;
      case IntrinsicOp::Ffs:
        VERIFY_CHECK(arg(0).is_int() && op->type == Type::scalar(DType::UInt32), "ffs types");
        return;
      case IntrinsicOp::Gcd:
      case IntrinsicOp::Lcm:
        VERIFY_CHECK(op->type.is_int() && all_args_are(op->type), name + " types");
        return;
      case IntrinsicOp::Real:
      case IntrinsicOp::Imag:
      case IntrinsicOp::CAbs:
      case IntrinsicOp::Phase:
        VERIFY_CHECK(arg(0).is_complex() && op->type == complex_part(arg(0)), name + " types");
        return;
      case IntrinsicOp::MakeComplex:
        VERIFY_CHECK((arg(0) == Type::scalar(DType::Float32) || arg(0) == Type::scalar(DType::Float64)) && arg(1) == arg(0) &&
                  complex_part(op->type) == arg(0) && op->type.is_complex(),
              "complex() types");
        return;
      case IntrinsicOp::Conj:
      case IntrinsicOp::CExp:
      case IntrinsicOp::CLog:
      case IntrinsicOp::CLog10:
      case IntrinsicOp::CSqrt:
      case IntrinsicOp::CSin:
      case IntrinsicOp::CCos:
      case IntrinsicOp::CTan:
      case IntrinsicOp::CAsin:
      case IntrinsicOp::CAcos:
      case IntrinsicOp::CAtan:
      case IntrinsicOp::CSinh:
      case IntrinsicOp::CCosh:
      case IntrinsicOp::CTanh:
      case IntrinsicOp::CAsinh:
      case IntrinsicOp::CAcosh:
      case IntrinsicOp::CAtanh:
      case IntrinsicOp::CPow:
        VERIFY_CHECK(op->type.is_complex() && all_args_are(op->type), name + " types");
        return;
      default:
        VERIFY_CHECK(op->type.is_float() && all_args_are(op->type), name + " of " + op->type.str() + " needs float arguments of that type");
        return;
    }
  }

  [[noreturn]] void fail(const std::string &what) const {
    internal_error << "IR verifier: module '" << module_.name << "', function '" << f_.name << "': " << what;
  }

  const Module &module_;
  std::size_t index_;
  const Function &f_;
  std::map<std::string, Type> vars_;
  int loop_depth_ = 0;
  const std::map<std::string, std::size_t> &index_of_;
};

#undef VERIFY_CHECK

}  // namespace

void verify(const Module &m) {
  internal_assert(!m.functions.empty()) << "IR verifier: module '" << m.name << "' has no functions";
  internal_assert(m.entry >= 0 && static_cast<std::size_t>(m.entry) < m.functions.size())
      << "IR verifier: module '" << m.name << "' has entry index " << m.entry;
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < m.functions.size(); ++i) {
    const Function &f = m.functions[i];
    internal_assert(index_of.emplace(f.name, i).second)
        << "IR verifier: module '" << m.name << "' defines function '" << f.name << "' twice";
  }
  for (std::size_t i = 0; i < m.functions.size(); ++i) {
    FunctionVerifier v(m, i, index_of);
    v.run();
  }
}

}  // namespace ufjit::ir
