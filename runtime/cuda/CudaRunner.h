// The CUDA target's KernelRunner (runtime/KernelRunner.h), made by the CUDA
// backend (runtime/cuda/CudaBackend.cpp) for its context.
#pragma once

#include <memory>
#include <string>

#include "codegen/Codegen.h"
#include "runtime/KernelRunner.h"
#include "runtime/cache/DiskCache.h"

namespace ufjit::cuda {
class CudaContext;
class HostStaging;
}  // namespace ufjit::cuda

namespace ufjit::runtime {

/// What the CUDA runner runs on: the backend's context and staging (both
/// outlive the runner) and the PTX target the backend chose.
struct CudaRunnerConfig {
  const BackendConfig &backend;
  std::shared_ptr<const cuda::CudaContext> context;
  cuda::HostStaging *staging = nullptr;
  codegen::GpuOptions gpu;
  std::string target_key;  // Backend::key(), part of every kernel's cache key
  /// This backend warms up the compiler for the process (the first one):
  /// the runner then pages the frontend back in after the context was made.
  bool warms_up_compiler = false;
};

class CudaRunner : public KernelRunner {
 public:
  /// Waits for the background work (optimised kernels being compiled,
  /// prefetches): Backend::synchronize waits for "all work".
  virtual void wait_for_background() = 0;
  /// The disk cache's counters (hits, misses, stores, ...).
  virtual cache::DiskCacheCounters disk_counters() const = 0;
};

std::unique_ptr<CudaRunner> make_cuda_runner(const CudaRunnerConfig &config);

}  // namespace ufjit::runtime
