// The typed IR: what the typer produces and code generation consumes.
//
// Semantics (these decide the code we emit on both targets):
// - Every expression has a Type. Operands of Binary and Compare have the SAME
//   type; the typer inserts every conversion as an explicit Cast. Code
//   generation never converts implicitly.
// - Integers are two's complement and WRAP on overflow (no poison flags).
// - Integer FloorDiv/Mod follow Python (floor; the remainder has the sign of
//   the divisor). A zero divisor gives 0. INT_MIN // -1 gives INT_MIN wrapped
//   (as int64 arithmetic in Numba: the quotient wraps), INT_MIN % -1 gives 0.
// - Float FloorDiv/Mod follow Python too (`math.floor(a / b)` and
//   `a - floor(a/b)*b` with the divisor's sign); by zero they give IEEE
//   results (inf/nan), never a trap.
// - Shl/Shr by a count >= the bit width (or negative) give 0, or -1 for Shr of
//   a negative signed value. Shr is arithmetic on signed, logical on unsigned.
// - Div exists only on floats and complex (`/` on ints is typed as float64).
// - Pow on integers is exact (repeated squaring, wrapping); a negative exponent
//   gives 0 unless the base is 1 or -1, and the type's minimum for a zero base
//   (Numba's zerodiv_return). Pow on floats is C `pow`.
// - Cast float -> int truncates toward zero; NaN or out-of-range gives an
//   unspecified value but never poison or a trap (lowered with saturating
//   conversions). Cast to bool is `x != 0`. Cast complex -> real takes the real
//   part. Cast to float16 rounds to nearest even.
// - float16 values are stored as IEEE half; arithmetic on them is done in
//   float32 and rounded back after each operation.
// - Floats are IEEE: no contraction into FMA, no approximate division, sqrt or
//   transcendentals, denormals preserved, unless the module's FloatOptions say
//   otherwise (fastmath). These options are part of every cache key.
// - Select and ShortCircuit evaluate only the operand they pick.
// - The IR is pure: no expression has a side effect other than through
//   Assign/ArrayStore statements and the explicit kernels' ArrayAtomic and
//   Sync, which are never removed, duplicated or moved across one another;
//   helper calls are to IR functions of the same module (no recursion: the
//   call graph is acyclic).
//
// Nodes are immutable and shared (std::shared_ptr<const Node>). Expr and Stmt
// are handles; `e.as<Binary>()` gives the node or nullptr. Node kinds are
// listed once below (X-macros) and the visitor, mutator, printer and kind
// names are generated from the lists.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/Type.h"

namespace ufjit::ir {

#define UFJIT_FOR_EACH_IR_EXPR(X) \
  X(Const)                        \
  X(Var)                          \
  X(Cast)                         \
  X(Unary)                        \
  X(Binary)                       \
  X(Compare)                      \
  X(Select)                       \
  X(ShortCircuit)                 \
  X(Call)                         \
  X(Intrinsic)                    \
  X(MakeTuple)                    \
  X(TupleGet)                     \
  X(ArrayLoad)                    \
  X(ArrayDim)                     \
  X(ArraySlice)                   \
  X(ArrayField)                   \
  X(ArrayAlloc)                   \
  X(ArrayAtomic)                  \
  X(Sync)

#define UFJIT_FOR_EACH_IR_STMT(X) \
  X(Block)                        \
  X(Assign)                       \
  X(ArrayStore)                   \
  X(If)                           \
  X(While)                        \
  X(ForRange)                     \
  X(Break)                        \
  X(Continue)                     \
  X(Return)                       \
  X(Raise)                        \
  X(Print)                        \
  X(Evaluate)

enum class NodeKind : uint8_t {
#define UFJIT_IR_ENUM(name) name,
  UFJIT_FOR_EACH_IR_EXPR(UFJIT_IR_ENUM) UFJIT_FOR_EACH_IR_STMT(UFJIT_IR_ENUM)
#undef UFJIT_IR_ENUM
};
const char *node_kind_name(NodeKind k);

struct ExprNode {
  ExprNode(NodeKind k, Type t) : kind(k), type(std::move(t)) {}
  virtual ~ExprNode() = default;
  const NodeKind kind;
  const Type type;
  /// Link of the queue of nodes waiting for deletion (NodeDeleter).
  mutable const ExprNode *next_dead = nullptr;
};

struct StmtNode {
  explicit StmtNode(NodeKind k) : kind(k) {}
  virtual ~StmtNode() = default;
  const NodeKind kind;
  /// Link of the queue of nodes waiting for deletion (NodeDeleter).
  mutable const StmtNode *next_dead = nullptr;
};

/// The deleter of every node: deletes the children a node releases one after
/// another instead of recursively, so that dropping a tree of any depth (a
/// 10,000-term sum) needs a few stack frames, on any thread.
struct NodeDeleter {
  void operator()(const ExprNode *node) const;
  void operator()(const StmtNode *node) const;
};

/// A handle to an immutable expression node (null when default-constructed).
class Expr {
 public:
  Expr() = default;
  Expr(std::shared_ptr<const ExprNode> n) : node_(std::move(n)) {}  // NOLINT: implicit by design
  const ExprNode *get() const { return node_.get(); }
  const ExprNode *operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  const Type &type() const { return node_->type; }
  template <typename T>
  const T *as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T *>(node_.get()) : nullptr;
  }
  bool same_as(const Expr &o) const { return node_ == o.node_; }

 private:
  std::shared_ptr<const ExprNode> node_;
};

/// A handle to an immutable statement node.
class Stmt {
 public:
  Stmt() = default;
  Stmt(std::shared_ptr<const StmtNode> n) : node_(std::move(n)) {}  // NOLINT: implicit by design
  const StmtNode *get() const { return node_.get(); }
  const StmtNode *operator->() const { return node_.get(); }
  explicit operator bool() const { return node_ != nullptr; }
  template <typename T>
  const T *as() const {
    return node_ && node_->kind == T::kKind ? static_cast<const T *>(node_.get()) : nullptr;
  }
  bool same_as(const Stmt &o) const { return node_ == o.node_; }

 private:
  std::shared_ptr<const StmtNode> node_;
};

// ---------------------------------------------------------------- expressions

/// A constant of a scalar type. Integers (and bool) keep their bits in
/// `int_bits` (sign- or zero-extended to 64 bits as the type says); floats in
/// `float_value` (float16/float32 constants are already rounded to their type);
/// complex numbers in `complex_value`.
struct Const : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Const;
  static Expr make_bool(bool v);
  static Expr make_int(DType t, int64_t v);  // wraps v to t's width
  static Expr make_uint(DType t, uint64_t v);
  static Expr make_float(DType t, double v);  // rounds to t
  static Expr make_complex(DType t, std::complex<double> v);
  /// A value of any scalar type from a double (used by folding and tests).
  static Expr make(DType t, double v);
  uint64_t int_bits = 0;
  double float_value = 0.0;
  std::complex<double> complex_value;
  int64_t as_int64() const { return static_cast<int64_t>(int_bits); }
  Const(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// A function parameter or local variable, by name (unique within a function;
/// Python scoping is per function).
struct Var : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Var;
  static Expr make(Type t, std::string name);
  std::string name;
  Var(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// An explicit scalar conversion (semantics at the top of this file).
struct Cast : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Cast;
  static Expr make(DType to, Expr value);
  Expr value;
  Cast(Type t) : ExprNode(kKind, std::move(t)) {}
};

enum class UnaryOpcode : uint8_t {
  Neg,     // arithmetic negation (ints wrap)
  Not,     // logical not, on bool only
  Invert,  // bitwise not, on ints and bool (~True is False for bool here, as NumPy)
};
const char *unary_opcode_name(UnaryOpcode op);

struct Unary : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Unary;
  static Expr make(UnaryOpcode op, Expr value);
  UnaryOpcode op;
  Expr value;
  Unary(Type t) : ExprNode(kKind, std::move(t)) {}
};

enum class BinaryOpcode : uint8_t {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, BitAnd, BitOr, BitXor, Shl, Shr
};
const char *binary_opcode_name(BinaryOpcode op);

/// `a op b`; a and b have the same scalar type, which is the result type.
struct Binary : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Binary;
  static Expr make(BinaryOpcode op, Expr a, Expr b);
  BinaryOpcode op;
  Expr a, b;
  Binary(Type t) : ExprNode(kKind, std::move(t)) {}
};

enum class CompareOpcode : uint8_t { Lt, Le, Gt, Ge, Eq, Ne };
const char *compare_opcode_name(CompareOpcode op);

/// `a op b` -> bool; a and b have the same scalar type. Ordered comparisons
/// with NaN are false; Ne with NaN is true (IEEE, as Python). Complex
/// operands allow only Eq and Ne.
struct Compare : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Compare;
  static Expr make(CompareOpcode op, Expr a, Expr b);
  CompareOpcode op;
  Expr a, b;
  Compare(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// `cond ? a : b` evaluating only the chosen arm; cond is bool, a and b have
/// the result type (any type, tuples included).
struct Select : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Select;
  static Expr make(Expr cond, Expr a, Expr b);
  Expr cond, a, b;
  Select(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// Python's `a and b` / `a or b` on scalars of one type: `and` gives a if a is
/// falsy (== 0) else b; `or` gives a if a is truthy else b. b is evaluated only
/// when needed.
struct ShortCircuit : ExprNode {
  static constexpr NodeKind kKind = NodeKind::ShortCircuit;
  enum class Op : uint8_t { And, Or };
  static Expr make(Op op, Expr a, Expr b);
  Op op;
  Expr a, b;
  ShortCircuit(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// A call of another function of the same module (a specialised helper);
/// argument types equal the callee's parameter types.
struct Call : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Call;
  static Expr make(Type ret, std::string callee, std::vector<Expr> args);
  std::string callee;  // ir::Function::name within the module
  std::vector<Expr> args;
  Call(Type t) : ExprNode(kKind, std::move(t)) {}
};

// X(enumerator, printed name, arity). Arguments of the float functions all have
// the result's float type unless noted; the typer inserts the casts.
#define UFJIT_FOR_EACH_INTRINSIC(X)                                               \
  /* real math, float32/float64 (float16 computed in float32) */                  \
  X(Acos, "acos", 1) X(Acosh, "acosh", 1) X(Asin, "asin", 1) X(Asinh, "asinh", 1) \
  X(Atan, "atan", 1) X(Atan2, "atan2", 2) X(Atanh, "atanh", 1)                    \
  X(Cbrt, "cbrt", 1) X(Ceil, "ceil", 1) X(Copysign, "copysign", 2)                \
  X(Cos, "cos", 1) X(Cosh, "cosh", 1) X(Erf, "erf", 1) X(Erfc, "erfc", 1)         \
  X(Exp, "exp", 1) X(Exp2, "exp2", 1) X(Expm1, "expm1", 1) X(Fabs, "fabs", 1)     \
  X(Floor, "floor", 1) X(Fma, "fma", 3) X(Fmod, "fmod", 2)                        \
  X(Gamma, "gamma", 1) X(Hypot, "hypot", 2) X(Lgamma, "lgamma", 1)                \
  X(Log, "log", 1) X(Log10, "log10", 1) X(Log1p, "log1p", 1) X(Log2, "log2", 1)   \
  X(Nextafter, "nextafter", 2) X(Pow, "pow", 2) X(Remainder, "remainder", 2)      \
  X(Rint, "rint", 1) X(Sin, "sin", 1) X(Sinh, "sinh", 1) X(Sqrt, "sqrt", 1)       \
  X(Tan, "tan", 1) X(Tanh, "tanh", 1) X(Trunc, "trunc", 1)                        \
  /* NumPy's float functions (codegen/lower/LowerNumpy.cpp): logaddexp(x, y), */          \
  /* logaddexp2(x, y), spacing(x) */                                               \
  X(Logaddexp, "logaddexp", 2) X(Logaddexp2, "logaddexp2", 2) X(Spacing, "spacing", 1) \
  /* ldexp(x float, n int32) -> float */                                          \
  X(Ldexp, "ldexp", 2)                                                            \
  /* frexp(x) -> (float, int32) tuple; modf(x) -> (frac, int) as (float, float) */ \
  X(Frexp, "frexp", 1) X(Modf, "modf", 1)                                         \
  /* classification: float or complex -> bool */                                  \
  X(IsNan, "isnan", 1) X(IsInf, "isinf", 1) X(IsFinite, "isfinite", 1)            \
  /* integer abs (wraps for INT_MIN), on ints */                                  \
  X(IAbs, "iabs", 1)                                                              \
  /* complex: parts and construction. Real/Imag/CAbs/Phase: complex -> float; */  \
  /* MakeComplex(re, im float) -> complex of that float; Conj: complex->complex */\
  X(Real, "real", 1) X(Imag, "imag", 1) X(Conj, "conj", 1)                        \
  X(MakeComplex, "complex", 2) X(CAbs, "cabs", 1) X(Phase, "phase", 1)            \
  /* complex math (cmath), complex -> complex */                                  \
  X(CExp, "cexp", 1) X(CLog, "clog", 1) X(CLog10, "clog10", 1)                    \
  X(CSqrt, "csqrt", 1) X(CSin, "csin", 1) X(CCos, "ccos", 1) X(CTan, "ctan", 1)   \
  X(CAsin, "casin", 1) X(CAcos, "cacos", 1) X(CAtan, "catan", 1)                  \
  X(CSinh, "csinh", 1) X(CCosh, "ccosh", 1) X(CTanh, "ctanh", 1)                  \
  X(CAsinh, "casinh", 1) X(CAcosh, "cacosh", 1) X(CAtanh, "catanh", 1)            \
  /* complex ** complex */                                                        \
  X(CPow, "cpow", 2)                                                              \
  /* integer bits (cuda.popc/clz/ffs/brev; codegen/lower/LowerIntrinsics.cpp): popc, */ \
  /* clz and brev give the argument's type, ffs uint32 (1-based, 0 for 0) */       \
  X(Popc, "popc", 1) X(Clz, "clz", 1) X(Ffs, "ffs", 1) X(Brev, "brev", 1)        \
  /* np.gcd/np.lcm on the magnitudes (wrapping to the type): integers of the */     \
  /* result's type (codegen/lower/LowerNumpy.cpp) */                                     \
  X(Gcd, "gcd", 2) X(Lcm, "lcm", 2)                                               \
  /* explicit kernels (@cuda.jit): the thread's coordinates, int32 */             \
  X(ThreadIdxX, "threadIdx.x", 0) X(ThreadIdxY, "threadIdx.y", 0) X(ThreadIdxZ, "threadIdx.z", 0) \
  X(BlockIdxX, "blockIdx.x", 0) X(BlockIdxY, "blockIdx.y", 0) X(BlockIdxZ, "blockIdx.z", 0)      \
  X(BlockDimX, "blockDim.x", 0) X(BlockDimY, "blockDim.y", 0) X(BlockDimZ, "blockDim.z", 0)      \
  X(GridDimX, "gridDim.x", 0) X(GridDimY, "gridDim.y", 0) X(GridDimZ, "gridDim.z", 0)            \
  X(LaneId, "laneid", 0)

enum class IntrinsicOp : uint8_t {
#define UFJIT_INTRINSIC_ENUM(name, str, arity) name,
  UFJIT_FOR_EACH_INTRINSIC(UFJIT_INTRINSIC_ENUM)
#undef UFJIT_INTRINSIC_ENUM
};
const char *intrinsic_name(IntrinsicOp op);
int intrinsic_arity(IntrinsicOp op);

/// A built-in operation with the given result type; argument types follow
/// the table above (the typer has converted them).
struct Intrinsic : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Intrinsic;
  static Expr make(IntrinsicOp op, Type result, std::vector<Expr> args);
  IntrinsicOp op;
  std::vector<Expr> args;
  Intrinsic(Type t) : ExprNode(kKind, std::move(t)) {}
};

struct MakeTuple : ExprNode {
  static constexpr NodeKind kKind = NodeKind::MakeTuple;
  static Expr make(std::vector<Expr> elements);
  std::vector<Expr> elements;
  MakeTuple(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// `tuple[index]` with a constant, in-range index (negative indices already
/// resolved by the typer).
struct TupleGet : ExprNode {
  static constexpr NodeKind kKind = NodeKind::TupleGet;
  static Expr make(Expr tuple, int index);
  Expr tuple;
  int index = 0;
  TupleGet(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// `array[i, j]` (generalized ufuncs): indices are int64, already wrapped for
/// negative values; `array` is a Var of array type or an ArraySlice of one.
struct ArrayLoad : ExprNode {
  static constexpr NodeKind kKind = NodeKind::ArrayLoad;
  static Expr make(Expr array, std::vector<Expr> indices, int line = 0);
  Expr array;
  std::vector<Expr> indices;
  /// The source line of the access, in checked modules (Module::checked)
  /// only, for the race checker's messages; 0 elsewhere.
  int line = 0;
  ArrayLoad(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// `array.shape[dim]` -> int64.
struct ArrayDim : ExprNode {
  static constexpr NodeKind kKind = NodeKind::ArrayDim;
  static Expr make(Expr array, int dim);
  Expr array;
  int dim = 0;
  ArrayDim(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// A view of `array` (a Var or another ArraySlice): `a[i, 1:n]`, `a[::-1]`,
/// `out[:]`. No copy: the view is the array's data pointer moved to the
/// first element, with new shape and strides. One entry of `dims` per
/// dimension of `array`: an index (`length` null: the dimension is dropped)
/// or `length` elements from `start` by the constant `step` (kept). All
/// int64 and normalised by the typer as Python's slice.indices does (an
/// index in range after wrapping; start in range when length > 0). The type
/// is an array of the kept dimensions, at least one.
struct ArraySlice : ExprNode {
  static constexpr NodeKind kKind = NodeKind::ArraySlice;
  struct Dim {
    Expr start;
    Expr length;  // null: an index
    int64_t step = 1;
  };
  static Expr make(Expr array, std::vector<Dim> dims);
  Expr array;
  std::vector<Dim> dims;
  ArraySlice(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// A field of the records of `array` (a record array: a uint8 array whose
/// last dimension is each record's bytes, a Var, a view or another field's
/// record array), as a view of the field's dtype, no copy: the data moved by
/// the field's offset, the record dimensions kept, and the last one replaced
/// by the field's subarray dimensions (C order), or, for a scalar field, by
/// one dimension of extent 1 (stride 0) that the typer indexes with 0. A
/// nested record field stays a record array.
struct ArrayField : ExprNode {
  static constexpr NodeKind kKind = NodeKind::ArrayField;
  static Expr make(Expr array, DType dtype, int64_t offset, std::vector<int64_t> shape);
  Expr array;
  int64_t offset = 0;
  std::vector<int64_t> shape;  // the field's subarray shape; empty: a scalar
  ArrayField(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// Where an ArrayAlloc's memory lives (explicit kernels).
enum class MemorySpace : uint8_t {
  Shared,         // cuda.shared.array(shape, dtype): one per block, static
  DynamicShared,  // cuda.shared.array(0, dtype): the launch's dynamic shared bytes
  Local,          // cuda.local.array(shape, dtype): one per thread
  Constant,       // a module-level NumPy array (cuda.const.array_like): read-only data
};
const char *memory_space_name(MemorySpace s);

/// A C-contiguous array of `type` (uninitialised) in `space`: static shared
/// memory at byte `offset` of the block's region (Module::shared_bytes; the
/// typer assigns offsets, 16-byte aligned, one per allocation site), the
/// block's dynamic shared memory (1-d, as many elements as fit in the
/// launch's dynamic shared bytes; every such array starts at its first
/// byte, as in CUDA), or the thread's local memory. `shape` is constant.
///
/// A Constant array holds `data`: its elements' bytes in C order, as the
/// target stores them (the GPU's constant memory, the CPU's read-only data).
struct ArrayAlloc : ExprNode {
  static constexpr NodeKind kKind = NodeKind::ArrayAlloc;
  static Expr make(MemorySpace space, DType dtype, std::vector<int64_t> shape, int64_t offset = 0);
  /// With `record`: an array of records, `dtype` uint8 and the last extent
  /// the record's item size (ir/Type.h).
  static Expr make_constant(DType dtype, std::vector<int64_t> shape, std::string data,
                            frontend::RecordRef record = nullptr);
  MemorySpace space = MemorySpace::Local;
  std::vector<int64_t> shape;  // DynamicShared: {0}
  int64_t offset = 0;          // Shared only
  std::shared_ptr<const std::string> data;  // Constant only
  ArrayAlloc(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// cuda.atomic.*: reads array[indices], stores `op(old, value)` there
/// atomically with respect to every other atomic on that element (global or
/// shared memory), and gives the old value. Add, Sub, And, Or, Xor, Exch as
/// their names; Max/Min as Python's max/min(old, value), `value > old ?
/// value : old` (a NaN already there stays, a NaN value is ignored), as
/// Numba's; NanMax/NanMin as C's fmax/fmin (a NaN on either side is
/// ignored); Inc
/// (unsigned): `old >= value ? 0 : old + 1`; Dec: `old == 0 || old > value ?
/// value : old - 1`; Cas: stores `value` if old == `compare`. `value` and
/// `compare` have the element type.
enum class AtomicOp : uint8_t { Add, Sub, Max, Min, NanMax, NanMin, And, Or, Xor, Inc, Dec, Exch, Cas };
const char *atomic_op_name(AtomicOp op);

struct ArrayAtomic : ExprNode {
  static constexpr NodeKind kKind = NodeKind::ArrayAtomic;
  static Expr make(AtomicOp op, Expr array, std::vector<Expr> indices, Expr value, Expr compare = Expr());
  AtomicOp op = AtomicOp::Add;
  Expr array;
  std::vector<Expr> indices;  // int64, wrapped as ArrayLoad's
  Expr value;
  Expr compare;  // Cas only
  ArrayAtomic(Type t) : ExprNode(kKind, std::move(t)) {}
};

/// An explicit kernel's meeting with other threads: a block barrier, a warp
/// collective or a memory fence (codegen/kernel/CpuKernelContext.h says what
/// each gives; the GPU's instructions are the same operations).
///   SyncThreads -> void; SyncThreadsCount/And/Or(int32 predicate) -> int32;
///   SyncWarp(uint32 mask) -> void; Fence{Block,Device,System}() -> void;
///   Shfl{Idx,Up,Down,Xor}(uint32 mask, T value, int32 lane) -> T (T a
///   32- or 64-bit integer or float); Vote{All,Any,Uni}(uint32 mask, bool)
///   -> bool; Ballot(uint32 mask, bool) -> uint32; MatchAny/MatchAll(uint32
///   mask, T value) -> uint32 (T a 32- or 64-bit integer or float);
///   ActiveMask() -> uint32.
/// `line` is the call's source line, for messages of the CPU target.
enum class SyncOp : uint8_t {
  SyncThreads, SyncThreadsCount, SyncThreadsAnd, SyncThreadsOr, SyncWarp,
  FenceBlock, FenceDevice, FenceSystem,
  ShflIdx, ShflUp, ShflDown, ShflXor, VoteAll, VoteAny, VoteUni, Ballot, MatchAny, MatchAll, ActiveMask,
};
const char *sync_op_name(SyncOp op);
/// Whether `op` makes a thread wait for others (every op but the fences).
bool sync_waits(SyncOp op);

struct Sync : ExprNode {
  static constexpr NodeKind kKind = NodeKind::Sync;
  static Expr make(SyncOp op, Type result, std::vector<Expr> args, int line);
  SyncOp op = SyncOp::SyncThreads;
  std::vector<Expr> args;
  int line = 0;
  Sync(Type t) : ExprNode(kKind, std::move(t)) {}
};

// ----------------------------------------------------------------- statements

struct Block : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Block;
  static Stmt make(std::vector<Stmt> stmts);
  std::vector<Stmt> stmts;
  Block() : StmtNode(kKind) {}
};

/// `var = value`; value's type equals the variable's declared type.
struct Assign : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Assign;
  static Stmt make(std::string var, Expr value);
  std::string var;
  Expr value;
  Assign() : StmtNode(kKind) {}
};

/// `out[i, j] = value` (generalized ufuncs); `array` is a Var or an ArraySlice.
struct ArrayStore : StmtNode {
  static constexpr NodeKind kKind = NodeKind::ArrayStore;
  static Stmt make(Expr array, std::vector<Expr> indices, Expr value, int line = 0);
  Expr array;
  std::vector<Expr> indices;
  Expr value;
  int line = 0;  // as ArrayLoad::line
  ArrayStore() : StmtNode(kKind) {}
};

struct If : StmtNode {
  static constexpr NodeKind kKind = NodeKind::If;
  static Stmt make(Expr cond, Stmt then_body, Stmt else_body = Stmt());
  Expr cond;  // bool
  Stmt then_body;
  Stmt else_body;  // may be null
  If() : StmtNode(kKind) {}

  /// The If that is all of this one's else (an `elif`), or nullptr. Passes
  /// walk an if/elif chain with it in a loop: recursing, their depth (and a
  /// printer's indentation) would grow with the chain's length.
  const If *elif() const;
};

struct While : StmtNode {
  static constexpr NodeKind kKind = NodeKind::While;
  static Stmt make(Expr cond, Stmt body);
  Expr cond;  // bool, evaluated before every iteration
  Stmt body;
  While() : StmtNode(kKind) {}
};

/// `for var in range(start, stop, step)`: start, stop and step have var's
/// integer type and are evaluated once. Python semantics: with step > 0 runs
/// while var < stop, with step < 0 while var > stop, with step == 0 not at all
/// (Python raises; a kernel cannot). After the loop, var holds the last value
/// it took (unchanged if the loop ran zero times). Assignments to var in the
/// body do not affect the iteration.
struct ForRange : StmtNode {
  static constexpr NodeKind kKind = NodeKind::ForRange;
  static Stmt make(std::string var, Expr start, Expr stop, Expr step, Stmt body);
  std::string var;
  Expr start, stop, step;
  Stmt body;
  ForRange() : StmtNode(kKind) {}
};

struct Break : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Break;
  static Stmt make();
  Break() : StmtNode(kKind) {}
};

struct Continue : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Continue;
  static Stmt make();
  Continue() : StmtNode(kKind) {}
};

/// `return value`; value has the function's return type (null for void).
struct Return : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Return;
  static Stmt make(Expr value);
  Expr value;
  Return() : StmtNode(kKind) {}
};

/// `raise Exc("message")` (LANGUAGE.md section 5): records `site` in the
/// call's error flag (the first raise of the call wins) and ends the
/// element, as a return would; the runtime reports a ufjit::KernelError after
/// the call. `site` numbers the module's raises from 1 (Module::raise_sites
/// [site - 1]); 0 until ModuleTyper::finish numbers them. Boundscheck
/// failures are raises of IndexError. In a checked module (Module::checked)
/// a boundscheck's raise carries `values` (the index and the extent, int64),
/// which the CPU target records beside the site for the message.
struct Raise : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Raise;
  static Stmt make(std::string exception, std::string message, std::string file, int line, int col, int site = 0,
                   std::vector<Expr> values = {});
  std::string exception;  // "ValueError"
  std::string message;    // may be empty
  std::string file;
  int line = 0;
  int col = 0;
  int site = 0;
  std::vector<Expr> values;  // at most kMaxRaiseValues int64s
  Raise() : StmtNode(kKind) {}
};

/// The most values a Raise records (a boundscheck's index and extent).
inline constexpr std::size_t kMaxRaiseValues = 2;

/// One raise of a module, for the runtime's message.
struct RaiseSite {
  std::string function;  // the IR function that holds it
  std::string exception;
  std::string message;
  std::string file;
  int line = 0;
  int col = 0;
  int values = 0;  // Raise::values.size()
};

/// `print(...)`: a printf `format` (a conversion per argument: `%lld` for an
/// int64, `%llu` for a uint64, `%f` for a float64, `%s` for a bool, which
/// prints True or False; literal text with `%` doubled) and its arguments.
/// On the GPU the device's printf (vprintf), whose output appears when the
/// launch synchronises; on the CPU the C library's.
struct Print : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Print;
  static Stmt make(std::string format, std::vector<Expr> args);
  std::string format;
  std::vector<Expr> args;
  Print() : StmtNode(kKind) {}
};

/// An expression evaluated for nothing (a call whose result is dropped).
struct Evaluate : StmtNode {
  static constexpr NodeKind kKind = NodeKind::Evaluate;
  static Stmt make(Expr value);
  Expr value;
  Evaluate() : StmtNode(kKind) {}
};

// ----------------------------------------------------------- functions, module

struct Variable {
  std::string name;
  Type type;
};

/// One specialised function: parameters and locals are all typed. Every path
/// through `body` ends in a Return (the typer guarantees it), except for void
/// functions, which may fall off the end.
struct Function {
  std::string name;  // unique within the module: "gaussian_pdf", "polar_to_cartesian__f32_f32"
  std::vector<Variable> params;
  std::vector<Variable> locals;  // every assigned name that is not a parameter
  Type ret;
  Stmt body;
};

/// Floating-point options: part of every cache key, printed in the IR header.
struct FloatOptions {
  bool fastmath = false;  // contraction, approximate div/sqrt/transcendentals, FTZ
  bool operator==(const FloatOptions &o) const { return fastmath == o.fastmath; }
};

/// A device function written in CUDA C++ (`declare_device`), called by name
/// (ir::Call::callee is `name`) and defined by one of the module's link files.
/// Calls pass arguments already converted to `params`.
struct ExternFunction {
  enum class Abi { Numba, C };
  std::string name;  // the C symbol: "cube_plus"
  std::vector<Type> params;
  Type ret;
  Abi abi = Abi::Numba;  // Numba: int name(ret *out, params...); C: ret name(params...)
  /// Where it was declared, for errors the linker finds ("undefined").
  std::string decl_file;
  int decl_line = 0;
  int decl_col = 0;
};

/// A file of device code named by `link=[...]`, read when the source was
/// typed: its path as resolved (relative names from the source's folder) and
/// its bytes, so that the printed IR (and with it every cache key) covers the
/// helper's content.
struct LinkFile {
  std::string spelled;  // as written in link=[...]
  std::string path;     // resolved
  std::string bytes;
  std::vector<std::string> nvrtc_options;  // .cu only: passed to NVRTC as they are (LinkOptions)
};

/// Link files given beside a source instead of in its decorators
/// (Runtime::vectorize's VectorizeOptions, `ufjit --link`), and the folder
/// relative link paths resolve against.
struct LinkOptions {
  /// Linked by every ufunc that calls a declare_device function, after its
  /// own link=[...] entries (a file named by both is linked once).
  std::vector<std::string> files;
  /// Where relative paths (these and the decorators') are found; empty: the
  /// source file's folder, or the current folder for a source string.
  std::string base_dir;
  /// Given to NVRTC for every .cu link file ("-DN=4", "-std=c++17").
  std::vector<std::string> nvrtc_options;
};

/// One unit of compilation: the entry function for one (ufunc, signature) and
/// every helper specialisation it calls, callees before callers.
struct Module {
  std::string name;  // the ufunc's name
  std::vector<Function> functions;
  std::vector<ExternFunction> externs;  // CUDA C++ functions the functions call
  std::vector<LinkFile> link_files;     // the ufunc's link=[...] files (GPU only)
  int entry = 0;  // index of the entry function in `functions`
  FloatOptions options;
  /// Every Raise of the functions, by site - 1 (ir/RaiseSites.h). Non-empty:
  /// the entries take the error-flag parameter (codegen/kernel/KernelABI.h).
  std::vector<RaiseSite> raise_sites;
  bool can_raise() const { return !raise_sites.empty() || checked; }
  /// An explicit kernel's module (@cuda.jit): its entry is the kernel, and
  /// on the CPU target every function takes the thread's context
  /// (codegen/kernel/CpuKernelContext.h) after the error flag.
  bool explicit_kernel = false;
  /// Static shared memory of one block, in bytes (the ArrayAllocs of space
  /// Shared end at or before it).
  int64_t shared_bytes = 0;
  /// A thread of the kernel may wait for others (a Sync that sync_waits):
  /// on the CPU its block runs one fiber per thread.
  bool threads_wait = false;
  /// The checking mode of a kernel (`debug=True`, UFJIT_CHECK=1,
  /// LaunchConfig::check): every array index is bounds-checked (a Raise
  /// with values), array accesses carry their source lines, and on the CPU
  /// the kernel runs on fibers with shared-memory accesses reported to the
  /// race checker (codegen/kernel/KernelCheck.h). Part of the printed IR,
  /// hence of every cache key.
  bool checked = false;
  const Function &entry_function() const { return functions.at(static_cast<std::size_t>(entry)); }
  const Function *find(const std::string &function_name) const;
  const ExternFunction *find_extern(const std::string &function_name) const;
};

}  // namespace ufjit::ir
