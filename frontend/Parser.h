// Lexer + parser entry point: source text -> ast::Module.
#pragma once

#include <memory>

#include "frontend/AST.h"
#include "support/Diagnostics.h"

namespace ufjit::frontend {

/// Parses a whole source. Reports every error that recovery allows through
/// `diags` and returns the statements that parsed (possibly none); never
/// throws on bad input, never hangs. The module keeps `file` alive.
std::unique_ptr<ast::Module> parse(std::shared_ptr<const SourceFile> file, DiagnosticEngine &diags);

}  // namespace ufjit::frontend
