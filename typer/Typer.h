// Source text -> typed IR: parse, collect declarations, and type every ufunc
// for every signature (LANGUAGE.md sections 2-6). The one entry point the
// rest of ufjit (runtime, tool) uses to get IR from a source.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/Diagnostics.h"
#include "frontend/Program.h"
#include "frontend/Signature.h"
#include "ir/IR.h"

namespace ufjit::ir {

/// One exported ufunc with one typed module per signature, in signature
/// order (the dispatcher tries them in that order). A layout-only
/// @guvectorize has `options.is_dynamic`, its parsed `core` and no
/// signatures or modules: type_gufunc types it per call dtypes.
struct TypedUfunc {
  TypedUfunc() = default;
  /// What the declaration says; no modules yet.
  explicit TypedUfunc(const frontend::UfuncDecl &decl)
      : name(decl.name),
        kind(decl.kind),
        options(decl.options),
        layout(decl.layout),
        core(decl.core),
        signatures(decl.signatures) {}

  std::string name;
  frontend::UfuncKind kind = frontend::UfuncKind::Vectorize;
  frontend::UfuncOptions options;
  std::string layout;  // guvectorize only, as written
  frontend::GufuncLayout core;  // guvectorize only, parsed
  std::vector<frontend::Signature> signatures;
  std::vector<ir::Module> modules;  // modules[i] types signatures[i]
  /// A @vectorize without signatures (Numba's dynamic ufunc): no modules;
  /// the runtime types it per call with type_for_arguments.
  bool dynamic = false;
};

/// One @cuda.jit kernel, with one typed module per signature given (none:
/// typed at each launch for its arguments' types, type_kernel).
struct TypedKernel {
  std::string name;
  frontend::KernelOptions options;
  std::vector<std::string> params;  // the def's parameter names
  std::vector<frontend::Signature> signatures;
  std::vector<ir::Module> modules;  // modules[i] types signatures[i]
};

struct TypedProgram {
  std::vector<TypedUfunc> ufuncs;
  std::vector<TypedKernel> kernels;
};

/// Parses, collects and types every ufunc and signature. Every error is
/// reported through `diags` (each once, located); returns nullopt if any
/// error was reported. Every module returned has passed ir::verify.
///
/// If `override_signatures` is non-empty (the C++ API `vectorize(src, sigs)`),
/// the source must hold exactly one @vectorize function or exactly one bare
/// def (no decorator), which gets these signatures instead of the
/// decorator's. A source with only bare defs and no signatures at all is an
/// error saying that signatures are needed.
///
/// `link` adds CUDA C++ files beside the decorators' link=[...] and may give
/// the folder relative link paths resolve against (ir::LinkOptions).
std::optional<TypedProgram> compile_to_ir(std::shared_ptr<const SourceFile> file, DiagnosticEngine &diags,
                                          const std::vector<std::string> &override_signatures = {},
                                          const LinkOptions &link = {});

/// A signature typed on demand (a dynamic ufunc's, gufunc's or kernel's), and its module.
struct InferredSignature {
  frontend::Signature signature;
  ir::Module module;
};

/// Types the @guvectorize function `name` of `file` for operand dtypes, one
/// per operand of its layout (inputs, then outputs): what Numba's dynamic
/// gufunc does at a call with new dtypes. For the runtime: a layout-only
/// `@guvectorize('(m,n),(n,p)->(m,p)')` (or one with is_dynamic=True) comes
/// out of compile_to_ir with `options.is_dynamic`, `core` and no modules;
/// the runtime calls this per new dtype combination and caches the result.
/// The signature it types is Numba's: an input of a `()` core is a scalar
/// parameter; an output of a `()` core a 1-d array (the runtime passes a
/// view of one element: shape {1}); every other operand an array with its
/// core's dimensions, passed as today (codegen/lower/LowerTypes.cpp: {data, shape,
/// byte strides}). Works for gufuncs with signatures too (any dtypes). Errors
/// (a body that does not type for these dtypes, a wrong count) go to
/// `diags`, located; returns nullopt then. Re-parses `file`: a few hundred
/// microseconds for a kernel, once per dtype combination.
/// `link`: as compile_to_ir's, for a body that calls declare_device functions.
std::optional<InferredSignature> type_gufunc(std::shared_ptr<const SourceFile> file, const std::string &name,
                                                const std::vector<DType> &operand_dtypes, DiagnosticEngine &diags,
                                                const LinkOptions &link = {});

/// Numba's dynamic ufunc: types the @vectorize function `name` of `file` for
/// scalar arguments of `arg_dtypes` and infers its return type from its
/// returns (as for helpers: their unified type; a weak literal gives its
/// default dtype). Reports errors (a wrong argument count, a body that does
/// not type, a function that returns no scalar) through `diags` and returns
/// nullopt.
/// `link`: as compile_to_ir's.
std::optional<InferredSignature> type_for_arguments(std::shared_ptr<const SourceFile> file, const std::string &name,
                                                    const std::vector<DType> &arg_dtypes, DiagnosticEngine &diags,
                                                    const LinkOptions &link = {});

/// Types the @cuda.jit kernel `name` of `file` for its arguments' types
/// (arrays of a dtype and ndim, scalars), as Numba's dispatcher does at a
/// launch with new types: every array is writable, the kernel returns
/// nothing. Errors go to `diags`, located; returns nullopt then.
/// `checked`: the checking mode (Module::checked), which `debug=True` and
/// UFJIT_CHECK=1 also select.
std::optional<InferredSignature> type_kernel(std::shared_ptr<const SourceFile> file, const std::string &name,
                                             const std::vector<Type> &arg_types, DiagnosticEngine &diags,
                                             bool checked = false);

}  // namespace ufjit::ir
