// The GPU side of the ufunc methods: method entries (codegen/kernel/KernelReduce.h)
// from the JIT engine, and their launches. Never log(n)
// launches:
//   reduce: one launch when rows are many or short (one block per row),
//     else two: the rows in chunks (blocks of a grid sized to fill the
//     device), then the chunks' results per row; a masked reduce (where=)
//     the same, its chunks saying whether they took an element, so that the
//     second launch takes only theirs.
//   accumulate: one thread per row for short rows; else a block-level scan,
//     one block per row when rows are many or short, else three launches
//     (reduce then scan): each chunk's total (the reduce entry), the scan of
//     the chunk totals per row, each chunk scanned from its carry.
// A raise in the kernel is reported as ufjit::KernelError after the launches
// (runtime/cuda/RaiseFlag.h).
#pragma once

#include <memory>

#include "runtime/KernelRunner.h"
#include "runtime/JitEngine.h"
#include "runtime/cuda/CudaContext.h"

namespace ufjit::cuda {

/// Runs `launch` (device memory) on the legacy stream and waits for it; its
/// kernels come from `engine` (the backend's).
void run_cuda_method(const runtime::MethodLaunch &launch, const std::shared_ptr<const CudaContext> &context,
                     runtime::JitEngine &engine);

}  // namespace ufjit::cuda
