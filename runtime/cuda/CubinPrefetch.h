// The CUDA backend's side of the source index (runtime/cache/SourceIndex.h):
// cubins loaded from the disk cache while `vectorize` types their source,
// and the index entries that make that possible in the next process.
//
// start() queues, on the backend's worker (TierUp), a job that reads the
// source's index and loads the cubins it lists; build() asks take() before
// it reads the disk cache itself (runtime/KernelPrefetch.h says when it
// waits). note() adds a cubin that a first call built or loaded to its
// source's index, on the worker too, writing only when the index lacks it.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "codegen/Codegen.h"
#include "runtime/Backend.h"
#include "runtime/KernelPrefetch.h"
#include "runtime/cache/DiskCache.h"
#include "runtime/cuda/CudaContext.h"
#include "runtime/cuda/CudaModule.h"
#include "runtime/cuda/TierUp.h"

namespace ufjit::cuda {

class CubinPrefetch {
 public:
  /// Everything is the backend's and outlives this object; `worker` is used
  /// by start() and note() only, so it may be declared after this one.
  /// UFJIT_PREFETCH=0 turns start() off (indexes are still written).
  CubinPrefetch(std::shared_ptr<const CudaContext> context, cache::DiskCache &disk, const codegen::GpuOptions &gpu,
                TierUp &worker);

  /// Queues the load of the cubins `source`'s index lists (nothing when the
  /// disk cache is off or a job for `source` is already queued).
  void start(const runtime::SourceKey &source);
  /// The kernel `entry` of cubin `key` if it was prefetched, else null (the
  /// caller reads and loads it itself).
  std::shared_ptr<CudaKernel> take(const runtime::SourceKey &source, const cache::KeyHash &key,
                                   const std::string &entry);
  /// Queues adding cubin `key` (holding `entry`) to `source`'s index.
  void note(const runtime::SourceKey &source, const cache::KeyHash &key, const std::string &entry);
  /// note() on the calling thread (the worker's own jobs).
  void note_here(const runtime::SourceKey &source, const cache::KeyHash &key, const std::string &entry);

 private:
  using Clock = std::chrono::steady_clock;
  // The job start() queues at `queued`.
  void load_listed(const runtime::SourceKey &source, Clock::time_point queued);
  cache::KeyHash index_key(const runtime::SourceKey &source) const;

  std::shared_ptr<const CudaContext> context_;
  cache::DiskCache &disk_;
  const codegen::GpuOptions &gpu_;
  TierUp &worker_;
  bool enabled_ = true;
  runtime::KernelPrefetch<CudaKernel> kernels_;
};

}  // namespace ufjit::cuda
