// Kernels loaded from the disk cache while the frontend types their source.
//
// `vectorize` knows a source's SourceKey before typing it; the CUDA backend
// reads that source's index (runtime/cache/SourceIndex.h) and loads the
// cubins it lists on its worker thread, while the caller types the source.
// The first call's build() then computes the cubin's key from the typed IR,
// as it always does, and takes the kernel from here instead of reading and
// loading it itself. This class is that hand-over, apart from any driver:
//
//   caller: expect(source) -> queue the worker's job
//   worker: begin(source) -> read the index -> listed(source, cubins)
//           -> for each: claim(cubin) -> load -> finish(cubin, kernel)
//   build(): take(source, cubin)
//
// take() never waits for work that has not started: a job still queued
// (behind a tier-up compile) is cancelled, and a cubin not yet claimed is
// left to the caller, which loads it as before and the worker skips. It
// waits only for an index being read (one small file) or a cubin being
// loaded, which the caller would otherwise repeat. A kernel loaded and not
// taken stays until the backend goes (at most kMaxHeld of them).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace ufjit::runtime {

/// A 128-bit hash as a map key: a SourceKey, or a cubin key with its entry.
using PrefetchKey = std::pair<uint64_t, uint64_t>;

template <typename Kernel>
class KernelPrefetch {
 public:
  /// Kernels loaded and not yet taken, at most: a process typing many
  /// sources it never calls holds no more modules than this.
  static constexpr std::size_t kMaxHeld = 256;

  /// Caller: a job for `source` is about to be queued. False when one is
  /// already queued or reading (queue none then).
  bool expect(const PrefetchKey &source) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [found, added] = sources_.emplace(source, SourceState::Queued);
    if (!added && found->second == SourceState::Cancelled) {
      found->second = SourceState::Queued;  // the job already queued serves this one too
    }
    return added;
  }

  /// Worker: the job of `source` starts. False when a build() has given up
  /// on it meanwhile; the job then does nothing.
  bool begin(const PrefetchKey &source) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = sources_.find(source);
    if (found == sources_.end() || found->second == SourceState::Cancelled) {
      if (found != sources_.end()) {
        sources_.erase(found);
      }
      return false;
    }
    found->second = SourceState::Reading;
    return true;
  }

  /// Worker: `source`'s index lists `cubins`. Returns those to load, in
  /// order: the ones not already here, while fewer than kMaxHeld are held.
  /// Call it even when the index could not be read (with none), so that a
  /// build() waiting for the index goes on.
  std::vector<PrefetchKey> listed(const PrefetchKey &source, const std::vector<PrefetchKey> &cubins) {
    std::vector<PrefetchKey> to_load;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      sources_.erase(source);
      for (const PrefetchKey &cubin : cubins) {
        if (kernels_.size() >= kMaxHeld) {
          break;
        }
        if (kernels_.emplace(cubin, Slot{}).second) {
          to_load.push_back(cubin);
        }
      }
    }
    changed_.notify_all();
    return to_load;
  }

  /// Worker: before loading `cubin`. False when a build() took it over.
  bool claim(const PrefetchKey &cubin) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = kernels_.find(cubin);
    if (found == kernels_.end() || found->second.state != SlotState::Queued) {
      return false;
    }
    found->second.state = SlotState::Loading;
    return true;
  }

  /// Worker: the kernel of a claimed `cubin`; null when its load failed.
  /// Must follow every claim() that returned true.
  void finish(const PrefetchKey &cubin, std::shared_ptr<Kernel> kernel) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = kernels_.find(cubin);
      if (found == kernels_.end()) {
        return;
      }
      if (kernel) {
        found->second.kernel = std::move(kernel);
        found->second.state = SlotState::Loaded;
      } else {
        kernels_.erase(found);  // a failed load: the caller loads it itself
      }
    }
    changed_.notify_all();
  }

  /// build(): the prefetched kernel of `cubin` (of `source`'s index), or
  /// null when the caller must load it itself. Waits while `source`'s
  /// index is read or `cubin` is loaded.
  std::shared_ptr<Kernel> take(const PrefetchKey &source, const PrefetchKey &cubin) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (auto found = sources_.find(source); found != sources_.end(); found = sources_.find(source)) {
      if (found->second != SourceState::Reading) {
        found->second = SourceState::Cancelled;  // not started: not worth waiting for
        break;
      }
      changed_.wait(lock);
    }
    for (auto found = kernels_.find(cubin); found != kernels_.end(); found = kernels_.find(cubin)) {
      if (found->second.state == SlotState::Loading) {
        changed_.wait(lock);
        continue;
      }
      std::shared_ptr<Kernel> kernel = std::move(found->second.kernel);  // null while queued
      kernels_.erase(found);
      taken_ += kernel ? 1 : 0;
      return kernel;
    }
    return nullptr;
  }

  /// Kernels take() has handed over.
  uint64_t taken() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return taken_;
  }
  /// Kernels loaded, or queued or being loaded, and not taken.
  std::size_t held() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return kernels_.size();
  }

 private:
  enum class SourceState { Queued, Reading, Cancelled };
  enum class SlotState { Queued, Loading, Loaded };
  struct Slot {
    SlotState state = SlotState::Queued;
    std::shared_ptr<Kernel> kernel;
  };

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<PrefetchKey, SourceState> sources_;
  std::map<PrefetchKey, Slot> kernels_;
  uint64_t taken_ = 0;
};

}  // namespace ufjit::runtime
