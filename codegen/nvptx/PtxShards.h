// A huge kernel compiled a part at a time: the functions cut from its huge
// functions (kPartAttribute, HugeFunctions.h) moved into LLVM modules of
// their own, each optimized and code-generated alone, their PTX joined into
// the kernel's.
//
// Why: every pass over one part does the same work whatever the size of the
// module around it, yet in one module of 100,000 elif branches (100 parts)
// each part took 20-30% longer than in a module of 10,000 (10 parts): the
// module's instructions, dominator trees and MC symbols of every part stay
// live and spread over a heap of 500 MB, past the caches, and the
// whole-module passes walk them all. A module of one part keeps the working
// set of a compile the size of one part.
//
// requires: a lowered module (libdevice's functions may be linked);
// guarantees: the joined PTX defines the same functions, a moved
// function internal (.func) as before and called through a prototype.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace llvm {
class Module;
}  // namespace llvm

namespace ufjit::codegen {

/// Functions moved out of a module, to be compiled to PTX on their own.
struct PtxShard {
  std::unique_ptr<llvm::Module> module;  // in the original module's context
  std::set<std::string> functions;       // its definitions: external while it compiles
};

/// Moves each part function of `module` (kPartAttribute) that is only
/// called and that refers to no definition of `module` but other parts and
/// libdevice's functions (which its module links again) into a module of
/// its own, renamed to a valid PTX identifier; `module` keeps a
/// declaration of it, as each shard does of what it calls. Empty when
/// `module` has no such function.
std::vector<PtxShard> split_off_parts(llvm::Module &module);

/// Gives every internal global of shard `index` (the libdevice functions and
/// tables linked into it) a name no other shard's or the kernel's can have,
/// as they all end up in one PTX text.
void make_shard_names_unique(llvm::Module &shard, std::size_t index);

/// The kernel's PTX with each shard's functions appended, every moved
/// function's definition and declarations made internal (`.func`), as
/// before the move: ptxas then sees one module, as it did.
std::string join_shard_ptx(std::string kernel_ptx, const std::vector<std::string> &shard_ptx,
                           const std::vector<PtxShard> &shards);

}  // namespace ufjit::codegen
