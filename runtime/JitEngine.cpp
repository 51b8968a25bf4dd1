// Acquiring compiled kernels: see JitEngine.h.
#include "runtime/JitEngine.h"

#include <chrono>
#include <iostream>
#include <utility>

#include "support/InternalAssert.h"
#include "support/Milliseconds.h"
#include "support/Settings.h"
#include "ufjit/errors.h"

namespace ufjit::runtime {

namespace {

using Clock = std::chrono::steady_clock;

/// UFJIT_DEBUG=1 logs where a first call's time goes (stderr).
bool logging() { return support::debug_level() >= 1; }

}  // namespace

std::shared_ptr<CompiledKernel> KernelToolchain::load(const std::string &image, const KernelRequest &request) {
  (void)image;
  internal_assert(false) << "a target without a disk cache was asked to load " << request.entry_name();
  return nullptr;
}

JitEngine::JitEngine(KernelCache &cache, KernelToolchain &toolchain, cache::DiskCache *disk, BackgroundWorker worker)
    : cache_(cache),
      toolchain_(toolchain),
      disk_(disk),
      worker_(std::move(worker)),
      // UFJIT_TIERING=0: every compile is optimised at once.
      tiering_(worker_.submit && support::read_switch("UFJIT_TIERING", true)) {}

KernelKey JitEngine::key(const KernelRequest &request) const {
  return kernel_key(request, toolchain_.target_key(), toolchain_.arch());
}

std::shared_ptr<const CompiledKernel> JitEngine::acquire(const KernelRequest &request, const Replace &replace) {
  return cache_.get_or_compile(key(request), [&] { return build(request, replace); });
}

void JitEngine::wait_for_optimised() {
  if (worker_.wait_idle) {
    worker_.wait_idle();
  }
}

std::shared_ptr<const CompiledKernel> JitEngine::build(const KernelRequest &request, const Replace &replace) {
  std::optional<cache::KeyHash> hash;
  std::string label;
  if (disk_ != nullptr) {
    if (std::optional<cache::DiskCacheKey> disk_key = toolchain_.disk_key(request)) {
      hash = cache::hash_key(*disk_key);
      label = request.entry_name() + " " + disk_key->arch;
      if (std::shared_ptr<const CompiledKernel> kernel = from_disk(request, *hash)) {
        return kernel;
      }
    }
  }
  const bool quick = tiering_ && replace && toolchain_.can_compile_quick(request);
  BuiltKernel built = toolchain_.compile(request, quick ? codegen::PtxTier::Quick : codegen::PtxTier::Optimized);
  built.kernel->quick_tier = quick;
  if (quick) {
    tier_up(request, hash, label, replace);  // only optimised kernels go to disk
  } else {
    store(request, hash, label, std::move(built.image), /*on_worker=*/false);  // off the critical path
  }
  return built.kernel;
}

std::shared_ptr<const CompiledKernel> JitEngine::from_disk(const KernelRequest &request, const cache::KeyHash &hash) {
  const Clock::time_point t0 = Clock::now();
  if (std::shared_ptr<CompiledKernel> kernel = toolchain_.take_prefetched(request, hash)) {
    if (logging()) {
      std::cerr << "ufjit: " << request.entry_name() << ": disk cache hit, prefetched while typing, taken in "
                << support::milliseconds_since(t0) << " ms\n";
    }
    return kernel;
  }
  std::optional<std::string> image = disk_->load(hash);
  if (!image) {
    return nullptr;
  }
  try {
    std::shared_ptr<CompiledKernel> kernel = toolchain_.load(*image, request);
    toolchain_.note_stored(request, hash, /*on_worker=*/false);  // for the next process, if its index lacks it
    if (logging()) {
      std::cerr << "ufjit: " << request.entry_name() << ": disk cache hit, read and loaded in " << support::milliseconds_since(t0)
                << " ms\n";
    }
    return kernel;
  } catch (const DeviceError &) {
    return nullptr;  // an entry the driver rejects (a change the key missed): compiled and overwritten
  }
}

void JitEngine::store(const KernelRequest &request, const std::optional<cache::KeyHash> &hash,
                      const std::string &label, std::string image, bool on_worker) {
  if (!hash || image.empty()) {
    return;
  }
  disk_->store_in_background(*hash, label, std::move(image));
  toolchain_.note_stored(request, *hash, on_worker);
}

void JitEngine::tier_up(const KernelRequest &request, const std::optional<cache::KeyHash> &hash,
                        const std::string &label, const Replace &replace) {
  // The job owns a copy of the signature: the ufunc may be gone first.
  auto owned = std::make_shared<const CompiledSignature>(*request.signature);
  KernelRequest later = request;
  later.signature = owned.get();
  worker_.submit([this, owned, later, hash, label, replace] {
    const Clock::time_point t0 = Clock::now();
    try {
      BuiltKernel built = toolchain_.compile(later, codegen::PtxTier::Optimized);
      replace(later, built.kernel);
      store(later, hash, label, std::move(built.image), /*on_worker=*/true);
      if (logging()) {
        std::cerr << "ufjit: " << later.entry_name() << ": optimised kernel swapped in after " << support::milliseconds_since(t0)
                  << " ms in the background\n";
      }
    } catch (const std::exception &e) {
      if (logging()) {
        std::cerr << "ufjit: " << later.entry_name() << ": the optimised compile failed, the quick kernel stays: "
                  << e.what() << "\n";
      }
    }
  });
}

}  // namespace ufjit::runtime
