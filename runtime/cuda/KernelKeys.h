// What identifies a GPU kernel of a ufunc in the in-memory and disk caches:
// one definition for the elementwise/gufunc entries (CudaBackend.cpp) and
// the method kernels (CudaMethods.cpp), so that a change to what a compile
// option means reaches both keys.
#pragma once

#include <string>

#include "codegen/Codegen.h"
#include "runtime/Backend.h"
#include "runtime/cache/DiskCache.h"
#include "runtime/cuda/CudaContext.h"

namespace ufjit::cuda {

/// The float options of a GPU kernel, canonical, in both cache keys. What
/// fastmath=1 compiles to changed with CUDA's --use_fast_math mapping
/// (approximate instructions, codegen/nvptx/NVPTXFastMath.cpp): the suffix keeps
/// disk-cached kernels of the earlier meaning from being reused.
std::string float_options(const runtime::CompiledSignature &sig);

/// The disk-cache key's code field of a signature from ufjit's IR: the
/// 128-bit hash of its printed IR (CompiledSignature::ir_hash, ir_hash_high).
std::string ir_code_key(const runtime::CompiledSignature &sig);

/// The disk-cache key of `entry`, compiled from `code` (ir_code_key, or
/// what a CUDA C++ kernel is made of) for this context's device and `gpu`.
cache::DiskCacheKey disk_key(const runtime::CompiledSignature &sig, std::string code, const std::string &entry,
                             const CudaContext &context, const codegen::GpuOptions &gpu);

/// The disk-cache key of the source index of `source` (SourceIndex.h) for
/// this context's device and `gpu`: the cubins it lists are of that device.
cache::DiskCacheKey source_index_key(const runtime::SourceKey &source, const CudaContext &context,
                                     const codegen::GpuOptions &gpu);

}  // namespace ufjit::cuda
