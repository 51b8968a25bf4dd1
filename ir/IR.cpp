// Node constructors: each make() checks the invariants written in IR.h, so a
// typer bug fails where the bad node is built, not later in code generation.
#include "ir/IR.h"

#include "support/EnumNames.h"
#include "support/InternalAssert.h"
#include "ir/Numeric.h"

namespace ufjit::ir {

namespace {

/// Nodes released while another node is being deleted, deleted by the
/// outermost NodeDeleter call in a loop. Plain pointers, so that the
/// thread_local needs no destructor.
struct DeathRow {
  const ExprNode *exprs = nullptr;
  const StmtNode *stmts = nullptr;
  bool draining = false;
};

thread_local DeathRow death_row;

void drain_death_row() {
  DeathRow &row = death_row;
  if (row.draining) return;
  row.draining = true;
  while (row.exprs != nullptr || row.stmts != nullptr) {
    if (row.exprs != nullptr) {
      const ExprNode *node = row.exprs;
      row.exprs = node->next_dead;
      delete node;
    } else {
      const StmtNode *node = row.stmts;
      row.stmts = node->next_dead;
      delete node;
    }
  }
  row.draining = false;
}

template <typename T, typename... Args>
std::shared_ptr<T> new_node(Args &&...args) {
  return std::shared_ptr<T>(new T(std::forward<Args>(args)...), NodeDeleter{});
}

template <typename T>
std::shared_ptr<T> new_expr(Type t) {
  return new_node<T>(std::move(t));
}

void check_expr(const Expr &e, const char *what) {
  internal_assert(e) << what << ": null operand";
}

void check_scalar(const Expr &e, const char *what) {
  check_expr(e, what);
  internal_assert(e.type().is_scalar()) << what << ": operand of type " << e.type().str() << " is not a scalar";
}

/// Which scalar types a binary opcode accepts (IR.h: Div on floats/complex,
/// bit ops on ints and bool, shifts on ints, arithmetic on non-bool numbers).
bool binary_accepts(BinaryOpcode op, const Type &t) {
  switch (op) {
    case BinaryOpcode::Add:
    case BinaryOpcode::Sub:
    case BinaryOpcode::Mul:
      return t.is_int() || t.is_float() || t.is_complex();
    case BinaryOpcode::Div:
      return t.is_float() || t.is_complex();
    case BinaryOpcode::FloorDiv:
    case BinaryOpcode::Mod:
    case BinaryOpcode::Pow:
      return t.is_int() || t.is_float();
    case BinaryOpcode::BitAnd:
    case BinaryOpcode::BitOr:
    case BinaryOpcode::BitXor:
      return t.is_int() || t.is_bool();
    case BinaryOpcode::Shl:
    case BinaryOpcode::Shr:
      return t.is_int();
  }
  return false;
}

}  // namespace

void NodeDeleter::operator()(const ExprNode *node) const {
  node->next_dead = death_row.exprs;
  death_row.exprs = node;
  drain_death_row();
}

void NodeDeleter::operator()(const StmtNode *node) const {
  node->next_dead = death_row.stmts;
  death_row.stmts = node;
  drain_death_row();
}

const char *node_kind_name(NodeKind k) {
  static constexpr const char *kNames[] = {UFJIT_FOR_EACH_IR_EXPR(UFJIT_ENUM_NAME_STRING)
                                               UFJIT_FOR_EACH_IR_STMT(UFJIT_ENUM_NAME_STRING)};
  return support::indexed_name(k, kNames, "?");
}

const char *unary_opcode_name(UnaryOpcode op) {
  static constexpr support::EnumName<UnaryOpcode> kNames[] = {
      {UnaryOpcode::Neg, "-"}, {UnaryOpcode::Not, "not "}, {UnaryOpcode::Invert, "~"}};
  return support::enum_name(op, kNames, "?");
}

const char *binary_opcode_name(BinaryOpcode op) {
  static constexpr support::EnumName<BinaryOpcode> kNames[] = {
      {BinaryOpcode::Add, "+"},    {BinaryOpcode::Sub, "-"},       {BinaryOpcode::Mul, "*"},
      {BinaryOpcode::Div, "/"},    {BinaryOpcode::FloorDiv, "//"}, {BinaryOpcode::Mod, "%"},
      {BinaryOpcode::Pow, "**"},   {BinaryOpcode::BitAnd, "&"},    {BinaryOpcode::BitOr, "|"},
      {BinaryOpcode::BitXor, "^"}, {BinaryOpcode::Shl, "<<"},      {BinaryOpcode::Shr, ">>"}};
  return support::enum_name(op, kNames, "?");
}

const char *compare_opcode_name(CompareOpcode op) {
  static constexpr support::EnumName<CompareOpcode> kNames[] = {
      {CompareOpcode::Lt, "<"},  {CompareOpcode::Le, "<="}, {CompareOpcode::Gt, ">"},
      {CompareOpcode::Ge, ">="}, {CompareOpcode::Eq, "=="}, {CompareOpcode::Ne, "!="}};
  return support::enum_name(op, kNames, "?");
}

const char *memory_space_name(MemorySpace s) {
  static constexpr support::EnumName<MemorySpace> kNames[] = {
      {MemorySpace::Shared, "shared"},
      {MemorySpace::DynamicShared, "dynamic_shared"},
      {MemorySpace::Local, "local"},
      {MemorySpace::Constant, "const"}};
  return support::enum_name(s, kNames, "?");
}

const char *atomic_op_name(AtomicOp op) {
  static constexpr support::EnumName<AtomicOp> kNames[] = {
      {AtomicOp::Add, "add"},       {AtomicOp::Sub, "sub"},       {AtomicOp::Max, "max"}, {AtomicOp::Min, "min"},
      {AtomicOp::NanMax, "nanmax"}, {AtomicOp::NanMin, "nanmin"}, {AtomicOp::And, "and"}, {AtomicOp::Or, "or"},
      {AtomicOp::Xor, "xor"},       {AtomicOp::Inc, "inc"},       {AtomicOp::Dec, "dec"}, {AtomicOp::Exch, "exch"},
      {AtomicOp::Cas, "cas"}};
  return support::enum_name(op, kNames, "?");
}

const char *sync_op_name(SyncOp op) {
  static constexpr support::EnumName<SyncOp> kNames[] = {
      {SyncOp::SyncThreads, "syncthreads"},
      {SyncOp::SyncThreadsCount, "syncthreads_count"},
      {SyncOp::SyncThreadsAnd, "syncthreads_and"},
      {SyncOp::SyncThreadsOr, "syncthreads_or"},
      {SyncOp::SyncWarp, "syncwarp"},
      {SyncOp::FenceBlock, "threadfence_block"},
      {SyncOp::FenceDevice, "threadfence"},
      {SyncOp::FenceSystem, "threadfence_system"},
      {SyncOp::ShflIdx, "shfl_sync"},
      {SyncOp::ShflUp, "shfl_up_sync"},
      {SyncOp::ShflDown, "shfl_down_sync"},
      {SyncOp::ShflXor, "shfl_xor_sync"},
      {SyncOp::VoteAll, "all_sync"},
      {SyncOp::VoteAny, "any_sync"},
      {SyncOp::VoteUni, "eq_sync"},
      {SyncOp::Ballot, "ballot_sync"},
      {SyncOp::MatchAny, "match_any_sync"},
      {SyncOp::MatchAll, "match_all_sync"},
      {SyncOp::ActiveMask, "activemask"}};
  return support::enum_name(op, kNames, "?");
}

bool sync_waits(SyncOp op) {
  return op != SyncOp::FenceBlock && op != SyncOp::FenceDevice && op != SyncOp::FenceSystem &&
         op != SyncOp::ActiveMask;
}

const char *intrinsic_name(IntrinsicOp op) {
  switch (op) {
#define UFJIT_INTRINSIC_NAME(name, str, arity) \
  case IntrinsicOp::name:                      \
    return str;
    UFJIT_FOR_EACH_INTRINSIC(UFJIT_INTRINSIC_NAME)
#undef UFJIT_INTRINSIC_NAME
  }
  return "?";
}

int intrinsic_arity(IntrinsicOp op) {
  switch (op) {
#define UFJIT_INTRINSIC_ARITY(name, str, arity) \
  case IntrinsicOp::name:                       \
    return arity;
    UFJIT_FOR_EACH_INTRINSIC(UFJIT_INTRINSIC_ARITY)
#undef UFJIT_INTRINSIC_ARITY
  }
  return 0;
}

// ---------------------------------------------------------------- constants

Expr Const::make_bool(bool v) {
  auto n = new_expr<Const>(Type::scalar(DType::Bool));
  n->int_bits = v ? 1 : 0;
  return Expr(std::move(n));
}

Expr Const::make_int(DType t, int64_t v) { return make_uint(t, static_cast<uint64_t>(v)); }

Expr Const::make_uint(DType t, uint64_t v) {
  internal_assert(is_integer(t) || is_bool(t)) << "Const::make_int of " << dtype_name(t);
  if (is_bool(t)) return make_bool(v != 0);
  auto n = new_expr<Const>(Type::scalar(t));
  std::size_t bits = dtype_size(t) * 8;
  if (bits < 64) {
    uint64_t mask = (uint64_t{1} << bits) - 1;
    v &= mask;
    bool negative = is_signed_int(t) && ((v >> (bits - 1)) & 1) != 0;
    if (negative) v |= ~mask;  // sign-extend
  }
  n->int_bits = v;
  return Expr(std::move(n));
}

Expr Const::make_float(DType t, double v) {
  internal_assert(is_float(t)) << "Const::make_float of " << dtype_name(t);
  auto n = new_expr<Const>(Type::scalar(t));
  n->float_value = round_to_float(t, v);
  return Expr(std::move(n));
}

Expr Const::make_complex(DType t, std::complex<double> v) {
  internal_assert(is_complex(t)) << "Const::make_complex of " << dtype_name(t);
  auto n = new_expr<Const>(Type::scalar(t));
  n->complex_value = {round_to_float(t, v.real()), round_to_float(t, v.imag())};
  return Expr(std::move(n));
}

Expr Const::make(DType t, double v) {
  if (is_bool(t)) return make_bool(v != 0.0);
  if (is_signed_int(t)) return make_int(t, static_cast<int64_t>(v));
  if (is_unsigned_int(t)) return make_uint(t, static_cast<uint64_t>(v));
  if (is_float(t)) return make_float(t, v);
  return make_complex(t, {v, 0.0});
}

// -------------------------------------------------------------- expressions

Expr Var::make(Type t, std::string name) {
  internal_assert(!name.empty()) << "Var with an empty name";
  internal_assert(!t.is_void()) << "Var '" << name << "' of type void";
  auto n = new_expr<Var>(std::move(t));
  n->name = std::move(name);
  return Expr(std::move(n));
}

Expr Cast::make(DType to, Expr value) {
  check_scalar(value, "Cast");
  auto n = new_expr<Cast>(Type::scalar(to));
  n->value = std::move(value);
  return Expr(std::move(n));
}

Expr Unary::make(UnaryOpcode op, Expr value) {
  check_scalar(value, "Unary");
  const Type &t = value.type();
  switch (op) {
    case UnaryOpcode::Neg:
      internal_assert(t.is_int() || t.is_float() || t.is_complex()) << "Neg of " << t.str();
      break;
    case UnaryOpcode::Not:
      internal_assert(t.is_bool()) << "Not of " << t.str();
      break;
    case UnaryOpcode::Invert:
      internal_assert(t.is_int() || t.is_bool()) << "Invert of " << t.str();
      break;
  }
  auto n = new_expr<Unary>(t);
  n->op = op;
  n->value = std::move(value);
  return Expr(std::move(n));
}

Expr Binary::make(BinaryOpcode op, Expr a, Expr b) {
  check_scalar(a, "Binary");
  check_scalar(b, "Binary");
  internal_assert(a.type() == b.type()) << "Binary " << binary_opcode_name(op) << " of " << a.type().str() << " and "
                                        << b.type().str();
  internal_assert(binary_accepts(op, a.type())) << "Binary " << binary_opcode_name(op) << " on " << a.type().str();
  auto n = new_expr<Binary>(a.type());
  n->op = op;
  n->a = std::move(a);
  n->b = std::move(b);
  return Expr(std::move(n));
}

Expr Compare::make(CompareOpcode op, Expr a, Expr b) {
  check_scalar(a, "Compare");
  check_scalar(b, "Compare");
  internal_assert(a.type() == b.type()) << "Compare of " << a.type().str() << " and " << b.type().str();
  internal_assert(!a.type().is_complex() || op == CompareOpcode::Eq || op == CompareOpcode::Ne)
      << "ordered comparison of complex values";
  auto n = new_expr<Compare>(Type::scalar(DType::Bool));
  n->op = op;
  n->a = std::move(a);
  n->b = std::move(b);
  return Expr(std::move(n));
}

Expr Select::make(Expr cond, Expr a, Expr b) {
  check_expr(cond, "Select");
  check_expr(a, "Select");
  check_expr(b, "Select");
  internal_assert(cond.type().is_bool()) << "Select condition of type " << cond.type().str();
  internal_assert(a.type() == b.type()) << "Select arms of " << a.type().str() << " and " << b.type().str();
  internal_assert(!a.type().is_void()) << "Select of void";
  auto n = new_expr<Select>(a.type());
  n->cond = std::move(cond);
  n->a = std::move(a);
  n->b = std::move(b);
  return Expr(std::move(n));
}

Expr ShortCircuit::make(Op op, Expr a, Expr b) {
  check_scalar(a, "ShortCircuit");
  check_scalar(b, "ShortCircuit");
  internal_assert(a.type() == b.type()) << "ShortCircuit of " << a.type().str() << " and " << b.type().str();
  auto n = new_expr<ShortCircuit>(a.type());
  n->op = op;
  n->a = std::move(a);
  n->b = std::move(b);
  return Expr(std::move(n));
}

Expr Call::make(Type ret, std::string callee, std::vector<Expr> args) {
  internal_assert(!callee.empty()) << "Call without a callee";
  for (const Expr &a : args) check_expr(a, "Call");
  auto n = new_expr<Call>(std::move(ret));
  n->callee = std::move(callee);
  n->args = std::move(args);
  return Expr(std::move(n));
}

Expr Intrinsic::make(IntrinsicOp op, Type result, std::vector<Expr> args) {
  internal_assert(static_cast<int>(args.size()) == intrinsic_arity(op))
      << "intrinsic " << intrinsic_name(op) << " takes " << intrinsic_arity(op) << " arguments, got " << args.size();
  for (const Expr &a : args) check_scalar(a, intrinsic_name(op));
  internal_assert(result.is_scalar() || result.is_tuple()) << "intrinsic " << intrinsic_name(op) << " of type "
                                                           << result.str();
  auto n = new_expr<Intrinsic>(std::move(result));
  n->op = op;
  n->args = std::move(args);
  return Expr(std::move(n));
}

Expr MakeTuple::make(std::vector<Expr> elements) {
  std::vector<Type> types;
  for (const Expr &e : elements) {
    check_expr(e, "MakeTuple");
    types.push_back(e.type());
  }
  auto n = new_expr<MakeTuple>(Type::tuple(std::move(types)));
  n->elements = std::move(elements);
  return Expr(std::move(n));
}

Expr TupleGet::make(Expr tuple, int index) {
  check_expr(tuple, "TupleGet");
  internal_assert(tuple.type().is_tuple()) << "TupleGet of " << tuple.type().str();
  const std::vector<Type> &els = tuple.type().elements();
  internal_assert(index >= 0 && index < static_cast<int>(els.size()))
      << "TupleGet index " << index << " of " << tuple.type().str();
  auto n = new_expr<TupleGet>(els[static_cast<std::size_t>(index)]);
  n->tuple = std::move(tuple);
  n->index = index;
  return Expr(std::move(n));
}

Expr ArrayLoad::make(Expr array, std::vector<Expr> indices, int line) {
  check_expr(array, "ArrayLoad");
  internal_assert(array.type().is_array()) << "ArrayLoad of " << array.type().str();
  internal_assert(static_cast<int>(indices.size()) == array.type().ndim())
      << "ArrayLoad with " << indices.size() << " indices of " << array.type().str();
  for (const Expr &i : indices) {
    check_expr(i, "ArrayLoad");
    internal_assert(i.type() == Type::scalar(DType::Int64)) << "ArrayLoad index of type " << i.type().str();
  }
  auto n = new_expr<ArrayLoad>(Type::scalar(array.type().dtype()));
  n->array = std::move(array);
  n->indices = std::move(indices);
  n->line = line;
  return Expr(std::move(n));
}

Expr ArrayDim::make(Expr array, int dim) {
  check_expr(array, "ArrayDim");
  internal_assert(array.type().is_array()) << "ArrayDim of " << array.type().str();
  internal_assert(dim >= 0 && dim < array.type().ndim()) << "ArrayDim " << dim << " of " << array.type().str();
  auto n = new_expr<ArrayDim>(Type::scalar(DType::Int64));
  n->array = std::move(array);
  n->dim = dim;
  return Expr(std::move(n));
}

Expr ArraySlice::make(Expr array, std::vector<Dim> dims) {
  check_expr(array, "ArraySlice");
  internal_assert(array.type().is_array()) << "ArraySlice of " << array.type().str();
  internal_assert(static_cast<int>(dims.size()) == array.type().ndim())
      << "ArraySlice with " << dims.size() << " dimensions of " << array.type().str();
  int kept = 0;
  for (const Dim &d : dims) {
    check_expr(d.start, "ArraySlice");
    internal_assert(d.start.type() == Type::scalar(DType::Int64)) << "ArraySlice start of type " << d.start.type().str();
    if (d.length) {
      internal_assert(d.length.type() == Type::scalar(DType::Int64))
          << "ArraySlice length of type " << d.length.type().str();
      internal_assert(d.step != 0) << "ArraySlice with step 0";
      ++kept;
    }
  }
  internal_assert(kept > 0) << "ArraySlice that keeps no dimension (an ArrayLoad)";
  auto n = new_expr<ArraySlice>(array.type().with_ndim(kept));
  n->array = std::move(array);
  n->dims = std::move(dims);
  return Expr(std::move(n));
}

Expr ArrayField::make(Expr array, DType dtype, int64_t offset, std::vector<int64_t> shape) {
  check_expr(array, "ArrayField");
  internal_assert(array.type().is_record()) << "ArrayField of " << array.type().str();
  internal_assert(offset >= 0) << "ArrayField at offset " << offset;
  const int records = array.type().ndim() - 1;
  const int kept = records + std::max<int>(1, static_cast<int>(shape.size()));
  auto n = new_expr<ArrayField>(Type::array(dtype, kept));
  n->array = std::move(array);
  n->offset = offset;
  n->shape = std::move(shape);
  return Expr(std::move(n));
}

Expr ArrayAlloc::make(MemorySpace space, DType dtype, std::vector<int64_t> shape, int64_t offset) {
  internal_assert(!shape.empty()) << "ArrayAlloc without dimensions";
  for (int64_t d : shape) internal_assert(d >= 0) << "ArrayAlloc of a negative extent";
  internal_assert(space != MemorySpace::DynamicShared || shape.size() == 1) << "dynamic shared array of several dims";
  internal_assert(offset >= 0 && (space == MemorySpace::Shared || offset == 0)) << "ArrayAlloc offset " << offset;
  auto n = new_expr<ArrayAlloc>(Type::array(dtype, static_cast<int>(shape.size())));
  n->space = space;
  n->shape = std::move(shape);
  n->offset = offset;
  return Expr(std::move(n));
}

Expr ArrayAlloc::make_constant(DType dtype, std::vector<int64_t> shape, std::string data,
                               frontend::RecordRef record) {
  int64_t bytes = static_cast<int64_t>(dtype_size(dtype));
  for (int64_t d : shape) bytes *= d;
  internal_assert(static_cast<int64_t>(data.size()) == bytes) << "constant array of " << data.size() << " bytes for "
                                                               << bytes;
  internal_assert(!shape.empty()) << "constant array without dimensions";
  internal_assert(!record || (dtype == DType::UInt8 && shape.back() == record->itemsize))
      << "constant records of dtype " << dtype_name(dtype);
  const int ndim = static_cast<int>(shape.size());
  auto n = new_expr<ArrayAlloc>(record ? Type::record_array(std::move(record), ndim - 1) : Type::array(dtype, ndim));
  n->space = MemorySpace::Constant;
  n->shape = std::move(shape);
  n->data = std::make_shared<const std::string>(std::move(data));
  return Expr(std::move(n));
}

Expr ArrayAtomic::make(AtomicOp op, Expr array, std::vector<Expr> indices, Expr value, Expr compare) {
  check_expr(array, "ArrayAtomic");
  check_scalar(value, "ArrayAtomic");
  internal_assert(array.type().is_array()) << "ArrayAtomic on " << array.type().str();
  internal_assert(static_cast<int>(indices.size()) == array.type().ndim())
      << "ArrayAtomic with " << indices.size() << " indices on " << array.type().str();
  for (const Expr &i : indices) {
    check_expr(i, "ArrayAtomic");
    internal_assert(i.type() == Type::scalar(DType::Int64)) << "ArrayAtomic index of type " << i.type().str();
  }
  const DType t = array.type().dtype();
  internal_assert(value.type().dtype() == t) << "ArrayAtomic of " << value.type().str() << " on " << array.type().str();
  internal_assert((op == AtomicOp::Cas) == static_cast<bool>(compare)) << "ArrayAtomic compare operand";
  if (compare) internal_assert(compare.type() == value.type()) << "ArrayAtomic compare of another type";
  auto n = new_expr<ArrayAtomic>(Type::scalar(t));
  n->op = op;
  n->array = std::move(array);
  n->indices = std::move(indices);
  n->value = std::move(value);
  n->compare = std::move(compare);
  return Expr(std::move(n));
}

Expr Sync::make(SyncOp op, Type result, std::vector<Expr> args, int line) {
  for (const Expr &a : args) check_scalar(a, sync_op_name(op));
  auto n = new_expr<Sync>(std::move(result));
  n->op = op;
  n->args = std::move(args);
  n->line = line;
  return Expr(std::move(n));
}

// --------------------------------------------------------------- statements

Stmt Block::make(std::vector<Stmt> stmts) {
  for (const Stmt &s : stmts) internal_assert(s) << "Block with a null statement";
  auto n = new_node<Block>();
  n->stmts = std::move(stmts);
  return Stmt(std::move(n));
}

Stmt Assign::make(std::string var, Expr value) {
  internal_assert(!var.empty()) << "Assign to an empty name";
  check_expr(value, "Assign");
  internal_assert(!value.type().is_void()) << "Assign of a void value to " << var;
  auto n = new_node<Assign>();
  n->var = std::move(var);
  n->value = std::move(value);
  return Stmt(std::move(n));
}

Stmt ArrayStore::make(Expr array, std::vector<Expr> indices, Expr value, int line) {
  check_expr(array, "ArrayStore");
  check_scalar(value, "ArrayStore");
  internal_assert(array.type().is_array()) << "ArrayStore to " << array.type().str();
  internal_assert(static_cast<int>(indices.size()) == array.type().ndim())
      << "ArrayStore with " << indices.size() << " indices to " << array.type().str();
  for (const Expr &i : indices) {
    check_expr(i, "ArrayStore");
    internal_assert(i.type() == Type::scalar(DType::Int64)) << "ArrayStore index of type " << i.type().str();
  }
  internal_assert(value.type().dtype() == array.type().dtype())
      << "ArrayStore of " << value.type().str() << " to " << array.type().str();
  auto n = new_node<ArrayStore>();
  n->array = std::move(array);
  n->indices = std::move(indices);
  n->value = std::move(value);
  n->line = line;
  return Stmt(std::move(n));
}

Stmt If::make(Expr cond, Stmt then_body, Stmt else_body) {
  check_expr(cond, "If");
  internal_assert(cond.type().is_bool()) << "If condition of type " << cond.type().str();
  internal_assert(then_body) << "If without a body";
  auto n = new_node<If>();
  n->cond = std::move(cond);
  n->then_body = std::move(then_body);
  n->else_body = std::move(else_body);
  return Stmt(std::move(n));
}

const If *If::elif() const {
  if (!else_body) return nullptr;
  if (const If *i = else_body.as<If>()) return i;
  const Block *b = else_body.as<Block>();
  if (b == nullptr || b->stmts.size() != 1) return nullptr;
  return b->stmts[0].as<If>();
}

Stmt While::make(Expr cond, Stmt body) {
  check_expr(cond, "While");
  internal_assert(cond.type().is_bool()) << "While condition of type " << cond.type().str();
  internal_assert(body) << "While without a body";
  auto n = new_node<While>();
  n->cond = std::move(cond);
  n->body = std::move(body);
  return Stmt(std::move(n));
}

Stmt ForRange::make(std::string var, Expr start, Expr stop, Expr step, Stmt body) {
  internal_assert(!var.empty()) << "ForRange without a variable";
  check_scalar(start, "ForRange");
  check_scalar(stop, "ForRange");
  check_scalar(step, "ForRange");
  internal_assert(start.type().is_int()) << "ForRange over " << start.type().str();
  internal_assert(start.type() == stop.type() && stop.type() == step.type())
      << "ForRange bounds of " << start.type().str() << ", " << stop.type().str() << ", " << step.type().str();
  internal_assert(body) << "ForRange without a body";
  auto n = new_node<ForRange>();
  n->var = std::move(var);
  n->start = std::move(start);
  n->stop = std::move(stop);
  n->step = std::move(step);
  n->body = std::move(body);
  return Stmt(std::move(n));
}

Stmt Break::make() { return Stmt(new_node<Break>()); }

Stmt Continue::make() { return Stmt(new_node<Continue>()); }

Stmt Return::make(Expr value) {
  auto n = new_node<Return>();
  n->value = std::move(value);
  return Stmt(std::move(n));
}

Stmt Raise::make(std::string exception, std::string message, std::string file, int line, int col, int site,
                 std::vector<Expr> values) {
  internal_assert(values.size() <= kMaxRaiseValues) << "Raise with " << values.size() << " values";
  for (const Expr &v : values) {
    check_expr(v, "Raise");
    internal_assert(v.type() == Type::scalar(DType::Int64)) << "Raise value of type " << v.type().str();
  }
  auto n = new_node<Raise>();
  n->values = std::move(values);
  n->exception = std::move(exception);
  n->message = std::move(message);
  n->file = std::move(file);
  n->line = line;
  n->col = col;
  n->site = site;
  return Stmt(std::move(n));
}

Stmt Print::make(std::string format, std::vector<Expr> args) {
  for (const Expr &a : args) {
    check_expr(a, "Print");
    const Type t = a.type();
    internal_assert(t == Type::scalar(DType::Int64) || t == Type::scalar(DType::UInt64) ||
                    t == Type::scalar(DType::Float64) || t == Type::scalar(DType::Bool))
        << "Print of a " << t.str();
  }
  auto n = new_node<Print>();
  n->format = std::move(format);
  n->args = std::move(args);
  return Stmt(std::move(n));
}

Stmt Evaluate::make(Expr value) {
  check_expr(value, "Evaluate");
  auto n = new_node<Evaluate>();
  n->value = std::move(value);
  return Stmt(std::move(n));
}

const Function *Module::find(const std::string &function_name) const {
  for (const Function &f : functions) {
    if (f.name == function_name) return &f;
  }
  return nullptr;
}

const ExternFunction *Module::find_extern(const std::string &function_name) const {
  for (const ExternFunction &f : externs) {
    if (f.name == function_name) return &f;
  }
  return nullptr;
}

}  // namespace ufjit::ir
