// The per-call kernel lookup in front of the KernelCache, for every backend.
//
// KernelCache's key is a canonical string (KernelKey::str()); building it
// costs more than a whole small CPU call. A backend's kernels differ only by
// the signature's code (ir_hash, base_name) and the variant, so a hit here
// is three integers hashed and compared under a shared lock; a miss falls
// through to the KernelCache, which still compiles each key once.
//
// replace() swaps in a better kernel for a key (the CUDA backend's tiering:
// a quickly compiled first kernel, then the optimised one). A caller may
// still hold a reference from get(), so replaced kernels stay alive until the
// HotKernels is destroyed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "codegen/KernelABI.h"
#include "runtime/Backend.h"
#include "runtime/KernelCache.h"

namespace ufjit::runtime {

template <typename Kernel>
class HotKernels {
 public:
  using Build = std::function<std::shared_ptr<const CompiledKernel>()>;

  /// The kernel of `sig` and `variant`: a hit in the map, else
  /// `cache.get_or_compile(key(), build)`, remembered for the next call.
  template <typename MakeKey>
  const Kernel &get(const CompiledSignature &sig, const codegen::KernelVariant &variant, KernelCache &cache,
                    const MakeKey &key, const Build &build) {
    const HotKey hot{sig.ir_hash, sig.base_name_hash, variant_bits(variant)};
    {
      std::shared_lock<std::shared_mutex> lock(mutex_);
      auto it = map_.find(hot);
      if (it != map_.end()) {
        cache.record_hit();
        return *it->second;
      }
    }
    auto kernel = std::static_pointer_cast<const Kernel>(cache.get_or_compile(key(), build));
    std::unique_lock<std::shared_mutex> lock(mutex_);
    // A replace() that came first (a tier-up faster than this insert) wins.
    return *map_.emplace(hot, std::move(kernel)).first->second;
  }

  /// From now on get() of `sig` and `variant` returns `better`. The kernel it
  /// returned before stays alive (references to it remain valid).
  void replace(const CompiledSignature &sig, const codegen::KernelVariant &variant,
               std::shared_ptr<const Kernel> better) {
    const HotKey hot{sig.ir_hash, sig.base_name_hash, variant_bits(variant)};
    std::unique_lock<std::shared_mutex> lock(mutex_);
    std::shared_ptr<const Kernel> &slot = map_[hot];
    if (slot) {
      retired_.push_back(std::move(slot));
    }
    slot = std::move(better);
  }

 private:
  struct HotKey {
    uint64_t ir_hash = 0;
    uint64_t name_hash = 0;
    uint64_t variant = 0;
    bool operator==(const HotKey &o) const {
      return ir_hash == o.ir_hash && name_hash == o.name_hash && variant == o.variant;
    }
  };
  struct HotKeyHash {
    std::size_t operator()(const HotKey &k) const {
      uint64_t h = k.ir_hash;
      h ^= k.name_hash + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h ^= k.variant + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      return static_cast<std::size_t>(h);
    }
  };

  static uint64_t variant_bits(const codegen::KernelVariant &v) {
    const uint64_t strided = v.layout == codegen::Layout::Strided ? 2 : 0;
    const uint64_t index32 = v.index32 ? 1 : 0;
    return (uint64_t{v.scalar_mask} << 2) | strided | index32;
  }

  std::shared_mutex mutex_;
  std::unordered_map<HotKey, std::shared_ptr<const Kernel>, HotKeyHash> map_;
  std::vector<std::shared_ptr<const Kernel>> retired_;  // replaced, perhaps still in use
};

}  // namespace ufjit::runtime
