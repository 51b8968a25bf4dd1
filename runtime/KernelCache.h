// The in-memory kernel cache: compile once per key, however many threads ask.
//
// Keyed by everything that affects the code (STYLE.md 14): the module's
// canonical IR hash, the signature, the target key (arch, PTX ISA, device
// context, host CPU), the float options and the kernel variant. The first
// thread to ask for a key compiles; the others wait on a shared future. A
// failed compile leaves no entry behind (the next call tries again and gets
// the same error). Owned by the RuntimeImpl, shared by its backends.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "codegen/kernel/KernelABI.h"

namespace ufjit::runtime {

struct CompiledKernel;

struct KernelKey {
  uint64_t ir_hash = 0;
  std::string signature;
  std::string target_key;  // Backend::key()
  std::string arch;        // "sm_90", or the host CPU name
  std::string float_options;  // "fastmath=0"
  codegen::KernelVariant variant;

  /// One canonical string (also a log line): every field, '|'-separated.
  std::string str() const;
  bool operator<(const KernelKey &o) const { return str() < o.str(); }
};

struct KernelCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;  // compiles started
  uint64_t failures = 0;
  std::size_t entries = 0;
};

class KernelCache {
 public:
  using Compile = std::function<std::shared_ptr<const CompiledKernel>()>;

  /// The kernel for `key`, compiling it with `compile` on a miss. Concurrent
  /// callers with the same key share one compile. Rethrows the compile's
  /// exception to every waiter and forgets the key.
  std::shared_ptr<const CompiledKernel> get_or_compile(const KernelKey &key, const Compile &compile);

  /// Counts a hit served in front of the cache (HotKernels), so that the
  /// statistics count every lookup.
  void record_hit() { front_hits_.fetch_add(1, std::memory_order_relaxed); }

  KernelCacheStats stats() const;
  /// Drops every entry (kernels in use stay alive through their shared_ptr).
  void clear();

 private:
  using Future = std::shared_future<std::shared_ptr<const CompiledKernel>>;
  mutable std::mutex mutex_;
  std::map<std::string, Future> entries_;
  KernelCacheStats stats_;
  std::atomic<uint64_t> front_hits_{0};
};

}  // namespace ufjit::runtime
