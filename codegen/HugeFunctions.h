// Optimization passes skipped on huge functions, so that compile time stays
// about linear in the source's size on both targets.
//
// LLVM's SimplifyCFG and GVN are quadratic on some shapes of huge CFGs: an
// if/elif chain of n branches that each return merges its n returns into one
// block whose phi has n entries, and SimplifyCFG then folds the n emptied
// blocks into it one at a time, each in time proportional to the phi
// (10,000 elifs: 9 s); GVN propagates `x == c` of each branch to every
// dominated use of x (n branches times n uses: 4 s); InstCombine and ADCE
// revisit the phi of an elif chain of n assignments for each of its blocks
// (40,000 branches: 2.2 s and 1.0 s of the optimizer's 5.5 s), and
// JumpThreading folds empty blocks into such a phi as SimplifyCFG does. On a
// function of more than kHugeFunctionBlocks blocks they are skipped: the
// code is still valid and optimized by every other pass; only a function too
// big to be fast anyway loses their clean-ups.
//
// A huge function is marked as such before the optimizer and, past
// kOutlineBlocks blocks, cut into functions of about that size
// (outline_huge_regions), on both targets; the parts count as huge for the
// skipping and for the code generator's settings.
//
// One huge basic block (tens of thousands of statements in a row) makes the
// code generators superlinear: SelectionDAG works a block at a time and its
// combines and Machine CSE grow faster than the block (NVPTX, 100,000
// statements: 24x the time of 10,000), as the CPU's machine scheduler does.
// On NVPTX such blocks are moved into functions of kOutlineInstructions
// before the optimizer (outline_huge_blocks), which also keeps O3 linear; a
// huge block left after that is split into blocks of kSplitBlockInstructions
// and compiled at CodeGenOptLevel::None (ptxas optimizes the PTX again). The
// CPU JIT compiles such blocks at None (codegen/HostJit.cpp).
#pragma once

#include <cstddef>

namespace llvm {
class Function;
class Module;
class PassInstrumentationCallbacks;
}  // namespace llvm

namespace ufjit::codegen {

/// About 330-500 elifs, 2,000 if statements or loops. Decided on the lowered
/// function, before the optimizer: an elif chain of 1,500 tuple assignments
/// in two nested `range(2)` loops (3,000 blocks) was unrolled into four
/// chains that SimplifyCFG made select chains of, where InstCombine was
/// quadratic (100 s on both targets; with 5,000 here it was not huge when
/// lowered, and no longer huge once SimplifyCFG had folded it).
constexpr std::size_t kHugeFunctionBlocks = 1000;

/// A block of more than this many instructions is huge (as HostJit's
/// kMaxScheduledBlock).
constexpr std::size_t kHugeBlockInstructions = 20000;
/// The size of the pieces split_huge_blocks cuts a huge block into.
constexpr std::size_t kSplitBlockInstructions = 2000;

/// Marks, before the optimizer, a function of more than kHugeFunctionBlocks
/// blocks and the parts cut from it (outline_huge_regions): huge for the
/// pass skipping and the code generator's settings whatever size a pass
/// leaves it (SimplifyCFG folds an elif chain into a few blocks of selects,
/// where InstCombine is quadratic).
inline constexpr const char *kHugeAttribute = "ufjit-huge";

/// Marks a function cut from a huge one (a part of a long chain, a region or
/// a piece of a huge block), only ever called directly: the NVPTX path may
/// compile it in a module of its own (codegen/nvptx/PtxShards.h).
inline constexpr const char *kPartAttribute = "ufjit-part";

/// Whether `f` has more than kHugeFunctionBlocks blocks or carries
/// kHugeAttribute.
bool is_huge_function(const llvm::Function &f);

/// Registers the skipping on `callbacks` (pass them to the PassBuilder):
/// the passes above and Float2Int on a huge function, IPSCCP and GlobalOpt
/// (whole-module passes) on a module that has one, and CalledValuePropagation
/// everywhere (ufjit emits no indirect calls).
void skip_passes_that_scale_badly(llvm::PassInstrumentationCallbacks &callbacks);

/// Whether a function of `module` is huge (is_huge_function; NVPTX's code
/// generator runs GVN too, at CodeGenOptLevel::Aggressive).
bool has_huge_function(const llvm::Module &module);

/// Whether a block of `module` has more than kHugeBlockInstructions
/// instructions.
bool has_huge_block(const llvm::Module &module);

/// The size of the pieces outline_huge_blocks moves into functions of their own.
constexpr std::size_t kOutlineInstructions = 2000;

/// Moves every block of more than kHugeBlockInstructions instructions, but for
/// its first and last pieces, into functions of about kOutlineInstructions
/// instructions each (noinline; the function's variables promoted to values
/// first, so that a few values cross each cut). The optimizer then works on
/// functions of bounded size: on one huge function every pass of O3 grew
/// 20-30x per 10x statements (a working set beyond the caches), not one
/// quadratic pass. The same operations in the same order.
void outline_huge_blocks(llvm::Module &module);

/// The number of blocks outline_huge_regions moves into each function.
constexpr std::size_t kOutlineBlocks = 2500;

/// A part that would take more values and stack slots than this takes them
/// in one struct instead (NVPTX's calls of thousands of parameters are slow
/// to select).
constexpr std::size_t kMaxPartParameters = 256;

/// Marks every function of more than kHugeFunctionBlocks blocks with
/// kHugeAttribute and, past kOutlineBlocks, cuts it into noinline functions
/// of about kOutlineBlocks blocks (marked too), before the optimizer: on one
/// function of 300,000 blocks (an elif chain of 100,000 branches) every pass
/// of O3 grew 12-20x per 10x branches on the GPU host, its working set
/// beyond the caches, as for huge blocks. Each part is the blocks a block dominates (entered only
/// through it), less the parts cut below it, which it calls; a phi after a
/// part goes through a stack slot. Returns are first merged into one block,
/// which no part holds. The same operations in the same order. A long
/// if/elif chain never gets here whole: the lowering cuts it into parts as
/// it goes (codegen/lower/LowerParts.cpp); this cuts the other shapes (a long run
/// of `if` statements, a loop around thousands of blocks).
void outline_huge_regions(llvm::Module &module);

/// In huge functions (is_huge_function), removes the blocks
/// that hold only an unconditional branch: their predecessor branches to the
/// destination, whose phis take the predecessor as the incoming block. The
/// code generator's CodeGenPrepare does the same one block at a time with a
/// scan of the destination's phi each, quadratic for an elif chain of n
/// assignments that merge in one phi of n entries (10,000: 1.1 s).
void fold_empty_blocks_of_huge_functions(llvm::Module &module);

/// Phis of more incoming values than this, in huge functions, go through
/// memory before code generation (demote_huge_phis).
constexpr std::size_t kHugePhiEntries = 1000;

/// In huge functions (is_huge_function), turns each phi of
/// more than kHugePhiEntries incoming values into a stack slot that each
/// predecessor stores to and the phi's block loads: SelectionDAG looks up
/// each predecessor's value in the phi by a scan of its entries, quadratic
/// for the phi of an elif chain of n assignments. Run after the optimizer,
/// which would promote the slot back into the phi.
void demote_huge_phis(llvm::Module &module);

/// Splits every block of more than kHugeBlockInstructions instructions into
/// blocks of about kSplitBlockInstructions joined by unconditional branches
/// (the same code; SelectionDAG then sees bounded blocks).
void split_huge_blocks(llvm::Module &module);

}  // namespace ufjit::codegen
