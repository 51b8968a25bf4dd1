#include "runtime/cuda/DeviceBlockCache.h"

#include <bit>

namespace ufjit::cuda {

std::size_t DeviceBlockCache::block_bytes(std::size_t bytes) {
  return bytes <= kMinBlockBytes ? kMinBlockBytes : std::bit_ceil(bytes);
}

int DeviceBlockCache::class_of(std::size_t block) {
  return std::countr_zero(block) - std::countr_zero(kMinBlockBytes);
}

uint64_t DeviceBlockCache::take(std::size_t block) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<uint64_t> &idle = idle_[static_cast<std::size_t>(class_of(block))];
  if (idle.empty()) {
    return 0;
  }
  const uint64_t ptr = idle.back();
  idle.pop_back();
  idle_bytes_ -= block;
  return ptr;
}

bool DeviceBlockCache::keep(uint64_t ptr, std::size_t block) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (idle_bytes_ + block > kMaxIdleBytes) {
    return false;
  }
  idle_[static_cast<std::size_t>(class_of(block))].push_back(ptr);
  idle_bytes_ += block;
  return true;
}

std::vector<uint64_t> DeviceBlockCache::drain() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<uint64_t> all;
  for (std::vector<uint64_t> &idle : idle_) {
    all.insert(all.end(), idle.begin(), idle.end());
    idle.clear();
  }
  idle_bytes_ = 0;
  return all;
}

}  // namespace ufjit::cuda
