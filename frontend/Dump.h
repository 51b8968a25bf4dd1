// Readable dumps of the first two stages, for `ufjit compile --emit tokens`
// and `--emit ast` and for golden tests. The formats are stable: one token
// or node per line, each with its line:col.
#pragma once

#include <string>

#include "frontend/AST.h"
#include "support/Diagnostics.h"

namespace ufjit::frontend {

/// One token per line: `LINE:COL KIND 'text'`, plus the value for numbers
/// and strings, e.g. `3:12 Float '1e-3' = 0.001`. Lexer errors go to `diags`.
std::string dump_tokens(const SourceFile &file, DiagnosticEngine &diags);

/// One node per line, indented two spaces per level:
/// `BinOp + @4:12`, children below it; list-valued fields (function bodies,
/// `orelse`, call keywords) under a labelled line such as `body:`.
std::string dump_ast(const ast::Module &module);

}  // namespace ufjit::frontend
