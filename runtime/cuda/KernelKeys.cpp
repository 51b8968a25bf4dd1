// Cache keys of GPU kernels (runtime/cuda/KernelKeys.h).
#include "runtime/cuda/KernelKeys.h"

#include "codegen/kernel/KernelABI.h"
#include "runtime/KernelRequest.h"

#ifndef UFJIT_VERSION
#define UFJIT_VERSION "unknown"
#endif
#ifndef UFJIT_LLVM_VERSION
#define UFJIT_LLVM_VERSION "unknown"
#endif

namespace ufjit::cuda {

std::string ir_code_key(const runtime::CompiledSignature &sig) {
  return "ir-xxh3-128:" + cache::KeyHash{sig.ir_hash, sig.ir_hash_high}.hex();
}

namespace {

cache::DiskCacheKey device_key(std::string code, const std::string &entry, std::string float_options,
                               const CudaContext &context, const codegen::GpuOptions &gpu) {
  cache::DiskCacheKey key;
  key.ir = std::move(code);
  key.entry = entry;
  key.arch = context.properties().arch() + "/" + gpu.arch;
  key.ptx_isa = gpu.canonical();
  key.float_options = std::move(float_options);
  // The entries' parameters too: a cubin of other parameters must miss.
  key.ufjit_version = std::string(UFJIT_VERSION) + "/abi" + std::to_string(codegen::kEntryAbiVersion);
  key.llvm_version = UFJIT_LLVM_VERSION;
  key.driver_version = context.drv().version;
  return key;
}

}  // namespace

cache::DiskCacheKey disk_key(const runtime::CompiledSignature &sig, std::string code, const std::string &entry,
                             const CudaContext &context, const codegen::GpuOptions &gpu) {
  return device_key(std::move(code), entry, runtime::float_options_key(sig), context, gpu);
}

cache::DiskCacheKey source_index_key(const runtime::SourceKey &source, const CudaContext &context,
                                     const codegen::GpuOptions &gpu) {
  // The float options are the source's own (its decorators): part of `source`.
  return device_key("source-xxh3-128:" + cache::KeyHash{source.low, source.high}.hex(), "source-index", "", context,
                    gpu);
}

}  // namespace ufjit::cuda
