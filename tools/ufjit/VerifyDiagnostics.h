// `ufjit check --verify-diagnostics`: the expected diagnostics are annotated
// in the source itself (MLIR's -verify-diagnostics, with Python comments):
//
//   x = math.exq(1.0)  # expected-error {{unknown function 'math.exq'}}
//   # expected-error@+1 {{cannot add 'complex64' and 'bool'}}
//   y = z + True
//
// `@+N` / `@-N` move the expected line; the text between {{ }} must occur in
// the message. Lines `# -----` split the file into cases checked one at a
// time (line numbers stay those of the whole file). Every expected diagnostic
// must be reported and every reported one expected.
#pragma once

#include <string>

namespace ufjit::tool {

/// Returns true when every case matches; prints mismatches to stderr.
bool verify_diagnostics(const std::string &source, const std::string &source_name);

}  // namespace ufjit::tool
