// The in-memory kernel cache (compile once per key; see KernelCache.h).
#include "runtime/KernelCache.h"

#include <sstream>

namespace ufjit::runtime {

std::string KernelKey::str() const {
  std::ostringstream os;
  os << std::hex << ir_hash << std::dec << '|' << signature << '|' << target_key << '|' << arch << '|'
     << float_options << '|' << variant.suffix();
  return os.str();
}

std::shared_ptr<const CompiledKernel> KernelCache::get_or_compile(const KernelKey &key, const Compile &compile) {
  const std::string text = key.str();
  std::promise<std::shared_ptr<const CompiledKernel>> promise;
  Future future;
  bool owner = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(text);
    if (it != entries_.end()) {
      ++stats_.hits;
      future = it->second;
    } else {
      ++stats_.misses;
      owner = true;
      future = promise.get_future().share();
      entries_.emplace(text, future);
    }
  }
  if (!owner) {
    return future.get();  // rethrows the owner's compile error
  }
  try {
    std::shared_ptr<const CompiledKernel> kernel = compile();
    promise.set_value(kernel);
    return kernel;
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.failures;
      entries_.erase(text);  // a failed compile leaves no entry behind
    }
    promise.set_exception(std::current_exception());
    throw;
  }
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  KernelCacheStats s = stats_;
  s.hits += front_hits_.load(std::memory_order_relaxed);
  s.entries = entries_.size();
  return s;
}

void KernelCache::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

}  // namespace ufjit::runtime
