// Explicit kernels on the CPU target (codegen/kernel/KernelABI.h, kind
// Explicit): a launch's blocks spread over the thread pool. A kernel whose
// threads never wait for each other runs each block as a loop over its
// threads inside the generated entry; one with barriers or warp collectives
// runs each thread of a block on a fiber of the calling worker's block
// runner (runtime/CpuBlockRunner.h), so that they meet as on the GPU.
#pragma once

#include <functional>
#include <span>

#include "codegen/kernel/KernelABI.h"
#include "runtime/Backend.h"
#include "runtime/ThreadPool.h"

namespace ufjit::runtime {

/// Runs `launch` with its compiled CPU entry (`entry`: a CpuEntry, or a
/// CpuThreadEntry when the kernel's threads wait) and parameter table.
/// Returns when every block has finished; throws KernelError for a raise in
/// the kernel or a block whose threads cannot proceed, Cancelled when
/// `interrupt` says stop.
void run_cpu_kernel(const PreparedKernel &launch, codegen::CpuEntry entry, std::span<const codegen::KernelParam> table,
                    ThreadPool &pool, const std::function<bool()> &interrupt);

}  // namespace ufjit::runtime
