// What identifies a GPU kernel in the disk cache (the JIT engine's in-memory
// key is runtime/KernelRequest.h's kernel_key): one definition for every
// kind of entry (runtime/cuda/CudaToolchain.cpp) and the source index, so
// that a change to what a compile option means reaches every key.
#pragma once

#include <string>

#include "codegen/Codegen.h"
#include "runtime/Backend.h"
#include "runtime/cache/DiskCache.h"
#include "runtime/cuda/CudaContext.h"

namespace ufjit::cuda {

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
