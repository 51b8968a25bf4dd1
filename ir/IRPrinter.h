// Text form of the typed IR: what `ufjit compile --emit ir` prints, what the
// golden tests match, and the canonical text hashed into cache keys. So it is
// deterministic and complete: every parameter and local is declared with its
// type, every constant prints its exact value (shortest round-trip decimal)
// and its type, every conversion is an explicit `dtype(value)`.
//
//   module gaussian_pdf entry=gaussian_pdf fastmath=false
//   func gaussian_pdf(x: float32, mean: float32, sigma: float32) -> float32 {
//     var t: float32
//     t = ((x - mean) / sigma)
//     return (exp(((-0.5:float32 * t) * t)) / (sigma * 2.5066283:float32))
//   }
//
// Helper calls print as `call name(args)`, intrinsics as `name(args)` (names
// from IR.h's intrinsic table), Select as `(a if c else b)`.
#pragma once

#include <string>

#include "ir/IR.h"

namespace ufjit::ir {

/// The whole module: header line, then each function (callees first), each
/// followed by a newline.
std::string print(const Module &m);
/// One function, as in print(Module).
std::string print(const Function &f);
/// One expression on one line.
std::string print(const Expr &e);
/// One statement (and its nested blocks), indented by `indent` levels.
std::string print(const Stmt &s, int indent = 0);

}  // namespace ufjit::ir
