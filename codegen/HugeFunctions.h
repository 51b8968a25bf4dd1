// Optimization passes skipped on huge functions, so that compile time stays
// about linear in the source's size on both targets.
//
// LLVM's SimplifyCFG and GVN are quadratic on some shapes of huge CFGs: an
// if/elif chain of n branches that each return merges its n returns into one
// block whose phi has n entries, and SimplifyCFG then folds the n emptied
// blocks into it one at a time, each in time proportional to the phi
// (10,000 elifs: 9 s); GVN propagates `x == c` of each branch to every
// dominated use of x (n branches times n uses: 4 s). On a function of more
// than kHugeFunctionBlocks blocks they are skipped: the code is still valid
// and optimized by every other pass; only a function too big to be fast
// anyway loses their clean-ups.
#pragma once

#include <cstddef>

namespace llvm {
class Module;
class PassInstrumentationCallbacks;
}  // namespace llvm

namespace ufjit::codegen {

/// About 1,500 elifs, 10,000 if statements or loops.
constexpr std::size_t kHugeFunctionBlocks = 5000;

/// Registers the skipping on `callbacks` (pass them to the PassBuilder).
void skip_quadratic_passes_on_huge_functions(llvm::PassInstrumentationCallbacks &callbacks);

/// Whether a function of `module` has more than kHugeFunctionBlocks blocks
/// (NVPTX's code generator runs GVN too, at CodeGenOptLevel::Aggressive).
bool has_huge_function(const llvm::Module &module);

}  // namespace ufjit::codegen
