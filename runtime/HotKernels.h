// The per-call kernel lookup in front of the JIT engine, for every backend.
//
// KernelCache's key is a canonical string (KernelKey::str()); building it
// costs more than a whole small CPU call. A backend's kernels differ only by
// the signature's code (ir_hash, base_name) and the variant, so a hit here
// is three integers hashed and compared under a shared lock; a miss falls
// through to the KernelCache, which still compiles each key once.
//
// replace() swaps in a better kernel for a key (the CUDA backend's tiering:
// a quickly compiled first kernel, then the optimised one) while calls may
// be reading the entry without a lock: the entry's kernel is an atomic
// pointer, and every kernel ever installed stays alive (owned_) until the
// HotKernels is destroyed, so a call that loaded the old one may finish it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "codegen/kernel/KernelABI.h"
#include "runtime/Backend.h"
#include "runtime/JitEngine.h"
#include "runtime/KernelCache.h"
#include "runtime/KernelRequest.h"

namespace ufjit::runtime {

/// A kernel and the parameter table of its entry (KernelParams packs it),
/// both made once per kernel rather than per call.
template <typename Kernel>
class HotKernel {
 public:
  /// The kernel to launch now (a tier-up may replace it between calls).
  const Kernel &kernel() const { return *current_.load(std::memory_order_acquire); }
  const std::vector<codegen::KernelParam> &params() const { return params_; }
  /// The entry takes codegen/kernel/KernelABI.h's Done parameter.
  bool takes_done_flag() const { return takes_done_flag_; }

 private:
  template <typename>
  friend class HotKernels;
  std::atomic<const Kernel *> current_{nullptr};
  std::vector<codegen::KernelParam> params_;
  bool takes_done_flag_ = false;
};

template <typename Kernel>
class HotKernels {
 public:
  /// The kernel of `request` (an elementwise or gufunc entry): a hit in the
  /// map, else `engine.acquire(request)`, remembered for the next call. A
  /// kernel the engine compiled at the quick tier is replaced here when its
  /// optimised kernel is ready.
  const HotKernel<Kernel> &get(const KernelRequest &request, JitEngine &engine) {
    const CompiledSignature &sig = *request.signature;
    const codegen::KernelVariant &variant = request.variant;
    const HotKey hot{sig.ir_hash, sig.base_name_hash, variant_bits(variant), variant.scalar_mask};
    // The kernel of the previous call, without a lock: a loop of calls of
    // one kernel (the usual case) skips the map. Entries are never removed
    // and unordered_map never moves its elements, so the pointer stays valid.
    if (const Entry *last = last_.load(std::memory_order_acquire); last != nullptr && last->first == hot) {
      engine.cache().record_hit();
      return last->second;
    }
    {
      std::shared_lock<std::shared_mutex> lock(mutex_);
      auto it = map_.find(hot);
      if (it != map_.end()) {
        engine.cache().record_hit();
        last_.store(&*it, std::memory_order_release);
        return it->second;
      }
    }
    auto replace = [this](const KernelRequest &optimised, std::shared_ptr<const CompiledKernel> better) {
      this->replace(*optimised.signature, optimised.variant, std::static_pointer_cast<const Kernel>(std::move(better)));
    };
    auto kernel = std::static_pointer_cast<const Kernel>(engine.acquire(request, replace));
    std::unique_lock<std::shared_mutex> lock(mutex_);
    // A replace() that came first (a tier-up faster than this insert) wins.
    const Entry &made = install(hot, sig, variant, std::move(kernel), /*replace=*/false);
    last_.store(&made, std::memory_order_release);
    return made.second;
  }

  /// From now on get() of `sig` and `variant` returns `better`. The kernel it
  /// returned before stays alive (references to it remain valid).
  void replace(const CompiledSignature &sig, const codegen::KernelVariant &variant,
               std::shared_ptr<const Kernel> better) {
    const HotKey hot{sig.ir_hash, sig.base_name_hash, variant_bits(variant), variant.scalar_mask};
    std::unique_lock<std::shared_mutex> lock(mutex_);
    install(hot, sig, variant, std::move(better), /*replace=*/true);
  }

 private:
  struct HotKey {
    uint64_t ir_hash = 0;
    uint64_t name_hash = 0;
    uint64_t variant = 0;  // variant_bits
    uint64_t scalar_mask = 0;
    bool operator==(const HotKey &o) const {
      return ir_hash == o.ir_hash && name_hash == o.name_hash && variant == o.variant && scalar_mask == o.scalar_mask;
    }
  };
  struct HotKeyHash {
    std::size_t operator()(const HotKey &k) const {
      uint64_t h = k.ir_hash;
      h ^= k.name_hash + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h ^= k.variant + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h ^= k.scalar_mask + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      return static_cast<std::size_t>(h);
    }
  };

  using Map = std::unordered_map<HotKey, HotKernel<Kernel>, HotKeyHash>;
  using Entry = typename Map::value_type;

  static uint64_t variant_bits(const codegen::KernelVariant &v) {
    const uint64_t strided = v.layout == codegen::Layout::Strided ? 2 : 0;
    const uint64_t index32 = v.index32 ? 1 : 0;
    const uint64_t streaming = v.streaming_stores ? 4 : 0;
    return streaming | strided | index32;
  }

  /// Under the unique lock: the entry of `hot`, made with its parameter table
  /// if new; `kernel` becomes its kernel if the entry is new or `replace`.
  const Entry &install(const HotKey &hot, const CompiledSignature &sig, const codegen::KernelVariant &variant,
                       std::shared_ptr<const Kernel> kernel, bool replace) {
    auto [it, made] = map_.try_emplace(hot);
    if (made) {
      it->second.params_ = entry_params(sig, variant);
      for (const codegen::KernelParam &param : it->second.params_) {
        it->second.takes_done_flag_ = it->second.takes_done_flag_ || param.role == codegen::ParamRole::Done;
      }
    }
    if (made || replace) {
      it->second.current_.store(kernel.get(), std::memory_order_release);
      owned_.push_back(std::move(kernel));
    }
    return *it;
  }

  std::shared_mutex mutex_;
  Map map_;
  std::atomic<const Entry *> last_{nullptr};          // the entry of the last lookup
  std::vector<std::shared_ptr<const Kernel>> owned_;  // every kernel installed, replaced ones too
};

}  // namespace ufjit::runtime
