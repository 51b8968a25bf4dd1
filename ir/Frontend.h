// Source text -> typed IR: parse, collect declarations, and type every ufunc
// for every signature (LANGUAGE.md sections 2-6). The one entry point the
// rest of ufjit (runtime, tool) uses to get IR from a source.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontend/Diagnostics.h"
#include "frontend/Program.h"
#include "frontend/Signature.h"
#include "ir/IR.h"

namespace ufjit::ir {

/// One exported ufunc with one typed module per signature, in signature
/// order (the dispatcher tries them in that order).
struct TypedUfunc {
  std::string name;
  frontend::UfuncKind kind = frontend::UfuncKind::Vectorize;
  frontend::UfuncOptions options;
  std::string layout;  // guvectorize only
  std::vector<frontend::Signature> signatures;
  std::vector<ir::Module> modules;  // modules[i] types signatures[i]
  /// A @vectorize without signatures (Numba's dynamic ufunc): no modules;
  /// the runtime types it per call with type_for_arguments.
  bool dynamic = false;
};

struct TypedProgram {
  std::vector<TypedUfunc> ufuncs;
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
std::optional<TypedProgram> compile_to_ir(std::shared_ptr<const SourceFile> file, DiagnosticEngine &diags,
                                          const std::vector<std::string> &override_signatures = {});

/// The signature a dynamic ufunc gets for some argument types, and its module.
struct InferredSignature {
  frontend::Signature signature;
  ir::Module module;
};

/// Numba's dynamic ufunc: types the @vectorize function `name` of `file` for
/// scalar arguments of `arg_dtypes` and infers its return type from its
/// returns (as for helpers: their unified type; a weak literal gives its
/// default dtype). Reports errors (a wrong argument count, a body that does
/// not type, a function that returns no scalar) through `diags` and returns
/// nullopt.
std::optional<InferredSignature> type_for_arguments(std::shared_ptr<const SourceFile> file, const std::string &name,
                                                    const std::vector<DType> &arg_dtypes, DiagnosticEngine &diags);

}  // namespace ufjit::ir
