// The CUDA target's part of the JIT engine (runtime/JitEngine.h): a request
// becomes a cubin and a loaded CudaKernel.
//
//   ufjit's IR:  PTX (codegen::emit_ptx, quick or optimised tier) -> the
//                driver's linker -> cubin; with CUDA C++ helpers
//                (link=[...]) one nvJitLink link of the PTX and the helpers;
//   CUDA C++ elementwise kernels (ExternalKernel): NVRTC and nvJitLink.
//
// Disk-cache keys are runtime/cuda/KernelKeys.h's; prefetched kernels and
// the source index are runtime/cuda/CubinPrefetch.h's.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "codegen/Codegen.h"
#include "runtime/JitEngine.h"
#include "runtime/cuda/CubinPrefetch.h"
#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/TierUp.h"

namespace ufjit::cuda {

class CudaToolchain final : public runtime::KernelToolchain {
 public:
  /// Everything is the backend's and outlives this object. `warm_up_driver_jit`:
  /// this backend warms the driver's PTX compiler up at its first compile
  /// (on `worker`), as the first backend of a process does.
  CudaToolchain(std::shared_ptr<const CudaContext> context, const codegen::GpuOptions &gpu,
                const std::string &target_key, CubinPrefetch &prefetch, TierUp &worker, bool warm_up_driver_jit);

  const std::string &target_key() const override { return target_key_; }
  const std::string &arch() const override { return gpu_.arch; }
  runtime::BuiltKernel compile(const runtime::KernelRequest &request, codegen::PtxTier tier) override;
  bool can_compile_quick(const runtime::KernelRequest &request) const override;
  std::optional<cache::DiskCacheKey> disk_key(const runtime::KernelRequest &request) const override;
  std::shared_ptr<runtime::CompiledKernel> load(const std::string &image,
                                                const runtime::KernelRequest &request) override;
  std::shared_ptr<runtime::CompiledKernel> take_prefetched(const runtime::KernelRequest &request,
                                                           const cache::KeyHash &hash) override;
  void note_stored(const runtime::KernelRequest &request, const cache::KeyHash &hash, bool on_worker) override;

 private:
  /// The driver's PTX compiler is a library that libcuda loads at its first
  /// link, which a cold first call otherwise waits for: one tiny link on the
  /// worker while the caller makes its first kernel's PTX. Started at the
  /// first compile, not with the backend: a process whose kernels all come
  /// from the disk cache never needs it, and its link would run beside that
  /// process's first module load, in the driver at the same time.
  void warm_up_driver_jit_once();

  std::shared_ptr<const CudaContext> context_;
  const codegen::GpuOptions &gpu_;
  const std::string &target_key_;
  CubinPrefetch &prefetch_;
  TierUp &worker_;
  std::atomic<bool> driver_jit_warm_up_pending_;
};

}  // namespace ufjit::cuda
