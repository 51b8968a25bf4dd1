// One LLVM module of kernel entries for a list of EntryRequests: lowers each
// IR module (codegen/lower/Lowering.h) and wraps its entry function in one entry
// per requested variant (codegen/kernel/KernelEntry.h). Shared by the PTX path, the
// CPU JIT and `--emit llvm`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/Codegen.h"
#include "codegen/kernel/KernelEntry.h"
#include "codegen/lower/Lowering.h"

namespace ufjit::codegen {

/// The dtypes of an IR function's scalar parameters and result. Throws
/// ufjit::Error for functions that are not elementwise (arrays, tuples).
EntrySignature entry_signature(const ir::Function &fn);
/// The signature of a gufunc core function (scalars and arrays, void result)
/// whose last `outputs` parameters are outputs.
EntrySignature gufunc_entry_signature(const ir::Function &fn, std::size_t outputs);

/// What build_entry_module produced.
struct EntryModuleInfo {
  std::vector<std::string> entry_names;  // request order, variants flattened
  bool all_fastmath = true;              // every request's module has fastmath
  bool any_fastmath = false;
};

/// The entry shape of a PTX compile at `tier`: the quick tier's entries
/// hold one copy of each body, since code generation time follows the
/// copies (KernelEntry.h).
inline GpuEntryShape gpu_entry_shape(PtxTier tier) {
  return tier == PtxTier::Quick ? GpuEntryShape::Compact : GpuEntryShape::Tuned;
}

/// Lowers every request into `out` (function names prefixed with the entry
/// base name), runs `after_lowering` (the GPU links libdevice there, so that
/// entries can weigh the bodies of the libdevice functions a kernel calls),
/// then adds the entries for `kind` (elementwise GPU entries of `shape`).
EntryModuleInfo build_entry_module(const std::vector<EntryRequest> &requests, llvm::Module &out, TargetKind kind,
                                   const std::function<void(llvm::Module &)> &after_lowering = {},
                                   GpuEntryShape shape = GpuEntryShape::Tuned);

/// Makes `context` drop the names of values local to a function (blocks,
/// instructions, arguments), as clang does outside debug builds. For the
/// contexts whose modules become PTX or machine code, never text: the code
/// is the same, and every pass that creates or moves a value then skips its
/// name and the function's symbol table (a sixth of code generation's time
/// on a 30,000-branch elif chain). `--emit llvm` keeps the names.
void discard_local_value_names(llvm::LLVMContext &context);

}  // namespace ufjit::codegen
