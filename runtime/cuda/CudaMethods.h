// The GPU side of the ufunc methods: method entries (codegen/KernelReduce.h)
// through the in-memory and disk caches, and their launches. A reduction is
// one launch when rows are many or short (one block per row), else two: the
// rows in chunks (blocks of a grid sized to fill the device), then the
// chunks' results per row. Never log(n) launches.
#pragma once

#include <memory>
#include <string>

#include "codegen/Codegen.h"
#include "runtime/Backend.h"
#include "runtime/KernelCache.h"
#include "runtime/cache/DiskCache.h"
#include "runtime/cuda/CudaContext.h"

namespace ufjit::cuda {

/// Runs `launch` (device memory) on the legacy stream and waits for it.
void run_cuda_method(const runtime::MethodLaunch &launch, const std::shared_ptr<const CudaContext> &context,
                     runtime::KernelCache &cache, cache::DiskCache &disk, const codegen::GpuOptions &gpu,
                     const std::string &target_key);

}  // namespace ufjit::cuda
