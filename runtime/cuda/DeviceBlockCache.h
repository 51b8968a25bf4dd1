// Idle device blocks kept for the results of synchronous calls.
//
// A tiny synchronous call that returns a new device array spends about 2.5 us
// of its 12-17 us in cuMemAllocAsync and, when the result is dropped,
// cuMemFreeAsync (docs/PERFORMANCE.md, per call). Like CuPy's memory pool,
// this cache keeps freed blocks of up to kMaxBlockBytes, by power-of-two size
// class, and hands them out again without a driver call.
//
// Why reuse without a stream operation is safe: a block is handed out only
// as the result of a SYNCHRONOUS call, whose kernel runs on the legacy
// default stream or on HostStaging's streams after an event of the legacy
// stream. The legacy stream waits for all earlier work of every blocking
// stream, and all of ufjit's streams are blocking, so any kernel of an async
// call that still reads or writes the block's previous array finishes first.
// Async calls, device_empty and to_device take their memory from the
// driver's pool, stream-ordered, never from here. Blocks are device
// addresses (CUdeviceptr values); this class never calls the driver.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace ufjit::cuda {

class DeviceBlockCache {
 public:
  static constexpr std::size_t kMinBlockBytes = 256;
  static constexpr std::size_t kMaxBlockBytes = std::size_t{4} << 20;
  /// At most this much memory sits idle here; more is freed to the driver.
  static constexpr std::size_t kMaxIdleBytes = std::size_t{64} << 20;

  /// Whether a request of `bytes` goes through the cache.
  static bool cacheable(std::size_t bytes) { return bytes > 0 && bytes <= kMaxBlockBytes; }
  /// The size class of a cacheable request: a power of two, at least kMinBlockBytes.
  static std::size_t block_bytes(std::size_t bytes);

  /// An idle block of exactly `block` bytes, or 0 when there is none.
  uint64_t take(std::size_t block);
  /// Keeps `ptr` (of `block` bytes) for reuse. False when the cache is full:
  /// the caller frees it.
  bool keep(uint64_t ptr, std::size_t block);
  /// Removes and returns every idle block (to free them).
  std::vector<uint64_t> drain();

 private:
  static constexpr int kClasses = 15;  // 256 B .. 4 MiB
  static int class_of(std::size_t block);

  std::mutex mutex_;
  std::array<std::vector<uint64_t>, kClasses> idle_;
  std::size_t idle_bytes_ = 0;
};

}  // namespace ufjit::cuda
