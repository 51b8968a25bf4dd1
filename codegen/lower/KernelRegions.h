// Explicit kernels with barriers on the CPU without fibers: the kernel is
// split at its barriers into regions, each a loop over the block's threads
// (the MCUDA / CuPBoP / PoCL approach, on the structured IR). A barrier is
// then the boundary between two loops: every thread finishes the region
// before it before any starts the one after, which is what
// cuda.syncthreads() promises, at the cost of a loop iteration per thread
// instead of a fiber switch.
//
// The split handles barriers (syncthreads and its count/and/or forms) as
// statements of the kernel function, at its top level or inside `if`,
// `while` and `for` statements whose control every thread of the block
// evaluates alike (CUDA requires a barrier to be reached by all the
// block's threads or none). What it cannot handle runs on fibers
// (runtime/CpuBlockRunner.h) as before: warp collectives, a barrier in a
// device function or inside an expression, a `break` or `continue` that
// leaves a loop holding a barrier, local arrays (one per thread).
#pragma once

#include <set>
#include <string>

#include "ir/IR.h"

namespace ufjit::codegen {

/// How the CPU target runs an explicit kernel's blocks.
enum class CpuBlockShape {
  ThreadLoop,  // no thread waits for another: one loop over each block's threads
  Regions,     // barriers split the kernel into loops over the threads
  Fibers,      // one fiber per thread (codegen/kernel/CpuKernelContext.h)
};

/// The shape `module` (an explicit kernel's) runs in on the CPU. The
/// runtime and the code generator both ask, so both agree on the entry.
CpuBlockShape cpu_block_shape(const ir::Module &module);

/// Whether `op` is a block barrier (syncthreads and its reducing forms).
bool is_block_barrier(ir::SyncOp op);

/// Whether `s` holds a block barrier anywhere.
bool has_block_barrier(const ir::Stmt &s);

/// The source line of the first block barrier in `s` (0 when none).
int first_barrier_line(const ir::Stmt &s);

/// The variables of a split kernel function (`fn`, Regions) that need one
/// value per thread: those some region reads before assigning them and
/// some region assigns. Every other variable is assigned by a thread before
/// it reads it in the same region, never assigned in a region (the
/// parameters, a `for` variable of a loop holding a barrier), or assigned
/// once a value alike in every thread (a shared array, gridDim.x): one slot
/// serves every thread.
std::set<std::string> per_thread_variables(const ir::Function &fn);

/// The variables `s` (or `e`) reads or assigns, added to `names`.
void add_variable_names(const ir::Stmt &s, std::set<std::string> &names);
void add_variable_names(const ir::Expr &e, std::set<std::string> &names);

}  // namespace ufjit::codegen
