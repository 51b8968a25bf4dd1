// What only explicit kernels (@cuda.jit, LANGUAGE.md section 9) and the
// device functions they call may use: the thread's coordinates
// (cuda.threadIdx.x, cuda.grid(2), ...), block barriers and warp
// collectives (ir::Sync), atomics (ir::ArrayAtomic) and shared and local
// arrays (ir::ArrayAlloc). Typed as Numba types them: coordinates int32,
// cuda.grid/gridsize int64, the warp masks uint32.
#include <limits>

#include "support/InternalAssert.h"
#include "typer/LibraryCall.h"

namespace ufjit::ir::typer {

namespace {

Value strong(Expr e) { return Value::strong(std::move(e)); }
Expr to_i64(const Expr &e) { return Cast::make(DType::Int64, e); }

/// One coordinate register per (object, axis).
struct Coordinate {
  const char *object;
  IntrinsicOp x, y, z;
};

const Coordinate kCoordinates[] = {
    {"threadIdx", IntrinsicOp::ThreadIdxX, IntrinsicOp::ThreadIdxY, IntrinsicOp::ThreadIdxZ},
    {"blockIdx", IntrinsicOp::BlockIdxX, IntrinsicOp::BlockIdxY, IntrinsicOp::BlockIdxZ},
    {"blockDim", IntrinsicOp::BlockDimX, IntrinsicOp::BlockDimY, IntrinsicOp::BlockDimZ},
    {"gridDim", IntrinsicOp::GridDimX, IntrinsicOp::GridDimY, IntrinsicOp::GridDimZ},
};

Expr coordinate(IntrinsicOp op) { return Intrinsic::make(op, Type::scalar(DType::Int32), {}); }

IntrinsicOp axis_of(const Coordinate &c, int axis) { return axis == 0 ? c.x : axis == 1 ? c.y : c.z; }

}  // namespace

/// One call of a kernel-only cuda.* function (or cuda.atomic.*); its
/// handlers are named by the tables below.
class KernelCall : public LibraryCall {
 public:
  KernelCall(BodyTyper &typer, const std::string &prefix, const std::string &name, std::vector<Value> args,
             const ast::Call &call)
      : LibraryCall(typer, name, prefix + name, std::move(args), call) {}

  /// Checks the arity, then runs `handler`.
  Value run(std::size_t arity, Value (KernelCall::*handler)()) {
    if (!want(arity)) return Value::error();
    return (this->*handler)();
  }

  Value grid();
  Value barrier();
  Value syncwarp();
  Value fence();
  Value shuffle();
  Value vote();
  Value match();
  Value activemask();
  Value lanemask_lt();
  Value atomic();

 private:
  /// `ndim` of cuda.grid(ndim): 1, 2 or 3, else an error (0).
  int dims_arg();
  /// Argument `i` as a uint32 warp mask.
  Value mask_arg(std::size_t i);
  /// Argument `i` as a shuffled or matched value: a 32- or 64-bit integer
  /// or float (a Python int is int64, a float float64).
  Value word_arg(std::size_t i);
  Value sync(SyncOp op, Type result, std::vector<Value> args);
};

namespace {

using KernelFn = CallHandler<KernelCall>;

// clang-format off
const KernelFn kKernelFunctions[] = {
    {"grid", 1, &KernelCall::grid}, {"gridsize", 1, &KernelCall::grid},
    {"syncthreads", 0, &KernelCall::barrier}, {"syncthreads_count", 1, &KernelCall::barrier},
    {"syncthreads_and", 1, &KernelCall::barrier}, {"syncthreads_or", 1, &KernelCall::barrier},
    {"syncwarp", 1, &KernelCall::syncwarp},
    {"threadfence", 0, &KernelCall::fence}, {"threadfence_block", 0, &KernelCall::fence},
    {"threadfence_system", 0, &KernelCall::fence},
    {"shfl_sync", 3, &KernelCall::shuffle}, {"shfl_up_sync", 3, &KernelCall::shuffle},
    {"shfl_down_sync", 3, &KernelCall::shuffle}, {"shfl_xor_sync", 3, &KernelCall::shuffle},
    {"all_sync", 2, &KernelCall::vote}, {"any_sync", 2, &KernelCall::vote}, {"eq_sync", 2, &KernelCall::vote},
    {"ballot_sync", 2, &KernelCall::vote},
    {"match_any_sync", 2, &KernelCall::match}, {"match_all_sync", 2, &KernelCall::match},
    {"activemask", 0, &KernelCall::activemask}, {"lanemask_lt", 0, &KernelCall::lanemask_lt},
};

const KernelFn kAtomics[] = {
    {"add", 3, &KernelCall::atomic}, {"sub", 3, &KernelCall::atomic}, {"max", 3, &KernelCall::atomic},
    {"min", 3, &KernelCall::atomic}, {"nanmax", 3, &KernelCall::atomic}, {"nanmin", 3, &KernelCall::atomic},
    {"and_", 3, &KernelCall::atomic}, {"or_", 3, &KernelCall::atomic}, {"xor", 3, &KernelCall::atomic},
    {"inc", 3, &KernelCall::atomic}, {"dec", 3, &KernelCall::atomic}, {"exch", 3, &KernelCall::atomic},
    {"cas", 4, &KernelCall::atomic}, {"compare_and_swap", 3, &KernelCall::atomic},
};

struct NamedSync {
  const char *name;
  SyncOp op;
};

const NamedSync kSyncs[] = {
    {"syncthreads", SyncOp::SyncThreads}, {"syncthreads_count", SyncOp::SyncThreadsCount},
    {"syncthreads_and", SyncOp::SyncThreadsAnd}, {"syncthreads_or", SyncOp::SyncThreadsOr},
    {"threadfence", SyncOp::FenceDevice}, {"threadfence_block", SyncOp::FenceBlock},
    {"threadfence_system", SyncOp::FenceSystem},
    {"shfl_sync", SyncOp::ShflIdx}, {"shfl_up_sync", SyncOp::ShflUp}, {"shfl_down_sync", SyncOp::ShflDown},
    {"shfl_xor_sync", SyncOp::ShflXor}, {"all_sync", SyncOp::VoteAll}, {"any_sync", SyncOp::VoteAny},
    {"eq_sync", SyncOp::VoteUni}, {"ballot_sync", SyncOp::Ballot},
    {"match_any_sync", SyncOp::MatchAny}, {"match_all_sync", SyncOp::MatchAll},
};

struct NamedAtomic {
  const char *name;
  AtomicOp op;
  bool floats;    // float32/float64 elements too
  bool signed_;   // signed integer elements too (inc/dec: unsigned only)
};

const NamedAtomic kAtomicOps[] = {
    {"add", AtomicOp::Add, true, true}, {"sub", AtomicOp::Sub, true, true}, {"max", AtomicOp::Max, true, true},
    {"min", AtomicOp::Min, true, true}, {"nanmax", AtomicOp::NanMax, true, true},
    {"nanmin", AtomicOp::NanMin, true, true}, {"and_", AtomicOp::And, false, true},
    {"or_", AtomicOp::Or, false, true}, {"xor", AtomicOp::Xor, false, true}, {"inc", AtomicOp::Inc, false, false},
    {"dec", AtomicOp::Dec, false, false}, {"exch", AtomicOp::Exch, true, true}, {"cas", AtomicOp::Cas, false, true},
    {"compare_and_swap", AtomicOp::Cas, false, true},
};
// clang-format on

SyncOp sync_named(const std::string &name) {
  const NamedSync *s = find_entry(kSyncs, name);
  internal_assert(s != nullptr) << "no Sync for cuda." << name;
  return s->op;
}

}  // namespace

bool BodyTyper::in_kernel() const { return module_ != nullptr && module_->explicit_kernel(); }

bool BodyTyper::require_kernel(const std::string &what, const SourceLocation &loc) {
  if (in_kernel()) return true;
  error(loc, "'" + what + "' can only be used in a @cuda.jit kernel or a device function it calls, not in a ufunc");
  return false;
}

std::optional<Value> BodyTyper::call_kernel_function(const std::string &module, const std::string &name,
                                                     std::vector<Value> &args, const ast::Call &call) {
  const bool atomic = module == "numba.cuda.atomic";
  const KernelFn *f = atomic ? find_entry(kAtomics, name) : find_entry(kKernelFunctions, name);
  if (f == nullptr) {
    if (!atomic) return std::nullopt;  // cuda.popc and the ufunc body's others (CudaCalls.cpp)
    std::vector<std::string> names;
    for (const KernelFn &a : kAtomics) names.push_back(a.name);
    std::string message = "'cuda.atomic." + name + "' is not an atomic operation";
    std::string hint = closest_match(name, names);
    if (!hint.empty()) message += "; did you mean 'cuda.atomic." + hint + "'?";
    error(callee_loc(call), message);
    return Value::error();
  }
  const std::string prefix = atomic ? "cuda.atomic." : "cuda.";
  if (!require_kernel(prefix + name, callee_loc(call))) return Value::error();
  for (const Value &a : args) {
    if (!a.ok) return Value::error();
  }
  return KernelCall(*this, prefix, name, std::move(args), call).run(f->arity, f->handler);
}

Value BodyTyper::cuda_attribute(const std::string &object, const std::string &attr, const SourceLocation &loc) {
  if (object == "numba.cuda") {
    if (attr != "laneid" && attr != "warpsize") {
      error(loc, "'cuda." + attr + "' cannot be used as a value in a function body");
      return Value::error();
    }
    if (!require_kernel("cuda." + attr, loc)) return Value::error();
    if (attr == "warpsize") return strong(Const::make_int(DType::Int32, 32));
    return strong(coordinate(IntrinsicOp::LaneId));
  }
  const std::string name = object.substr(std::string("numba.cuda.").size());
  const Coordinate *c = nullptr;
  for (const Coordinate &k : kCoordinates) {
    if (name == k.object) c = &k;
  }
  internal_assert(c != nullptr) << "cuda_attribute of " << object;
  if (!require_kernel("cuda." + name + "." + attr, loc)) return Value::error();
  if (attr != "x" && attr != "y" && attr != "z") {
    error(loc, "'cuda." + name + "' has the attributes x, y and z, not '" + attr + "'");
    return Value::error();
  }
  return strong(coordinate(axis_of(*c, attr == "x" ? 0 : attr == "y" ? 1 : 2)));
}

bool is_cuda_coordinate_object(const std::string &name) {
  for (const Coordinate &c : kCoordinates) {
    if (name == c.object) return true;
  }
  return false;
}

int KernelCall::dims_arg() {
  const Value &v = args_[0];
  if (v.is_weak() && v.weak == Weak::Int && v.num.i >= 1 && v.num.i <= 3) return static_cast<int>(v.num.i);
  t_.error(arg_loc(0), qualified_ + "() takes the number of dimensions, the constant 1, 2 or 3");
  return 0;
}

Value KernelCall::grid() {
  // cuda.grid(n): blockIdx * blockDim + threadIdx per axis; cuda.gridsize(n):
  // blockDim * gridDim. In int64, as Numba computes them.
  const int n = dims_arg();
  if (n == 0) return Value::error();
  const bool size = name_ == "gridsize";
  std::vector<Expr> axes;
  for (int axis = 0; axis < n; ++axis) {
    Expr dim = to_i64(coordinate(axis_of(kCoordinates[2], axis)));
    if (size) {
      axes.push_back(Binary::make(BinaryOpcode::Mul, dim, to_i64(coordinate(axis_of(kCoordinates[3], axis)))));
      continue;
    }
    Expr block = to_i64(coordinate(axis_of(kCoordinates[1], axis)));
    Expr thread = to_i64(coordinate(axis_of(kCoordinates[0], axis)));
    axes.push_back(Binary::make(BinaryOpcode::Add, Binary::make(BinaryOpcode::Mul, block, dim), thread));
  }
  if (n == 1) return strong(axes[0]);
  return strong(MakeTuple::make(std::move(axes)));
}

Value KernelCall::sync(SyncOp op, Type result, std::vector<Value> args) {
  std::vector<Expr> exprs;
  for (const Value &a : args) {
    if (!a.ok) return Value::error();
    exprs.push_back(a.expr);
  }
  if (sync_waits(op)) t_.module_->note_threads_wait();
  return strong(Sync::make(op, std::move(result), std::move(exprs), loc_.line));
}

Value KernelCall::barrier() {
  const SyncOp op = sync_named(name_);
  if (op == SyncOp::SyncThreads) return sync(op, Type::void_type(), {});
  Value predicate = t_.truth(args_[0], arg_loc(0));
  if (!predicate.ok) return predicate;
  return sync(op, Type::scalar(DType::Int32), {t_.convert(predicate, DType::Int32)});
}

Value KernelCall::mask_arg(std::size_t i) {
  const Value &v = args_[i];
  if (!(v.is_weak() && v.weak == Weak::Int) && !(v.ok && !v.literal_tuple && v.type.is_int())) {
    t_.error(arg_loc(i), qualified_ + "() takes a warp mask, an integer such as 0xffffffff");
    return Value::error();
  }
  return t_.convert(v, DType::UInt32);
}

Value KernelCall::syncwarp() { return sync(SyncOp::SyncWarp, Type::void_type(), {mask_arg(0)}); }

Value KernelCall::fence() { return sync(sync_named(name_), Type::void_type(), {}); }

Value KernelCall::word_arg(std::size_t i) {
  Value v = args_[i];
  if (v.is_weak() && v.weak != Weak::Complex) v = t_.materialize(v);
  const bool word = v.ok && !v.literal_tuple && v.type.is_scalar() && !v.type.is_bool() &&
                    !v.type.is_complex() && (dtype_size(v.type.dtype()) == 4 || dtype_size(v.type.dtype()) == 8);
  if (!word) {
    t_.error(arg_loc(i), qualified_ + "() takes a 32- or 64-bit integer or float, not '" +
                             (v.is_weak() ? std::string(weak_name(v.weak)) : v.type.str()) + "'");
    return Value::error();
  }
  return v;
}

Value KernelCall::shuffle() {
  Value mask = mask_arg(0);
  Value value = word_arg(1);
  Value lane = args_[2];
  if (!(lane.is_weak() && lane.weak == Weak::Int) && !(lane.ok && !lane.literal_tuple && lane.type.is_int())) {
    t_.error(arg_loc(2), qualified_ + "() takes an integer lane, delta or lane mask");
    return Value::error();
  }
  if (!mask.ok || !value.ok) return Value::error();
  return sync(sync_named(name_), value.type, {mask, value, t_.convert(lane, DType::Int32)});
}

Value KernelCall::vote() {
  Value mask = mask_arg(0);
  Value predicate = t_.truth(args_[1], arg_loc(1));
  if (!mask.ok || !predicate.ok) return Value::error();
  const SyncOp op = sync_named(name_);
  const Type result = Type::scalar(op == SyncOp::Ballot ? DType::Int32 : DType::Bool);
  return sync(op, result, {mask, predicate});
}

Value KernelCall::match() {
  Value mask = mask_arg(0);
  Value value = word_arg(1);
  if (!mask.ok || !value.ok) return Value::error();
  const SyncOp op = sync_named(name_);
  Value bits = sync(op, Type::scalar(DType::Int32), {mask, value});
  if (op == SyncOp::MatchAny || !bits.ok) return bits;
  // match_all_sync gives (mask, pred) as Numba does: pred is whether all matched.
  Value held = t_.stabilize(bits);
  Expr matched = Compare::make(CompareOpcode::Ne, held.expr, Const::make_int(DType::Int32, 0));
  return strong(MakeTuple::make({held.expr, matched}));
}

Value KernelCall::activemask() { return sync(SyncOp::ActiveMask, Type::scalar(DType::UInt32), {}); }

Value KernelCall::lanemask_lt() {
  // The lanes below this one: (1 << laneid) - 1, as PTX's %lanemask_lt.
  Expr lane = Cast::make(DType::UInt32, coordinate(IntrinsicOp::LaneId));
  Expr one = Const::make_int(DType::UInt32, 1);
  return strong(Binary::make(BinaryOpcode::Sub, Binary::make(BinaryOpcode::Shl, one, lane), one));
}

Value KernelCall::atomic() {
  const NamedAtomic *a = find_entry(kAtomicOps, name_);
  const bool legacy_cas = name_ == "compare_and_swap";  // (ary, old, val) on ary[0]
  const Value &array = args_[0];
  if (!array.ok || array.literal_tuple || !array.type.is_array()) {
    t_.error(arg_loc(0), qualified_ + "() takes an array first, not '" + array.type.str() + "'");
    return Value::error();
  }
  const DType t = array.type.dtype();
  const bool is_float = t == DType::Float32 || t == DType::Float64;
  const bool wide_int = is_integer(t) && dtype_size(t) >= 4;
  const bool fits = (is_float && a->floats) || (wide_int && (a->signed_ || is_unsigned_int(t)));
  if (!fits) {
    t_.error(arg_loc(0), qualified_ + "() is not supported on an array of " + std::string(dtype_name(t)) +
                             (a->floats ? " (32- and 64-bit integers and floats only)"
                                        : a->signed_ ? " (32- and 64-bit integers only)"
                                                     : " (uint32 and uint64 only)"));
    return Value::error();
  }
  if (legacy_cas && array.type.ndim() != 1) {
    t_.error(arg_loc(0), qualified_ + "() takes a 1-d array (it works on element 0)");
    return Value::error();
  }
  std::vector<Expr> indices;
  if (legacy_cas) {
    indices.push_back(Const::make_int(DType::Int64, 0));
  } else if (!t_.atomic_indices(array, *call_.args.at(1), indices)) {
    return Value::error();
  }
  const std::size_t value_at = legacy_cas || a->op != AtomicOp::Cas ? args_.size() - 1 : 3;
  Value value = t_.convert(t_.materialize(args_[value_at]), t);
  if (!value.ok || value.literal_tuple || !value.type.is_scalar()) return Value::error();
  Expr compare;
  if (a->op == AtomicOp::Cas) {
    Value old = t_.convert(t_.materialize(args_[value_at - 1]), t);
    if (!old.ok) return Value::error();
    compare = old.expr;
  }
  return strong(ArrayAtomic::make(a->op, array.expr, std::move(indices), value.expr, compare));
}

bool BodyTyper::atomic_indices(const Value &array, const ast::Expr &index, std::vector<Expr> &out) {
  // An int, or a tuple of one per dimension: written as one, or a tuple value (`idx = (i, j)`).
  Value v = expr(index);
  if (!v.ok) return false;
  std::vector<Value> parts = {v};
  if (v.literal_tuple) {
    parts = v.elements;
  } else if (v.type.is_tuple()) {
    const Value held = stabilize(v);
    parts.clear();
    for (std::size_t k = 0; k < held.type.elements().size(); ++k) {
      parts.push_back(Value::strong(TupleGet::make(held.expr, static_cast<int>(k))));
    }
  }
  if (static_cast<int>(parts.size()) != array.type.ndim()) {
    error(index.loc, "an atomic on a " + std::to_string(array.type.ndim()) + "-d array takes " +
                         std::to_string(array.type.ndim()) + " indices, not " + std::to_string(parts.size()));
    return false;
  }
  for (std::size_t d = 0; d < parts.size(); ++d) {
    if (!parts[d].ok) return false;
    std::optional<Expr> i = array_index(array, static_cast<int>(d), parts[d], index, true);
    if (!i) return false;
    out.push_back(*i);
  }
  return true;
}

Value BodyTyper::array_alloc(MemorySpace space, const ast::Call &call) {
  const char *what = space == MemorySpace::Local ? "cuda.local.array" : "cuda.shared.array";
  if (!require_kernel(what, callee_loc(call))) return Value::error();
  const ast::Expr *shape = call.args.empty() ? nullptr : call.args[0].get();
  const ast::Expr *dtype = call.args.size() < 2 ? nullptr : call.args[1].get();
  for (const ast::Keyword &kw : call.keywords) {
    if (kw.name == "shape" && shape == nullptr) {
      shape = kw.value.get();
    } else if (kw.name == "dtype" && dtype == nullptr) {
      dtype = kw.value.get();
    } else {
      error(kw.loc, std::string(what) + "() takes shape and dtype, not '" + kw.name + "='");
      return Value::error();
    }
  }
  if (shape == nullptr || dtype == nullptr || call.args.size() > 2) {
    error(call.loc, std::string(what) + "() takes a shape and a dtype: " + what + "((16, 16), float32)");
    return Value::error();
  }
  std::optional<DType> element = dtype_of_expression(*dtype);
  if (!element) {
    error(dtype->loc, "'" + ast::to_source(*dtype) + "' is not a dtype (float32, np.int64, 'f8', ...)");
    return Value::error();
  }
  std::vector<int64_t> extents;
  Value s = expr(*shape);
  std::vector<Value> items = s.literal_tuple ? s.elements : std::vector<Value>{s};
  for (const Value &item : items) {
    const Value v = constant_local(item);
    // A literal, or a constant a caller passed down (bound as int64, CompileTimeArgs.cpp).
    const Const *c = v.ok && !v.is_weak() && v.type.is_int() ? v.expr.as<Const>()
                                                                                               : nullptr;
    const Int128 extent = c != nullptr ? Int128{c->as_int64()} : v.num.i;
    if ((c == nullptr && (!v.is_weak() || v.weak != Weak::Int)) || extent < 0 || extent > (Int128{1} << 31)) {
      error(shape->loc, std::string(what) + "() needs a shape of constant integers (an int or a tuple of them)");
      return Value::error();
    }
    extents.push_back(static_cast<int64_t>(extent));
  }
  if (extents.empty()) extents.push_back(1);
  Int128 bytes = static_cast<Int128>(dtype_size(*element));
  for (int64_t d : extents) bytes *= d;
  if (space == MemorySpace::Local && bytes > kMaxLocalArrayBytes) {
    error(shape->loc, std::string(what) + "() of " + std::to_string(static_cast<int64_t>(bytes)) +
                          " bytes: a thread's local array holds at most " + std::to_string(kMaxLocalArrayBytes) +
                          " bytes (the CPU target runs threads on small stacks); use a shared or a global array");
    return Value::error();
  }
  if (bytes > kMaxKernelArrayBytes) {
    error(shape->loc, std::string(what) + "() of " + std::to_string(static_cast<int64_t>(bytes)) +
                          " bytes: at most " + std::to_string(kMaxKernelArrayBytes) + " per array");
    return Value::error();
  }
  Expr alloc;
  if (space == MemorySpace::Shared && extents.size() == 1 && extents[0] == 0) {
    alloc = ArrayAlloc::make(MemorySpace::DynamicShared, *element, {0});
  } else if (space == MemorySpace::Shared) {
    const int64_t offset = emitting() ? module_->allocate_shared(static_cast<int64_t>(bytes)) : 0;
    if (module_->static_shared_bytes() > kMaxStaticSharedBytes) {
      error(shape->loc, "the kernel's static shared arrays take " + std::to_string(module_->static_shared_bytes()) +
                            " bytes with this one; a block has at most " + std::to_string(kMaxStaticSharedBytes) +
                            " (48 KiB, CUDA's limit): use dynamic shared memory, cuda.shared.array(0, dtype)");
      return Value::error();
    }
    alloc = ArrayAlloc::make(MemorySpace::Shared, *element, extents, offset);
  } else {
    alloc = ArrayAlloc::make(MemorySpace::Local, *element, extents);
  }
  // Held in a temp: every use is the one allocation.
  return stabilize(strong(alloc));
}

std::optional<DType> BodyTyper::dtype_of_expression(const ast::Expr &e) const {
  if (const ast::StrLit *s = e.as<ast::StrLit>()) return dtype_from_name(s->value);
  if (const ast::Name *n = e.as<ast::Name>()) {
    if (const Binding *b = binding_of(n->id)) {
      return b->reference != nullptr ? dtype_of_expression(*b->reference) : std::nullopt;
    }
    auto imp = scope_.imports.find(n->id);
    if (imp != scope_.imports.end()) {
      const std::size_t dot = imp->second.rfind('.');
      return dtype_from_name(dot == std::string::npos ? imp->second : imp->second.substr(dot + 1));
    }
    return dtype_from_name(n->id);
  }
  if (const ast::Attribute *a = e.as<ast::Attribute>()) {
    std::optional<std::string> mod = module_of(*a->value);
    if (mod && (*mod == "numpy" || *mod == "numba" || *mod == "numba.types")) return dtype_from_name(a->attr);
  }
  return std::nullopt;
}

}  // namespace ufjit::ir::typer
