// Numbers the Raise statements of a module and lists them in
// Module::raise_sites, the table the runtime reads to name a raise that fired
// (LANGUAGE.md section 5, "Errors in kernels").
// requires: typed functions; guarantees: every Raise has site k >= 1 and
// raise_sites[k - 1] describes it; sites follow function order, then source order.
#pragma once

#include "ir/IR.h"

namespace ufjit::ir {

void number_raise_sites(Module &module);

}  // namespace ufjit::ir
