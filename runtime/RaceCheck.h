// The race checker of checked kernels on the CPU target (codegen/kernel/
// KernelCheck.h), compute-sanitizer's racecheck for the CPU: a shadow of one
// block's shared memory (static and dynamic) records, per byte, its last
// writer and up to two readers since the last barrier, each with its thread,
// its barrier count and its source line. Two threads of the block touching
// the same byte with no barrier between them, at least one writing and
// neither through an atomic (atomics are not reported to it), is a race: the
// first one of a block is kept and reported after it ends.
//
// Accesses between threads of one warp are also ordered by a syncwarp
// between them. The checker is the calling OS thread's (a block's fibers
// all run there, one block at a time: runtime/CpuBlockRunner.h).
#pragma once

#include <cstdint>
#include <string>

#include "codegen/kernel/CpuKernelContext.h"

namespace ufjit::runtime {

/// Starts checking a block whose threads run on this OS thread: `block`
/// holds its dims and shared memory (static_bytes of it at `block.shared`,
/// block.dynamic_shared_bytes at `block.dynamic_shared`).
void race_check_begin_block(const codegen::CpuThreadContext &block, int64_t static_bytes);

/// Ends the block begun last on this OS thread: "" or the message of its
/// first race, naming both threads, both lines and the byte.
std::string race_check_end_block();

/// The checked kernels' CpuAccessFn (codegen/kernel/KernelCheck.h).
void race_check_access(codegen::CpuThreadContext *ctx, const void *address, int64_t bytes, int32_t kind,
                       int32_t line);

}  // namespace ufjit::runtime
