// The JIT engine: the one component that acquires compiled kernels, for
// every kind of kernel (runtime/KernelRequest.h) and every target.
//
//   request -> key (kernel_key, built here only) -> in-memory cache
//           -> disk cache (prefetched, or read and loaded)
//           -> code generation, link and load (the target's toolchain)
//           -> quick tier now, the optimised kernel later (tiering)
//
// A target contributes a KernelToolchain: its cache-key fields, how a
// request becomes loaded code, and how a stored image is loaded. Backends
// ask the engine (directly, or through HotKernels in front of it) and never
// build keys or touch the caches themselves.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "codegen/Codegen.h"
#include "runtime/KernelCache.h"
#include "runtime/KernelRequest.h"
#include "runtime/cache/DiskCache.h"

namespace ufjit::runtime {

/// A compile's result: the loaded kernel and the image a disk cache keeps
/// (empty: nothing to store).
struct BuiltKernel {
  std::shared_ptr<CompiledKernel> kernel;
  std::string image;
};

/// What one target does for the engine. Implementations are the backends'
/// (runtime/cuda/CudaToolchain.h, runtime/CpuToolchain.h); thread-safe.
class KernelToolchain {
 public:
  virtual ~KernelToolchain() = default;
  /// Backend::key(): target, architecture, device, options.
  virtual const std::string &target_key() const = 0;
  /// The architecture code is made for ("sm_90", "host").
  virtual const std::string &arch() const = 0;
  /// Code generation, link and load of `request` at `tier`. Throws the
  /// compile's errors (CompileError, DeviceError).
  virtual BuiltKernel compile(const KernelRequest &request, codegen::PtxTier tier) = 0;
  /// Whether `request` may be compiled at the quick tier first: only where
  /// the quick code computes exactly what the optimised code does.
  virtual bool can_compile_quick(const KernelRequest &request) const {
    (void)request;
    return false;
  }
  /// The disk-cache key of `request`'s code; nothing when this target keeps
  /// no disk cache.
  virtual std::optional<cache::DiskCacheKey> disk_key(const KernelRequest &request) const {
    (void)request;
    return std::nullopt;
  }
  /// Loads an image a compile of `request` stored. Throws DeviceError when
  /// the driver rejects it (the engine then compiles and overwrites it).
  virtual std::shared_ptr<CompiledKernel> load(const std::string &image, const KernelRequest &request);
  /// The kernel of the disk entry `hash` if it was loaded ahead of its first
  /// call (the CUDA backend's source-index prefetch), else null.
  virtual std::shared_ptr<CompiledKernel> take_prefetched(const KernelRequest &request, const cache::KeyHash &hash) {
    (void)request;
    (void)hash;
    return nullptr;
  }
  /// The disk entry `hash` holds `request`'s kernel: remembered so that the
  /// next process can load it ahead. `on_worker`: called from a background
  /// job (BackgroundWorker) rather than a caller.
  virtual void note_stored(const KernelRequest &request, const cache::KeyHash &hash, bool on_worker) {
    (void)request;
    (void)hash;
    (void)on_worker;
  }
};

/// Where the engine runs optimised compiles (the CUDA backend's TierUp
/// worker). Empty: no tiering, every compile is optimised at once.
struct BackgroundWorker {
  std::function<void(std::function<void()>)> submit;
  std::function<void()> wait_idle;
};

class JitEngine {
 public:
  /// The optimised kernel of a request whose first kernel was compiled at
  /// the quick tier, when it is ready (called on the worker). The request's
  /// signature is a copy the job owns.
  using Replace = std::function<void(const KernelRequest &, std::shared_ptr<const CompiledKernel>)>;

  /// Everything outlives the engine. `disk` null: no disk cache. Tiering
  /// needs a worker and UFJIT_TIERING (on by default).
  JitEngine(KernelCache &cache, KernelToolchain &toolchain, cache::DiskCache *disk, BackgroundWorker worker = {});
  JitEngine(const JitEngine &) = delete;
  JitEngine &operator=(const JitEngine &) = delete;

  /// The in-memory cache key of `request` on this engine's target.
  KernelKey key(const KernelRequest &request) const;
  /// The kernel of `request`: the in-memory cache's, else build()'s (one
  /// build per key, however many threads ask). `replace` empty: the kernel
  /// is never replaced, so it is compiled optimised at once.
  std::shared_ptr<const CompiledKernel> acquire(const KernelRequest &request, const Replace &replace = {});
  /// Returns when every optimised compile queued so far has been swapped in.
  void wait_for_optimised();
  /// The in-memory cache (HotKernels counts its hits there).
  KernelCache &cache() { return cache_; }

 private:
  std::shared_ptr<const CompiledKernel> build(const KernelRequest &request, const Replace &replace);
  std::shared_ptr<const CompiledKernel> from_disk(const KernelRequest &request, const cache::KeyHash &hash);
  void store(const KernelRequest &request, const std::optional<cache::KeyHash> &hash, const std::string &label,
             std::string image, bool on_worker);
  void tier_up(const KernelRequest &request, const std::optional<cache::KeyHash> &hash, const std::string &label,
               const Replace &replace);

  KernelCache &cache_;
  KernelToolchain &toolchain_;
  cache::DiskCache *disk_;
  BackgroundWorker worker_;
  bool tiering_;
};

}  // namespace ufjit::runtime
