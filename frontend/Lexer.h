// The lexer: source text -> tokens, Python's rules (PEP 8 indentation
// included) for the subset of LANGUAGE.md.
//
// It produces the whole token list at once, with NEWLINE, INDENT and DEDENT
// tokens as Python's tokenizer does; brackets join lines, as does a trailing
// backslash. Errors (an unknown character, a bad number, an unterminated
// string, inconsistent tabs and spaces) are reported through `diags` with
// their location, and lexing goes on, so the parser still sees a well-formed
// stream: INDENT and DEDENT always balance and the list ends in ENDMARKER.
#pragma once

#include <vector>

#include "support/Diagnostics.h"
#include "frontend/Token.h"

namespace ufjit::frontend {

/// Tokenizes `file`. Never throws on bad input; always ends in EndMarker.
std::vector<Token> tokenize(const SourceFile &file, DiagnosticEngine &diags);

/// True for Python's reserved words (`def`, `lambda`, `True`, ...).
bool is_python_keyword(std::string_view word);

}  // namespace ufjit::frontend
