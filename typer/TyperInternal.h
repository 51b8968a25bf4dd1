// Internals of the typer (typer/Typer.h is its public face): the typed value
// the expression typer passes around, Python-number folding of weak
// literals, and the classes that type a function body and a module.
//
// How a body is typed (TyperStmt.cpp): every local gets one type, the
// weak-aware NumPy unification of all values assigned to it. The body is
// walked repeatedly in Infer mode (diagnostics muted, IR dropped) until those
// candidate types stop growing, retyping only the simple statements whose
// reads changed (InferWorklist.h), then once in Emit mode with the final
// types, which reports errors, checks definite assignment and builds the IR.
#pragma once

#include <complex>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/AST.h"
#include "support/Diagnostics.h"
#include "frontend/Program.h"
#include "ir/IR.h"
#include "typer/InferWorklist.h"

namespace ufjit::ir::typer {

/// The kind of a weak (NEP 50 "Python scalar") value; None for strong ones.
enum class Weak : uint8_t { None, Int, Float, Complex };

/// Python's name for a weak kind ("int", "float", "complex"), as its error
/// messages spell it; "?" for None.
const char *weak_name(Weak k);

using Int128 = __int128;

/// A Python number (the value of a weak literal or constant), folded with
/// Python's semantics.
struct PyNum {
  Weak kind = Weak::Int;
  Int128 i = 0;
  double f = 0.0;
  std::complex<double> c{};
  static PyNum of_int(Int128 v) { return {.kind = Weak::Int, .i = v}; }
  static PyNum of_float(double v) { return {.kind = Weak::Float, .f = v}; }
  static PyNum of_complex(std::complex<double> v) { return {.kind = Weak::Complex, .c = v}; }
  double as_double() const;
  std::complex<double> as_complex() const;
  bool is_zero() const;
  std::string str() const;
};

/// The result of typing an expression. `ok` is false after an error (already
/// reported) or, in Infer mode, when a variable's type is not known yet;
/// operations on such values give non-ok values silently.
struct Value {
  bool ok = false;
  Type type;  // strong: its type; weak: the default concrete type
  Expr expr;  // strong values only
  Weak weak = Weak::None;
  PyNum num;  // weak values only
  /// `(a, b)` written in the source: elements stay unmaterialized (weak
  /// literals keep adapting) until the tuple must become one value.
  bool literal_tuple = false;
  std::vector<Value> elements;

  static Value error() { return Value(); }
  static Value strong(Expr e);
  static Value weak_num(PyNum n);
  static Value tuple_literal(std::vector<Value> elements);
  bool is_weak() const { return ok && weak != Weak::None; }
};

/// int64 / float64 / complex128: what a weak value becomes on its own.
DType default_dtype(Weak kind);
/// Whether integer `v` is representable in integer or bool type `t`.
bool int_fits(DType t, Int128 v);
/// NEP 50: the dtype a weak number takes next to a strong operand of dtype
/// `other` (before promotion with `other`).
DType weak_adapt(const PyNum &n, DType other);
/// A constant of dtype `t` holding `n` (wrapping/rounding/real part as a C cast).
Expr make_const(DType t, const PyNum &n);

/// Python arithmetic on two numbers. Returns nullopt and sets `error` when
/// Python would raise (division by zero, integer overflow past 128 bits).
std::optional<PyNum> fold_binary(ast::BinaryOp op, const PyNum &a, const PyNum &b, std::string &error);
std::optional<bool> fold_compare(ast::CmpOp op, const PyNum &a, const PyNum &b);

/// What has been assigned to one variable so far.
struct Candidates {
  std::optional<Type> strong;  // unified strong candidates (scalar or tuple)
  bool weak_int = false, weak_float = false, weak_complex = false;
  Int128 int_min = 0, int_max = 0;
  bool conflict = false;  // tuple vs scalar or tuple arity mismatch
  std::string conflict_message;
  bool empty() const { return !strong && !weak_int && !weak_float && !weak_complex; }
  /// Adds a value's type; returns true if the resolved type or the kinds of
  /// candidates changed (not merely the range of weak integers, which would
  /// keep growing for `i = 0; while ...: i += 1`).
  bool add(const Value &v);
  void add_value(const Value &v);
  /// The variable's type: weak-aware unification of the candidates.
  std::optional<Type> resolve() const;
};

/// Folds a strong expression of constants (np.float32(1.5) * 2, -np.int8(3))
/// with the IR's semantics: wrapping integers, floats rounded to their type
/// after each operation. nullopt when it is not such an expression.
std::optional<Expr> fold_strong_constant(const Expr &e);

/// Weak-aware unification of two types for locals, returns, `a if c else b`.
/// Returns nullopt (and a message) for tuple/scalar or arity mismatches.
std::optional<Type> unify_types(const Type &a, const Type &b, std::string &message);

/// The scalars a value of type `t` holds: 1, or a tuple's elements counted
/// through nested tuples (at most `cap`).
int64_t scalar_slots(const Type &t, int64_t cap);

/// A value that stands for its type only (a candidate of type inference).
Value type_only(const Type &t);

class ModuleTyper;

/// A helper's parameter bound when the helper is specialised, not passed at
/// run time (Numba types such arguments as functions, NumberClasses and
/// literals): `reference`, the caller's expression naming something callable
/// or a dtype (`cuda.atomic.add`, `float32`, another helper), itself free of
/// bindings; or `constant`, a number or a tuple of numbers (a shared array's
/// shape passed down).
struct Binding {
  const ast::Expr *reference = nullptr;
  std::optional<Value> constant;
};
/// Parameter name -> its binding, for one specialisation.
using Bindings = std::map<std::string, Binding>;
/// A constant value's exact text (a binding's part of a specialisation's name).
std::string constant_text(const Value &v);

/// The array a view (ArraySlice, nested) is taken of: a variable, a parameter or an ArrayAlloc.
Expr array_root(const Expr &array);
/// `s` with `line` on each array access that has none (ArrayLoad::line):
/// the checking mode locates accesses by their statements.
Stmt with_access_lines(const Stmt &s, int line);

/// Where a call's diagnostics point: the attribute of `np.sin(x)`, else the callee.
SourceLocation callee_loc(const ast::Call &call);

/// Which names a source binds at module level (shared by all functions).
struct ProgramScope {
  const frontend::Program *program = nullptr;
  std::map<std::string, const ast::FunctionDef *> functions;  // helpers and ufunc defs
  std::map<std::string, Value> constants;                      // evaluated module constants
  std::map<std::string, std::string> imports;                  // see Program::imports
};

/// The ExternFunction of the declare_device whose C name is `c_name`, if
/// the program declares one (TyperExtern.cpp).
std::optional<ExternFunction> extern_named(const frontend::Program &program, const std::string &c_name);

/// The ufunc's link=[...] files, then `extra.files`, read (relative names
/// from `extra.base_dir`, else the folder of `source`); a missing or
/// unreadable file, or one of an unknown kind, is an error at its entry in
/// link=[...] (at the source's name for `extra.files`) (TyperExtern.cpp).
std::vector<LinkFile> read_link_files(const frontend::UfuncOptions &options, const LinkOptions &extra,
                                      const SourceFile &source, DiagnosticEngine &diags);

/// Evaluates the module constants in source order; reports errors.
void evaluate_constants(ProgramScope &scope, DiagnosticEngine &diags);

/// Types one function body (or, with def == nullptr, one constant expression).
class BodyTyper {
 public:
  enum class Mode { Infer, Emit };

  BodyTyper(const ProgramScope &scope, ModuleTyper *module, DiagnosticEngine &diags);

  /// Types `def` with the given parameter types. `fixed_ret`: the ufunc's
  /// signature return type (returns are unified, then cast to it); nullopt
  /// for helpers (the unified type of the returns). Returns nullopt on error.
  /// `bindings`: parameters bound at compile time (their entries in
  /// `param_types` are ignored), which the IR function does not take.
  std::optional<Function> type_function(const ast::FunctionDef &def, const std::string &ir_name,
                                        const std::vector<Type> &param_types, std::optional<Type> fixed_ret,
                                        bool is_ufunc, const Bindings &bindings = {});
  /// Makes the next type_function a generalized ufunc's: array parameters,
  /// `outputs` (parameter names after '->' in the layout) writable, void.
  void set_gufunc_outputs(std::set<std::string> outputs) {
    is_gufunc_ = true;
    output_params_ = std::move(outputs);
  }
  /// Makes the next type_function an explicit kernel's (@cuda.jit): void,
  /// every array writable.
  void set_kernel() {
    is_gufunc_ = true;
    is_kernel_ = true;
  }
  /// Types a module constant's expression (no locals, no calls of helpers).
  Value type_constant(const ast::Expr &e);
  /// `v` when it is a constant (a number, a folded expression or a literal
  /// tuple of them); an error value otherwise (nothing reported).
  Value constant_value(const Value &v);

 private:
  // The handlers of library calls (LibraryCall.h), one class per family.
  friend class BuiltinCall;
  friend class CudaCall;
  friend class KernelCall;
  friend class MathCall;
  friend class NumpyCall;

  // ---- statements (TyperStmt.cpp)
  /// Where control can be: whether it is reachable, and which variables are
  /// assigned on every path to it. A bit per variable (variable_index):
  /// copying and joining flows at each `if` of a function with thousands of
  /// locals cost a set of strings per branch.
  struct Flow {
    bool reachable = true;
    std::vector<uint64_t> assigned;  // bit i: variable i; missing words are zero
  };
  static Flow join(const Flow &a, const Flow &b);
  uint32_t variable_index(const std::string &name);
  void mark_assigned(const std::string &name);
  bool assigned_on_every_path(const std::string &name);
  void collect_assigned(const ast::Body &body);
  void collect_assigned_target(const ast::Expr &target);
  // The steps of type_function, in order.
  void start_function(const ast::FunctionDef &def, const std::vector<Type> &param_types,
                      std::optional<Type> fixed_ret, bool is_ufunc);
  /// Infer-mode passes until the candidate types stop growing.
  void infer_types(const ast::FunctionDef &def);
  /// The final types of the locals and the return, from the candidates.
  void resolve_types();
  /// After Emit: mixed, incompatible or missing returns are errors.
  void check_returns(const ast::FunctionDef &def);
  /// The IR function: parameters (a retyped one converted into a local), locals, body.
  Function build_function(const std::string &ir_name);
  bool run_pass(Mode mode, const ast::FunctionDef &def);
  Stmt block(const ast::Body &body);
  /// Types one statement; in Infer mode a simple statement whose reads did
  /// not change since it was last typed is skipped (InferWorklist.h).
  void stmt(const ast::Stmt &s, std::vector<Stmt> &out);
  /// stmt without the checking mode's access lines.
  void stmt_unlocated(const ast::Stmt &s, std::vector<Stmt> &out);
  void stmt_of_kind(const ast::Stmt &s, std::vector<Stmt> &out);
  /// Infer mode, after a pass: retypes the statements left stale by changes.
  void retype_stale_statements();
  /// Infer mode: adds `v` to the candidates of local `name`.
  void add_candidate(const std::string &name, const Value &v);
  void assign_stmt(const ast::Assign &s, std::vector<Stmt> &out);
  void aug_assign_stmt(const ast::AugAssign &s, std::vector<Stmt> &out);
  void if_stmt(const ast::If &s, std::vector<Stmt> &out);
  /// One `if` or `elif` of a chain that if_stmt has typed and not yet built.
  struct ElifLevel {
    Expr cond;                        // null: the condition failed to type
    const Const *constant = nullptr;  // a constant condition takes one branch
    bool then_dead = false;
    bool else_dead = false;
    bool reachable = true;  // the level's own statements are emitted
    Flow after_then;
    Stmt then_body;
    std::vector<Stmt> stmts;  // its condition's statements, then its If
  };
  void while_stmt(const ast::While &s, std::vector<Stmt> &out);
  void for_stmt(const ast::For &s, std::vector<Stmt> &out);
  /// The type of the variable of `for i in range(...)` (Numba's range
  /// types), typing the arguments into `args`; nullopt after an error.
  std::optional<Type> range_type(const ast::Call &call, const ast::Name &fn, std::vector<Value> &args);
  /// A `for` or `while` statement, with its `else:` block when it has one
  /// (run when no break ended the loop).
  void loop_stmt(const ast::Stmt &loop, std::vector<Stmt> &out);
  /// The bookkeeping around a `for` body: enter returns the flow before the
  /// loop, which leave restores.
  Flow enter_for_loop();
  void leave_for_loop(const Flow &entry);
  void return_stmt(const ast::Return &s, std::vector<Stmt> &out);
  void raise_stmt(const ast::Raise &s, std::vector<Stmt> &out);
  /// Binds `target` (Name, Tuple of targets) to `v`, appending assignments.
  void assign_to(const ast::Expr &target, const Value &v, const SourceLocation &loc, std::vector<Stmt> &out);
  void assign_name(const std::string &name, const Value &v, const SourceLocation &loc, std::vector<Stmt> &out);
  void flush_pre(std::vector<Stmt> &out);

  // ---- variables
  bool is_variable(const std::string &name) const;
  /// The IR name and current type of a variable (param or local).
  std::optional<Type> variable_type(const std::string &name) const;
  std::string ir_var_name(const std::string &name) const;
  std::string new_temp(const Type &t);
  /// A Var (or constant) holding `v`, hoisting it into a temp if it is not
  /// one already, so that it can be used twice.
  Value stabilize(const Value &v);

  // ---- expressions (TyperExpr.cpp)
  Value expr(const ast::Expr &e);
  Value name_expr(const ast::Name &e);
  /// Infer mode: the weak value a weak-only local reads as, if it is one.
  std::optional<Value> weak_read(const std::string &name) const;
  /// `v` itself, or, when it reads a local that every assignment gives the
  /// same integer constant (`N = 100`), that constant (a weak int): what a
  /// shared or local array's shape may use, as in Numba.
  Value constant_local(const Value &v) const;
  Value attribute_expr(const ast::Attribute &e);
  Value binop_expr(const ast::BinOp &e);
  Value unary_expr(const ast::UnaryOp &e);
  Value boolop_expr(const ast::BoolOp &e);
  Value compare_expr(const ast::Compare &e);
  Value ifexp_expr(const ast::IfExp &e);
  Value subscript_expr(const ast::Subscript &e);
  /// A constant integer index among `n` (negative ones count from the end),
  /// or nullopt after "a `kind` index must be an integer constant" or
  /// "`item` K is out of range for 'of'".
  std::optional<int> constant_index(const ast::Expr &index, Int128 n, const std::string &kind,
                                    const std::string &item, const Type &of);
  /// `(a, b, ...)`: a literal tuple, at most kMaxTupleElements scalars deep.
  Value tuple_expr(const ast::Tuple &e);
  // ---- arrays (TyperArrays.cpp)
  /// `array[index]`: an element (ArrayLoad) when every dimension gets an
  /// integer, else a view (ArraySlice); `a[()]` is `a`. `stable`: indices
  /// hoisted into temps (they are used twice, by `a[i] += v`).
  Value array_subscript(const Value &array, const ast::Expr &index, bool stable);
  /// What `index` (one part, or a tuple of one per dimension) picks from the
  /// first `ndim` dimensions of `array`: an index (no length) or a range per
  /// part given; nullopt after an error. `ranges`: whether a part is a slice.
  std::optional<std::vector<ArraySlice::Dim>> index_dims(const Value &array, const ast::Expr &index, int ndim,
                                                         bool stable, bool &ranges);
  /// One integer index of dimension `d` as int64, a negative one wrapped
  /// (and checked under boundscheck).
  std::optional<Expr> array_index(const Value &array, int d, const ast::Expr &part, bool stable);
  /// The same for index value `i` already typed (`part`: where it was written).
  std::optional<Expr> array_index(const Value &array, int d, const Value &i, const ast::Expr &part, bool stable);
  /// `index` (wrapped) if it is in [0, dim), else a call that raises IndexError at `loc`.
  Expr bounds_checked(const Expr &index, const Expr &dim, const SourceLocation &loc);
  /// The raise of a failed check: a call of the module's index error function.
  Expr index_error_call(const Expr &index, const Expr &dim, const SourceLocation &loc);
  /// One slice of dimension `d`, normalised as Python's slice.indices.
  std::optional<ArraySlice::Dim> array_range(const Value &array, int d, const ast::Slice &slice);
  /// `a.shape` (a tuple), `a.size`, `a.ndim`.
  Value array_attribute(const Value &array, const std::string &attr, const SourceLocation &loc);
  /// Whether the body may write through `array`: a view of an output, of an
  /// input named in writable_args, or of a local that only ever holds such views.
  bool array_writable(const Expr &array) const;
  bool check_writable(const ast::Subscript &target, const Value &array);
  /// Records what array local `name` is assigned (its writability).
  void note_array_local(const std::string &name, const Expr &value);
  void array_store(const ast::Subscript &target, const Value &v, std::vector<Stmt> &out);
  /// Stores `v` in `place` (an element, or a view: filled with a scalar,
  /// or copied into from an array as copy_array does).
  void store_into(const Value &place, const Value &v, const SourceLocation &loc, std::vector<Stmt> &out);
  /// A loop nest over every element of `view` (a variable), C order, around
  /// `body(indices)`.
  Stmt over_elements(const Expr &view, const std::function<Stmt(const std::vector<Expr> &)> &body);
  // ---- records (TyperRecords.cpp)
  /// Field `name` of a record (an element) or a record array (a view).
  Value record_field(const Value &records, const std::string &name, const SourceLocation &loc);
  /// `a[i]` (a record), `a[i:j]`, `r['x']`, `r[k]` (the k-th field of one record).
  Value record_subscript(const Value &records, const ast::Expr &index, bool stable);
  /// `.shape`, `.ndim`, `.size` of the records, or a field.
  Value record_attribute(const Value &records, const std::string &attr, const SourceLocation &loc);
  /// `r.x = v`.
  void attribute_store(const ast::Attribute &target, const Value &v, std::vector<Stmt> &out);
  /// `r.x += v`: the record evaluated once.
  void attribute_aug_assign(const ast::AugAssign &s, const ast::Attribute &target, std::vector<Stmt> &out);
  /// `place[...] = source` for array `source`: element by element in C order,
  /// broadcast as NumPy does (ValueError at run time when the shapes do not
  /// fit); records of one type copy their bytes.
  void copy_array(const Value &place, const Value &source, const SourceLocation &loc, std::vector<Stmt> &out);
  void array_aug_assign(const ast::AugAssign &s, const ast::Subscript &target, std::vector<Stmt> &out);
  /// `for x in a`, when `s.iter` is an array; false when it is not one (nothing reported).
  bool for_array(const ast::For &s, std::vector<Stmt> &out);
  /// `for x in (a, b, c)` (or a tuple value): the elements in order, as one type.
  bool for_tuple(const ast::For &s, const Value &tuple, std::vector<Stmt> &out);
  /// The elements of a tuple of numbers brought to one type and held in
  /// temps (pre_), for a loop over it; nullopt after an error at `loc`.
  std::optional<std::vector<Expr>> tuple_loop_values(const Value &tuple, const SourceLocation &loc);
  /// What `for` iterates over with enumerate() and zip(): an array (held in a
  /// temp), a tuple of numbers, or enumerate/zip of such iterables.
  struct Iterable {
    enum class Kind { Array, Tuple, Enumerate, Zip };
    Kind kind = Kind::Array;
    Expr array;                   // Array: the held array
    std::vector<Expr> values;     // Tuple: its elements, of one type
    Expr start;                   // Enumerate: the first count (int64)
    std::vector<Iterable> parts;  // Enumerate: one; Zip: each sequence
  };
  /// Whether `id` in a body names the builtin of that name (no local, constant,
  /// function or bound parameter hides it): range, enumerate, zip.
  bool names_builtin(const std::string &id) const;
  /// `for target in enumerate(...)` / `zip(...)`, nested, over arrays.
  void for_iterable(const ast::For &s, std::vector<Stmt> &out);
  /// Types `e` as an Iterable; the arrays' temps go to `held`. False after an error.
  bool iterable_of(const ast::Expr &e, Iterable &it, std::vector<Stmt> &held);
  /// The number of iterations: the array's first extent, zip's shortest.
  Expr iterable_length(const Iterable &it);
  /// The value iteration `i` gives: an element or view, or a tuple of them.
  Value iterable_element(const Iterable &it, const Expr &i);
  Value call_expr(const ast::Call &e);
  /// A call of a name: a helper, an import, a builtin, a declare_device, a dtype.
  Value name_call(const ast::Name &n, const ast::Call &e);
  /// A call of `n`, imported as `what` ("math.sqrt", "numpy.float32").
  Value imported_call(const ast::Name &n, const std::string &what, std::vector<Value> args, const ast::Call &e);
  /// float("inf"), float("-inf"), float("nan"): the one use of a string in a body.
  Value float_of_string(const ast::StrLit &lit);
  /// The np.* function `callee` names (`np.round`, or `round` from `from numpy import round`).
  std::optional<std::string> numpy_callee(const ast::Expr &callee) const;
  /// `f(*t)`: expands starred tuples, then types the call with them.
  Value star_call(const ast::Call &e);
  /// The arguments of `e`: star_call's expansion when pending, else each typed.
  std::vector<Value> call_arguments(const ast::Call &e);
  Value unknown_name(const std::string &name, const SourceLocation &loc, bool as_call);
  std::vector<std::string> visible_names() const;

  // ---- operations (TyperOps.cpp)
 public:
  /// The strong form of `v`: weak numbers at their default type, literal
  /// tuples as MakeTuple.
  Value materialize(const Value &v);
  /// `v` converted (C-style Cast) to dtype `t`; weak numbers become constants.
  Value convert(const Value &v, DType t);
  /// `v` converted to type `t` (scalars or tuples of equal arity).
  Value convert_to(const Value &v, const Type &t, const SourceLocation &loc, const std::string &what);
  /// Python truth value as bool.
  Value truth(const Value &v, const SourceLocation &loc);
  /// Brings two scalar operands to one dtype (NEP 50 + NumPy promotion).
  /// `what` names the operation for messages ("add").
  bool unify_operands(Value &a, Value &b, const SourceLocation &loc, const std::string &what);
  Value binary(ast::BinaryOp op, Value a, Value b, const SourceLocation &loc);
  Value compare(ast::CmpOp op, Value a, Value b, const SourceLocation &loc);
  /// A comparison of a signed and an unsigned integer that NumPy promotes to
  /// float64 (int64 and uint64), made exact; nullopt for other operands.
  std::optional<Value> compare_signed_unsigned(ast::CmpOp op, const Value &a, const Value &b);
  Value unary(ast::UnaryOpKind op, Value v, const SourceLocation &loc);
  Value select(Value cond, Value a, Value b, const SourceLocation &loc);
  Value make_bool_const(bool b);
  Value intrinsic(IntrinsicOp op, Type result, std::vector<Value> args);
  /// `qualified`() called with `given` arguments where it takes `wanted`:
  /// true when they match, else reports "takes N arguments (M given)" + note.
  bool check_arity(const std::string &qualified, std::size_t given, std::size_t wanted, const SourceLocation &loc,
                   const std::string &note = "");
  /// Reports a user error (muted in Infer mode).
  void error(const SourceLocation &loc, const std::string &message);
  bool emitting() const { return mode_ == Mode::Emit; }

 private:
  Value pow_op(Value a, Value b, const SourceLocation &loc);
  Value strong_binary(BinaryOpcode op, Value a, Value b);
  Value fold_weak_binary(ast::BinaryOp op, const Value &a, const Value &b, const SourceLocation &loc);

  // ---- calls (Builtins.cpp)
  Value call_function(const ast::FunctionDef &def, std::vector<Value> args, const ast::Call &call,
                      const Bindings &bindings = {});
  // ---- compile-time arguments of helpers (CompileTimeArgs.cpp)
  /// A call of helper `def`: arguments that name functions or dtypes bind
  /// its parameters; when it does not type with the others as run-time
  /// values, the constant ones bind too (Numba's literal retry).
  Value helper_call(const ast::FunctionDef &def, const ast::Call &call);
  /// The expression `e` names when it is a reference to something callable
  /// or a dtype rather than a value (through this body's bindings); nullptr otherwise.
  const ast::Expr *callable_reference(const ast::Expr &e);
  /// A constant as the callee sees it: as Numba types a literal argument,
  /// of its default type (int64, float64), a tuple element by element.
  Value typed_constant(const Value &v);
  /// Whether `e` reads a parameter bound to a constant (a condition on it is pruned).
  bool mentions_constant_binding(const ast::Expr &e) const;
  // ---- constant arrays (ConstantArrays.cpp)
  /// Whether `array` is a view of a constant array (or a local that may hold one).
  bool holds_constant_array(const Expr &array) const;
  /// Whether `e` is `np.array(...)` (a module constant's constant array).
  bool is_array_literal_call(const ast::Expr &e) const;
  /// A module constant `np.array(nested lists, dtype=...)`: a Constant ArrayAlloc.
  Value constant_array(const ast::Call &call);
  /// `print(a, "text", b)` as an ir::Print (Builtins.cpp); false when `e` is
  /// no call of the builtin print.
  bool print_stmt(const ast::Expr &e, std::vector<Stmt> &out);
  /// Appends the bytes of constant `v` converted to `t`; false if it is no constant.
  bool append_constant(const Value &v, DType t, std::string &out);
  /// `np.array([(1.0, 2), ...], dtype='record(x: float64, y: int64)')`: records
  /// as tuples of their fields (a subarray field as a nested list).
  Value constant_records(const ast::Call &call, const ast::StrLit &dtype);
  bool constant_record_items(const ast::Expr &e, std::size_t depth, const std::vector<int64_t> &shape,
                             const frontend::RecordLayout &record, std::string &data);
  /// The elements of the nested lists `e` at `depth`, checked against `shape`.
  bool array_literal_elements(const ast::Expr &e, std::size_t depth, const std::vector<int64_t> &shape,
                              std::vector<Value> &elements);
  /// cuda.const.array_like(ary): the constant array itself.
  Value const_array_like(const std::string &name, std::vector<Value> args, const ast::Call &call);
  /// The binding of `name` in this specialisation, or nullptr.
  const Binding *binding_of(const std::string &name) const;
  /// A call whose callee is `callee` (the call's own, or what a bound parameter names).
  Value call_callee(const ast::Expr &callee, const ast::Call &e);
  Value call_builtin(const std::string &name, std::vector<Value> args, const ast::Call &call);
  Value call_math(const std::string &module, const std::string &name, std::vector<Value> args,
                  const ast::Call &call);
  Value call_dtype(DType t, std::vector<Value> args, const ast::Call &call, const std::string &spelled);
  /// A call of a CUDA C++ function from declare_device (TyperExtern.cpp).
  Value call_extern(const frontend::DeviceDecl &decl, std::vector<Value> args, const ast::Call &call);
  Value math_constant(const std::string &module, const std::string &name, const SourceLocation &loc);
  Value method_call(const ast::Attribute &callee, std::vector<Value> args, const ast::Call &call);
  /// `x.bit_count()` (Python 3.10): ones in the magnitude, as int64.
  Value bit_count(const ast::Attribute &callee, std::vector<Value> args);
  Value real_imag(const Value &v, bool imag, const SourceLocation &loc);
  Value minmax(bool is_min, std::vector<Value> args, const ast::Call &call);
  Value round_builtin(std::vector<Value> args, const ast::Call &call);
  /// round(x, n) of a strong float x and an integer n, as Numba's round_ndigits.
  Value round_ndigits(const Value &x, Value n);
  /// (a // b, a % b) of two operands already of one type (or both weak).
  Value divmod_tuple(Value a, Value b, const SourceLocation &loc);
  Value float_math_arg(const Value &v, const std::string &fn, const SourceLocation &loc);
  Value complex_math_arg(const Value &v, const std::string &fn, const SourceLocation &loc);
  // ---- np.* (NumpyCalls.cpp)
  Value call_numpy(const std::string &name, std::vector<Value> args, const ast::Call &call);
  Value numpy_constant(const std::string &name, const SourceLocation &loc);
  /// A np.* operand: weak numbers at their default dtype, scalars as they are.
  Value numpy_operand(const Value &v, const std::string &fn, const SourceLocation &loc);
  Value unknown_numpy(const std::string &name, const SourceLocation &loc, bool as_call);
  /// np.`fn`() called with `given` arguments where it takes `wanted`.
  bool numpy_arity(const std::string &fn, std::size_t given, std::size_t wanted, const SourceLocation &loc);
  /// "np.fn() is not supported for `what` ('type')" at `loc`; an error value.
  Value numpy_unsupported(const std::string &fn, const Value &v, const std::string &what, const SourceLocation &loc);
  // ---- np.* built from several operations (NumpyFunctions.cpp)
  /// Two np.* operands brought to one dtype as NumPy's binary ufuncs do (NEP 50).
  bool numpy_operands(Value &a, Value &b, const std::string &fn, const SourceLocation &loc);
  /// np.round(x, decimals) on a number of any non-bool type.
  Value numpy_round(const Value &x, const Value &decimals);
  /// NumPy's complex exp2, log2, expm1, log1p, rint, reciprocal and sign (NumPy 2: z/|z|).
  Value numpy_complex_unary(const std::string &name, const Value &z);
  /// a.sum(), np.max(a), ... of a whole array (ArrayReductions.cpp): a call
  /// of a function made for this call site. `nargs`: arguments besides the array.
  Value array_reduction(const std::string &name, const Value &array, std::size_t nargs, const SourceLocation &loc);
  /// np.angle(z, deg): the phase (of a real number: 0 or pi).
  Value numpy_angle(const Value &z, bool deg);
  /// np.sinc, nan_to_num, isneginf, isposinf, iscomplex, isreal,
  /// iscomplexobj, isrealobj of one number (NumPy's functions on scalars).
  Value numpy_scalar_function(const std::string &name, const Value &x, const SourceLocation &loc);
  /// NumPy's ordering of complex numbers (<, <=, >, >=), lexicographic.
  Value numpy_complex_order(ast::CmpOp op, const Value &a, const Value &b);
  /// np.maximum/minimum/fmax/fmin of two complex numbers of one type.
  Value numpy_complex_minmax(const std::string &name, const Value &a, const Value &b);
  /// C's fmod on integers (the remainder has the dividend's sign; 0 for a
  /// zero divisor, as NumPy), for two operands of one integer or bool type.
  Value integer_fmod(Value a, Value b);
  /// An ldexp exponent as int32, clamped (not wrapped) from wider types.
  Value ldexp_exponent(const Value &n);
  // ---- cuda.* and cuda.fp16.* (CudaCalls.cpp); module is "numba.cuda" or "numba.cuda.fp16"
  Value call_cuda(const std::string &module, const std::string &name, std::vector<Value> args, const ast::Call &call);
  // ---- explicit kernels (KernelCalls.cpp)
  /// Whether this body belongs to an explicit kernel's module.
  bool in_kernel() const;
  /// True in a kernel's module; else reports that `what` is for kernels.
  bool require_kernel(const std::string &what, const SourceLocation &loc);
  /// A kernel-only cuda.* or cuda.atomic.* call; nullopt when `name` is not
  /// one (a cuda.* call of ufunc bodies, CudaCalls.cpp).
  std::optional<Value> call_kernel_function(const std::string &module, const std::string &name,
                                            std::vector<Value> &args, const ast::Call &call);
  /// `cuda.laneid`, `cuda.warpsize` (object "numba.cuda") and
  /// `cuda.threadIdx.x` (object "numba.cuda.threadIdx"), ...
  Value cuda_attribute(const std::string &object, const std::string &attr, const SourceLocation &loc);
  /// cuda.shared.array / cuda.local.array(shape, dtype).
  Value array_alloc(MemorySpace space, const ast::Call &call);
  /// The index of an atomic (an integer, or a tuple of one per dimension).
  bool atomic_indices(const Value &array, const ast::Expr &index, std::vector<Expr> &out);
  /// The dtype a dtype argument names (`float32`, `np.float32`, `'f4'`).
  std::optional<DType> dtype_of_expression(const ast::Expr &e) const;

  /// "math", "cmath", "numpy", "numba", "numba.cuda", "numba.cuda.fp16" or
  /// "numba.types" (also numba.cuda.types, numba.core.types) when `e` names such a module.
  std::optional<std::string> module_of(const ast::Expr &e) const;

  const ProgramScope &scope_;
  ModuleTyper *module_;
  DiagnosticEngine &real_diags_;
  DiagnosticEngine muted_;
  Mode mode_ = Mode::Emit;

  // Per function.
  const ast::FunctionDef *def_ = nullptr;
  bool is_ufunc_ = false;
  bool is_gufunc_ = false;
  bool is_kernel_ = false;  // an explicit kernel's entry (set_kernel)
  bool boundscheck_ = false;  // array indices of this body are checked
  std::set<std::string> output_params_;
  std::map<std::string, bool> writable_locals_;  // array locals: whether every view they hold is writable
  std::set<std::string> constant_locals_;  // array locals that may hold a view of a constant array
  std::vector<std::string> param_names_;
  std::map<std::string, Type> param_types_;
  Bindings bindings_;  // parameters bound at compile time (not in param_names_)
  bool probing_ = false;  // callable_reference's trial: errors are muted
  std::set<std::string> assigned_names_;  // every name bound in the body
  std::vector<std::string> assigned_order_;  // the same, in source order (locals are declared so)
  std::map<std::string, Candidates> candidates_;
  std::unordered_map<std::string, uint32_t> variable_indices_;  // the bits of Flow::assigned
  std::map<std::string, Type> resolved_;  // Emit mode: final types of locals and params
  std::map<std::string, std::string> renamed_params_;  // param -> IR parameter name when retyped
  Candidates return_candidates_;
  bool saw_bare_return_ = false;
  bool saw_value_return_ = false;
  std::optional<Type> ret_;  // the IR function's return type (Emit mode)
  std::optional<Type> fixed_ret_;
  Flow flow_;
  std::vector<Flow> break_flows_;
  Flow last_breaks_;  // the joined flows at the breaks of the loop just typed
  /// The levels of the elif chains being typed, innermost chain last. Kept
  /// between chains and passes: a chain of 100,000 branches made a fresh
  /// vector of 35 MB per pass, faulting in its pages each time.
  std::vector<ElifLevel> elif_levels_;
  /// Loop depth -> the bool temp that the breaks of that loop set (loops with `else:`).
  std::map<int, std::string> else_flags_;
  int loop_depth_ = 0;
  std::vector<Stmt> pre_;  // hoisted temps of the statement being typed
  int conditional_depth_ = 0;  // inside an operand evaluated only sometimes: no hoisting
  bool changed_ = false;       // Infer mode: some candidate type grew in this pass
  InferWorklist worklist_;     // Infer mode: what each simple statement read
  /// Emit mode: a value failed because of an error reported elsewhere (a
  /// module constant, a helper specialisation): the function must not be built.
  bool poisoned_ = false;
  /// Infer mode, first phase: a local assigned only weak values so far reads
  /// as a weak value, so that `acc = 0.0; acc += x32` makes acc float32.
  bool weak_reads_ = false;
  /// This pass read some local as a weak value (weak_read returned one): the
  /// only way the second phase's passes can differ from the first's.
  mutable bool read_weak_value_ = false;
  std::optional<Type> return_union_;  // unified type of every returned value
  Stmt body_;
  std::vector<Variable> temps_;
  int temp_counter_ = 0;
  /// Set by star_call for the call_expr it makes (the expanded arguments).
  std::optional<std::vector<Value>> pending_args_;
};

/// The largest cuda.shared.array or cuda.local.array, in bytes.
inline constexpr int64_t kMaxKernelArrayBytes = int64_t{1} << 30;
/// The largest cuda.local.array: the CPU target runs a kernel with barriers
/// on fibers of 64 KiB stacks (runtime/Fiber.h).
inline constexpr int64_t kMaxLocalArrayBytes = 16 * 1024;
/// The largest constant array: the GPU's constant memory is 64 KiB.
inline constexpr std::size_t kMaxConstantArrayBytes = 64 * 1024;
/// A kernel's static shared memory, at most (CUDA's 48 KiB).
inline constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;

/// Whether `name` is one of cuda's coordinate objects (threadIdx, blockIdx,
/// blockDim, gridDim).
bool is_cuda_coordinate_object(const std::string &name);

/// Helper calls nested deeper than this (f0 called by f1 called by f2 ...)
/// are an error: each level types its callee recursively. Python's own
/// default recursion limit is 1000.
inline constexpr std::size_t kMaxCallDepth = 10000;

/// Types helpers on demand, per argument types, for one module.
class ModuleTyper {
 public:
  ModuleTyper(const ProgramScope &scope, DiagnosticEngine &diags);

  /// The specialisation of `def` for `arg_types`: its IR name and return type,
  /// typing it first if needed. `emitting`: the caller is in Emit mode (errors
  /// of the specialisation must be reported for real).
  struct Spec {
    std::string ir_name;
    Type ret;
  };
  /// Adds a function the typer built (not from the source), once per name;
  /// returns its name.
  std::string add_function(Function f);
  /// `bindings`: parameters bound at compile time (part of the specialisation's name).
  std::optional<Spec> specialise(const ast::FunctionDef &def, const std::vector<Type> &arg_types,
                                 const Bindings &bindings, const SourceLocation &call_loc, bool emitting,
                                 DiagnosticEngine &caller_diags);
  /// Whether array indices in the body of `def` are checked (Numba's
  /// boundscheck): NUMBA_BOUNDSCHECK=1/0 when set, else the def's own
  /// decorator option, else the module's entry's (the ufunc's).
  bool boundscheck(const ast::FunctionDef &def) const;
  /// Makes `def` the module's entry, whose boundscheck option helpers inherit.
  void set_entry(const ast::FunctionDef &def);
  /// The IR function (int64, no parameters) that raises IndexError("index is
  /// out of bounds") located at `loc`: a checked index calls it when out of range.
  std::string index_error_function(const SourceLocation &loc);
  /// The checking mode's form (Module::checked): int64(index, size), whose
  /// raise names `array` and `axis` and records the index and the size.
  std::string checked_index_error_function(const SourceLocation &loc, const std::string &array, int axis);
  /// The kernel's checking mode (ir::Module::checked): every index checked,
  /// whatever NUMBA_BOUNDSCHECK and the decorators say, and accesses located.
  void set_checked() { checked_ = true; }
  bool checked() const { return checked_; }
  /// Adds a finished function (the entry) and returns the module: the entry
  /// and every specialisation it reaches, callees first.
  Module finish(Function entry, const std::string &name, const FloatOptions &options);

  static std::string mangle(const std::string &name, const std::vector<Type> &arg_types);

  /// Explicit kernels (@cuda.jit): the module's functions may use the
  /// kernel-only cuda.* operations (KernelCalls.cpp).
  void set_explicit_kernel() { explicit_kernel_ = true; }
  bool explicit_kernel() const { return explicit_kernel_; }
  /// The byte offset of a new static shared array of `bytes` (16-byte aligned).
  int64_t allocate_shared(int64_t bytes) {
    const int64_t offset = (shared_bytes_ + 15) / 16 * 16;
    shared_bytes_ = offset + bytes;
    return offset;
  }
  int64_t static_shared_bytes() const { return shared_bytes_; }
  /// A body makes threads wait for each other (ir::Module::threads_wait).
  void note_threads_wait() { threads_wait_ = true; }

 private:
  struct Entry {
    std::optional<Function> function;
    bool real = false;  // typed with real diagnostics
  };
  const ProgramScope &scope_;
  DiagnosticEngine &diags_;
  std::map<std::string, Entry> specs_;       // by mangled name
  std::optional<bool> env_boundscheck_;      // NUMBA_BOUNDSCHECK, read when the typer is made
  bool entry_boundscheck_ = false;
  std::vector<std::string> in_progress_;     // the call chain being typed, outermost first
  bool explicit_kernel_ = false;
  bool checked_ = false;
  int64_t shared_bytes_ = 0;
  bool threads_wait_ = false;
  std::set<std::string> in_progress_names_;  // the same names, for a lookup per call
  int muted_depth_ = 0;
};

}  // namespace ufjit::ir::typer
