// The declarations of a parsed source: which functions are ufuncs (with their
// signatures and options), which are helpers, module constants, imports and
// CUDA C++ device declarations. Built from the AST by reading decorators;
// names are resolved and types checked later, by the typer (ir/).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "frontend/AST.h"
#include "frontend/Signature.h"

namespace ufjit::frontend {

enum class UfuncKind { Vectorize, GuVectorize };

/// Options of `@vectorize(...)`. `target` is a default the caller may override.
/// `identity=` of @vectorize, as Numba's parse_identity maps it to NumPy's
/// PyUFunc_Zero / One / None / ReorderableNone.
enum class UfuncIdentity : uint8_t { None, Zero, One, Reorderable };

struct UfuncOptions {
  std::string target;  // "", "cuda", "cpu" or "parallel"
  bool fastmath = false;
  UfuncIdentity identity = UfuncIdentity::None;
  std::vector<std::string> link;  // CUDA C++ files for declare_device functions
  /// @guvectorize only. `is_dynamic=True`, or a layout without signatures:
  /// the ufunc is typed per operand dtypes at its first call with them
  /// (ir::type_gufunc), besides any signatures given.
  bool is_dynamic = false;
  /// @guvectorize only: the parameters named by `writable_args=(0, 'b')`, as
  /// indices into the def's parameters; inputs the body may write.
  std::vector<int> writable_args;
  std::vector<SourceLocation> link_locs;  // where each `link` entry is written
};

struct UfuncDecl {
  UfuncKind kind = UfuncKind::Vectorize;
  std::string name;
  const ast::FunctionDef *def = nullptr;
  std::vector<Signature> signatures;
  std::string layout;  // guvectorize only: "(n),(n)->()", as written
  GufuncLayout core;   // guvectorize only: the layout, parsed
  UfuncOptions options;
};

/// Options of `@cuda.jit(...)` on a kernel (LANGUAGE.md section 9).
struct KernelOptions {
  bool fastmath = false;
  /// `debug=True`: Numba's debug mode, ufjit's checking mode
  /// (ir::Module::checked): every array index checked (an IndexError naming
  /// the line, the array, the index and the thread) and, on the CPU target,
  /// data races on shared memory reported.
  bool debug = false;
};

/// `@cuda.jit` without device=True: an explicit kernel, launched over a grid
/// of blocks of threads. No signatures: typed at each launch for the
/// arguments' types (ir::type_kernel), as Numba does.
struct KernelDecl {
  std::string name;
  const ast::FunctionDef *def = nullptr;
  std::vector<Signature> signatures;  // each void(...) (or without a return type)
  KernelOptions options;
};

/// `name = declare_device("c_name", "float32(float32)", abi="numba"|"c")`
struct DeviceDecl {
  std::string name;
  std::string c_name;
  Signature signature;
  SourceLocation loc;
  bool c_abi = false;  // abi="c": `float f(float)`; else Numba's `int f(float *ret, float)`
};

/// A module-level `NAME = <constant expression>`.
struct ConstantDecl {
  std::string name;
  const ast::Expr *value = nullptr;
  SourceLocation loc;
};

/// What the source declares, in source order. Points into the ast::Module,
/// which must outlive it.
struct Program {
  std::vector<UfuncDecl> ufuncs;
  std::vector<KernelDecl> kernels;  // @cuda.jit kernels
  std::vector<const ast::FunctionDef *> helpers;  // @device, @cuda.jit(device=True), @njit, @jit, bare def
  std::vector<ConstantDecl> constants;
  std::vector<DeviceDecl> device_decls;
  /// Local name -> what it refers to: "math", "cmath", "numpy", "numba",
  /// "numba.cuda", or a dotted function ("math.exp") for `from math import exp`.
  std::map<std::string, std::string> imports;
  /// Module-level `sigs = ['float32(float32)', ...]` (or one string) that a
  /// decorator names: `@vectorize(sigs)`. Not constants of a body.
  std::map<std::string, const ast::Expr *> signature_lists;
  /// Helpers declared with explicit signatures (`@cuda.jit('float32(float32)',
  /// device=True)`, `@njit('f8(f8)')`): a call converts its arguments to them.
  std::map<const ast::FunctionDef *, std::vector<Signature>> helper_signatures;
  /// `boundscheck=True`/`False` given on a def's decorator (@vectorize,
  /// @guvectorize, @njit, @jit, or @njit stacked under @vectorize): array
  /// indices in that body are checked (an IndexError) or not. A def without
  /// one inherits the ufunc's; `None` is as if not given (Numba's default).
  std::map<const ast::FunctionDef *, bool> boundscheck;
};

/// Reads decorators, signatures and module-level statements. Reports unknown
/// decorator options, bad signatures, duplicate names and top-level statements
/// outside the subset; returns what it could collect.
Program collect_program(const ast::Module &module, DiagnosticEngine &diags);

}  // namespace ufjit::frontend
