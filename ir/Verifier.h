// The IR verifier: checks a whole module against the invariants of IR.h that
// single-node make() checks cannot see (names, declarations, calls, control
// flow). The typer runs it on every module it produces; later passes should
// run it after every rewrite.
#pragma once

#include "ir/IR.h"

namespace ufjit::ir {

/// Throws InternalError naming the function and the offending node if:
/// types are inconsistent; a Var is undeclared (not a param or local) or its
/// type differs from the declaration; an Assign's value type differs from
/// its variable's; a Return's value differs from the function's return type
/// (or a non-void function may fall off its end); break/continue sit outside
/// a loop; a Call names a missing function or mismatches its parameter or
/// return types; the call graph has a cycle or a callee comes after its
/// caller; array loads/stores are not on array variables; an intrinsic's
/// result type is not the one its table entry gives.
void verify(const Module &m);

}  // namespace ufjit::ir
